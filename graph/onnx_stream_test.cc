// Streaming export and mapped import: ExportModelFile writes tensors straight from their elements
// (proto_stream.h) and must give the very bytes of the non-streaming writer (ExportModelProto +
// SerializeToString), inline and with external data, for tensors in initializers, Constant
// attributes and subgraphs, dense or produced piecewise; external tensors import as mappings
// whose pages can be dropped and read again.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "graph/onnx_export.h"
#include "graph/onnx_import.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

std::string TempDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir =
      std::filesystem::path(root != nullptr ? root : std::filesystem::temp_directory_path()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Elements with no dense storage: element i of a float tensor is `i * scale`, produced on demand
// (as a lazy constant is), with ForEachChunk writing small pieces and counting them.
class GeneratedFloats final : public Elements {
 public:
  GeneratedFloats(std::vector<int64_t> dims, float scale) : dims_(std::move(dims)), scale_(scale) {}
  ElementType element_type() const override { return ElementType::kFloat; }
  absl::Span<const int64_t> dims() const override { return dims_; }
  void CopyTo(uint8_t* dst) const override {
    for (int64_t i = 0; i < NumElements(); ++i) Value(i, dst + 4 * i);
  }
  absl::Status ForEachChunk(size_t max_chunk_bytes, const ChunkFn& fn) const override {
    const int64_t per_chunk = std::max<int64_t>(1, std::min<int64_t>(max_chunk_bytes, 1000) / 4);
    std::vector<uint8_t> piece;
    for (int64_t i = 0; i < NumElements(); i += per_chunk) {
      const int64_t n = std::min(per_chunk, NumElements() - i);
      piece.resize(4 * n);
      for (int64_t k = 0; k < n; ++k) Value(i + k, piece.data() + 4 * k);
      ANVIL_RETURN_IF_ERROR(fn(piece));
      ++chunks_;
    }
    return absl::OkStatus();
  }
  int64_t chunks() const { return chunks_; }

 private:
  void Value(int64_t i, uint8_t* dst) const {
    const float v = static_cast<float>(i) * scale_;
    std::memcpy(dst, &v, 4);
  }
  std::vector<int64_t> dims_;
  float scale_;
  mutable int64_t chunks_ = 0;
};

template <typename T>
std::shared_ptr<const Elements> Iota(ElementType type, std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<T> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(i % 251);
  return DenseElements::FromVector(type, std::move(dims), v);
}

// Initializers of several types and sizes (some above the streaming threshold), a Constant node
// with a large tensor attribute, and an If whose branches hold a large initializer and Constant.
std::unique_ptr<Model> BigModel(std::shared_ptr<const GeneratedFloats>* generated) {
  auto model = std::make_unique<Model>();
  model->ir_version = 8;
  model->opset_imports = {{"", 17}};
  Graph& g = model->graph();
  Value* x = g.AddInput("x", Type::Tensor(ElementType::kFloat, {}));
  Value* cond = g.AddInput("cond", Type::Tensor(ElementType::kBool, {}));
  *generated = std::make_shared<GeneratedFloats>(std::vector<int64_t>{300, 1000}, 0.5f);
  g.AddInitializer("w_generated", *generated);
  g.AddInitializer("w_f32", Iota<float>(ElementType::kFloat, {512, 256}));
  g.AddInitializer("w_f16", Iota<uint16_t>(ElementType::kFloat16, {70000}));
  g.AddInitializer("w_i8", Iota<int8_t>(ElementType::kInt8, {3, 40000}));
  g.AddInitializer("w_small", Iota<double>(ElementType::kDouble, {5}));
  g.AddInitializer("w_empty", Iota<float>(ElementType::kFloat, {0, 7}));
  g.AddInitializer("w_scalar", Iota<int64_t>(ElementType::kInt64, {}));

  Node* c = g.AddNode("Constant");
  Attribute value = Attribute::Tensor("value", Iota<float>(ElementType::kFloat, {100, 200}));
  c->SetAttribute(std::move(value));
  Value* c_out = c->AddOutput("c");

  Node* add = g.AddNode("Add");
  add->AddInput(x);
  add->AddInput(c_out);
  Value* sum = add->AddOutput("sum");

  Node* branch = g.AddNode("If");
  branch->AddInput(cond);
  Value* y = branch->AddOutput("y");
  for (const char* name : {"then_branch", "else_branch"}) {
    auto body = std::make_unique<Graph>(model.get(), &g);
    body->set_name(name);
    Value* k = body->AddInitializer(absl::StrCat(name, "_k"),
                                    Iota<float>(ElementType::kFloat, {64, 1024}));
    Node* mul = body->AddNode("Mul");
    mul->AddInput(sum);
    mul->AddInput(k);
    body->AddOutput(mul->AddOutput(absl::StrCat(name, "_out")));
    Attribute attr(name, AttributeType::kGraph);
    attr.graphs.push_back(std::move(body));
    branch->SetAttribute(std::move(attr));
  }
  g.AddOutput(y);
  return model;
}

// The non-streaming writer: the whole proto in memory, then SerializeToString.
std::string Reference(const Model& model, const ExportOptions& options) {
  onnx::ModelProto proto;
  EXPECT_TRUE(ExportModelProto(model, &proto, options).ok());
  return proto.SerializeAsString();
}

TEST(StreamingExportTest, InlineIsByteIdenticalAndPiecewise) {
  std::shared_ptr<const GeneratedFloats> generated;
  std::unique_ptr<Model> model = BigModel(&generated);
  const std::string dir = TempDir("stream_inline");
  const std::string path = dir + "/m.onnx";
  ASSERT_TRUE(ExportModelFile(*model, path).ok());
  const int64_t streamed_chunks = generated->chunks();
  EXPECT_GT(streamed_chunks, 1000);  // 1.2 MB written in pieces of at most 1000 bytes
  EXPECT_EQ(ReadFile(path), Reference(*model, {}));
  EXPECT_FALSE(std::filesystem::exists(path + ".data"));
}

TEST(StreamingExportTest, ExternalDataIsByteIdentical) {
  std::shared_ptr<const GeneratedFloats> generated;
  std::unique_ptr<Model> model = BigModel(&generated);
  const std::string dir = TempDir("stream_external");
  for (size_t threshold : {size_t{0}, size_t{1024}, size_t{200000}}) {
    SCOPED_TRACE(threshold);
    ExportOptions options;
    options.external_data_path = dir + "/m.onnx.data";
    options.external_threshold_bytes = threshold;
    ASSERT_TRUE(ExportModelFile(*model, dir + "/m.onnx", options).ok());
    const std::string model_bytes = ReadFile(dir + "/m.onnx");
    const std::string data_bytes = ReadFile(dir + "/m.onnx.data");
    // The reference writes a data file of the same name in another directory.
    const std::string ref_dir = TempDir("stream_external_reference");
    options.external_data_path = ref_dir + "/m.onnx.data";
    EXPECT_EQ(model_bytes, Reference(*model, options));
    EXPECT_EQ(data_bytes, ReadFile(ref_dir + "/m.onnx.data"));
  }
}

TEST(StreamingExportTest, BackendModelsAreByteIdentical) {
  const std::string dir = TempDir("stream_backend");
  int compared = 0;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator("/usr/include/onnx/backend/test/data/node", error)) {
    absl::StatusOr<std::unique_ptr<Model>> model =
        ImportModelFile((entry.path() / "model.onnx").string());
    if (!model.ok()) continue;
    ASSERT_TRUE(ExportModelFile(**model, dir + "/m.onnx").ok()) << entry.path();
    EXPECT_EQ(ReadFile(dir + "/m.onnx"), Reference(**model, {})) << entry.path();
    ++compared;
  }
  EXPECT_GT(compared, 900);
}

