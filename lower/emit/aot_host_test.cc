// The AOT kernel host's C API (aot_host.h) on a graph embedded as a library would: a kernel call
// runs its node and fills outputs the code left to it, held initializer bytes are restored, and
// every malformed table entry is a one-line error naming what is wrong.
#include "lower/emit/aot_host.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "graph/onnx_export.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "kernels/simd/gemm.h"
#include "lower/jit/host_support.h"
#include "onnx/onnx_pb.h"

namespace anvil::lower {
namespace {

// y = MaxPool(x) then z = Add(y, bias): node 0 is the kernel call; `bias` an initializer.
constexpr char kModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[1, 1, 4, 4] x) => (float[1, 1, 2, 2] z)
<float[4] bias = {1, 2, 3, 4}>
{
  y = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (x)
  b = Reshape(bias, shape)
  z = Add(y, b)
  shape = Constant <value = int64[4] {1, 1, 2, 2}> ()
}
)";

struct Embedded {
  std::string bytes;
  std::vector<float> bias = {1, 2, 3, 4};
};

// The model serialized, with `bias` left empty when `hold_bias` (the library holds it).
Embedded Embed(bool hold_bias) {
  Embedded e;
  auto model = ParseModelText(kModel);
  EXPECT_TRUE(model.ok()) << model.status();
  onnx::ModelProto proto;
  EXPECT_TRUE(ExportModelProto(**model, &proto).ok());
  if (hold_bias) {
    for (onnx::TensorProto& t : *proto.mutable_graph()->mutable_initializer()) {
      if (t.name() == "bias") t.clear_raw_data();
    }
  }
  EXPECT_TRUE(proto.SerializeToString(&e.bytes));
  return e;
}

const int32_t kSlots[] = {0, -1};
const int32_t kTypes[] = {1, 1};

AnvilAotKernel MaxPoolCall() { return {0, 17, "MaxPool", 2, kSlots, 0, nullptr, kTypes}; }

std::string CreateError(const Embedded& e, const AnvilAotTensorData* tensors, int32_t count,
                        AnvilAotKernel k) {
  char error[256] = "";
  AnvilAotHost* host = anvil_aot_host_create(e.bytes.data(), e.bytes.size(), tensors, count, &k, 1,
                                             nullptr, error, 256);
  if (host != nullptr) {
    anvil_aot_host_destroy(host);
    return "";
  }
  return error;
}

void Fail(void* ctx, const char* message) { *static_cast<std::string*>(ctx) = message; }

TEST(AotHost, RunsKernelCallsAndAllocatesWhatTheCodeLeft) {
  const Embedded e = Embed(/*hold_bias=*/true);
  const AnvilAotTensorData held[] = {{"bias", e.bias.data(), 16}};
  const AnvilAotKernel k = MaxPoolCall();
  char error[256] = "";
  AnvilAotHost* host =
      anvil_aot_host_create(e.bytes.data(), e.bytes.size(), held, 1, &k, 1, nullptr, error, 256);
  ASSERT_NE(host, nullptr) << error;
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>((i * 7) % 16);
  AnvilBuffer in = {reinterpret_cast<uint8_t*>(x.data()), {1, 1, 4, 4}, 4};
  std::vector<float> planned(4, -1);
  AnvilBuffer out = {reinterpret_cast<uint8_t*>(planned.data()), {1, 1, 2, 2}, 4};
  AnvilBuffer* operands[] = {&in, &out};
  std::string message;
  ASSERT_EQ(anvil_aot_host_kernel(host, 0, operands, 2, &message, Fail), 0) << message;
  // x = (i * 7) % 16 as a 4x4 plane: rows 0 7 14 5 / 12 3 10 1 / 8 15 6 13 / 4 11 2 9.
  EXPECT_EQ(planned, (std::vector<float>{12, 14, 15, 13}));
  // An output the code left unallocated: the host allocates it and fills in data and dims.
  AnvilBuffer open = {nullptr, {0}, 0};
  AnvilBuffer* open_operands[] = {&in, &open};
  ASSERT_EQ(anvil_aot_host_kernel(host, 0, open_operands, 2, &message, Fail), 0) << message;
  ASSERT_NE(open.data, nullptr);
  EXPECT_EQ(open.rank, 4);
  EXPECT_EQ(std::memcmp(open.data, planned.data(), 16), 0);
  anvil_aot_host_end_run(host);
  // A call that is not in the table, and a bad input, come back through fail.
  EXPECT_NE(anvil_aot_host_kernel(host, 3, operands, 2, &message, Fail), 0);
  EXPECT_NE(message.find("kernel 3 is not in the table"), std::string::npos) << message;
  AnvilBuffer wrong = {reinterpret_cast<uint8_t*>(x.data()), {1, 1, 4}, 3};
  AnvilBuffer* wrong_operands[] = {&wrong, &out};
  EXPECT_NE(anvil_aot_host_kernel(host, 0, wrong_operands, 2, &message, Fail), 0);
  EXPECT_NE(message.find("MaxPool"), std::string::npos) << message;
  anvil_aot_host_destroy(host);
}

