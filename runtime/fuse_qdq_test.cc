// fuse-qdq's property: on random QDQ convolutions, matrix products and Gemms (uint8 and int8
// data, per-tensor and per-channel weights, zero points at the type edges, outputs that
// saturate, strides, pads, groups, with and without bias), and on the ops it rewrites into ONNX
// Runtime's com.microsoft QLinear ops (Add and Mul with broadcasting, Sigmoid, LeakyRelu, the
// average pools, Concat), the fused ops give the QDQ graph's quantized results within one step,
// run by the runtime with and without the pass, at 1 and 3 threads.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "kernels/tensor.h"
#include "runtime/session.h"

namespace anvil {
namespace {

struct Rng {
  std::mt19937 gen;
  int64_t Int(int64_t lo, int64_t hi) {  // [lo, hi]
    return std::uniform_int_distribution<int64_t>(lo, hi)(gen);
  }
  bool Coin() { return Int(0, 1) == 1; }
  // A zero point of an 8-bit type: at an edge half of the time.
  int64_t Zero(bool is_signed) {
    const int64_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
    switch (Int(0, 3)) {
      case 0:
        return lo;
      case 1:
        return hi;
      default:
        return Int(lo, hi);
    }
  }
  float Scale() { return std::ldexp(static_cast<float>(Int(1, 1000)) / 1000.0f, Int(-9, -2)); }
};

std::string Floats(const std::vector<float>& v) {
  return absl::StrJoin(
      v, ", ", [](std::string* out, float f) { absl::StrAppend(out, absl::StrFormat("%.9g", f)); });
}
std::string Ints(const std::vector<int64_t>& v) { return absl::StrJoin(v, ", "); }
const char* TypeName(bool is_signed) { return is_signed ? "int8" : "uint8"; }

struct Case {
  std::string text;
  std::vector<int64_t> x_dims;
  bool x_signed = false;
};

// Q(Conv(DQ(x), DQ(w), DQ(b)?)) with random geometry and quantization.
Case RandomConv(Rng& r) {
  Case c;
  const int64_t C = r.Int(1, 4), H = r.Int(3, 7), W = r.Int(3, 7);
  const bool depthwise = r.Int(0, 3) == 0;
  const int64_t group = depthwise ? C : 1;
  const int64_t M = depthwise ? C * r.Int(1, 2) : r.Int(1, 5);
  const int64_t k = r.Int(1, 3), stride = r.Int(1, 2), pad = r.Int(0, k - 1);
  const int64_t Cg = C / group;
  c.x_signed = r.Coin();
  c.x_dims = {1, C, H, W};
  const bool w_signed = r.Int(0, 3) != 0, per_channel = r.Coin(), bias = r.Coin();
  const float xs = r.Scale(), ys = r.Scale() * static_cast<float>(r.Int(1, 40));
  std::vector<float> ws(per_channel ? M : 1);
  std::vector<int64_t> wz(ws.size()), w(M * Cg * k * k), b(M);
  for (float& s : ws) s = r.Scale();
  for (int64_t& z : wz) z = r.Zero(w_signed);
  for (int64_t& v : w) v = w_signed ? r.Int(-128, 127) : r.Int(0, 255);
  std::vector<float> bs(M);
  for (int64_t m = 0; m < M; ++m) {
    b[m] = r.Int(-3000, 3000);
    bs[m] = xs * ws[per_channel ? m : 0];
  }
  const bool y_signed = r.Coin();
  const std::string wdims = per_channel ? absl::StrCat("[", M, "]") : "";
  c.text = absl::StrCat(
      "<ir_version: 8, opset_import: [\"\" : 17]>\n", "main (", TypeName(c.x_signed), "[1, ", C,
      ", ", H, ", ", W, "] xq) => (", TypeName(y_signed), "[1, ", M, ", ?, ?] y)\n",
      "<float xs = {", Floats({xs}), "}, ", TypeName(c.x_signed), " xz = {", r.Zero(c.x_signed),
      "}, ", TypeName(w_signed), "[", M, ", ", Cg, ", ", k, ", ", k, "] w = {", Ints(w), "}, float",
      wdims, " ws = {", Floats(ws), "}, ", TypeName(w_signed), wdims, " wz = {", Ints(wz),
      "}, int32[", M, "] b = {", Ints(b), "}, float[", M, "] bs = {", Floats(bs), "}, float ys = {",
      Floats({ys}), "}, ", TypeName(y_signed), " yz = {", r.Zero(y_signed),
      "}>\n{\n  x = DequantizeLinear(xq, xs, xz)\n  wf = DequantizeLinear<axis = 0>(w, ws, wz)\n",
      "  bf = DequantizeLinear<axis = 0>(b, bs)\n", "  c = Conv<group = ", group,
      ", kernel_shape = [", k, ", ", k, "], strides = [", stride, ", ", stride, "], pads = [", pad,
      ", ", pad, ", ", pad, ", ", pad, "]>(x, wf", bias ? ", bf" : "", ")\n",
      "  y = QuantizeLinear(c, ys, yz)\n}\n");
  return c;
}

// Q(MatMul(DQ(a), DQ(b))) with b per tensor or per column.
Case RandomMatMul(Rng& r) {
  Case c;
  const int64_t M = r.Int(1, 6), K = r.Int(1, 40), N = r.Int(1, 20);
  c.x_signed = r.Coin();
  c.x_dims = {M, K};
  const bool b_signed = r.Int(0, 3) != 0, per_column = r.Coin(), y_signed = r.Coin();
  std::vector<float> bs(per_column ? N : 1);
  std::vector<int64_t> bz(bs.size()), b(K * N);
  for (float& s : bs) s = r.Scale();
  for (int64_t& z : bz) z = r.Zero(b_signed);
  for (int64_t& v : b) v = b_signed ? r.Int(-128, 127) : r.Int(0, 255);
  const std::string bdims = per_column ? absl::StrCat("[", N, "]") : "";
  c.text = absl::StrCat(
      "<ir_version: 8, opset_import: [\"\" : 17]>\n", "main (", TypeName(c.x_signed), "[", M, ", ",
      K, "] xq) => (", TypeName(y_signed), "[", M, ", ", N, "] y)\n", "<float xs = {",
      Floats({r.Scale()}), "}, ", TypeName(c.x_signed), " xz = {", r.Zero(c.x_signed), "}, ",
      TypeName(b_signed), "[", K, ", ", N, "] w = {", Ints(b), "}, float", bdims, " ws = {",
      Floats(bs), "}, ", TypeName(b_signed), bdims, " wz = {", Ints(bz), "}, float ys = {",
      Floats({r.Scale() * static_cast<float>(r.Int(1, 40))}), "}, ", TypeName(y_signed), " yz = {",
      r.Zero(y_signed), "}>\n{\n  x = DequantizeLinear(xq, xs, xz)\n",
      "  wf = DequantizeLinear<axis = 1>(w, ws, wz)\n  m = MatMul(x, wf)\n",
      "  y = QuantizeLinear(m, ys, yz)\n}\n");
  return c;
}

// The header and the x input's DequantizeLinear of the element-wise cases: x [1, C, H, W] of
// `type`, with scale xs and zero point xz in the initializer list `inits` (more appended).
struct Activation {
  std::string type;
  bool is_signed = false;
  std::vector<int64_t> dims;
  std::string inits;
};
Activation RandomActivation(Rng& r) {
  Activation a;
  a.is_signed = r.Coin();
  a.type = TypeName(a.is_signed);
  a.dims = {r.Int(1, 2), r.Int(1, 5), r.Int(1, 6), r.Int(1, 6)};
  a.inits = absl::StrCat("float xs = {", Floats({r.Scale()}), "}, ", a.type, " xz = {",
                         r.Zero(a.is_signed), "}, float ys = {",
                         Floats({r.Scale() * static_cast<float>(r.Int(1, 20))}), "}, ", a.type,
                         " yz = {", r.Zero(a.is_signed), "}");
  return a;
}
std::string DimsText(const std::vector<int64_t>& d) { return absl::StrCat("[", Ints(d), "]"); }
std::vector<int64_t> RandomBytes(Rng& r, int64_t n, bool is_signed) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t& b : v) b = is_signed ? r.Int(-128, 127) : r.Int(0, 255);
  return v;
}
Case ElementwiseCase(const Activation& a, const std::string& inits, const std::string& body) {
  Case c;
  c.x_signed = a.is_signed;
  c.x_dims = a.dims;
  c.text = absl::StrCat("<ir_version: 8, opset_import: [\"\" : 17]>\nmain (", a.type,
                        DimsText(a.dims), " xq) => (", a.type, "[] y)\n<", a.inits, inits,
                        ">\n{\n  x = DequantizeLinear(xq, xs, xz)\n", body,
                        "  y = QuantizeLinear(f, ys, yz)\n}\n");
  return c;
}

