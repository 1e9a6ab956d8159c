// Lossless binary ONNX round trip over the whole ONNX backend test corpus:
// every model.onnx is imported, exported and compared in meaning with the
// original (tensor storage forms canonicalized on both sides by a decoder
// independent of the importer); the export is then re-imported and exported
// again, which must give identical bytes.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/field_comparator.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/onnx_export.h"
#include "graph/onnx_import.h"
#include "graph/verifier.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

constexpr char kDataDir[] = "/usr/include/onnx/backend/test/data";
constexpr size_t kExpectedModels = 1072;  // ONNX 1.12's backend test data.

std::vector<std::string> FindModels() {
  std::vector<std::string> paths;
  std::error_code error;
  // The data directory is a symlink into /usr/share, and so may be parts of it.
  std::filesystem::recursive_directory_iterator it(
      kDataDir, std::filesystem::directory_options::follow_directory_symlink, error);
  for (; !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (it->path().filename() == "model.onnx") {
      paths.push_back(it->path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The dense little-endian bytes a tensor means, decoded here independently of
// the importer so that a decoding bug there cannot hide by being applied to
// both sides of the comparison.
std::string DenseBytes(const onnx::TensorProto& t) {
  if (t.has_raw_data()) return t.raw_data();
  std::string out;
  auto append = [&out](const auto& value, size_t size) {
    out.append(reinterpret_cast<const char*>(&value), size);
  };
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::COMPLEX64:
      for (float v : t.float_data()) append(v, 4);
      break;
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::COMPLEX128:
      for (double v : t.double_data()) append(v, 8);
      break;
    case onnx::TensorProto::INT32:
      for (int32_t v : t.int32_data()) append(v, 4);
      break;
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
      for (int32_t v : t.int32_data()) append(static_cast<uint8_t>(v), 1);
      break;
    case onnx::TensorProto::BOOL:
      for (int32_t v : t.int32_data()) append(static_cast<uint8_t>(v != 0), 1);
      break;
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
      for (int32_t v : t.int32_data()) append(static_cast<uint16_t>(v), 2);
      break;
    case onnx::TensorProto::INT64:
      for (int64_t v : t.int64_data()) append(v, 8);
      break;
    case onnx::TensorProto::UINT32:
      for (uint64_t v : t.uint64_data()) append(static_cast<uint32_t>(v), 4);
      break;
    case onnx::TensorProto::UINT64:
      for (uint64_t v : t.uint64_data()) append(v, 8);
      break;
    default:
      break;
  }
  return out;
}

// Rewrites a tensor into the one form export writes: numeric data as raw_data,
// strings as string_data, nothing external, no deprecated segment.
void CanonicalizeTensor(onnx::TensorProto* t) {
  if (t->data_type() != onnx::TensorProto::STRING) {
    std::string bytes = DenseBytes(*t);
    t->clear_float_data();
    t->clear_double_data();
    t->clear_int32_data();
    t->clear_int64_data();
    t->clear_uint64_data();
    t->clear_string_data();
    t->set_raw_data(std::move(bytes));
  }
  t->clear_segment();
  t->clear_data_location();
  t->clear_external_data();
}

void CanonicalizeGraph(onnx::GraphProto* g);

void CanonicalizeSparse(onnx::SparseTensorProto* s) {
  if (s->has_values()) CanonicalizeTensor(s->mutable_values());
  if (s->has_indices()) CanonicalizeTensor(s->mutable_indices());
}

void CanonicalizeNode(onnx::NodeProto* node) {
  for (onnx::AttributeProto& a : *node->mutable_attribute()) {
    if (a.has_t()) CanonicalizeTensor(a.mutable_t());
    for (onnx::TensorProto& t : *a.mutable_tensors()) CanonicalizeTensor(&t);
    if (a.has_g()) CanonicalizeGraph(a.mutable_g());
    for (onnx::GraphProto& g : *a.mutable_graphs()) CanonicalizeGraph(&g);
    if (a.has_sparse_tensor()) CanonicalizeSparse(a.mutable_sparse_tensor());
    for (onnx::SparseTensorProto& s : *a.mutable_sparse_tensors()) {
      CanonicalizeSparse(&s);
    }
  }
}

void CanonicalizeGraph(onnx::GraphProto* g) {
  for (onnx::TensorProto& t : *g->mutable_initializer()) CanonicalizeTensor(&t);
  for (onnx::SparseTensorProto& s : *g->mutable_sparse_initializer()) {
    CanonicalizeSparse(&s);
  }
  for (onnx::NodeProto& n : *g->mutable_node()) CanonicalizeNode(&n);
}

void CanonicalizeModel(onnx::ModelProto* m) {
  if (m->has_graph()) CanonicalizeGraph(m->mutable_graph());
  for (onnx::FunctionProto& f : *m->mutable_functions()) {
    for (onnx::NodeProto& n : *f.mutable_node()) CanonicalizeNode(&n);
  }
  for (onnx::TrainingInfoProto& t : *m->mutable_training_info()) {
    if (t.has_initialization()) CanonicalizeGraph(t.mutable_initialization());
    if (t.has_algorithm()) CanonicalizeGraph(t.mutable_algorithm());
  }
}

// "" when equal in meaning: unset fields equal default ones, NaN equals NaN.
// Otherwise the first difference.
std::string FirstDifference(const onnx::ModelProto& expected, const onnx::ModelProto& actual) {
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  differencer.set_message_field_comparison(google::protobuf::util::MessageDifferencer::EQUIVALENT);
  std::string report;
  differencer.ReportDifferencesToString(&report);
  if (differencer.Compare(expected, actual)) return "";
  return report.substr(0, report.find('\n'));
}

// "" on success, else what went wrong with the model at `path`.
std::string RoundTrip(const std::string& path) {
  onnx::ModelProto original;
  {
    std::ifstream in(path, std::ios::binary);
    if (!original.ParseFromIstream(&in)) return "the test cannot parse it";
  }
  auto model = ImportModelFile(path);
  if (!model.ok()) return absl::StrCat("import: ", model.status().ToString());
  // Valid models must pass the verifier (anvil-opt verifies every model it loads).
  if (absl::Status s = VerifyModel(**model); !s.ok()) {
    return absl::StrCat("verifier: ", s.ToString());
  }
  onnx::ModelProto exported;
  if (absl::Status s = ExportModelProto(**model, &exported); !s.ok()) {
    return absl::StrCat("export: ", s.ToString());
  }
  onnx::ModelProto canonical_original = original;
  onnx::ModelProto canonical_exported = exported;
  CanonicalizeModel(&canonical_original);
  CanonicalizeModel(&canonical_exported);
  if (std::string diff = FirstDifference(canonical_original, canonical_exported); !diff.empty()) {
    return absl::StrCat("export differs from the original: ", diff);
  }

  auto reimported = ImportModelProto(exported);
  if (!reimported.ok()) {
    return absl::StrCat("re-import: ", reimported.status().ToString());
  }
  onnx::ModelProto reexported;
  if (absl::Status s = ExportModelProto(**reimported, &reexported); !s.ok()) {
    return absl::StrCat("re-export: ", s.ToString());
  }
  if (reexported.SerializeAsString() != exported.SerializeAsString()) {
    google::protobuf::util::MessageDifferencer exact;
    std::string report;
    exact.ReportDifferencesToString(&report);
    exact.Compare(exported, reexported);
    return absl::StrCat("export is not a fixed point: ", report.substr(0, report.find('\n')));
  }
  return "";
}

TEST(OnnxRoundTripTest, EveryBackendTestModelRoundTrips) {
  const std::vector<std::string> models = FindModels();
  ASSERT_GE(models.size(), kExpectedModels) << "model.onnx files under " << kDataDir;

  size_t equal = 0;
  int reported = 0;
  for (const std::string& path : models) {
    const std::string failure = RoundTrip(path);
    if (failure.empty()) {
      ++equal;
    } else if (++reported <= 20) {  // Enough to diagnose without flooding the log.
      ADD_FAILURE() << path << ": " << failure;
    }
  }
  std::cout << "round trip: " << equal << "/" << models.size() << " models equal and verified"
            << std::endl;
  EXPECT_EQ(equal, models.size());
}

}  // namespace
}  // namespace anvil
