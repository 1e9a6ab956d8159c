// Unit tests of binary ONNX import/export: tensor storage forms, external data,
// scoping of subgraphs, unsorted graphs, error messages.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/field_comparator.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/limits.h"
#include "graph/onnx_export.h"
#include "graph/onnx_import.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// A fresh directory under the test's scratch space.
std::string TempDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir =
      std::filesystem::path(root != nullptr ? root : std::filesystem::temp_directory_path()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

template <typename T>
std::vector<uint8_t> BytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<uint8_t> DenseBytes(const Elements& e) {
  std::vector<uint8_t> bytes(e.ByteSize());
  e.CopyTo(bytes.data());
  return bytes;
}

// A model whose graph has the single initializer `t`, output as well.
onnx::ModelProto ModelWithInitializer(const onnx::TensorProto& t) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  *g->add_initializer() = t;
  g->add_output()->set_name(t.name());
  return m;
}

// Imports the single initializer of ModelWithInitializer(t).
absl::StatusOr<std::shared_ptr<const Elements>> ImportInitializer(
    const onnx::TensorProto& t, const ImportOptions& options = {}) {
  auto model = ImportModelProto(ModelWithInitializer(t), options);
  if (!model.ok()) return model.status();
  const auto& inits = (*model)->graph().initializers();
  if (inits.size() != 1) return absl::InternalError("expected one initializer");
  return inits[0]->constant();
}

onnx::TensorProto Tensor(onnx::TensorProto::DataType type, std::vector<int64_t> dims) {
  onnx::TensorProto t;
  t.set_name("t");
  t.set_data_type(type);
  for (int64_t d : dims) t.add_dims(d);
  return t;
}

// --------------------------------------------------------------------------
// Storage forms

TEST(OnnxImportTensorTest, RawData) {
  onnx::TensorProto t = Tensor(onnx::TensorProto::FLOAT, {2});
  const std::vector<float> values = {1.5f, -2.0f};
  t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), 8));
  auto e = ImportInitializer(t);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)->element_type(), ElementType::kFloat);
  EXPECT_THAT((*e)->dims(), ElementsAre(2));
  EXPECT_EQ(DenseBytes(**e), BytesOf(values));
}

struct StorageCase {
  const char* label;
  onnx::TensorProto tensor;
  std::vector<uint8_t> expected;
};

std::vector<StorageCase> StorageCases() {
  std::vector<StorageCase> cases;
  auto add = [&](const char* label, onnx::TensorProto::DataType type, std::vector<int64_t> dims,
                 auto fill, std::vector<uint8_t> expected) {
    onnx::TensorProto t = Tensor(type, dims);
    fill(&t);
    cases.push_back({label, t, expected});
  };
  add(
      "float_data", onnx::TensorProto::FLOAT, {2},
      [](onnx::TensorProto* t) {
        t->add_float_data(1.5f);
        t->add_float_data(-2.0f);
      },
      BytesOf(std::vector<float>{1.5f, -2.0f}));
  add(
      "int32", onnx::TensorProto::INT32, {2},
      [](onnx::TensorProto* t) {
        t->add_int32_data(-7);
        t->add_int32_data(1 << 30);
      },
      BytesOf(std::vector<int32_t>{-7, 1 << 30}));
  add("int8", onnx::TensorProto::INT8, {3},
      [](onnx::TensorProto* t) {
        t->add_int32_data(-1);
        t->add_int32_data(2);
        t->add_int32_data(-128);
      },
      {0xff, 0x02, 0x80});
  add("uint8", onnx::TensorProto::UINT8, {2},
      [](onnx::TensorProto* t) {
        t->add_int32_data(255);
        t->add_int32_data(7);
      },
      {0xff, 0x07});
  add(
      "int16", onnx::TensorProto::INT16, {2},
      [](onnx::TensorProto* t) {
        t->add_int32_data(-2);
        t->add_int32_data(300);
      },
      BytesOf(std::vector<int16_t>{-2, 300}));
  add("uint16", onnx::TensorProto::UINT16, {1},
      [](onnx::TensorProto* t) { t->add_int32_data(65535); }, {0xff, 0xff});
  add("bool", onnx::TensorProto::BOOL, {3},
      [](onnx::TensorProto* t) {
        t->add_int32_data(1);
        t->add_int32_data(0);
        t->add_int32_data(5);  // Any nonzero value is true.
      },
      {1, 0, 1});
  add("float16 bit pattern", onnx::TensorProto::FLOAT16, {2},
      [](onnx::TensorProto* t) {
        t->add_int32_data(0x3c00);  // 1.0
        t->add_int32_data(0xc000);  // -2.0
      },
      {0x00, 0x3c, 0x00, 0xc0});
  add("bfloat16 bit pattern", onnx::TensorProto::BFLOAT16, {1},
      [](onnx::TensorProto* t) { t->add_int32_data(0x3f80); }, {0x80, 0x3f});
  add(
      "int64", onnx::TensorProto::INT64, {2},
      [](onnx::TensorProto* t) {
        t->add_int64_data(-1);
        t->add_int64_data(int64_t{1} << 40);
      },
      BytesOf(std::vector<int64_t>{-1, int64_t{1} << 40}));
  add(
      "uint32 in uint64_data", onnx::TensorProto::UINT32, {2},
      [](onnx::TensorProto* t) {
        t->add_uint64_data(0xffffffffu);
        t->add_uint64_data(1);
      },
      BytesOf(std::vector<uint32_t>{0xffffffffu, 1}));
  add(
      "uint64", onnx::TensorProto::UINT64, {1},
      [](onnx::TensorProto* t) { t->add_uint64_data(~uint64_t{0}); },
      BytesOf(std::vector<uint64_t>{~uint64_t{0}}));
  add(
      "double", onnx::TensorProto::DOUBLE, {2},
      [](onnx::TensorProto* t) {
        t->add_double_data(0.25);
        t->add_double_data(-1e300);
      },
      BytesOf(std::vector<double>{0.25, -1e300}));
  add(
      "complex64 pairs in float_data", onnx::TensorProto::COMPLEX64, {2},
      [](onnx::TensorProto* t) {
        for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) t->add_float_data(v);
      },
      BytesOf(std::vector<float>{1, 2, 3, 4}));
  add(
      "complex128 pairs in double_data", onnx::TensorProto::COMPLEX128, {1},
      [](onnx::TensorProto* t) {
        t->add_double_data(5.0);
        t->add_double_data(-6.0);
      },
      BytesOf(std::vector<double>{5, -6}));
  add("empty tensor", onnx::TensorProto::FLOAT, {0, 3}, [](onnx::TensorProto*) {}, {});
  add(
      "scalar", onnx::TensorProto::INT64, {}, [](onnx::TensorProto* t) { t->add_int64_data(9); },
      BytesOf(std::vector<int64_t>{9}));
  return cases;
}

