// Einsum and Det.
//
// Einsum is the reference the einsum-decompose rewrite is tested against, so it stays simple:
// the equation comes from the shared parser (shape/einsum_equation.h), and the sizes were validated
// by the Einsum shape rule (shape/einsum_dims.h) before the kernel runs; each operand takes its
// diagonals (a label repeated within a term becomes
// one dim whose stride is the sum) and sums out the labels no one else needs; then operands are
// contracted left to right, each pair permuted into [batch, M, K] x [batch, K, N] and multiplied
// with BatchedMatMul (SIMD GEMM for float). Ellipsis dims are labels of their own, broadcast
// numpy-style (right-aligned; size-1 dims get stride 0).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "kernels/ops/compute_util.h"
#include "shape/einsum_equation.h"

namespace anvil::compute_ops {
namespace {

// An operand during evaluation: a view (over an input or `storage`) and one label per dim.
struct Operand {
  Tensor storage;
  TensorView view;
  std::vector<int> labels;
};

// Sums `op` (element type C) over the dims whose label is not in `keep`: a dense result.
template <typename C>
void SumOut(Operand& op, const std::vector<bool>& keep) {
  const int64_t rank = op.view.rank();
  bool any = false;
  for (int l : op.labels) any |= !keep[l];
  if (!any) return;
  Shape out_dims;
  std::vector<int> out_labels;
  Shape out_strides_in(rank, 0);  // per input dim: its stride in the output (0 when summed)
  for (int64_t k = 0; k < rank; ++k) {
    if (keep[op.labels[k]]) {
      out_dims.push_back(op.view.dims[k]);
      out_labels.push_back(op.labels[k]);
    }
  }
  const Shape dense = DenseStrides(out_dims);
  for (int64_t k = 0, j = 0; k < rank; ++k) {
    if (keep[op.labels[k]]) out_strides_in[k] = dense[j++];
  }
  Tensor result(op.view.type, out_dims);
  C* out = result.As<C>();
  const C* in = op.view.As<C>();
  std::fill(out, out + result.NumElements(), C(0));
  const int64_t n = op.view.NumElements();
  Shape index(rank, 0);
  int64_t io = 0, oo = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[oo] += in[io];
    for (int64_t k = rank - 1; k >= 0; --k) {
      if (++index[k] < op.view.dims[k]) {
        io += op.view.strides[k];
        oo += out_strides_in[k];
        break;
      }
      io -= op.view.strides[k] * (op.view.dims[k] - 1);
      oo -= out_strides_in[k] * (op.view.dims[k] - 1);
      index[k] = 0;
    }
  }
  op.storage = std::move(result);
  op.view = op.storage.view();
  op.labels = std::move(out_labels);
}

// A dense copy of `op` with its dims in the order of `labels` (each a label of op).
Tensor Permuted(const Operand& op, const std::vector<int>& labels) {
  TensorView v;
  v.type = op.view.type;
  v.data = op.view.data;
  for (int l : labels) {
    const size_t k = std::find(op.labels.begin(), op.labels.end(), l) - op.labels.begin();
    v.dims.push_back(op.view.dims[k]);
    v.strides.push_back(op.view.strides[k]);
  }
  return Tensor::CopyOf(v);
}

// Contracts a and b over the labels they share that `needed` does not keep.
template <typename C>
Operand Contract(const Operand& a, const Operand& b, const std::vector<bool>& needed,
                 const std::map<int, int64_t>& sizes) {
  auto in = [](const std::vector<int>& ls, int l) {
    return std::find(ls.begin(), ls.end(), l) != ls.end();
  };
  std::vector<int> batch, m, k, n;
  for (int l : a.labels) {
    if (in(b.labels, l)) {
      (needed[l] ? batch : k).push_back(l);
    } else {
      m.push_back(l);
    }
  }
  for (int l : b.labels) {
    if (!in(a.labels, l)) n.push_back(l);
  }
  auto size_of = [&](const std::vector<int>& ls) {
    int64_t s = 1;
    for (int l : ls) s *= sizes.at(l);
    return s;
  };
  const int64_t B = size_of(batch), M = size_of(m), K = size_of(k), N = size_of(n);
  std::vector<int> a_order = batch, b_order = batch;
  a_order.insert(a_order.end(), m.begin(), m.end());
  a_order.insert(a_order.end(), k.begin(), k.end());
  b_order.insert(b_order.end(), k.begin(), k.end());
  b_order.insert(b_order.end(), n.begin(), n.end());
  const Tensor ta = Permuted(a, a_order);
  const Tensor tb = Permuted(b, b_order);
  Operand r;
  r.labels = batch;
  r.labels.insert(r.labels.end(), m.begin(), m.end());
  r.labels.insert(r.labels.end(), n.begin(), n.end());
  Shape dims;
  for (int l : r.labels) dims.push_back(sizes.at(l));
  r.storage = Tensor(a.view.type, dims);
  r.view = r.storage.view();
  const Shape a3 = {B, M, K}, b3 = {B, K, N};
  BatchedMatMul<C>(TensorView::Dense(a.view.type, ta.data(), a3),
                   TensorView::Dense(a.view.type, tb.data(), b3), r.storage.As<C>());
  return r;
}

class EinsumKernel final : public OpKernel {
 public:
  explicit EinsumKernel(einsum::Equation eq) : eq_(std::move(eq)) {}

