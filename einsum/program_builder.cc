// BuildProgram: operand preparation, then a beam search over the planner's steps that picks each
// step's operand layouts (see program.h).
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "einsum/program.h"

namespace anvil::einsum {
namespace {

// Costs are in elements moved (a Transpose moves each element once), measured with ONNX Runtime
// on one core: a Transpose moves about 1.4 elements per ns, a GEMM does about 16 multiply-adds in
// that time, and every node costs about a microsecond of dispatch (a Reshape moves no data: it
// aliases, but it is still a node). A batch of small GEMMs pays a call per matrix.
constexpr double kNodeCost = 512;
constexpr double kMultiplyAddsPerMove = 16;
constexpr double kGemmCallCost = 256;

bool IsLiteralOne(const IndexExpr& e) { return e.IsLiteral() && e.literal() == 1; }

// The size a label has after broadcasting two tensors that hold it.
LabelDim MergeDims(const LabelDim& a, const LabelDim& b) {
  if (a.size == b.size || IsLiteralOne(b.size)) return a;
  if (IsLiteralOne(a.size)) return b;
  std::optional<IndexExpr> merged = BroadcastDim(a.size, b.size);
  if (!merged) return a;  // sizes were checked by EinsumLabelSizes; keep going consistently
  if (merged->IsLiteral()) return a.size.IsLiteral() ? a : b;
  LabelDim r{*merged, a.sources};
  for (const auto& s : b.sources) {
    if (std::find(r.sources.begin(), r.sources.end(), s) == r.sources.end()) r.sources.push_back(s);
  }
  return r;
}

// `labels` ordered by their position in `reference`; labels absent from it keep their order
// after the others.
std::vector<int> OrderBy(const std::vector<int>& labels, const std::vector<int>& reference) {
  std::vector<int> r = labels;
  auto pos = [&](int l) {
    auto it = std::find(reference.begin(), reference.end(), l);
    return it == reference.end() ? reference.size() : static_cast<size_t>(it - reference.begin());
  };
  std::stable_sort(r.begin(), r.end(), [&](int a, int b) { return pos(a) < pos(b); });
  return r;
}

bool Contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::vector<int> Without(const std::vector<int>& v, const std::vector<int>& remove) {
  std::vector<int> r;
  for (int x : v) {
    if (!Contains(remove, x)) r.push_back(x);
  }
  return r;
}

std::vector<int> Concat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Distinct entries of `options`, in order.
std::vector<std::vector<int>> Distinct(std::vector<std::vector<int>> options) {
  std::vector<std::vector<int>> r;
  for (auto& o : options) {
    if (std::find(r.begin(), r.end(), o) == r.end()) r.push_back(std::move(o));
  }
  return r;
}

// Builds a Program op by op. Copyable: the layout search tries candidates on copies.
class Builder {
 public:
  Builder(int64_t size_hint) : hint_(size_hint) {}

  Program& program() { return p_; }
  const ProgramTensor& T(int t) const { return p_.tensors[t]; }

  int AddInput(ProgramTensor t) {
    p_.tensors.push_back(std::move(t));
    producer_.push_back(-1);
    return ++p_.num_inputs - 1;
  }

  int Transpose(int t, std::vector<int64_t> perm) {
    if (IsIdentity(perm)) return t;
    ProgramTensor out;
    out.labels = T(t).labels;
    for (int64_t k : perm) out.axes.push_back(T(t).axes[k]);
    // Moving only dims of size 1 moves no data: a Reshape (which composes with its neighbours).
    int64_t last = -1;
    bool moves_data = false;
    for (int64_t k : perm) {
      const IndexExpr size = T(t).AxisSize(k);
      if (size.IsLiteral() && size.literal() == 1) continue;
      moves_data = moves_data || k < last;
      last = k;
    }
    if (!moves_data) return Reshape(t, std::move(out.axes));
    // A Transpose of a Transpose is one Transpose (every intermediate has one reader).
    if (const int prev = LiveProducer(t, OpKind::kTranspose); prev >= 0) {
      std::vector<int64_t> composed;
      for (int64_t k : perm) composed.push_back(p_.ops[prev].perm[k]);
      dead_[prev] = true;
      t = p_.ops[prev].inputs[0];
      perm = std::move(composed);
      if (IsIdentity(perm)) return t;
    }
    ProgramOp op;
    op.kind = OpKind::kTranspose;
    op.inputs = {t};
    op.perm = std::move(perm);
    return AddOp(std::move(op), std::move(out));
  }