TEST(OnnxImportTensorTest, EveryTypedStorageFormGivesDenseLittleEndianBytes) {
  for (const StorageCase& c : StorageCases()) {
    SCOPED_TRACE(c.label);
    auto e = ImportInitializer(c.tensor);
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(static_cast<int>((*e)->element_type()), c.tensor.data_type());
    EXPECT_THAT((*e)->dims(), ElementsAreArray(c.tensor.dims()));
    EXPECT_EQ(DenseBytes(**e), c.expected);
  }
}

TEST(OnnxImportTensorTest, ExportWritesEveryFormBackAsRawData) {
  for (const StorageCase& c : StorageCases()) {
    SCOPED_TRACE(c.label);
    auto model = ImportModelProto(ModelWithInitializer(c.tensor));
    ASSERT_TRUE(model.ok()) << model.status();
    onnx::ModelProto exported;
    ASSERT_TRUE(ExportModelProto(**model, &exported).ok());
    const onnx::TensorProto& t = exported.graph().initializer(0);
    EXPECT_EQ(t.data_type(), c.tensor.data_type());
    EXPECT_TRUE(t.has_raw_data());
    EXPECT_EQ(t.raw_data(), std::string(c.expected.begin(), c.expected.end()));
    EXPECT_EQ(t.float_data_size() + t.int32_data_size() + t.int64_data_size() +
                  t.double_data_size() + t.uint64_data_size(),
              0);
  }
}

TEST(OnnxImportTensorTest, Strings) {
  onnx::TensorProto t = Tensor(onnx::TensorProto::STRING, {2});
  t.add_string_data("a");
  t.add_string_data(std::string("b\0c", 3));
  auto e = ImportInitializer(t);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)->element_type(), ElementType::kString);
  EXPECT_THAT((*e)->strings(), ElementsAre("a", std::string("b\0c", 3)));
}

TEST(OnnxImportTensorTest, WrongValueCountNamesTensorAndField) {
  onnx::TensorProto t = Tensor(onnx::TensorProto::FLOAT, {2});
  t.set_name("weights");
  t.add_float_data(1.0f);
  auto e = ImportInitializer(t);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("'weights'"));
  EXPECT_THAT(e.status().message(), HasSubstr("float_data"));

  onnx::TensorProto raw = Tensor(onnx::TensorProto::INT32, {2});
  raw.set_raw_data("abc");
  e = ImportInitializer(raw);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("raw_data has 3 bytes, expected 8"));
}

TEST(OnnxImportTensorTest, UnknownDataTypeIsAnError) {
  onnx::TensorProto t = Tensor(static_cast<onnx::TensorProto::DataType>(99), {1});
  auto e = ImportInitializer(t);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("unsupported data type 99"));
}

// --------------------------------------------------------------------------
// External data

onnx::TensorProto ExternalTensor(const std::string& name, int64_t count,
                                 const std::string& location, int64_t offset, int64_t length) {
  onnx::TensorProto t = Tensor(onnx::TensorProto::FLOAT, {count});
  t.set_name(name);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&t](const std::string& key, const std::string& value) {
    auto* entry = t.add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  };
  add("location", location);
  add("offset", std::to_string(offset));
  if (length >= 0) add("length", std::to_string(length));
  return t;
}

TEST(OnnxExternalDataTest, ImportReadsOffsetAndLength) {
  const std::string dir = TempDir("external_import");
  const std::vector<float> values = {1, 2, 3, 4, 5, 6};
  std::string file = "junk";  // The tensor starts at offset 4.
  file.append(reinterpret_cast<const char*>(values.data()), values.size() * 4);
  file += "trailing";
  WriteFile(dir + "/w.bin", file);

  auto e = ImportInitializer(ExternalTensor("w", 6, "w.bin", 4, 24), {dir});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(DenseBytes(**e), BytesOf(values));

  // Length missing: the data runs to the end of the file.
  WriteFile(dir + "/exact.bin", std::string(reinterpret_cast<const char*>(values.data()), 24));
  e = ImportInitializer(ExternalTensor("w", 6, "exact.bin", 0, -1), {dir});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(DenseBytes(**e), BytesOf(values));
}