TEST(AotHost, RefusesTablesThatDoNotMatchTheGraph) {
  const Embedded held_graph = Embed(/*hold_bias=*/true);
  const Embedded full_graph = Embed(/*hold_bias=*/false);
  const AnvilAotTensorData held[] = {{"bias", held_graph.bias.data(), 16}};
  EXPECT_EQ(CreateError(full_graph, nullptr, 0, MaxPoolCall()), "");
  AnvilAotKernel k = MaxPoolCall();
  k.node = 7;
  EXPECT_EQ(CreateError(full_graph, nullptr, 0, k), "kernel 0 (MaxPool): node 7 of 4");
  k = MaxPoolCall();
  k.op_type = "Conv";
  EXPECT_NE(CreateError(full_graph, nullptr, 0, k).find("node 0 is node #0 (MaxPool"),
            std::string::npos);
  const int32_t bad_slots[] = {0, -3};
  k = MaxPoolCall();
  k.slots = bad_slots;
  EXPECT_NE(CreateError(full_graph, nullptr, 0, k).find("operand 1 names slot -3"),
            std::string::npos);
  const char* const captures[] = {"nowhere"};
  k = MaxPoolCall();
  k.num_captures = 1;
  k.captures = captures;
  EXPECT_NE(CreateError(full_graph, nullptr, 0, k).find("captured value 'nowhere'"),
            std::string::npos);
  // Held bytes: the graph must have left the initializer empty, and must have it at all.
  EXPECT_NE(CreateError(full_graph, held, 1, MaxPoolCall()).find("has bytes of its own"),
            std::string::npos);
  const AnvilAotTensorData stray[] = {{"weights", held_graph.bias.data(), 16}};
  EXPECT_NE(CreateError(held_graph, stray, 1, MaxPoolCall()).find("no initializer 'weights'"),
            std::string::npos);
  // Without its bytes the held initializer is empty: the import names it.
  EXPECT_NE(CreateError(held_graph, nullptr, 0, MaxPoolCall()).find("bias"), std::string::npos);
  EXPECT_EQ(CreateError(held_graph, held, 1, MaxPoolCall()), "");
  EXPECT_NE(CreateError(Embedded{"not a model"}, nullptr, 0, MaxPoolCall()), "");
}

