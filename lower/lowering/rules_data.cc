// Lowering of data movement: views for the ops that only rename dims (Reshape, Flatten,
// Squeeze, Unsqueeze, Identity), loops that move elements for the rest (Transpose, Concat,
// Slice, Gather, Pad, Expand, Tile). The index maps use the ShapeHelper's facts (the permutation,
// the axis, Slice's first index and step per axis, Pad's leading pads), never a shape rule of
// their own; every element type moves, strings excepted.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lower/lowering/node_lowering.h"

namespace anvil::lower {
namespace {

using tir::Builder;
using tir::DataType;
using tir::Expr;
using tir::IndexConst;

bool Movable(const DataType& t) { return t.is_arithmetic(); }

absl::Status View(NodeLowering& n) {
  if (n.input_type(0) != n.output_type(0)) return n.Unimplemented("a view changing the type");
  n.ViewOutput(0, 0);
  return absl::OkStatus();
}

absl::Status Transpose(NodeLowering& n) {
  if (!Movable(n.input_type(0))) return n.Unimplemented("non-numeric elements");
  const std::vector<int64_t>& perm = n.facts().axes;
  Builder& b = n.b();
  const Expr& y = n.output(0);
  if (perm.size() != NodeLowering::TensorDims(y).size()) return n.Unimplemented("no permutation");
  n.Emit(b.Nest(NodeLowering::TensorDims(y), "i", [&](const std::vector<Expr>& out) {
    std::vector<Expr> in(out.size());
    for (size_t p = 0; p < perm.size(); ++p) in[perm[p]] = out[p];
    return b.Store(y, out, b.Load(n.input(0), in));
  }));
  return b.status();
}

absl::Status Concat(NodeLowering& n) {
  if (n.facts().axes.size() != 1) return n.Unimplemented("no axis");
  const size_t axis = static_cast<size_t>(n.facts().axes[0]);
  Builder& b = n.b();
  const Expr& y = n.output(0);
  if (!Movable(y.type())) return n.Unimplemented("non-numeric elements");
  Expr offset = IndexConst(0);
  for (int i = 0; i < n.node().num_inputs(); ++i) {
    if (!n.has_input(i)) continue;
    const Expr& x = n.input(i);
    const std::vector<Expr>& dims = NodeLowering::TensorDims(x);
    n.Emit(b.Nest(dims, absl::StrCat("i"), [&](const std::vector<Expr>& in) {
      std::vector<Expr> out = in;
      out[axis] = b.Add(in[axis], offset);
      return b.Store(y, out, b.Load(x, in));
    }));
    offset = b.Add(offset, dims[axis]);
  }
  return b.status();
}

absl::Status Slice(NodeLowering& n) {
  const ShapeFacts& f = n.facts();
  const Expr& y = n.output(0);
  const size_t rank = NodeLowering::TensorDims(y).size();
  if (f.starts.size() != rank || f.steps.size() != rank) return n.Unimplemented("unknown starts");
  if (!Movable(y.type())) return n.Unimplemented("non-numeric elements");
  Builder& b = n.b();
  std::vector<Expr> starts;
  for (const IndexExpr& s : f.starts) starts.push_back(n.Dim(s));
  n.Emit(b.Nest(NodeLowering::TensorDims(y), "i", [&](const std::vector<Expr>& out) {
    std::vector<Expr> in;
    for (size_t k = 0; k < rank; ++k) {
      const int64_t step = f.steps[k];
      Expr moved = step >= 0 ? b.Mul(out[k], IndexConst(step)) : b.Mul(out[k], IndexConst(-step));
      in.push_back(step >= 0 ? b.Add(starts[k], moved) : b.Sub(starts[k], moved));
    }
    return b.Store(y, out, b.Load(n.input(0), in));
  }));
  return b.status();
}

absl::Status Gather(NodeLowering& n) {
  if (n.facts().axes.size() != 1) return n.Unimplemented("no axis");
  const DataType index_type = n.input_type(1);
  if (!index_type.is_int()) return n.Unimplemented("indices that are not integers");
  const Expr& y = n.output(0);
  if (!Movable(y.type())) return n.Unimplemented("non-numeric elements");
  const size_t axis = static_cast<size_t>(n.facts().axes[0]);
  const Expr& data = n.input(0);
  const Expr& indices = n.input(1);
  const size_t q = NodeLowering::TensorDims(indices).size();
  const Expr& extent = NodeLowering::TensorDims(data)[axis];
  Builder& b = n.b();
  const std::string message = absl::StrCat(
      n.node().Describe(), ": an index is out of range for dim ", axis, " of ", n.node().input(0)->name());
  n.Emit(b.Nest(NodeLowering::TensorDims(y), "i", [&](const std::vector<Expr>& out) {
    std::vector<Expr> at(out.begin() + axis, out.begin() + axis + q);
    Expr raw = b.Cast(DataType::Index(), b.Load(indices, at));
    // Negative indices count from the back; anything else outside [-n, n) is the model's error.
    Expr index = b.Select(b.Lt(raw, IndexConst(0)), b.Add(raw, extent), raw);
    std::vector<Expr> in(out.begin(), out.begin() + axis);
    in.push_back(index);
    in.insert(in.end(), out.begin() + axis + q, out.end());
    return tir::MakeBlock({b.Assert(b.And(b.Ge(index, IndexConst(0)), b.Lt(index, extent)), message),
                           b.Store(y, out, b.Load(data, in))});
  }));
  return b.status();
}

absl::Status Pad(NodeLowering& n) {
  const ShapeFacts& f = n.facts();
  const Expr& y = n.output(0);
  const Expr& x = n.input(0);
  const std::vector<Expr>& in_dims = NodeLowering::TensorDims(x);
  const size_t rank = in_dims.size();
  if (f.starts.size() != rank) return n.Unimplemented("unknown pads");
  if (!Movable(y.type())) return n.Unimplemented("non-numeric elements");
  const std::string mode = n.node().GetString("mode", "constant");
  if (mode == "wrap") return n.Unimplemented("wrap mode");  // the kernel has it
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return n.Error(absl::StrCat("unknown mode '", mode, "' (constant, reflect or edge)"));
  }
  Builder& b = n.b();
  // The fill value: attribute `value` before opset 11, optional input 2 from 11.
  Expr fill;
  if (mode == "constant") {
    if (n.opset() < 11) {
      fill = b.Cast(y.type(), b.Const(DataType::F32(), n.node().GetFloat("value", 0.0f)));
    } else if (n.has_input(2)) {
      const Expr& c = n.input(2);
      if (c.type() != y.type()) return n.Error("constant_value must have the data's element type");
      bool empty = false;
      for (const IndexExpr& d : n.input_dims(2)) empty |= d.IsLiteral() && d.literal() == 0;
      fill = empty ? b.Zero(y.type())
                   : b.Load(c, std::vector<Expr>(NodeLowering::TensorDims(c).size(), IndexConst(0)));
    } else {
      fill = b.Zero(y.type());
    }
  }
  std::vector<Expr> pads;
  for (const IndexExpr& p : f.starts) pads.push_back(n.Dim(p));
  n.Emit(b.Nest(NodeLowering::TensorDims(y), "i", [&](const std::vector<Expr>& out) {
    std::vector<Expr> in;
    Expr inside = b.Bool(true);
    for (size_t k = 0; k < rank; ++k) {
      Expr i = b.Sub(out[k], pads[k]);
      const Expr& d = in_dims[k];
      if (mode == "constant") {
        inside = b.And(inside, b.And(b.Ge(i, IndexConst(0)), b.Lt(i, d)));
        in.push_back(i);
      } else if (mode == "edge") {
        in.push_back(b.Min(b.Max(i, IndexConst(0)), b.Sub(d, IndexConst(1))));
      } else {  // reflect, periodic for pads wider than the dim (numpy)
        Expr period = b.Mul(IndexConst(2), b.Sub(d, IndexConst(1)));
        Expr safe = b.Max(period, IndexConst(1));
        Expr m = b.Mod(i, safe);
        Expr r = b.Select(b.Lt(m, d), m, b.Sub(period, m));
        in.push_back(b.Select(b.Eq(d, IndexConst(1)), IndexConst(0), r));
      }
    }
    if (mode != "constant") return b.Store(y, out, b.Load(x, in));
    return b.If(inside, b.Store(y, out, b.Load(x, in)), b.Store(y, out, fill));
  }));
  return b.status();
}

absl::Status Expand(NodeLowering& n) {
  const Expr& y = n.output(0);
  if (!Movable(y.type())) return n.Unimplemented("non-numeric elements");
  Builder& b = n.b();
  n.Emit(b.Nest(NodeLowering::TensorDims(y), "i", [&](const std::vector<Expr>& out) {
    return b.Store(y, out, b.Load(n.input(0), n.BroadcastIndex(0, out)));
  }));
  return b.status();
}

absl::Status Tile(NodeLowering& n) {
  if (n.opset() < 6) return n.Unimplemented("Tile's (input, tiles, axis) form before opset 6");
  const Expr& y = n.output(0);
  if (!Movable(y.type())) return n.Unimplemented("non-numeric elements");
  Builder& b = n.b();
  const std::vector<Expr>& in_dims = NodeLowering::TensorDims(n.input(0));
  n.Emit(b.Nest(NodeLowering::TensorDims(y), "i", [&](const std::vector<Expr>& out) {
    std::vector<Expr> in;
    for (size_t k = 0; k < out.size(); ++k) in.push_back(b.Mod(out[k], in_dims[k]));
    return b.Store(y, out, b.Load(n.input(0), in));
  }));
  return b.status();
}

}  // namespace

// Sorted by op type.
const LowerRule kDataLowerRules[] = {
    {"", "Concat", &Concat},
    {"", "Expand", &Expand},
    {"", "Flatten", &View},
    {"", "Gather", &Gather},
    {"", "Identity", &View},
    {"", "Pad", &Pad},
    {"", "Reshape", &View},
    {"", "Slice", &Slice},
    {"", "Squeeze", &View},
    {"", "Tile", &Tile},
    {"", "Transpose", &Transpose},
    {"", "Unsqueeze", &View},
    {"", nullptr, nullptr},
};

}  // namespace anvil::lower