TEST(OnnxExternalDataTest, MissingFileAndShortReadNameTheTensor) {
  const std::string dir = TempDir("external_errors");
  auto e = ImportInitializer(ExternalTensor("w", 6, "absent.bin", 0, 24), {dir});
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("tensor 'w'"));
  EXPECT_THAT(e.status().message(), HasSubstr("absent.bin"));
  EXPECT_THAT(e.status().message(), HasSubstr("No such file or directory"));

  WriteFile(dir + "/short.bin", std::string(10, 'x'));
  e = ImportInitializer(ExternalTensor("w", 6, "short.bin", 0, 24), {dir});
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("tensor 'w'"));
  EXPECT_THAT(e.status().message(), HasSubstr("too few"));

  e = ImportInitializer(ExternalTensor("w", 6, "short.bin", 0, 12), {dir});
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("does not match"));

  e = ImportInitializer(ExternalTensor("w", 6, "../short.bin", 0, 24), {dir});
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.status().message(), HasSubstr("relative path inside"));
}

TEST(OnnxExternalDataTest, FileRoundTrip) {
  const std::string dir = TempDir("external_round_trip");
  // Big initializer (external), small one (inline), big Constant attribute.
  std::vector<float> big(1000), attr_values(300);
  for (size_t i = 0; i < big.size(); ++i) big[i] = 0.5f * i;
  for (size_t i = 0; i < attr_values.size(); ++i) attr_values[i] = -1.0f * i;
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  onnx::TensorProto* b = g->add_initializer();
  *b = Tensor(onnx::TensorProto::FLOAT, {1000});
  b->set_name("big");
  b->mutable_float_data()->Add(big.begin(), big.end());
  onnx::TensorProto* s = g->add_initializer();
  *s = Tensor(onnx::TensorProto::INT64, {1});
  s->set_name("small");
  s->add_int64_data(42);
  onnx::NodeProto* c = g->add_node();
  c->set_op_type("Constant");
  c->add_output("k");
  onnx::AttributeProto* value = c->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  *value->mutable_t() = Tensor(onnx::TensorProto::FLOAT, {300});
  value->mutable_t()->mutable_float_data()->Add(attr_values.begin(), attr_values.end());
  onnx::NodeProto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("big");
  add->add_input("k");
  add->add_output("y");
  g->add_output()->set_name("y");
  g->add_output()->set_name("small");

  auto model = ImportModelProto(m);
  ASSERT_TRUE(model.ok()) << model.status();
  const std::string path = dir + "/m.onnx";
  ExportOptions options;
  options.external_data_path = dir + "/m.onnx.data";
  options.external_threshold_bytes = 1024;
  ASSERT_TRUE(ExportModelFile(**model, path, options).ok());

  // The proto refers to the data file by name; small tensors stay inline.
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(ReadFile(path)));
  const onnx::TensorProto& big_proto = written.graph().initializer(0);
  EXPECT_EQ(big_proto.data_location(), onnx::TensorProto::EXTERNAL);
  EXPECT_FALSE(big_proto.has_raw_data());
  std::map<std::string, std::string> entries;
  for (const auto& kv : big_proto.external_data()) {
    entries[kv.key()] = kv.value();
  }
  EXPECT_EQ(entries["location"], "m.onnx.data");
  EXPECT_EQ(entries["length"], "4000");
  std::map<std::string, std::string> attr_entries;
  for (const auto& kv : written.graph().node(0).attribute(0).t().external_data()) {
    attr_entries[kv.key()] = kv.value();
  }
  // Aligned for vector loads.
  EXPECT_EQ(std::stoll(attr_entries["offset"]) % 64, 0);
  EXPECT_EQ(written.graph().initializer(1).data_location(), onnx::TensorProto::DEFAULT);
  EXPECT_TRUE(written.graph().initializer(1).has_raw_data());
  EXPECT_EQ(written.graph().node(0).attribute(0).t().data_location(), onnx::TensorProto::EXTERNAL);
  EXPECT_GE(ReadFile(options.external_data_path).size(), 4000u + 1200u);

  auto reread = ImportModelFile(path);
  ASSERT_TRUE(reread.ok()) << reread.status();
  const Graph& graph = (*reread)->graph();
  ASSERT_EQ(graph.initializers().size(), 2u);
  EXPECT_EQ(DenseBytes(*graph.initializers()[0]->constant()), BytesOf(big));
  EXPECT_EQ(graph.initializers()[1]->constant()->GetInt64(0), 42);
  const Node* constant = *graph.nodes().begin();
  EXPECT_EQ(DenseBytes(*constant->FindAttribute("value")->tensors[0].elements),
            BytesOf(attr_values));

  // Without the data file the model cannot load; the error names the tensor.
  std::filesystem::remove(options.external_data_path);
  reread = ImportModelFile(path);
  ASSERT_FALSE(reread.ok());
  EXPECT_THAT(reread.status().message(), HasSubstr("tensor 'big'"));
}

TEST(OnnxExternalDataTest, DataFileMustSitNextToTheModel) {
  const std::string dir = TempDir("external_elsewhere");
  std::filesystem::create_directories(dir + "/sub");
  Model model;
  ExportOptions options;
  options.external_data_path = dir + "/sub/w.data";
  absl::Status s = ExportModelFile(model, dir + "/m.onnx", options);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("directory of the model"));
}

// --------------------------------------------------------------------------
// Graph structure