// A library with gemm calls and no kernel calls: a host without a graph on the library's packed
// constant weights, gemm gives the plain product, and parallel_for covers the trips on the run's
// threads.
TEST(AotHost, GemmOnPackedWeightsAndParallelLoops) {
  constexpr int64_t kM = 6, kK = 7, kN = 9;
  std::vector<float> a(kM * kK), w(kK * kN), c(kM * kN, -1), want(kM * kN, 0);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 5) - 2;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) * 0.5f;
  for (int64_t i = 0; i < kM; ++i) {
    for (int64_t j = 0; j < kN; ++j) {
      for (int64_t p = 0; p < kK; ++p) want[i * kN + j] += a[i * kK + p] * w[p * kN + j];
    }
  }
  const AnvilAotGemmWeight weights[] = {{w.data(), kK * kN, 0, kK, kN, kN}};
  AnvilAotPackedWeights* packed = anvil_aot_packed_weights_create(weights, 1);
  char error[256] = "";
  AnvilAotHost* host =
      anvil_aot_host_create(nullptr, 0, nullptr, 0, nullptr, 0, packed, error, 256);
  anvil_aot_packed_weights_destroy(packed);  // the host holds what it uses
  ASSERT_NE(host, nullptr) << error;
  anvil_aot_host_begin_run(host, 2);
  std::string message;
  ASSERT_EQ(anvil_aot_host_gemm(host, &message, Fail, 0, 0, 0, kM, kN, kK, 1.0, a.data(), kK,
                                w.data(), kN, 0.0, c.data(), kN),
            0)
      << message;
  EXPECT_EQ(c, want);  // small integers and halves: exact in any order
  EXPECT_NE(anvil_aot_host_gemm(host, &message, Fail, 0, 0, 0, -1, kN, kK, 1.0, a.data(), kK,
                                w.data(), kN, 0.0, c.data(), kN),
            0);
  EXPECT_EQ(message, "gemm with a negative size");
  std::vector<int> seen(1000, 0);
  auto chunk = [](void* closure, int64_t lo, int64_t hi) -> int32_t {
    for (int64_t i = lo; i < hi; ++i) ++(*static_cast<std::vector<int>*>(closure))[i];
    return 0;
  };
  EXPECT_EQ(anvil_aot_host_parallel_for(1000, 1 << 20, chunk, &seen), 0);
  EXPECT_EQ(seen, std::vector<int>(1000, 1));
  anvil_aot_host_end_run(host);
  anvil_aot_host_destroy(host);
}

// Contexts of one library share the packed copy of each constant gemm weight: the library's
// packed weights hand their hosts the same copy, which lives until the last holder goes (the
// library's packed weights and every host given them), and the hosts compute the same bits.
TEST(AotHost, HostsSharePackedWeights) {
  constexpr int64_t kM = 8, kK = 16, kN = 24;
  std::vector<float> a(kM * kK), w(kK * kN);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 3) - 1;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 5) * 0.25f;
  // Ownership, on the host side's own types (what the C API's handles wrap).
  {
    auto library = std::make_unique<PackedWeights>();
    library->Pack(w.data(), kK * kN, false, kK, kN, kN);
    const std::weak_ptr<const simd::PackedB> copy = library->Find(w.data(), false, kK, kN, kN);
    ASSERT_FALSE(copy.expired());
    auto first = std::make_unique<GemmHost>(), second = std::make_unique<GemmHost>();
    first->ShareWeights(*library);
    second->ShareWeights(*library);
    EXPECT_EQ(first->weights().Find(w.data(), false, kK, kN, kN), copy.lock());
    EXPECT_EQ(second->weights().Find(w.data(), false, kK, kN, kN), copy.lock());
    // Other parameters, or another address, are not this packed use.
    EXPECT_EQ(first->weights().Find(w.data(), true, kN, kK, kK), nullptr);
    EXPECT_EQ(first->weights().Find(a.data(), false, kK, kN, kN), nullptr);
    library.reset();
    first.reset();
    EXPECT_FALSE(copy.expired());  // the second host still holds it
    second.reset();
    EXPECT_TRUE(copy.expired());
  }
  // Through the C API, as a library's contexts use it.
  const AnvilAotGemmWeight weights[] = {{w.data(), kK * kN, 0, kK, kN, kN}};
  AnvilAotPackedWeights* packed = anvil_aot_packed_weights_create(weights, 1);
  ASSERT_NE(packed, nullptr);
  char error[256] = "";
  AnvilAotHost* first =
      anvil_aot_host_create(nullptr, 0, nullptr, 0, nullptr, 0, packed, error, 256);
  ASSERT_NE(first, nullptr) << error;
  AnvilAotHost* second =
      anvil_aot_host_create(nullptr, 0, nullptr, 0, nullptr, 0, packed, error, 256);
  ASSERT_NE(second, nullptr) << error;
  std::string message;
  std::vector<float> c1(kM * kN), c2(kM * kN);
  ASSERT_EQ(anvil_aot_host_gemm(first, &message, Fail, 0, 0, 0, kM, kN, kK, 1.0, a.data(), kK,
                                w.data(), kN, 0.0, c1.data(), kN),
            0)
      << message;
  anvil_aot_host_destroy(first);
  anvil_aot_packed_weights_destroy(packed);
  ASSERT_EQ(anvil_aot_host_gemm(second, &message, Fail, 0, 0, 0, kM, kN, kK, 1.0, a.data(), kK,
                                w.data(), kN, 0.0, c2.data(), kN),
            0)
      << message;
  EXPECT_EQ(c1, c2);
  anvil_aot_host_destroy(second);
}

