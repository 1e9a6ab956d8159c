// The zoo's library compiled from a model whose weights are in an external data file
// (examples/zoo:zoo_mlp_ext) computes what the Session computes from the same model with inline
// weights: the rule declared the data file and anvil-compile read it.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "examples/zoo/zoo_mlp_ext/model.h"
#include "gtest/gtest.h"
#include "kernels/tensor.h"
#include "runtime/session.h"

namespace anvil {
namespace {

TEST(ZooTest, ExternalDataLibraryMatchesTheSession) {
  constexpr int kBatch = 3, kIn = 256, kOut = 10;
  std::vector<float> x(kBatch * kIn);
  for (int i = 0; i < kBatch * kIn; ++i) x[i] = std::sin(0.37f * static_cast<float>(i));

  const std::string path =
      std::string(std::getenv("TEST_SRCDIR")) + "/anvil/testdata/models/mlp.onnx";
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(path);
  ASSERT_TRUE(session.ok()) << session.status();
  Tensor input(ElementType::kFloat, {kBatch, kIn});
  std::copy(x.begin(), x.end(), input.As<float>());
  absl::StatusOr<std::vector<Tensor>> expected = (*session)->Run({{"x", input}});
  ASSERT_TRUE(expected.ok()) << expected.status();

  AnvilModel* model = anvil_model_create();
  ASSERT_NE(model, nullptr);
  const AnvilArg in = {1, 2, {kBatch, kIn}, x.data()};
  AnvilArg out = {};
  char error[256] = "";
  ASSERT_EQ(anvil_model_run(model, &in, &out, error, sizeof(error)), 0) << error;
  ASSERT_EQ(out.rank, 2);
  ASSERT_EQ(out.dims[0], kBatch);
  ASSERT_EQ(out.dims[1], kOut);
  const float* y = static_cast<const float*>(out.data);
  const float* want = (*expected)[0].As<float>();
  for (int i = 0; i < kBatch * kOut; ++i) {
    EXPECT_NEAR(y[i], want[i], 1e-5f + 1e-4f * std::fabs(want[i])) << "element " << i;
  }
  anvil_model_free_output(&out);
  anvil_model_destroy(model);
}

}  // namespace
}  // namespace anvil