TEST(OnnxImportGraphTest, SubgraphCapturesOuterValue) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  onnx::GraphProto* g = m.mutable_graph();
  g->add_input()->set_name("x");
  g->add_input()->set_name("cond");
  onnx::NodeProto* node = g->add_node();
  node->set_op_type("If");
  node->set_name("if");
  node->add_input("cond");
  node->add_output("y");
  for (const char* branch : {"then_branch", "else_branch"}) {
    onnx::AttributeProto* a = node->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* body = a->mutable_g();
    onnx::NodeProto* inner = body->add_node();
    inner->set_op_type("Neg");
    inner->add_input("x");   // Captured from the outer graph.
    inner->add_output("z");  // Both branches define `z`: sibling scopes.
    body->add_output()->set_name("z");
  }
  g->add_output()->set_name("y");

  auto model = ImportModelProto(m);
  ASSERT_TRUE(model.ok()) << model.status();
  Graph& graph = (*model)->graph();
  Value* x = graph.FindValue("x");
  ASSERT_NE(x, nullptr);
  const Node* if_node = *graph.nodes().begin();
  std::vector<Graph*> subgraphs = if_node->Subgraphs();
  ASSERT_EQ(subgraphs.size(), 2u);
  for (Graph* sub : subgraphs) {
    EXPECT_EQ(sub->parent(), &graph);
    EXPECT_EQ(sub->owner_node(), if_node);
    const Node* neg = *sub->nodes().begin();
    EXPECT_EQ(neg->input(0), x);
    EXPECT_EQ(sub->outputs()[0], neg->output(0));
  }
  EXPECT_EQ(x->uses().size(), 2u);
}

TEST(OnnxImportGraphTest, UnsortedNodesAreSortedWithOneWarning) {
  onnx::ModelProto m;
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  g->add_input()->set_name("x");
  onnx::NodeProto* second = g->add_node();
  second->set_op_type("Relu");
  second->set_name("second");
  second->add_input("t");
  second->add_output("y");
  onnx::NodeProto* first = g->add_node();
  first->set_op_type("Neg");
  first->set_name("first");
  first->add_input("x");
  first->add_output("t");
  g->add_output()->set_name("y");

  std::vector<std::string> warnings;
  ImportOptions options;
  options.warnings = &warnings;
  auto model = ImportModelProto(m, options);
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<Node*> nodes = (*model)->graph().NodesSnapshot();
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0]->name(), "first");
  EXPECT_EQ(nodes[1]->input(0)->producer(), nodes[0]);
  EXPECT_THAT(warnings, ElementsAre("graph 'g' is not in topological order (node 'second' (Relu) "
                                    "reads 't' before node 'first' (Neg) defines it): its nodes "
                                    "were sorted, as ONNX Runtime does"));
  onnx::ModelProto exported;
  ASSERT_TRUE(ExportModelProto(**model, &exported).ok());
  EXPECT_EQ(exported.graph().node(0).name(), "first");

  // A sorted graph imports as written, without a warning.
  warnings.clear();
  ASSERT_TRUE(ImportModelProto(exported, options).ok());
  EXPECT_TRUE(warnings.empty());
}

// `n` Neg/Relu nodes x -> v1 -> ... -> vN listed last to first, then an If whose then_branch reads
// `late`, which a Relu listed after the If defines.
onnx::ModelProto ReversedChain(int n) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("main");
  g->add_input()->set_name("v0");
  g->add_input()->set_name("c");
  for (int i = n - 1; i >= 0; --i) {
    onnx::NodeProto* node = g->add_node();
    node->set_op_type(i % 2 ? "Relu" : "Neg");
    node->add_input("v" + std::to_string(i));
    node->add_output("v" + std::to_string(i + 1));
  }
  onnx::NodeProto* if_node = g->add_node();
  if_node->set_op_type("If");
  if_node->set_name("if");
  if_node->add_input("c");
  if_node->add_output("y");
  for (const char* branch : {"then_branch", "else_branch"}) {
    onnx::AttributeProto* a = if_node->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* body = a->mutable_g();
    body->set_name(branch);
    onnx::NodeProto* inner = body->add_node();
    inner->set_op_type("Identity");
    inner->add_input(std::string(branch) == "then_branch" ? "late" : "v0");
    inner->add_output(std::string(branch) + "_out");
    body->add_output()->set_name(std::string(branch) + "_out");
  }
  onnx::NodeProto* late = g->add_node();
  late->set_op_type("Relu");
  late->set_name("late");
  late->add_input("v" + std::to_string(n));
  late->add_output("late");
  g->add_output()->set_name("y");
  return m;
}

// Every node reads only values defined before it (captures of its subgraphs included).
void ExpectTopological(const Graph& graph) {
  absl::flat_hash_set<const Value*> defined(graph.inputs().begin(), graph.inputs().end());
  for (const Node* node : graph.nodes()) {
    for (const Value* v : node->inputs()) {
      EXPECT_TRUE(v == nullptr || defined.contains(v)) << node->Describe();
    }
    for (const Graph* sub : node->Subgraphs()) {
      for (const Node* inner : sub->nodes()) {
        for (const Value* v : inner->inputs()) {
          EXPECT_TRUE(v->graph() == sub || defined.contains(v)) << inner->Describe();
        }
      }
    }
    for (const Value* v : node->outputs()) defined.insert(v);
  }
}