// Q(Add|Mul(DQ(x), DQ(b))) with b a constant of x's shape, one per channel, or one value.
Case RandomBinary(Rng& r) {
  const Activation a = RandomActivation(r);
  std::vector<int64_t> b_dims = a.dims;
  switch (r.Int(0, 2)) {
    case 0:
      b_dims = {1, a.dims[1], 1, 1};
      break;
    case 1:
      b_dims = {1};
      break;
    default:
      break;
  }
  int64_t n = 1;
  for (int64_t d : b_dims) n *= d;
  const std::string inits = absl::StrCat(
      ", ", a.type, DimsText(b_dims), " b = {", Ints(RandomBytes(r, n, a.is_signed)),
      "}, float bs = {", Floats({r.Scale()}), "}, ", a.type, " bz = {", r.Zero(a.is_signed), "}");
  const bool swap = r.Coin();
  return ElementwiseCase(a, inits,
                         absl::StrCat("  bf = DequantizeLinear(b, bs, bz)\n  f = ",
                                      r.Coin() ? "Add" : "Mul", swap ? "(bf, x)\n" : "(x, bf)\n"));
}

// Q(op(DQ(x))) for Sigmoid, LeakyRelu, GlobalAveragePool and AveragePool.
Case RandomUnary(Rng& r) {
  const Activation a = RandomActivation(r);
  std::string op;
  switch (r.Int(0, 3)) {
    case 0:
      op = "Sigmoid";
      break;
    case 1:
      op = absl::StrCat("LeakyRelu<alpha = ", Floats({static_cast<float>(r.Int(1, 30)) / 100.0f}),
                        ">");
      break;
    case 2:
      op = "GlobalAveragePool";
      break;
    default: {
      const int64_t k = r.Int(1, std::min<int64_t>(3, std::min(a.dims[2], a.dims[3])));
      const int64_t p = r.Int(0, k - 1);
      op = absl::StrCat("AveragePool<kernel_shape = [", k, ", ", k, "], strides = [", r.Int(1, 2),
                        ", ", r.Int(1, 2), "], pads = [", p, ", ", p, ", ", p, ", ", p,
                        "], count_include_pad = ", r.Int(0, 1), ">");
    }
  }
  return ElementwiseCase(a, "", absl::StrCat("  f = ", op, "(x)\n"));
}