  // Permutes the axes of `t` (one label each; a label may repeat) into `order`.
  int TransposeTo(int t, const std::vector<int>& order) {
    std::vector<int64_t> perm;
    std::vector<bool> taken(T(t).axes.size(), false);
    for (int l : order) {
      for (size_t k = 0; k < T(t).axes.size(); ++k) {
        if (!taken[k] && T(t).axes[k] == Axis{l}) {
          taken[k] = true;
          perm.push_back(static_cast<int64_t>(k));
          break;
        }
      }
    }
    return Transpose(t, std::move(perm));
  }

  // Regroups the labels of `t` (same sequence; unit axes may come and go).
  int Reshape(int t, std::vector<Axis> axes) {
    if (axes == T(t).axes) return t;
    if (const int prev = LiveProducer(t, OpKind::kReshape); prev >= 0) {
      dead_[prev] = true;
      t = p_.ops[prev].inputs[0];
      if (axes == T(t).axes) return t;
    }
    ProgramTensor out;
    out.axes = std::move(axes);
    for (const Axis& a : out.axes) {
      for (int l : a) out.labels[l] = T(t).labels.at(l);
    }
    ProgramOp op;
    op.kind = OpKind::kReshape;
    op.inputs = {t};
    return AddOp(std::move(op), std::move(out));
  }

  // One axis per label, no unit axes.
  int Ungroup(int t) {
    std::vector<Axis> axes;
    for (int l : T(t).LabelSequence()) axes.push_back({l});
    return Reshape(t, std::move(axes));
  }

  // The diagonal of a label repeated in `t`: its copies move last, flatten, and one strided
  // Slice keeps the diagonal.
  int Diagonal(int t, int label) {
    std::vector<int> order;
    int count = 0;
    for (const Axis& a : T(t).axes) {
      if (a[0] == label) {
        ++count;
      } else {
        order.push_back(a[0]);
      }
    }
    std::vector<Axis> axes;
    for (int l : order) axes.push_back({l});
    axes.push_back(Axis(count, label));
    t = Reshape(TransposeTo(t, Concat(order, std::vector<int>(count, label))), axes);
    ProgramTensor out;
    out.labels = T(t).labels;
    out.axes = axes;
    out.axes.back() = {label};
    ProgramOp op;
    op.kind = OpKind::kDiagonal;
    op.inputs = {t};
    op.diagonal_count = count;
    return AddOp(std::move(op), std::move(out));
  }

  int ReduceSum(int t, const std::vector<int>& labels) {
    if (labels.empty()) return t;
    t = Ungroup(t);
    ProgramTensor out;
    ProgramOp op;
    op.kind = OpKind::kReduceSum;
    op.inputs = {t};
    for (size_t k = 0; k < T(t).axes.size(); ++k) {
      const int l = T(t).axes[k][0];
      if (Contains(labels, l)) {
        op.axes.push_back(static_cast<int64_t>(k));
      } else {
        out.axes.push_back({l});
        out.labels[l] = T(t).labels.at(l);
      }
    }
    return AddOp(std::move(op), std::move(out));
  }

  // Broadcasts `label` of `t` to `size`.
  int Expand(int t, int label, const LabelDim& size) {
    ProgramTensor out = T(t);
    out.labels[label] = size;
    ProgramOp op;
    op.kind = OpKind::kExpand;
    op.inputs = {t};
    return AddOp(std::move(op), std::move(out));
  }