  absl::Status Compute(KernelContext& ctx) override {
    const ElementType type = ctx.input(0).type;
    return DispatchArithmetic(type, "Einsum", [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      return Run<C>(ctx);
    });
  }

 private:
  template <typename C>
  absl::Status Run(KernelContext& ctx) {
    const int n_inputs = ctx.num_inputs();
    const ElementType ctype = ElementTypeOf<C>();
    std::vector<int64_t> ranks;
    for (int i = 0; i < n_inputs; ++i) ranks.push_back(ctx.input(i).rank());
    absl::StatusOr<einsum::BoundEquation> bound = eq_.Bind(ranks);
    if (!bound.ok()) return ctx.Error(FromAbsl(bound.status().message()));
    // A label's size is its dims broadcast; the shape rule checked that they broadcast, so that is
    // the dim that is not 1, if any.
    std::map<int, int64_t> sizes;
    for (int i = 0; i < n_inputs; ++i) {
      const std::vector<int>& labels = bound->operands[i].labels;
      for (size_t k = 0; k < labels.size(); ++k) {
        const int64_t d = ctx.input(i).dims[k];
        auto [it, inserted] = sizes.emplace(labels[k], d);
        if (!inserted && d != 1) it->second = d;
      }
    }

    // Operands in the compute type and their labels.
    std::vector<DenseInput<C>> dense(n_inputs);
    std::vector<Operand> ops(n_inputs);
    for (int i = 0; i < n_inputs; ++i) {
      const TensorView& x = ctx.input(i);
      dense[i].Reset(x);
      ops[i].view = TensorView::Dense(ctype, const_cast<C*>(dense[i].data()), x.dims);
      ops[i].labels = bound->operands[i].labels;
    }
    const std::vector<int>& out_labels = bound->output;
    int64_t out_size = 1;
    for (int l : out_labels) out_size *= sizes[l];
    ANVIL_RETURN_IF_ERROR(CheckOutputSize(ctx, 0, out_size));

    // Diagonals and broadcasting: one dim per distinct label, sized sizes[label].
    for (Operand& op : ops) {
      Operand d;
      d.view.type = op.view.type;
      d.view.data = op.view.data;
      for (size_t k = 0; k < op.labels.size(); ++k) {
        const int l = op.labels[k];
        auto it = std::find(d.labels.begin(), d.labels.end(), l);
        if (it != d.labels.end()) {
          d.view.strides[it - d.labels.begin()] += op.view.strides[k];
          continue;
        }
        d.labels.push_back(l);
        d.view.dims.push_back(sizes[l]);
        d.view.strides.push_back(op.view.dims[k] == 1 ? 0 : op.view.strides[k]);
      }
      op.view = d.view;
      op.labels = d.labels;
    }

    // Contract left to right; before each step, labels no later operand or the output needs
    // are summed out of the operands holding them alone.
    std::vector<bool> in_output(bound->num_labels(), false);
    for (int l : out_labels) in_output[l] = true;
    auto needed_after = [&](size_t first) {  // labels of ops[first..] or the output
      std::vector<bool> needed = in_output;
      for (size_t j = first; j < ops.size(); ++j) {
        for (int l : ops[j].labels) needed[l] = true;
      }
      return needed;
    };
    Operand acc = std::move(ops[0]);
    for (size_t i = 1; i <= ops.size(); ++i) {
      std::vector<bool> keep = needed_after(i);
      SumOut<C>(acc, keep);
      if (i == ops.size()) break;
      std::vector<bool> keep_b = needed_after(i + 1);
      for (int l : acc.labels) keep_b[l] = true;
      SumOut<C>(ops[i], keep_b);
      acc = Contract<C>(acc, ops[i], needed_after(i + 1), sizes);
    }

    // Permute into the output.
    TensorView& y = ctx.output(0);
    DenseOutput<C> out(y);
    if (y.NumElements() > 0) {
      Tensor result = Permuted(acc, out_labels);
      std::copy(result.As<C>(), result.As<C>() + result.NumElements(), out.data());
    }
    out.Commit();
    return absl::OkStatus();
  }