TEST(MappedImportTest, ExternalTensorsAreMappedAndSurviveDroppedPages) {
  std::shared_ptr<const GeneratedFloats> generated;
  std::unique_ptr<Model> model = BigModel(&generated);
  const std::string dir = TempDir("mapped_import");
  ExportOptions options;
  options.external_data_path = dir + "/m.onnx.data";
  options.external_threshold_bytes = 1024;
  ASSERT_TRUE(ExportModelFile(*model, dir + "/m.onnx", options).ok());
  absl::StatusOr<std::unique_ptr<Model>> loaded = ImportModelFile(dir + "/m.onnx");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Value* w = (*loaded)->graph().FindValue("w_generated");
  ASSERT_NE(w, nullptr);
  ASSERT_NE(w->constant()->ContiguousData(), nullptr);
  EXPECT_TRUE(w->constant()->Equals(*generated));
  w->constant()->DropResidentPages();
  EXPECT_TRUE(w->constant()->Equals(*generated));  // read from the file again
  EXPECT_EQ(w->constant()->GetDouble(299 * 1000 + 999), (299 * 1000 + 999) * 0.5);
  // Re-exporting from the mapping gives the same bytes as the first export.
  ASSERT_TRUE(ExportModelFile(**loaded, dir + "/again.onnx").ok());
  EXPECT_EQ(ReadFile(dir + "/again.onnx"), Reference(**loaded, {}));
}

}  // namespace
}  // namespace anvil