// A reversed chain is sorted (stably, in linear time apart from the sort itself), and a value an
// If's branch captures counts as an input of the If.
TEST(OnnxImportGraphTest, ReversedChainAndCapturesAreSorted) {
  // ANVIL_REVERSED_NODES=100000 measures a bigger model.
  const char* env = std::getenv("ANVIL_REVERSED_NODES");
  const int kNodes = env != nullptr ? std::atoi(env) : 20000;
  const onnx::ModelProto m = ReversedChain(kNodes);
  std::vector<std::string> warnings;
  ImportOptions options;
  options.warnings = &warnings;
  const auto start = std::chrono::steady_clock::now();
  auto model = ImportModelProto(m, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(model.ok()) << model.status();
  std::cerr << "imported and sorted " << kNodes << " reversed nodes in " << seconds << " s\n";
  const Graph& graph = (*model)->graph();
  ExpectTopological(graph);
  std::vector<Node*> nodes = graph.NodesSnapshot();
  ASSERT_EQ(nodes.size(), static_cast<size_t>(kNodes) + 2);
  EXPECT_EQ(nodes[kNodes]->name(), "late");  // moved before the If that captures its output
  EXPECT_EQ(nodes[kNodes + 1]->name(), "if");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("graph 'main' is not in topological order"));
}

TEST(OnnxImportGraphTest, CyclesAreErrors) {
  // Through a subgraph's capture: A's then_branch reads b, B reads a.
  onnx::ModelProto m = ReversedChain(2);
  onnx::GraphProto* g = m.mutable_graph();
  g->mutable_node(3)->set_input(0, "y");  // `late` now reads the If's output
  auto model = ImportModelProto(m);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().message(), "graph 'main' has a cycle through node 'if' (If)");
  // A node reading its own output.
  m = ReversedChain(2);
  m.mutable_graph()->mutable_node(0)->set_input(0, "v2");
  model = ImportModelProto(m);
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(model.status().message(), HasSubstr("has a cycle through node #0 (Relu"));
}

// Ifs nested `depth` levels (each then_branch holding the next If).
onnx::ModelProto NestedIfs(int depth) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("main");
  g->add_input()->set_name("c");
  g->add_input()->set_name("x");
  for (int level = 0; level < depth; ++level) {
    onnx::NodeProto* node = g->add_node();
    node->set_op_type("If");
    node->add_input("c");
    node->add_output("y" + std::to_string(level));
    g->add_output()->set_name("y" + std::to_string(level));
    onnx::AttributeProto* other = node->add_attribute();
    other->set_name("else_branch");
    other->set_type(onnx::AttributeProto::GRAPH);
    other->mutable_g()->add_output()->set_name("x");
    onnx::AttributeProto* then = node->add_attribute();
    then->set_name("then_branch");
    then->set_type(onnx::AttributeProto::GRAPH);
    g = then->mutable_g();
    g->set_name("g" + std::to_string(level + 1));
  }
  g->add_output()->set_name("x");
  return m;
}

// Subgraphs nest at most kMaxSubgraphDepth levels: the limit itself imports, from a file too
// (protobuf's own default would stop near 33 levels), one more is one line naming where.
TEST(OnnxImportGraphTest, NestingDeeperThanTheLimitIsRefused) {
  auto model = ImportModelProto(NestedIfs(kMaxSubgraphDepth));
  ASSERT_TRUE(model.ok()) << model.status();
  const std::string path = TempDir("nesting") + "/m.onnx";
  WriteFile(path, NestedIfs(kMaxSubgraphDepth).SerializeAsString());
  model = ImportModelFile(path);
  ASSERT_TRUE(model.ok()) << model.status();

  model = ImportModelProto(NestedIfs(kMaxSubgraphDepth + 1));
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().message(),
            "graph 'g100': node #0 (If, output 'y100'): subgraphs nested deeper than 100 levels");
  // 5000 levels: refused without recursing 5000 deep.
  model = ImportModelProto(NestedIfs(5000));
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(model.status().message(), HasSubstr("subgraphs nested deeper than 100 levels"));
}

// Names from the model are quoted printable and bounded in messages.
TEST(OnnxImportGraphTest, HostileNamesAreQuotedBounded) {
  onnx::ModelProto m;
  onnx::GraphProto* g = m.mutable_graph();
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Relu");
  n->set_name(std::string("a\nb") + std::string(100000, 'z'));
  n->add_input(std::string("\x1b[2J\xff") + std::string(100000, 'q'));
  n->add_output("y");
  auto model = ImportModelProto(m);
  ASSERT_FALSE(model.ok());
  const std::string message(model.status().message());
  EXPECT_LT(message.size(), 400u);
  EXPECT_THAT(message, HasSubstr("node 'a\\nbzzz"));
  EXPECT_THAT(message, HasSubstr("input '\\x1b[2J\\xffqqq"));
  for (char c : message) EXPECT_GE(static_cast<unsigned char>(c), 0x20);
}

TEST(OnnxImportGraphTest, UndefinedInputNamesNodeAndValue) {
  onnx::ModelProto m;
  onnx::GraphProto* g = m.mutable_graph();
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Relu");
  n->set_name("my_relu");
  n->add_input("nowhere");
  n->add_output("y");
  auto model = ImportModelProto(m);
  ASSERT_FALSE(model.ok());
  // Node::Describe() names the node; the message names the missing value.
  EXPECT_THAT(model.status().message(), HasSubstr("'my_relu' (Relu)"));
  EXPECT_THAT(model.status().message(), HasSubstr("input 'nowhere' is not defined"));
}

TEST(OnnxImportGraphTest, DuplicateDefinitionIsAnError) {
  onnx::ModelProto m;
  onnx::GraphProto* g = m.mutable_graph();
  g->add_input()->set_name("x");
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("x");
  auto model = ImportModelProto(m);
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(model.status().message(), HasSubstr("'x' is defined twice"));
}

