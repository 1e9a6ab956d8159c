// `fuse-qdq`: QDQ-format quantized operators (as ONNX Runtime's quantizer, PyTorch and TensorRT
// tooling write them: DequantizeLinear -> float op -> QuantizeLinear) rewritten into ONNX's
// integer operators, which the kernels run with int8 arithmetic (simd/qgemm.h):
//
//   Q(Conv(DQ(x), DQ(w), DQ(b)?))  -> QLinearConv(x, x_s, x_zp, w, w_s, w_zp, y_s, y_zp, b?)
//   Q(MatMul(DQ(a), DQ(b)))        -> QLinearMatMul(a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp)
//
// Applies when: the float op's output is read by the QuantizeLinear alone and is not a graph
// output; x's (a's) and y's scale and zero point are one-value constants; the weight and its
// scale and zero point are constants, per tensor or per output channel (Conv: axis 0 of W [M,
// ...]; MatMul: a 2-D B per column, axis 1); x and the weight are 8-bit; the bias is a
// DequantizeLinear of an int32 constant with zero point 0 and scale x_s * w_s[m] exactly (as
// quantizers write it: the scale QLinearConv implies). The DequantizeLinear nodes stay for
// their other readers (dce removes the rest); absent zero points become zero constants (the
// integer ops require them).
//
// Numerics: the fused op sums exact integer products and requantizes once, acc * (x_s * w_s /
// y_s) rounded half to even, where the QDQ graph rounds the float sum of dequantized products:
// results differ by at most one quantization step, and equal ONNX Runtime's, which fuses the
// same patterns into the same ops. QuantizeLinear with opset 21's output_dtype or a block size,
// and float8 types, are left alone.
//
// Statistics: qlinear-conv, qlinear-matmul.
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
    return "Rewrites DequantizeLinear -> Conv/MatMul -> QuantizeLinear into QLinearConv and "
           "QLinearMatMul.";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASSES_FUSE_QDQ_H_