  einsum::Equation eq_;
};

// Det-11: determinants of the [*, M, M] matrices, by LU decomposition with partial pivoting in
// double.
absl::Status DetCompute(KernelContext& ctx) {
  const TensorView& x = ctx.input(0);
  const int64_t rank = x.rank();
  if (rank < 2 || x.dims[rank - 1] != x.dims[rank - 2]) {
    return ctx.Error(absl::StrCat("input ", x.DebugString(), " is not a batch of square matrices"));
  }
  const int64_t n = x.dims[rank - 1];
  const int64_t batch = Product(x.dims, 0, rank - 2);
  ANVIL_RETURN_IF_ERROR(CheckOutputSize(ctx, 0, batch));
  return DispatchFloat(x.type, "Det", [&](auto tag) -> absl::Status {
    using C = ComputeType<decltype(tag)>;
    DenseInput<double> xd(x);
    DenseOutput<C> yd(ctx.output(0));
    std::vector<double> a(n * n);
    for (int64_t b = 0; b < batch; ++b) {
      std::copy(xd.data() + b * n * n, xd.data() + (b + 1) * n * n, a.begin());
      double det = 1;
      for (int64_t c = 0; c < n && det != 0; ++c) {
        int64_t pivot = c;
        for (int64_t r = c + 1; r < n; ++r) {
          if (std::fabs(a[r * n + c]) > std::fabs(a[pivot * n + c])) pivot = r;
        }
        if (a[pivot * n + c] == 0) {
          det = 0;
          break;
        }
        if (pivot != c) {
          std::swap_ranges(a.begin() + c * n, a.begin() + (c + 1) * n, a.begin() + pivot * n);
          det = -det;
        }
        const double d = a[c * n + c];
        det *= d;
        for (int64_t r = c + 1; r < n; ++r) {
          const double f = a[r * n + c] / d;
          for (int64_t k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
        }
      }
      yd.data()[b] = static_cast<C>(det);
    }
    yd.Commit();
    return absl::OkStatus();
  });
}

}  // namespace

KernelOr CreateEinsum(const Node& node, int64_t) {
  absl::StatusOr<einsum::Equation> eq = einsum::Equation::Parse(node.GetString("equation", ""));
  if (!eq.ok()) return NodeError(node, std::string(eq.status().message()));
  return std::unique_ptr<OpKernel>(new EinsumKernel(*std::move(eq)));
}

KernelOr CreateDet(const Node&, int64_t) {
  return std::unique_ptr<OpKernel>(new FunctionKernel(&DetCompute));
}

}  // namespace anvil::compute_ops