// Sequences and optionals are modelled around their element type, nested to any depth, with or
// without an element type; a sequence of maps stays bytes. All round-trip unchanged.
TEST(OnnxImportGraphTest, SequenceAndOptionalTypesAreModelledAndRoundTrip) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  onnx::OperatorSetIdProto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("main");
  auto input = [&](const char* name) {
    onnx::ValueInfoProto* info = g->add_input();
    info->set_name(name);
    return info->mutable_type();
  };
  onnx::TypeProto* nested = input("nested");
  onnx::TypeProto::Tensor* t = nested->mutable_optional_type()
                                   ->mutable_elem_type()
                                   ->mutable_sequence_type()
                                   ->mutable_elem_type()
                                   ->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_param("N");
  input("untyped")->mutable_sequence_type();
  input("maps")->mutable_sequence_type()->mutable_elem_type()->mutable_map_type()->set_key_type(
      onnx::TensorProto::INT64);
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Identity");
  n->add_input("nested");
  n->add_output("y");
  *g->add_output() = g->input(0);
  g->mutable_output(0)->set_name("y");

  auto model = ImportModelProto(m);
  ASSERT_TRUE(model.ok()) << model.status();
  const Graph& graph = (*model)->graph();
  EXPECT_EQ(graph.inputs()[0]->type().ToString(), "optional(seq(float[N]))");
  EXPECT_TRUE(graph.inputs()[0]->type().elem().is_sequence());
  EXPECT_EQ(graph.inputs()[1]->type().ToString(), "seq(?)");
  EXPECT_EQ(graph.inputs()[2]->type().kind(), Type::Kind::kOther);
  EXPECT_EQ(graph.inputs()[0]->type(), graph.outputs()[0]->type());
  EXPECT_FALSE(graph.inputs()[0]->type() == graph.inputs()[1]->type());

  onnx::ModelProto exported;
  ASSERT_TRUE(ExportModelProto(**model, &exported).ok());
  google::protobuf::util::MessageDifferencer differencer;
  std::string report;
  differencer.ReportDifferencesToString(&report);
  EXPECT_TRUE(differencer.Compare(m, exported)) << report;
}

// A TypeProto with no kind (`type {}`, as some exporters write on If branch outputs) is no type,
// as an absent one: not a kind kept as bytes, which no pass could ever type. A denotation alone
// survives; so does an empty sequence element type. Export writes no type for it.
TEST(OnnxImportGraphTest, TypeWithNoKindIsUntyped) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  onnx::OperatorSetIdProto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("main");
  onnx::ValueInfoProto* x = g->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  const char* names[] = {"empty", "denoted", "seq"};
  for (const char* name : names) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type("Identity");
    n->add_input("x");
    n->add_output(name);
    onnx::ValueInfoProto* out = g->add_output();
    out->set_name(name);
    out->mutable_type();  // present, no kind
  }
  g->mutable_output(1)->mutable_type()->set_denotation("AUDIO");
  g->mutable_output(2)->mutable_type()->mutable_sequence_type()->mutable_elem_type();

  auto model = ImportModelProto(m);
  ASSERT_TRUE(model.ok()) << model.status();
  const Graph& graph = (*model)->graph();
  EXPECT_EQ(graph.outputs()[0]->type().kind(), Type::Kind::kNone);
  EXPECT_EQ(graph.outputs()[1]->type().kind(), Type::Kind::kNone);
  EXPECT_EQ(graph.outputs()[1]->type().denotation(), "AUDIO");
  EXPECT_EQ(graph.outputs()[2]->type().ToString(), "seq(?)");

  onnx::ModelProto exported;
  ASSERT_TRUE(ExportModelProto(**model, &exported).ok());
  EXPECT_FALSE(exported.graph().output(0).has_type());
  EXPECT_EQ(exported.graph().output(1).type().value_case(), onnx::TypeProto::VALUE_NOT_SET);
  EXPECT_EQ(exported.graph().output(1).type().denotation(), "AUDIO");
  EXPECT_TRUE(exported.graph().output(2).type().has_sequence_type());
}

TEST(OnnxImportGraphTest, OptionalSlotsAndOpaquePartsRoundTrip) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("test");
  m.set_model_version(3);
  auto* prop = m.add_metadata_props();
  prop->set_key("k");
  prop->set_value("v");
  m.add_functions()->set_name("f");
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("main");
  onnx::ValueInfoProto* x = g->add_input();
  x->set_name("x");
  x->set_doc_string("the input");
  onnx::TypeProto::Tensor* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("N");
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  // Unknown, with a denotation.
  tt->mutable_shape()->add_dim()->set_denotation("CHANNEL");
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Dropout");
  n->set_domain("ai.onnx");
  n->add_input("x");
  n->add_input("");
  n->add_input("");
  n->add_output("y");
  n->add_output("");
  onnx::AttributeProto* seed = n->add_attribute();
  seed->set_name("seed");
  seed->set_type(onnx::AttributeProto::INT);
  seed->set_i(7);
  onnx::ValueInfoProto* y = g->add_output();
  y->set_name("y");
  y->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::INT64);
  y->mutable_type()->set_denotation("SEQ");
  g->add_value_info()->set_name("not_here");  // Names no value: kept verbatim.
  g->add_quantization_annotation()->set_tensor_name("y");
  onnx::ValueInfoProto* scalar = g->add_value_info();
  scalar->set_name("y");
  *scalar->mutable_type() = y->type();

  auto model = ImportModelProto(m);
  ASSERT_TRUE(model.ok()) << model.status();
  const Graph& graph = (*model)->graph();
  const Node* node = *graph.nodes().begin();
  EXPECT_EQ(node->num_inputs(), 3);
  EXPECT_EQ(node->input(1), nullptr);
  EXPECT_EQ(node->num_outputs(), 2);
  EXPECT_EQ(node->output(1), nullptr);
  EXPECT_EQ(graph.inputs()[0]->type().ToString(), "float[N,3,?]");
  // A sequence of int64 tensors (rank unknown), its denotation kept.
  EXPECT_EQ(graph.outputs()[0]->type().kind(), Type::Kind::kSequence);
  EXPECT_EQ(graph.outputs()[0]->type().ToString(), "seq(int64[])");
  EXPECT_EQ(graph.outputs()[0]->type().denotation(), "SEQ");
  EXPECT_EQ(graph.opaque().orphan_value_infos.size(), 1u);
  EXPECT_EQ(graph.value_info().size(), 1u);

  onnx::ModelProto exported;
  ASSERT_TRUE(ExportModelProto(**model, &exported).ok());
  // The orphan goes after the modelled value_info: compare as a set.
  google::protobuf::util::MessageDifferencer differencer;
  differencer.TreatAsSet(onnx::GraphProto::descriptor()->FindFieldByName("value_info"));
  std::string report;
  differencer.ReportDifferencesToString(&report);
  EXPECT_TRUE(differencer.Compare(m, exported)) << report;
}

