// `fuse-qdq`: QDQ-format quantized operators (as ONNX Runtime's quantizer, PyTorch and TensorRT
// tooling write them: DequantizeLinear -> float op -> QuantizeLinear) rewritten into integer
// operators, which the kernels run with int8 arithmetic (simd/qgemm.h), as ONNX Runtime's QDQ
// transformer rewrites them:
//
//   Q(Conv(DQ(x), DQ(w), DQ(b)?))  -> QLinearConv(x, x_s, x_zp, w, w_s, w_zp, y_s, y_zp, b?)
//   Q(MatMul(DQ(a), DQ(b)))        -> QLinearMatMul(a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp)
//   Q(Gemm(DQ(a), DQ(b), DQ(c)?))  -> com.microsoft QGemm(a, .., b, .., c?, y_s, y_zp)
//   Q(Add|Mul(DQ(a), DQ(b)))       -> com.microsoft QLinearAdd|QLinearMul(a, .., b, .., y_s, y_zp)
//   Q(Sigmoid|LeakyRelu|GlobalAveragePool|AveragePool(DQ(x)))
//                                  -> com.microsoft QLinearSigmoid|...(x, x_s, x_zp, y_s, y_zp)
//   Q(Concat(DQ(x_1), ..., DQ(x_n))) -> com.microsoft QLinearConcat(y_s, y_zp, x_1, .., ...)
//
// Applies when: the float op's output is read by the QuantizeLinear alone and is not a graph
// output; activations' and y's scales and zero points are one-value constants; a weight and
// its scale and zero point are constants, per tensor or per output channel (Conv: axis 0 of W
// [M, ...]; MatMul: a 2-D B per column, axis 1; Gemm: axis 1 of B, 0 of a transposed B); data
// are 8-bit (for the com.microsoft ops all of one type, as ONNX Runtime's kernels take them);
// a bias is a DequantizeLinear of an int32 constant with zero point 0 and scale x_s * w_s[m]
// exactly (as quantizers write it: the scale QLinearConv implies); Gemm has alpha = beta = 1 and
// no transA; AveragePool no dilations. The com.microsoft rewrites import that domain at version
// 1 (skipped when the model imports another version). The DequantizeLinear nodes stay for
// their other readers (dce removes the rest); absent zero points become zero constants (the
// integer ops require them).
//
// Numerics: the fused ops compute what ONNX Runtime's kernels compute for the same patterns
// (kernels/ops/compute_quantized.cc): exact integer sums requantized once, or its float ratios,
// where the QDQ graph rounds float results of dequantized values: results differ from the QDQ
// graph's by at most one quantization step. QuantizeLinear with opset 21's output_dtype or a
// block size, and float8 types, are left alone.
//
// Statistics: qlinear-conv, qlinear-matmul, qgemm, qlinear-elementwise (Add, Mul, Sigmoid,
// LeakyRelu), qlinear-pool, qlinear-concat.
#ifndef ANVIL_GRAPH_PASSES_FUSE_QDQ_H_
#define ANVIL_GRAPH_PASSES_FUSE_QDQ_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class FuseQdqPass : public Pass {
 public:
  std::string_view name() const override { return "fuse-qdq"; }
  std::string_view description() const override {
    return "Rewrites DequantizeLinear -> op -> QuantizeLinear into integer ops: QLinearConv, "
           "QLinearMatMul, and ONNX Runtime's QGemm, QLinearAdd/Mul/Sigmoid/LeakyRelu/Concat and "
           "QLinear pools.";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASSES_FUSE_QDQ_H_