// The per-run workspace plan: buffers whose lifetimes overlap never share bytes, buffers that
// live apart do, new sizes re-plan, and bad lifetimes or sizes are refused.
TEST(AotHost, PlansTheWorkspaceByLifetimes) {
  char error[256] = "";
  AnvilAotHost* host =
      anvil_aot_host_create(nullptr, 0, nullptr, 0, nullptr, 0, nullptr, error, 256);
  ASSERT_NE(host, nullptr) << error;
  // A chain: 0 lives over steps 0-1, 1 over 1-2, 2 over 2-3, 3 over 0-3.
  const int32_t lifetimes[] = {0, 1, 1, 2, 2, 3, 0, 3};
  auto check = [&](const std::vector<int64_t>& sizes) {
    std::vector<int64_t> offsets(4, -2);
    const int64_t total = anvil_aot_host_plan(host, 4, lifetimes, sizes.data(), offsets.data());
    int64_t unshared = 0;
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(offsets[i] % 64, 0);
      EXPECT_LE(offsets[i] + sizes[i], total);
      unshared += (sizes[i] + 63) / 64 * 64;
      for (int j = 0; j < i; ++j) {
        const bool live_together =
            lifetimes[2 * i] <= lifetimes[2 * j + 1] && lifetimes[2 * j] <= lifetimes[2 * i + 1];
        const bool overlap =
            offsets[i] < offsets[j] + sizes[j] && offsets[j] < offsets[i] + sizes[i];
        EXPECT_FALSE(live_together && overlap) << i << " and " << j;
      }
    }
    return std::pair(total, unshared);
  };
  const auto [total, unshared] = check({1000, 1000, 1000, 64});
  EXPECT_LT(total, unshared);  // 0 and 2 live apart: one buffer's bytes saved
  const auto [bigger, bigger_unshared] = check({5000, 1000, 5000, 64});
  EXPECT_GE(bigger, 5000 + 1024);
  EXPECT_LT(bigger, bigger_unshared);
  std::vector<int64_t> offsets(4);
  const int64_t negative[] = {1, -1, 1, 1};
  EXPECT_EQ(anvil_aot_host_plan(host, 4, lifetimes, negative, offsets.data()), -1);
  EXPECT_EQ(anvil_aot_host_plan(host, 3, lifetimes, negative + 2, offsets.data()), -1);
  const int64_t huge[] = {INT64_MAX / 3, INT64_MAX / 3, INT64_MAX / 3, 1};
  EXPECT_EQ(anvil_aot_host_plan(host, 4, lifetimes, huge, offsets.data()), -1);
  anvil_aot_host_destroy(host);
  AnvilAotHost* fresh =
      anvil_aot_host_create(nullptr, 0, nullptr, 0, nullptr, 0, nullptr, error, 256);
  ASSERT_NE(fresh, nullptr) << error;
  const int32_t backwards[] = {2, 1};
  const int64_t one[] = {8};
  EXPECT_EQ(anvil_aot_host_plan(fresh, 1, backwards, one, offsets.data()), -1);
  anvil_aot_host_destroy(fresh);
}

}  // namespace
}  // namespace anvil::lower