// Q(Concat(DQ(x), DQ(c))) along channels, c a constant whose parameters are y's half the time.
Case RandomConcat(Rng& r) {
  const Activation a = RandomActivation(r);
  std::vector<int64_t> c_dims = a.dims;
  c_dims[1] = r.Int(1, 3);
  const int64_t n = c_dims[0] * c_dims[1] * c_dims[2] * c_dims[3];
  const bool same = r.Coin();
  const std::string inits = absl::StrCat(
      ", ", a.type, DimsText(c_dims), " c = {", Ints(RandomBytes(r, n, a.is_signed)), "}",
      same ? ""
           : absl::StrCat(", float cs = {", Floats({r.Scale()}), "}, ", a.type, " cz = {",
                          r.Zero(a.is_signed), "}"));
  return ElementwiseCase(
      a, inits,
      absl::StrCat("  cf = DequantizeLinear(c, ", same ? "ys, yz" : "cs, cz", ")\n",
                   "  f = Concat<axis = ", r.Coin() ? 1 : -3, ">(x, cf)\n"));
}

// Q(Gemm(DQ(a), DQ(b), DQ(c)?)) with b [K, N] or transposed, per tensor or per column.
Case RandomGemm(Rng& r) {
  Case c;
  const int64_t M = r.Int(1, 6), K = r.Int(1, 40), N = r.Int(1, 20);
  c.x_signed = r.Coin();
  c.x_dims = {M, K};
  const bool b_signed = r.Int(0, 3) != 0, per_column = r.Coin(), y_signed = r.Coin();
  const bool trans_b = r.Coin(), bias = r.Coin();
  const float xs = r.Scale();
  std::vector<float> bs(per_column ? N : 1), cs(N);
  std::vector<int64_t> bz(bs.size()), cv(N);
  for (float& s : bs) s = r.Scale();
  for (int64_t& z : bz) z = r.Zero(b_signed);
  for (int64_t j = 0; j < N; ++j) {
    cs[j] = xs * bs[per_column ? j : 0];
    cv[j] = r.Int(-3000, 3000);
  }
  const std::string bdims = per_column ? absl::StrCat("[", N, "]") : "";
  const std::string wdims =
      trans_b ? absl::StrCat("[", N, ", ", K, "]") : absl::StrCat("[", K, ", ", N, "]");
  c.text = absl::StrCat(
      "<ir_version: 8, opset_import: [\"\" : 17]>\n", "main (", TypeName(c.x_signed), "[", M, ", ",
      K, "] xq) => (", TypeName(y_signed), "[", M, ", ", N, "] y)\n", "<float xs = {", Floats({xs}),
      "}, ", TypeName(c.x_signed), " xz = {", r.Zero(c.x_signed), "}, ", TypeName(b_signed), wdims,
      " w = {", Ints(RandomBytes(r, K * N, b_signed)), "}, float", bdims, " ws = {", Floats(bs),
      "}, ", TypeName(b_signed), bdims, " wz = {", Ints(bz), "}, int32[", N, "] b = {", Ints(cv),
      "}, float[", N, "] bs = {", Floats(cs), "}, float ys = {",
      Floats({r.Scale() * static_cast<float>(r.Int(1, 40))}), "}, ", TypeName(y_signed), " yz = {",
      r.Zero(y_signed), "}>\n{\n  x = DequantizeLinear(xq, xs, xz)\n",
      "  wf = DequantizeLinear<axis = ", trans_b ? 0 : 1,
      ">(w, ws, wz)\n  bf = DequantizeLinear<axis = 0>(b, bs)\n",
      "  m = Gemm<transB = ", trans_b ? 1 : 0, ">(x, wf", bias ? ", bf" : "", ")\n",
      "  y = QuantizeLinear(m, ys, yz)\n}\n");
  return c;
}