  // x: [xprefix..., batch..., (m), (k)] times y: [yprefix..., batch..., (k), (n)]; at most one
  // prefix is non-empty. Returns the product with one axis per label.
  int MatMul(int x, int y, const std::vector<int>& xprefix, const std::vector<int>& yprefix,
             const std::vector<int>& batch, const std::vector<int>& m, const std::vector<int>& k,
             const std::vector<int>& n) {
    // Contracted labels must have one size; different symbolic sizes broadcast first.
    for (int l : k) {
      const LabelDim& dx = T(x).labels.at(l);
      const LabelDim& dy = T(y).labels.at(l);
      if (dx.size == dy.size) continue;
      const LabelDim merged = MergeDims(dx, dy);
      if (dx.size != merged.size) x = Expand(x, l, merged);
      if (dy.size != merged.size) y = Expand(y, l, merged);
    }
    const bool x_vector = xprefix.empty() && batch.empty() && m.empty();
    const bool y_vector = yprefix.empty() && batch.empty() && n.empty();
    x = Operand(x, Concat(xprefix, batch), m, k, x_vector);
    if (y_vector) {
      y = Operand(y, {}, {}, k, /*vector=*/true);
    } else {
      y = Operand(y, Concat(yprefix, batch), k, n, /*vector=*/false);
    }
    ProgramTensor out;
    for (int l : Concat(Concat(xprefix, yprefix), batch)) out.axes.push_back({l});
    if (!x_vector) out.axes.push_back(m);
    if (!y_vector) out.axes.push_back(n);
    for (int l : Concat(xprefix, m)) out.labels[l] = T(x).labels.at(l);
    for (int l : Concat(yprefix, n)) out.labels[l] = T(y).labels.at(l);
    for (int l : batch) out.labels[l] = MergeDims(T(x).labels.at(l), T(y).labels.at(l));
    ProgramOp op;
    op.kind = OpKind::kMatMul;
    op.inputs = {x, y};
    return Ungroup(AddOp(std::move(op), std::move(out)));
  }

  // Broadcasting product of x and y with the result's labels in `order`, then the labels in
  // `sum_after` summed out.
  int Mul(int x, int y, const std::vector<int>& order, const std::vector<int>& sum_after) {
    x = Aligned(x, order);
    y = Aligned(y, order);
    ProgramTensor out;
    for (int l : order) {
      out.axes.push_back({l});
      const auto ix = T(x).labels.find(l);
      const auto iy = T(y).labels.find(l);
      if (ix != T(x).labels.end() && iy != T(y).labels.end()) {
        out.labels[l] = MergeDims(ix->second, iy->second);
      } else {
        out.labels[l] = ix != T(x).labels.end() ? ix->second : iy->second;
      }
    }
    ProgramOp op;
    op.kind = OpKind::kMul;
    op.inputs = {x, y};
    return ReduceSum(AddOp(std::move(op), std::move(out)), sum_after);
  }

  // Layout estimate of the live ops: elements moved or computed; ops on constants are free.
  double Cost() const {
    double cost = 0;
    for (size_t i = 0; i < p_.ops.size(); ++i) {
      if (dead_[i]) continue;
      const ProgramOp& op = p_.ops[i];
      const ProgramTensor& out = T(op.output);
      if (out.constant || ComposesToIdentity(op)) continue;
      cost += kNodeCost;
      switch (op.kind) {
        case OpKind::kReshape:
          break;
        case OpKind::kReduceSum:
          cost += Elements(T(op.inputs[0]));
          break;
        case OpKind::kMatMul: {
          // A GEMM does a multiply-add in a small fraction of the time a Transpose moves an
          // element; when M or N is small it degenerates to GEMVs that read every element of the
          // matrix once per product (a broadcast [b, k, 1] MatMul is no bargain).
          const ProgramTensor& x = T(op.inputs[0]);
          const ProgramTensor& y = T(op.inputs[1]);
          double k = 1;
          for (int l : x.axes.back()) k *= EstimateSize(x.labels.at(l).size, hint_);
          // Against a plain matrix (no batch dims) the left operand's batch dims fold into M,
          // as MatMul implementations do; otherwise each batch element is a GEMM call.
          double m = 1, calls = 1;
          for (size_t a = 0; a + 1 < x.axes.size(); ++a) {
            if (a + 2 == x.axes.size() || y.axes.size() <= 2) {
              m *= Elements(x, a);
            }
          }
          if (y.axes.size() > 2) {
            for (size_t a = 0; a + 2 < out.axes.size(); ++a) calls *= Elements(out, a);
          }
          const double n = y.axes.size() < 2 ? 1 : Elements(y, y.axes.size() - 1);
          const double multiply_adds = Elements(out) * k;
          cost += multiply_adds / kMultiplyAddsPerMove +
                  multiply_adds / std::max(1.0, std::min(m, n)) + (calls - 1) * kGemmCallCost;
          break;
        }
        default:
          cost += Elements(out);
      }
    }
    return cost;
  }

  int AddZeros(ProgramOp op, ProgramTensor out) { return AddOp(std::move(op), std::move(out)); }

  int LiveOps() const { return static_cast<int>(std::count(dead_.begin(), dead_.end(), false)); }