// Every ModelProto feature the backend test data lacks, in canonical (raw_data)
// form, must come back exactly.
TEST(OnnxImportGraphTest, RichModelRoundTripsExactly) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* opset = m.add_opset_import();
  opset->set_domain("ai.onnx.ml");
  opset->set_version(3);
  opset = m.add_opset_import();
  opset->set_domain("");  // Export always writes the domain.
  opset->set_version(17);
  m.set_producer_name("p");
  m.set_producer_version("1.0");
  m.set_domain("org.example");
  m.set_model_version(5);
  m.set_doc_string("model doc");
  m.add_training_info()->mutable_algorithm()->set_name("train");
  onnx::FunctionProto* f = m.add_functions();
  f->set_name("F");
  f->set_domain("custom");
  onnx::NodeProto* fnode = f->add_node();
  fnode->set_op_type("Relu");
  onnx::AttributeProto* ref = fnode->add_attribute();
  ref->set_name("alpha");
  ref->set_type(onnx::AttributeProto::FLOAT);
  ref->set_ref_attr_name("alpha");

  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("main");
  g->set_doc_string("graph doc");
  // Inputs: one an initializer gives a default value, one passed to the
  // output, two of types kept as bytes.
  onnx::ValueInfoProto* x = g->add_input();
  x->set_name("x");
  x->set_doc_string("x doc");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  x->mutable_type()->mutable_tensor_type()->mutable_shape();  // A scalar.
  onnx::ValueInfoProto* pass = g->add_input();
  pass->set_name("pass");
  pass->mutable_type()->mutable_sparse_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  onnx::ValueInfoProto* opt = g->add_input();
  opt->set_name("opt");
  opt->mutable_type()
      ->mutable_optional_type()
      ->mutable_elem_type()
      ->mutable_map_type()
      ->set_key_type(onnx::TensorProto::STRING);
  onnx::ValueInfoProto* future = g->add_input();
  future->set_name("future");
  // A newer element type.
  future->mutable_type()->mutable_tensor_type()->set_elem_type(99);
  future->mutable_type()->set_denotation("IMAGE");

  onnx::TensorProto* xinit = g->add_initializer();
  *xinit = Tensor(onnx::TensorProto::FLOAT, {});
  xinit->set_name("x");
  xinit->set_raw_data(std::string(4, '\0'));
  onnx::TensorProto* w = g->add_initializer();
  *w = Tensor(onnx::TensorProto::INT8, {2});
  w->set_name("w");
  w->set_doc_string("w doc");
  w->set_raw_data("\x01\x02");
  onnx::TensorProto* k = g->add_initializer();
  *k = Tensor(onnx::TensorProto::INT64, {});
  k->set_name("k");
  k->set_raw_data(std::string(8, '\x07'));
  onnx::SparseTensorProto* sparse = g->add_sparse_initializer();
  *sparse->mutable_values() = Tensor(onnx::TensorProto::FLOAT, {0});
  sparse->mutable_values()->set_name("sp");
  sparse->mutable_values()->set_raw_data("");
  sparse->add_dims(4);

  onnx::NodeProto* n = g->add_node();
  n->set_name("everything");
  n->set_op_type("Custom");
  n->set_domain("custom");
  n->set_doc_string("node doc");
  n->add_input("x");
  n->add_input("w");
  n->add_output("h");
  auto attr = [n](const char* name, onnx::AttributeProto::AttributeType type) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(type);
    return a;
  };
  attr("f", onnx::AttributeProto::FLOAT)->set_f(-0.0f);
  attr("ref", onnx::AttributeProto::INT)->set_ref_attr_name("outer_attr");
  onnx::AttributeProto* i = attr("i", onnx::AttributeProto::INT);
  i->set_i(-3);
  i->set_doc_string("attr doc");
  attr("s", onnx::AttributeProto::STRING)->set_s(std::string("\0bytes", 6));
  onnx::AttributeProto* t = attr("t", onnx::AttributeProto::TENSOR);
  *t->mutable_t() = Tensor(onnx::TensorProto::STRING, {1});
  t->mutable_t()->set_name("tensor name");
  t->mutable_t()->set_doc_string("tensor doc");
  t->mutable_t()->add_string_data("s");
  onnx::AttributeProto* floats = attr("floats", onnx::AttributeProto::FLOATS);
  floats->add_floats(1.0f);
  floats->add_floats(std::numeric_limits<float>::quiet_NaN());
  onnx::AttributeProto* ints = attr("ints", onnx::AttributeProto::INTS);
  ints->add_ints(1);
  ints->add_ints(-1);
  attr("strings", onnx::AttributeProto::STRINGS)->add_strings("a");
  onnx::AttributeProto* tensors = attr("tensors", onnx::AttributeProto::TENSORS);
  *tensors->add_tensors() = *w;
  *tensors->add_tensors() = *xinit;
  attr("empty_tensors", onnx::AttributeProto::TENSORS);
  *attr("sparse", onnx::AttributeProto::SPARSE_TENSOR)->mutable_sparse_tensor() = *sparse;
  *attr("sparses", onnx::AttributeProto::SPARSE_TENSORS)->add_sparse_tensors() = *sparse;
  *attr("tp", onnx::AttributeProto::TYPE_PROTO)->mutable_tp() = opt->type();
  *attr("tps", onnx::AttributeProto::TYPE_PROTOS)->add_type_protos() = pass->type();
  onnx::GraphProto* body = attr("body", onnx::AttributeProto::GRAPH)->mutable_g();
  body->set_name("body");
  body->add_input()->set_name("x");  // Shadows the outer `x`.
  onnx::NodeProto* inner = body->add_node();
  inner->set_op_type("Add");
  inner->add_input("x");
  inner->add_input("w");  // Captured.
  inner->add_output("inner_out");
  body->add_output()->set_name("inner_out");
  // An outer value returned directly. Its entry can only repeat the outer
  // value's type: the IR holds one type per value.
  onnx::ValueInfoProto* w_out = body->add_output();
  w_out->set_name("w");
  w_out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT8);
  w_out->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  onnx::AttributeProto* graphs = attr("graphs", onnx::AttributeProto::GRAPHS);
  *graphs->add_graphs() = *body;
  graphs->add_graphs()->set_name("empty");

  onnx::ValueInfoProto* h = g->add_output();
  h->set_name("h");
  h->set_doc_string("h doc");
  h->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  onnx::TensorShapeProto* shape = h->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->add_dim()->set_dim_param("N");
  shape->add_dim();
  shape->add_dim()->set_dim_value(0);
  *g->add_output() = *pass;
  g->add_output()->set_name("k");  // An initializer returned without a type.
  // Same as the output entry: modelled.
  *g->add_value_info() = *h;
  // Typeless, for an initializer: kept verbatim.
  g->add_value_info()->set_name("w");
  onnx::ValueInfoProto* other = g->add_value_info();
  *other = *x;
  // Contradicts the input's doc string: kept verbatim.
  other->clear_doc_string();
  onnx::TensorAnnotation* q = g->add_quantization_annotation();
  q->set_tensor_name("h");
  auto* qp = q->add_quant_parameter_tensor_names();
  qp->set_key("SCALE_TENSOR");
  qp->set_value("x");

  auto model = ImportModelProto(m);
  ASSERT_TRUE(model.ok()) << model.status();
  const Graph& graph = (*model)->graph();
  EXPECT_EQ(graph.inputs()[1]->type().kind(), Type::Kind::kSparseTensor);
  EXPECT_EQ(graph.inputs()[2]->type().kind(), Type::Kind::kOther);
  EXPECT_EQ(graph.inputs()[3]->type().kind(), Type::Kind::kOther);
  EXPECT_EQ(graph.inputs()[3]->type().denotation(), "IMAGE");
  EXPECT_TRUE(graph.inputs()[0]->IsInitializer());
  EXPECT_EQ(graph.initializers()[1]->initializer_doc_string(), "w doc");
  EXPECT_EQ(graph.opaque().orphan_value_infos.size(), 2u);
  // As its output entry says.
  EXPECT_FALSE(graph.FindValue("k")->type().has_value());
  EXPECT_EQ(graph.FindValue("w")->type().ToString(), "int8[2]");
  const Node* node = *graph.nodes().begin();
  const Graph* sub = node->FindAttribute("body")->graphs[0].get();
  const Node* add = *sub->nodes().begin();
  // The inner `x`, not the outer one.
  EXPECT_EQ(add->input(0), sub->inputs()[0]);
  EXPECT_EQ(add->input(1), graph.FindValue("w"));
  EXPECT_EQ(sub->outputs()[1], graph.FindValue("w"));
  EXPECT_EQ(node->FindAttribute("t")->tensors[0].name, "tensor name");

  onnx::ModelProto exported;
  absl::Status s = ExportModelProto(**model, &exported);
  ASSERT_TRUE(s.ok()) << s;
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  // Entries kept verbatim follow the modelled ones.
  differencer.TreatAsSet(onnx::GraphProto::descriptor()->FindFieldByName("value_info"));
  std::string report;
  differencer.ReportDifferencesToString(&report);
  EXPECT_TRUE(differencer.Compare(m, exported)) << report;
}

// --------------------------------------------------------------------------
// Files

TEST(OnnxImportFileTest, CorruptFileGivesOneLineError) {
  const std::string path = TempDir("corrupt") + "/x.onnx";
  WriteFile(path, "\xff\xff\xff\xff not a protobuf");
  auto model = ImportModelFile(path);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().message(),
            "cannot parse '" + path +
                "' as an ONNX model (binary protobuf: truncated, corrupt, or messages nested "
                "deeper than 400 levels)");
}

TEST(OnnxImportFileTest, MissingFile) {
  const std::string path = TempDir("missing") + "/x.onnx";
  auto model = ImportModelFile(path);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().message(), "cannot open '" + path + "': No such file or directory");
  EXPECT_TRUE(absl::IsNotFound(model.status()));
}

}  // namespace
}  // namespace anvil