// One of the random cases, by seed.
Case RandomCase(Rng& r, int seed) {
  switch (seed % 7) {
    case 0:
    case 1:
      return RandomConv(r);
    case 2:
      return RandomMatMul(r);
    case 3:
      return RandomGemm(r);
    case 4:
      return RandomBinary(r);
    case 5:
      return RandomUnary(r);
    default:
      return RandomConcat(r);
  }
}

// y of `text` run with `pipeline`, as int64 values (the output is uint8 or int8).
std::vector<int64_t> RunY(const std::string& text, const std::string& pipeline, const Tensor& x,
                          int threads) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  EXPECT_TRUE(model.ok()) << model.status() << "\n" << text;
  if (!model.ok()) return {};
  SessionOptions options;
  options.pipeline = pipeline;
  options.threads = threads;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(*std::move(model), options);
  EXPECT_TRUE(session.ok()) << session.status() << "\n" << text;
  if (!session.ok()) return {};
  absl::StatusOr<std::vector<Tensor>> out = (*session)->Run({{"xq", x}});
  EXPECT_TRUE(out.ok()) << out.status() << "\n" << text;
  if (!out.ok()) return {};
  const Tensor& y = (*out)[0];
  std::vector<int64_t> values(y.NumElements());
  for (int64_t i = 0; i < y.NumElements(); ++i) {
    values[i] =
        y.type() == ElementType::kInt8 ? int64_t{y.As<int8_t>()[i]} : int64_t{y.As<uint8_t>()[i]};
  }
  return values;
}

TEST(FuseQdqTest, FusedOpsGiveTheQdqGraphsResultsWithinOneStep) {
  Rng r{std::mt19937(20261130)};
  int64_t violations = 0, elements = 0, differing = 0;
  for (int seed = 0; seed < 3000; ++seed) {
    const Case c = RandomCase(r, seed);
    Tensor x(c.x_signed ? ElementType::kInt8 : ElementType::kUint8, c.x_dims);
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      static_cast<uint8_t*>(x.data())[i] = static_cast<uint8_t>(r.Int(0, 255));
    }
    const std::vector<int64_t> qdq = RunY(c.text, "shape-inference", x, 1);
    // Every other graph with 3 threads: the int8 convolutions split blocks and rows by threads.
    const std::vector<int64_t> fused =
        RunY(c.text, "shape-inference,fuse-qdq,dce", x, seed % 2 == 1 ? 3 : 1);
    ASSERT_EQ(qdq.size(), fused.size()) << c.text;
    for (size_t i = 0; i < qdq.size(); ++i) {
      ++elements;
      differing += qdq[i] != fused[i];
      if (std::abs(qdq[i] - fused[i]) > 1) {
        ++violations;
        ADD_FAILURE() << "element " << i << ": QDQ " << qdq[i] << ", fused " << fused[i] << "\n"
                      << c.text;
        if (violations > 5) return;
      }
    }
  }
  EXPECT_EQ(violations, 0);
  // Most results are equal: a differing element is a rounding tie the float sum landed on the
  // other side of.
  EXPECT_LT(differing * 20, elements) << differing << " of " << elements;
}

// The pass rewrites what the property test runs (else the test compares a graph with itself).
TEST(FuseQdqTest, TheRandomGraphsAreFused) {
  Rng r{std::mt19937(7)};
  for (int i = 0; i < 35; ++i) {
    const Case c = RandomCase(r, i);
    absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(c.text);
    ASSERT_TRUE(model.ok()) << model.status();
    absl::Status status = PrepareModelForRun(**model, "fuse-qdq,dce");
    ASSERT_TRUE(status.ok()) << status;
    int fused = 0;
    for (const Node* node : (*model)->graph().NodesSnapshot()) {
      const std::string& op = node->op_type();
      fused += op == "QLinearConv" || op == "QLinearMatMul" || op == "QGemm" ||
               op == "QLinearAdd" || op == "QLinearMul" || op == "QLinearSigmoid" ||
               op == "QLinearLeakyRelu" || op == "QLinearGlobalAveragePool" ||
               op == "QLinearAveragePool" || op == "QLinearConcat";
    }
    EXPECT_EQ(fused, 1) << c.text;
  }
}

}  // namespace
}  // namespace anvil