  // The program without the ops composed away.
  Program Finish(int result) && {
    Program p = std::move(p_);
    std::vector<ProgramOp> live;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if (!dead_[i]) live.push_back(std::move(p.ops[i]));
    }
    p.ops = std::move(live);
    p.result = result;
    p.cost = 0;
    return p;
  }

 private:
  static bool IsIdentity(const std::vector<int64_t>& perm) {
    for (size_t k = 0; k < perm.size(); ++k) {
      if (perm[k] != static_cast<int64_t>(k)) return false;
    }
    return true;
  }

  double Elements(const ProgramTensor& t) const {
    double n = 1;
    for (size_t k = 0; k < t.axes.size(); ++k) n *= Elements(t, k);
    return n;
  }
  // Of one axis.
  double Elements(const ProgramTensor& t, size_t axis) const {
    double n = 1;
    for (int l : t.axes[axis]) n *= EstimateSize(t.labels.at(l).size, hint_);
    return n;
  }

  // A Transpose of an operand that undoes the Transpose node producing it (the emitter reads
  // that node's input instead: no data moves).
  bool ComposesToIdentity(const ProgramOp& op) const {
    if (op.kind != OpKind::kTranspose) return false;
    const std::vector<int64_t>& prev = T(op.inputs[0]).producer_perm;
    if (prev.size() != op.perm.size()) return false;
    for (size_t k = 0; k < op.perm.size(); ++k) {
      if (prev[op.perm[k]] != static_cast<int64_t>(k)) return false;
    }
    return true;
  }

  // The op that produced `t` when it is of `kind` and still live.
  int LiveProducer(int t, OpKind kind) const {
    const int op = producer_[t];
    return op >= 0 && !dead_[op] && p_.ops[op].kind == kind ? op : -1;
  }

  int AddOp(ProgramOp op, ProgramTensor out) {
    out.constant = true;
    for (int in : op.inputs) out.constant = out.constant && T(in).constant;
    const int id = static_cast<int>(p_.tensors.size());
    op.output = id;
    p_.tensors.push_back(std::move(out));
    producer_.push_back(static_cast<int>(p_.ops.size()));
    p_.ops.push_back(std::move(op));
    dead_.push_back(false);
    return id;
  }

  // A MatMul operand [lead..., (first), (second)]: the `lead` labels on axes of their own, then
  // the two flattened groups (a unit axis for an empty group); a vector operand is [(second)].
  int Operand(int t, const std::vector<int>& lead, const std::vector<int>& first,
              const std::vector<int>& second, bool vector) {
    t = TransposeTo(Ungroup(t), Concat(Concat(lead, first), second));
    std::vector<Axis> axes;
    for (int l : lead) axes.push_back({l});
    if (!vector) axes.push_back(first);
    axes.push_back(second);
    return Reshape(t, std::move(axes));
  }

  // `t` with its labels in the relative order of `order` and unit axes for the labels of
  // `order` it lacks after its first own label (numpy broadcasting aligns from the right).
  int Aligned(int t, const std::vector<int>& order) {
    t = Ungroup(t);
    std::vector<int> own;
    for (int l : order) {
      if (T(t).labels.count(l)) own.push_back(l);
    }
    t = TransposeTo(t, own);
    std::vector<Axis> axes;
    bool started = false;
    for (int l : order) {
      const bool has = T(t).labels.count(l) > 0;
      started = started || has;
      if (started) axes.push_back(has ? Axis{l} : Axis{});
    }
    return Reshape(t, std::move(axes));
  }

