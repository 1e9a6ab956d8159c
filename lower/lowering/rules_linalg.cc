// Lowering of the compute-bound ops: MatMul and Gemm on f32/f64 become loops over the batch dims
// around the `gemm` intrinsic (the runtime's Highway GEMM); Conv, ConvTranspose and pooling call
// their runtime kernels as compute intrinsics. Other element types (integer MatMul, ...) call the
// kernel as a fallback.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lower/lowering/node_lowering.h"

namespace anvil::lower {
namespace {

using tir::Builder;
using tir::DataType;
using tir::Expr;
using tir::IndexConst;
using tir::ScalarKind;
using tir::Stmt;

bool GemmType(DataType t) { return t.kind() == ScalarKind::kF32 || t.kind() == ScalarKind::kF64; }

// C = alpha * op(A) * op(B) + beta * C for one matrix; the pointers address each matrix's first
// element. With K possibly 0 the product is a zero (or beta * C) matrix, which gemm leaves to its
// caller: beta == 0 needs C zeroed first.
Stmt GemmCall(Builder& b, bool ta, bool tb, Expr m, Expr n, Expr k, Expr alpha, Expr a, Expr lda,
              Expr bm, Expr ldb, Expr beta, Expr c, Expr ldc) {
  return b.Evaluate(b.Call(tir::IntrinsicOp::kGemm, {b.Bool(ta), b.Bool(tb), m, n, k, alpha, a, lda,
                                                     bm, ldb, beta, c, ldc}));
}

absl::Status MatMul(NodeLowering& n) {
  const Expr& a = n.input(0);
  const Expr& bt = n.input(1);
  const Expr& y = n.output(0);
  if (!GemmType(y.type()) || a.type() != y.type() || bt.type() != y.type()) {
    return n.Unimplemented("MatMul of a type gemm does not take");
  }
  Builder& b = n.b();
  n.CountAsIntrinsic();
  const std::vector<Expr>& ad = NodeLowering::TensorDims(a);
  const std::vector<Expr>& bd = NodeLowering::TensorDims(bt);
  const std::vector<Expr>& yd = NodeLowering::TensorDims(y);
  if (ad.empty() || bd.empty()) return n.Unimplemented("a scalar operand");
  // A 1-D A is a row [1, K], a 1-D B a column [K, 1]; the output lacks that dim.
  const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
  const Expr m = a_vec ? IndexConst(1) : ad[ad.size() - 2];
  const Expr k = ad.back();
  const Expr nn = b_vec ? IndexConst(1) : bd.back();
  const size_t batch = yd.size() - (a_vec ? 0 : 1) - (b_vec ? 0 : 1);
  const std::vector<Expr> batch_dims(yd.begin(), yd.begin() + batch);
  const Expr zero = b.Zero(y.type()), one = b.One(y.type());
  if (batch > 0 && !b_vec && bd.size() == 2 && ad.size() == batch + 2) {
    // [batch..., M, K] x [K, N] (a linear layer): A's and Y's batch dims continue their rows, so
    // one gemm of batch * M rows reads B once instead of once per batch.
    Expr rows = m;
    for (const Expr& d : batch_dims) rows = b.Mul(d, rows);
    std::vector<Expr> a0(ad.size(), IndexConst(0)), y0(yd.size(), IndexConst(0));
    Stmt gemm = GemmCall(b, false, false, rows, nn, k, one, b.Ptr(a, a0), k,
                         b.Ptr(bt, {IndexConst(0), IndexConst(0)}), nn, zero, b.Ptr(y, y0), nn);
    Stmt zeros = b.Nest(yd, "z", [&](const std::vector<Expr>& z) { return b.Store(y, z, zero); });
    n.Emit(b.If(b.Eq(k, IndexConst(0)), zeros, gemm));
    return b.status();
  }
  n.Emit(b.Nest(batch_dims, "b", [&](const std::vector<Expr>& bi) {
    // Batch subscripts of each operand: numpy-broadcast against the output's batch dims.
    auto operand_index = [&](int input, size_t matrix_rank) {
      const DimsExpr& dims = n.input_dims(input);
      const DimsExpr& out = n.output_dims(0);
      const std::vector<Expr>& tdims = NodeLowering::TensorDims(n.input(input));
      const size_t op_batch = dims.size() - matrix_rank;
      std::vector<Expr> index;
      for (size_t j = 0; j < op_batch; ++j) {
        const size_t o = batch - op_batch + j;
        if (dims[j].IsLiteral() && dims[j].literal() == 1) {
          index.push_back(IndexConst(0));
        } else if (dims[j] == out[o]) {
          index.push_back(bi[o]);
        } else {
          index.push_back(b.Min(bi[o], b.Sub(tdims[j], IndexConst(1))));
        }
      }
      for (size_t j = 0; j < matrix_rank; ++j) index.push_back(IndexConst(0));
      return index;
    };
    std::vector<Expr> yi = bi;
    for (size_t j = batch; j < yd.size(); ++j) yi.push_back(IndexConst(0));
    Expr yptr = b.Ptr(y, yi);
    Stmt gemm = GemmCall(b, false, false, m, nn, k, one, b.Ptr(a, operand_index(0, a_vec ? 1 : 2)),
                         k, b.Ptr(bt, operand_index(1, b_vec ? 1 : 2)), nn, zero, yptr, nn);
    // gemm computes nothing when K is 0: the product is then zeros.
    std::vector<Expr> mn = {m, nn};
    Stmt zeros = b.Nest(mn, "z", [&](const std::vector<Expr>& z) {
      std::vector<Expr> idx = bi;
      if (!a_vec) idx.push_back(z[0]);
      if (!b_vec) idx.push_back(z[1]);
      return b.Store(y, idx, zero);
    });
    return b.If(b.Eq(k, IndexConst(0)), zeros, gemm);
  }));
  return b.status();
}

absl::Status Gemm(NodeLowering& n) {
  const Expr& a = n.input(0);
  const Expr& bm = n.input(1);
  const Expr& y = n.output(0);
  if (!GemmType(y.type()) || a.type() != y.type() || bm.type() != y.type()) {
    return n.Unimplemented("Gemm of a type gemm does not take");
  }
  if (n.has_input(2) && n.input_type(2) != y.type()) return n.Unimplemented("C of another type");
  Builder& b = n.b();
  n.CountAsIntrinsic();
  const bool ta = n.node().GetInt("transA", 0) != 0, tb = n.node().GetInt("transB", 0) != 0;
  const double alpha = n.node().GetFloat("alpha", 1.0f), beta = n.node().GetFloat("beta", 1.0f);
  const std::vector<Expr>& ad = NodeLowering::TensorDims(a);
  const std::vector<Expr>& bd = NodeLowering::TensorDims(bm);
  const std::vector<Expr>& yd = NodeLowering::TensorDims(y);
  if (ad.size() != 2 || bd.size() != 2 || yd.size() != 2) return n.Unimplemented("not 2-D");
  const Expr m = yd[0], nn = yd[1], k = ta ? ad[0] : ad[1];
  const bool with_c = n.has_input(2) && beta != 0;
  // Y = beta * C (broadcast), then Y += alpha * op(A) op(B).
  if (with_c) {
    const Expr beta_c = b.Const(y.type(), beta);
    n.Emit(b.Nest(yd, "i", [&](const std::vector<Expr>& i) {
      return b.Store(y, i, b.Mul(beta_c, b.Load(n.input(2), n.BroadcastIndex(2, i))));
    }));
  } else {
    n.Emit(b.Nest(yd, "i",
                  [&](const std::vector<Expr>& i) { return b.Store(y, i, b.Zero(y.type())); }));
  }
  n.Emit(b.If(b.Gt(k, IndexConst(0)),
              GemmCall(b, ta, tb, m, nn, k, b.Const(y.type(), alpha),
                       b.Ptr(a, {IndexConst(0), IndexConst(0)}), ad[1],
                       b.Ptr(bm, {IndexConst(0), IndexConst(0)}), bd[1], b.One(y.type()),
                       b.Ptr(y, {IndexConst(0), IndexConst(0)}), nn)));
  return b.status();
}

absl::Status KernelIntrinsic(NodeLowering& n) { return n.CallKernel(); }

}  // namespace

// Sorted by op type.
const LowerRule kLinalgLowerRules[] = {
    {"", "AveragePool", &KernelIntrinsic},
    {"", "Conv", &KernelIntrinsic},
    {"com.anvil.nchwc", "Conv", &KernelIntrinsic},
    {"", "ConvTranspose", &KernelIntrinsic},
    {"com.microsoft", "FusedConv", &KernelIntrinsic},
    {"com.microsoft", "FusedMatMul", &KernelIntrinsic},
    {"", "Gemm", &Gemm},
    {"", "GlobalAveragePool", &KernelIntrinsic},
    {"com.anvil.nchwc", "GlobalAveragePool", &KernelIntrinsic},
    {"", "GlobalLpPool", &KernelIntrinsic},
    {"", "GlobalMaxPool", &KernelIntrinsic},
    {"", "LpPool", &KernelIntrinsic},
    {"", "MatMul", &MatMul},
    {"", "MaxPool", &KernelIntrinsic},
    {"com.anvil.nchwc", "MaxPool", &KernelIntrinsic},
    {"com.anvil.nchwc", "Mul", &KernelIntrinsic},
    {"com.anvil.nchwc", "Pad", &KernelIntrinsic},
    {"com.anvil.nchwc", "ReorderInput", &KernelIntrinsic},
    {"com.anvil.nchwc", "ReorderOutput", &KernelIntrinsic},
    {"", nullptr, nullptr},
};

}  // namespace anvil::lower
