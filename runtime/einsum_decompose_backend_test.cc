// Every Einsum test of the ONNX backend suite (libonnx-testdata) through einsum-decompose, then
// run by the runtime on the test's inputs and compared with its expected outputs (rtol 1e-3,
// atol 1e-7, as the suite's runner does).
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/instrumentation.h"
#include "graph/model_io.h"
#include "graph/pass_manager.h"
#include "gtest/gtest.h"
#include "kernels/tensor_file.h"
#include "runtime/session.h"

namespace anvil {
namespace {

constexpr char kNodeTestDir[] = "/usr/include/onnx/backend/test/data/node";

double ElementAsDouble(const Tensor& t, int64_t i) {
  switch (t.type()) {
    case ElementType::kFloat:
      return t.As<float>()[i];
    case ElementType::kDouble:
      return t.As<double>()[i];
    default:
      return static_cast<double>(t.As<int64_t>()[i]);
  }
}

TEST(EinsumDecomposeBackendTest, EveryEinsumTestPassesAfterTheRewrite) {
  ASSERT_TRUE(std::filesystem::exists(kNodeTestDir))
      << "the ONNX backend test data (Debian libonnx-testdata) is missing; scripts/setup.sh "
         "installs it";
  int tests = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kNodeTestDir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("test_einsum", 0) != 0) continue;
    SCOPED_TRACE(name);
    ++tests;
    absl::StatusOr<std::unique_ptr<Model>> model = LoadModel(entry.path() / "model.onnx");
    ASSERT_TRUE(model.ok()) << model.status().message();
    absl::StatusOr<PassManager> pm = PassManager::Parse("shape-inference,einsum-decompose");
    ASSERT_TRUE(pm.ok());
    auto* stats = pm->AddInstrumentation(std::make_unique<StatisticsInstrumentation>());
    pm->AddInstrumentation(std::make_unique<VerifierInstrumentation>());
    ASSERT_TRUE(pm->Run(**model).ok());
    EXPECT_EQ(stats->Get("einsum-decompose", "einsums-rewritten"), 1);
    for (const Node* n : (*model)->graph().nodes()) EXPECT_NE(n->op_type(), "Einsum");

    SessionOptions options;
    options.pipeline = "";  // run exactly the rewritten graph
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(*std::move(model), options);
    ASSERT_TRUE(session.ok()) << session.status().message();
    const std::filesystem::path data = entry.path() / "test_data_set_0";
    absl::flat_hash_map<std::string, Tensor> inputs;
    for (size_t i = 0; i < (*session)->inputs().size(); ++i) {
      absl::StatusOr<Tensor> t = ReadTensor(data / absl::StrCat("input_", i, ".pb"));
      ASSERT_TRUE(t.ok()) << t.status().message();
      inputs[(*session)->inputs()[i]->name()] = *std::move(t);
    }
    absl::StatusOr<std::vector<Tensor>> outputs = (*session)->Run(inputs);
    ASSERT_TRUE(outputs.ok()) << outputs.status().message();
    absl::StatusOr<Tensor> expected = ReadTensor(data / "output_0.pb");
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    const Tensor& actual = (*outputs)[0];
    ASSERT_EQ(actual.type(), expected->type());
    ASSERT_EQ(actual.dims(), expected->dims());
    for (int64_t k = 0; k < actual.NumElements(); ++k) {
      const double a = ElementAsDouble(actual, k), e = ElementAsDouble(*expected, k);
      ASSERT_LE(std::fabs(a - e), 1e-7 + 1e-3 * std::fabs(e)) << "element " << k;
    }
  }
  EXPECT_EQ(tests, 5);  // batch_diagonal, batch_matmul, inner_prod, sum, transpose (ONNX 1.12)
}

}  // namespace
}  // namespace anvil