  Program p_;
  std::vector<int> producer_;
  std::vector<bool> dead_;
  int64_t hint_;
};

// ---- The layout search ----

// A beam state: the program so far and which program tensor holds each planner tensor.
struct State {
  Builder builder;
  std::vector<int> tensor_of;  // planner tensor id -> program tensor id
  double cost = 0;
  int ops = 0;
};

bool Cheaper(const State& a, const State& b) {
  return a.cost < b.cost || (a.cost == b.cost && a.ops < b.ops);
}

// Every layout worth trying for one planner step, each applied to a copy of `s`.
std::vector<State> StepCandidates(const State& s, const PlanStep& step,
                                  const std::vector<int>& output) {
  const int p = s.tensor_of[step.lhs];
  const int q = s.tensor_of[step.rhs];
  const std::vector<int> pl = s.builder.T(p).LabelSequence();
  const std::vector<int> ql = s.builder.T(q).LabelSequence();
  std::vector<int> shared, batch;
  for (int l : pl) {
    if (!Contains(ql, l)) continue;
    shared.push_back(l);
    if (!Contains(step.summed, l)) batch.push_back(l);
  }
  const std::vector<int> k = Without(shared, batch);
  const std::vector<int> p_only = Without(pl, ql);
  const std::vector<int> q_only = Without(ql, pl);
  // Where the result's labels should end up: the output's order, the rest after it.
  const std::vector<int> target = OrderBy(Concat(pl, q_only), output);

  std::vector<State> out;
  auto apply = [&](auto&& build) {
    State c = s;
    const int r = build(c.builder);
    c.tensor_of.push_back(r);
    c.cost = c.builder.Cost();
    c.ops = c.builder.LiveOps();
    out.push_back(std::move(c));
  };

  // A broadcasting Mul (then a ReduceSum over K): all that is needed when nothing is summed
  // (Hadamard, outer and mixed products), and cheaper than MatMul for batched dot products.
  for (const std::vector<int>& order :
       Distinct({Concat(pl, q_only), Concat(ql, p_only), Concat(p_only, ql), Concat(q_only, pl),
                 OrderBy(Concat(pl, q_only), target)})) {
    apply([&](Builder& b) { return b.Mul(p, q, order, k); });
  }
  if (k.empty()) return out;

  for (const bool swap : {false, true}) {
    const int x = swap ? q : p;
    const int y = swap ? p : q;
    const std::vector<int>& xl = swap ? ql : pl;
    const std::vector<int>& yl = swap ? pl : ql;
    const std::vector<int> m = swap ? q_only : p_only;
    const std::vector<int> n = swap ? p_only : q_only;
    // Labels of one side that precede every shared label of it can lead its batch dims.
    auto leading = [&](const std::vector<int>& seq) {
      std::vector<int> lead;
      for (int l : seq) {
        if (Contains(shared, l)) break;
        lead.push_back(l);
      }
      return lead;
    };
    struct Prefix {
      std::vector<int> x, y;
    };
    // Every non-empty start of either side's leading run ([a, b, c] x [c, d] wants a as a batch
    // dim and b as M: no Reshape at all).
    std::vector<Prefix> prefixes = {{{}, {}}};
    const std::vector<int> x_lead = leading(xl), y_lead = leading(yl);
    for (size_t j = 1; j <= x_lead.size(); ++j) {
      prefixes.push_back({std::vector<int>(x_lead.begin(), x_lead.begin() + j), {}});
    }
    for (size_t j = 1; j <= y_lead.size(); ++j) {
      prefixes.push_back({{}, std::vector<int>(y_lead.begin(), y_lead.begin() + j)});
    }
    for (const Prefix& prefix : prefixes) {
      for (const std::vector<int>& b_order :
           Distinct({OrderBy(batch, xl), OrderBy(batch, yl), OrderBy(batch, target)})) {
        for (const std::vector<int>& k_order : Distinct({OrderBy(k, xl), OrderBy(k, yl)})) {
          for (const std::vector<int>& m_order : Distinct(
                   {OrderBy(Without(m, prefix.x), xl), OrderBy(Without(m, prefix.x), target)})) {
            for (const std::vector<int>& n_order : Distinct(
                     {OrderBy(Without(n, prefix.y), yl), OrderBy(Without(n, prefix.y), target)})) {
              apply([&](Builder& b) {
                return b.MatMul(x, y, prefix.x, prefix.y, b_order, m_order, k_order, n_order);
              });
            }
          }
        }
      }
    }
  }
  return out;
}

}  // namespace

Program BuildProgram(const BoundEquation& eq, absl::Span<const OperandInfo> operands,
                     absl::Span<const IndexExpr> sizes, const ProgramOptions& options,
                     ContractionPlan* plan_out) {
  const int n = static_cast<int>(eq.operands.size());
  std::vector<DimsExpr> dims;
  for (const OperandInfo& o : operands) dims.push_back(o.dims);
  Builder b(options.planner.size_hint);
  for (int i = 0; i < n; ++i) {
    ProgramTensor t;
    const std::vector<int>& labels = eq.operands[i].labels;
    for (size_t k = 0; k < labels.size(); ++k) {
      t.axes.push_back({labels[k]});
      // A repeated label keeps the more precise (literal) of its sizes.
      auto [it, inserted] =
          t.labels.try_emplace(labels[k], LabelDim{dims[i][k], {{i, static_cast<int>(k)}}});
      if (!inserted && !it->second.size.IsLiteral()) {
        it->second = LabelDim{dims[i][k], {{i, static_cast<int>(k)}}};
      }
    }
    t.constant = operands[i].constant;
    t.producer_perm = operands[i].producer_perm;
    b.AddInput(std::move(t));
  }

  // A label of size 0: the sum is empty or the output is; all zeros either way.
  for (const BoundEquation::Operand& op : eq.operands) {
    for (int l : op.labels) {
      if (!sizes[l].IsLiteral() || sizes[l].literal() != 0) continue;
      ProgramTensor zeros;
      for (int o : eq.output) {
        zeros.axes.push_back({o});
        // Read at run time from an operand dim of the same size, else broadcast all of them.
        LabelDim d{sizes[o], {}};
        for (int i = 0; i < n; ++i) {
          for (size_t k = 0; k < eq.operands[i].labels.size(); ++k) {
            if (eq.operands[i].labels[k] != o || IsLiteralOne(dims[i][k])) continue;
            if (dims[i][k] == sizes[o]) d.sources.clear();
            d.sources.push_back({i, static_cast<int>(k)});
            if (dims[i][k] == sizes[o]) break;
          }
        }
        zeros.labels[o] = std::move(d);
      }
      ProgramOp op;
      op.kind = OpKind::kZeros;
      const int result = b.AddZeros(std::move(op), std::move(zeros));
      if (plan_out != nullptr) *plan_out = ContractionPlan{};
      return std::move(b).Finish(result);
    }
  }

  // Operand preparation: drop the size-1 dims of summed labels that broadcast against a larger
  // size (MatMul's K dims must agree; output labels broadcast in MatMul's batch dims and in Mul
  // as they are), take diagonals.
  std::vector<int> prepared(n);
  std::vector<std::vector<int>> distinct(n);
  for (int i = 0; i < n; ++i) {
    int t = i;
    std::vector<Axis> kept;
    for (const Axis& a : b.T(t).axes) {
      const LabelDim& d = b.T(t).labels.at(a[0]);
      const bool summed = !Contains(eq.output, a[0]);
      if (!(summed && IsLiteralOne(d.size) && !IsLiteralOne(sizes[a[0]]))) kept.push_back(a);
    }
    t = b.Reshape(t, std::move(kept));
    for (int l : b.T(t).LabelSequence()) {
      const std::vector<int> seq = b.T(t).LabelSequence();
      if (std::count(seq.begin(), seq.end(), l) > 1) t = b.Diagonal(t, l);
    }
    prepared[i] = t;
    distinct[i] = b.T(t).LabelSequence();
  }

  const ContractionPlan plan = PlanContraction(distinct, eq.output, sizes, options.planner);
  State start{b, {}, 0, 0};
  for (int i = 0; i < n; ++i) {
    start.tensor_of.push_back(start.builder.ReduceSum(prepared[i], plan.presum[i]));
  }
  std::vector<State> beam = {std::move(start)};
  for (const PlanStep& step : plan.steps) {
    std::vector<State> next;
    for (const State& s : beam) {
      std::vector<State> c = StepCandidates(s, step, eq.output);
      std::move(c.begin(), c.end(), std::back_inserter(next));
    }
    std::stable_sort(next.begin(), next.end(), Cheaper);
    if (static_cast<int>(next.size()) > options.beam_width) {
      next.erase(next.begin() + std::max(1, options.beam_width), next.end());
    }
    beam = std::move(next);
  }

  // The last tensor into the output order; the cheapest complete program wins.
  std::optional<State> best;
  int best_result = -1;
  for (State& s : beam) {
    const int last = s.tensor_of.back();
    const int result = s.builder.TransposeTo(s.builder.Ungroup(last), eq.output);
    s.cost = s.builder.Cost();
    s.ops = s.builder.LiveOps();
    if (!best || Cheaper(s, *best)) {
      best = std::move(s);
      best_result = result;
    }
  }
  const double cost = best->cost;
  Program program = std::move(best->builder).Finish(best_result);
  program.cost = cost;
  if (plan_out != nullptr) *plan_out = plan;
  return program;
}

}  // namespace anvil::einsum
