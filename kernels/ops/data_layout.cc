// Layout kernels: Reshape/Flatten/Squeeze/Unsqueeze (copies), Transpose, Concat, Split, Slice,
// Tile, Expand, DepthToSpace, SpaceToDepth, Pad, ReverseSequence. Each builds a strided view of
// its input in the output's index order and lets CopyView move the bytes, so one tuned copy
// loop serves them all.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/axes.h"
#include "base/status_macros.h"
#include "kernels/dispatch.h"
#include "kernels/ops/data_internal.h"

namespace anvil::data_ops {
namespace {

// ---- Reshape, Flatten, Squeeze, Unsqueeze ----

absl::Status CopyCompute(KernelContext& ctx) { return CopyInputToOutput(ctx); }

// ---- Transpose ----

class TransposeKernel final : public OpKernel {
 public:
  explicit TransposeKernel(const Node& node) {
    if (const Attribute* a = node.FindAttribute("perm")) {
      has_perm_ = true;
      perm_ = a->ints;
    }
  }

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& in = ctx.input(0);
    ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, in.type));
    ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
    const int64_t rank = in.rank();
    std::vector<int64_t> perm = perm_;
    if (!has_perm_) {
      for (int64_t k = rank - 1; k >= 0; --k) perm.push_back(k);
    }
    std::vector<bool> seen(rank, false);
    bool valid = static_cast<int64_t>(perm.size()) == rank;
    for (size_t k = 0; valid && k < perm.size(); ++k) {
      valid = perm[k] >= 0 && perm[k] < rank && !seen[perm[k]];
      if (valid) seen[perm[k]] = true;
    }
    if (!valid) {
      return ctx.Error(absl::StrCat("perm [", absl::StrJoin(perm, ", "),
                                    "] is not a permutation of the dims of ", in.DebugString()));
    }
    // The input seen in output order.
    TensorView view = in;
    for (int64_t k = 0; k < rank; ++k) {
      view.dims[k] = in.dims[perm[k]];
      view.strides[k] = in.strides[perm[k]];
    }
    CopyView(*out, view);
    return absl::OkStatus();
  }

 private:
  bool has_perm_ = false;
  std::vector<int64_t> perm_;
};

// ---- Concat ----

class ConcatKernel final : public OpKernel {
 public:
  explicit ConcatKernel(int64_t axis) : axis_(axis) {}

  absl::Status Compute(KernelContext& ctx) override {
    ANVIL_ASSIGN_OR_RETURN(TensorView* out_or, PreallocatedOutput(ctx, 0));
    const TensorView& out = *out_or;
    ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, out.type));
    ANVIL_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, axis_, out.rank()));
    int64_t offset = 0;  // along the axis
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.HasInput(i)) continue;
      const TensorView& in = ctx.input(i);
      bool fits = in.rank() == out.rank() && in.type == out.type &&
                  offset + in.dims[axis] <= out.dims[axis];
      for (int64_t k = 0; fits && k < out.rank(); ++k) {
        fits = k == axis || in.dims[k] == out.dims[k];
      }
      if (!fits) {
        return ctx.Error(absl::StrCat("input ", i, " ", in.DebugString(), " does not fit output ",
                                      out.DebugString(), " at offset ", offset, " along axis ",
                                      axis));
      }
      // The output block this input fills: its dims, the output's strides.
      TensorView dst = Offset(out, offset * out.strides[axis]);
      dst.dims = in.dims;
      CopyView(dst, in);
      offset += in.dims[axis];
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
};

// ---- Split ----

class SplitKernel final : public OpKernel {
 public:
  SplitKernel(const Node& node, int64_t opset) : axis_(node.GetInt("axis", 0)), opset_(opset) {
    if (opset < 13) {
      if (const Attribute* a = node.FindAttribute("split")) split_attr_ = a->ints;
    }
    if (opset >= 18) num_outputs_ = node.GetInt("num_outputs", 0);
  }

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& in = ctx.input(0);
    ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, in.type));
    ANVIL_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, axis_, in.rank()));
    const int64_t dim = in.dims[axis];
    const int outputs = ctx.num_outputs();
    // The piece lengths: the `split` attribute (< 13; opset 1 also takes input 1), input 1
    // (13+), else equal parts.
    std::vector<int64_t> split = split_attr_;
    if (split.empty() && (opset_ < 2 || opset_ >= 13) && ctx.HasInput(1)) {
      ANVIL_ASSIGN_OR_RETURN(split, ReadInt64s(ctx, 1));
    }
    if (split.empty() && num_outputs_ > 0) {
      // Opset 18: pieces of ceil(dim / n), the last one what remains.
      if (num_outputs_ != outputs) {
        return ctx.Error(absl::StrCat("num_outputs ", num_outputs_, " for ", outputs, " outputs"));
      }
      const int64_t piece = (dim + outputs - 1) / outputs;
      split.assign(outputs, piece);
      split.back() = dim - piece * (outputs - 1);
      if (split.back() < 0) {
        return ctx.Error(
            absl::StrCat("dim ", dim, " is too short for ", outputs, " pieces of ", piece));
      }
    }
    if (split.empty()) {
      if (outputs == 0 || dim % outputs != 0) {
        return ctx.Error(
            absl::StrCat("dim ", dim, " does not split into ", outputs, " equal parts"));
      }
      split.assign(outputs, dim / outputs);
    }
    int64_t sum = 0;
    for (int64_t p : split) sum += p;
    if (static_cast<int>(split.size()) != outputs || sum != dim) {
      return ctx.Error(absl::StrCat("split [", absl::StrJoin(split, ", "), "] does not cut dim ",
                                    dim, " into ", outputs, " pieces"));
    }
    int64_t offset = 0;
    for (int i = 0; i < outputs; ++i) {
      if (ctx.HasOutput(i)) {
        ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, i));
        TensorView src = Offset(in, offset * in.strides[axis]);
        src.dims[axis] = split[i];
        if (src.dims != out->dims) {
          return ctx.Error(absl::StrCat("piece ", src.DebugString(), " does not fit output ", i,
                                        " ", out->DebugString()));
        }
        CopyView(*out, src);
      }
      offset += split[i];
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
  int64_t opset_;
  int64_t num_outputs_ = 0;
  std::vector<int64_t> split_attr_;
};

// ---- Slice ----

class SliceKernel final : public OpKernel {
 public:
  SliceKernel(const Node& node, int64_t opset) : opset_(opset) {
    if (opset < 10) {
      // Only starts: how many elements each axis keeps is the output's dim.
      starts_ = node.GetInts("starts");
      if (node.FindAttribute("axes") != nullptr) axes_ = node.GetInts("axes");
      has_axes_ = node.FindAttribute("axes") != nullptr;
    }
  }

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& in = ctx.input(0);
    ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, in.type));
    ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
    std::vector<int64_t> starts = starts_, axes = axes_, steps;
    bool has_axes = has_axes_;
    if (opset_ >= 10) {
      ANVIL_ASSIGN_OR_RETURN(starts, ReadInt64s(ctx, 1));
      has_axes = ctx.HasInput(3);
      if (has_axes) {
        ANVIL_ASSIGN_OR_RETURN(axes, ReadInt64s(ctx, 3));
      }
      if (ctx.HasInput(4)) {
        ANVIL_ASSIGN_OR_RETURN(steps, ReadInt64s(ctx, 4));
      }
    }
    const size_t count = starts.size();
    if (!has_axes) {
      axes.clear();
      for (size_t k = 0; k < count; ++k) axes.push_back(static_cast<int64_t>(k));
    }
    if (steps.empty()) steps.assign(count, 1);
    if (axes.size() != count || steps.size() != count) {
      return ctx.Error(
          absl::StrCat(count, " starts, ", axes.size(), " axes and ", steps.size(), " steps"));
    }
    // The input seen with the output's dims: each sliced axis starts at its clamped start and
    // walks by its step (backwards for negative steps).
    TensorView view = in;
    view.dims = out->dims;
    if (view.rank() != in.rank()) {
      return ctx.Error(
          absl::StrCat("output ", out->DebugString(), " for input ", in.DebugString()));
    }
    int64_t offset = 0;
    std::vector<bool> sliced(in.rank(), false);
    for (size_t k = 0; k < count; ++k) {
      ANVIL_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx, axes[k], in.rank()));
      sliced[axis] = true;
      const int64_t dim = in.dims[axis];
      const int64_t step = steps[k];
      if (step == 0) return ctx.Error(absl::StrCat("step of axis ", axis, " is 0"));
      const int64_t n = view.dims[axis];
      if (n == 0) continue;
      int64_t start = starts[k];
      if (start < 0) start += dim;
      start =
          step > 0 ? std::clamp<int64_t>(start, 0, dim) : std::clamp<int64_t>(start, 0, dim - 1);
      const int64_t last = start + (n - 1) * step;
      if (last < 0 || last >= dim || start >= dim) {
        return ctx.Error(absl::StrCat("slice of ", n, " elements from ", start, " by ", step,
                                      " leaves dim ", axis, " of ", in.DebugString()));
      }
      offset += start * in.strides[axis];
      // One element: the step is never taken (and |step| may be 2^63, whose product overflows).
      view.strides[axis] = n == 1 ? in.strides[axis] : in.strides[axis] * step;
    }
    for (int64_t k = 0; k < in.rank(); ++k) {
      if (!sliced[k] && view.dims[k] != in.dims[k]) {
        return ctx.Error(absl::StrCat("output ", out->DebugString(), " changes unsliced dim ", k,
                                      " of ", in.DebugString()));
      }
    }
    CopyView(*out, Offset(view, offset));
    return absl::OkStatus();
  }

 private:
  int64_t opset_;
  std::vector<int64_t> starts_, axes_;
  bool has_axes_ = false;
};

// ---- Tile ----

// Tile: the output seen as [r0, d0, r1, d1, ...] reads the input with stride 0 over each
// repetition dim, so tiling is one broadcast copy.
absl::Status TileCompute(KernelContext& ctx) {
  const TensorView& in = ctx.input(0);
  ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, in.type));
  ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
  const int64_t rank = in.rank();
  std::vector<int64_t> repeats(rank, 1);
  if (ctx.opset() < 6) {  // (input, tiles, axis): one axis repeated `tiles` times
    ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> tiles, ReadInt64s(ctx, 1));
    ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ReadInt64s(ctx, 2));
    if (tiles.size() != 1 || axis.size() != 1) {
      return ctx.Error("tiles and axis must hold one element each");
    }
    ANVIL_ASSIGN_OR_RETURN(int64_t a, NormalizeAxis(ctx, axis[0], rank));
    repeats[a] = tiles[0];
  } else {
    ANVIL_ASSIGN_OR_RETURN(repeats, ReadInt64s(ctx, 1));
  }
  if (static_cast<int64_t>(repeats.size()) != rank || out->rank() != rank) {
    return ctx.Error(
        absl::StrCat("repeats [", absl::StrJoin(repeats, ", "), "] for input ", in.DebugString()));
  }
  Shape dims, src_strides;
  for (int64_t k = 0; k < rank; ++k) {
    if (repeats[k] < 0 || repeats[k] * in.dims[k] != out->dims[k]) {
      return ctx.Error(absl::StrCat("repeats [", absl::StrJoin(repeats, ", "), "] of input ",
                                    in.DebugString(), " do not give output ", out->DebugString()));
    }
    dims.insert(dims.end(), {repeats[k], in.dims[k]});
    src_strides.insert(src_strides.end(), {0, in.strides[k]});
  }
  TensorView src = in;
  src.dims = dims;
  src.strides = src_strides;
  CopyView(TensorView::Dense(in.type, out->data, dims), src);
  return absl::OkStatus();
}

// ---- Expand ----

absl::Status ExpandCompute(KernelContext& ctx) {
  const TensorView& in = ctx.input(0);
  ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, in.type));
  ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
  const int64_t rank = out->rank();
  bool fits = in.rank() <= rank;
  for (int64_t k = 0; fits && k < in.rank(); ++k) {
    const int64_t d = in.dims[in.rank() - 1 - k];
    fits = d == 1 || d == out->dims[rank - 1 - k];
  }
  if (!fits) {
    return ctx.Error(
        absl::StrCat("input ", in.DebugString(), " does not broadcast to ", out->DebugString()));
  }
  CopyView(*out, in.BroadcastTo(out->dims));
  return absl::OkStatus();
}

// ---- DepthToSpace, SpaceToDepth ----

// Both are a reshape to 6-D, a transpose and a reshape back: one strided view of the input in
// the 6-D output order [N, C', H, b, W, b] (DepthToSpace) or [N, b, b, C, H', W'] (SpaceToDepth).
class BlockKernel final : public OpKernel {
 public:
  BlockKernel(int64_t block, bool to_space, bool crd)
      : block_(block), to_space_(to_space), crd_(crd) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& in = ctx.input(0);
    ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, in.type));
    ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
    if (in.rank() != 4) return ctx.Error(absl::StrCat("input must be 4-D, is ", in.DebugString()));
    const int64_t b = block_;
    const int64_t n = in.dims[0], c = in.dims[1], h = in.dims[2], w = in.dims[3];
    const int64_t sn = in.strides[0], sc = in.strides[1], sh = in.strides[2], sw = in.strides[3];
    TensorView src = in;
    if (to_space_) {
      if (c % (b * b) != 0) {
        return ctx.Error(
            absl::StrCat("channels of ", in.DebugString(), " are not a multiple of ", b * b));
      }
      const int64_t cc = c / (b * b);
      src.dims = {n, cc, h, b, w, b};
      if (crd_) {  // channel = (c' * b + b1) * b + b2
        src.strides = {sn, b * b * sc, sh, b * sc, sw, sc};
      } else {  // DCR: channel = (b1 * b + b2) * C' + c'
        src.strides = {sn, sc, sh, b * cc * sc, sw, cc * sc};
      }
    } else {
      if (h % b != 0 || w % b != 0) {
        return ctx.Error(
            absl::StrCat("height and width of ", in.DebugString(), " are not multiples of ", b));
      }
      src.dims = {n, b, b, c, h / b, w / b};
      src.strides = {sn, sh, sw, sc, b * sh, b * sw};
    }
    if (Product(src.dims, 0, 6) != out->NumElements()) {
      return ctx.Error(
          absl::StrCat("output ", out->DebugString(), " for input ", in.DebugString()));
    }
    CopyView(TensorView::Dense(in.type, out->data, src.dims), src);
    return absl::OkStatus();
  }

 private:
  int64_t block_;
  bool to_space_;
  bool crd_;
};

// ---- Pad ----

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

class PadKernel final : public OpKernel {
 public:
  PadKernel(PadMode mode, std::vector<int64_t> pads, float value, int64_t opset)
      : mode_(mode), pads_(std::move(pads)), value_(value), opset_(opset) {}

  absl::Status Compute(KernelContext& ctx) override {
    Tensor scratch;
    ANVIL_ASSIGN_OR_RETURN(const TensorView in, MovableDenseInput(ctx, 0, &scratch));
    ANVIL_ASSIGN_OR_RETURN(TensorView* out_or, PreallocatedOutput(ctx, 0));
    const TensorView& out = *out_or;
    const int64_t rank = in.rank();
    const size_t esize = in.ElementBytes();

    std::vector<int64_t> pads = pads_;
    alignas(16) char value[16] = {};
    if (opset_ >= 11) {
      ANVIL_ASSIGN_OR_RETURN(pads, ReadInt64s(ctx, 1));
      if (opset_ >= 18 && ctx.HasInput(3)) {
        // The pads of the dims `axes` names (begins, then ends); the rest get none.
        ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> axes, ReadInt64s(ctx, 3));
        const int64_t n = static_cast<int64_t>(axes.size());
        if (static_cast<int64_t>(pads.size()) != 2 * n) {
          return ctx.Error(absl::StrCat(pads.size(), " pads for ", n, " axes"));
        }
        std::vector<int64_t> normalized;
        for (int64_t a : axes) {
          ANVIL_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(ctx, a, rank));
          normalized.push_back(axis);
        }
        pads = SpreadOverAxes<int64_t>(pads, normalized, rank, {0, 0});
      }
      if (ctx.HasInput(2) && ctx.input(2).NumElements() > 0) {
        if (ctx.input(2).type != in.type) {
          return ctx.Error("constant_value must have the data's element type");
        }
        std::memcpy(value, ctx.input(2).data, esize);
      }
    } else if (value_ != 0) {
      ANVIL_RETURN_IF_ERROR(ConvertScalar(value_, in.type, "Pad", value));
    }
    if (static_cast<int64_t>(pads.size()) != 2 * rank || out.rank() != rank) {
      return ctx.Error(absl::StrCat(pads.size(), " pads for input ", in.DebugString()));
    }
    if (out.NumElements() == 0) return absl::OkStatus();

    // For every output index of every outer dim, the input index it reads, or -1 for the
    // constant; for the innermost dim only its pads' positions (`edges`: the `begin` positions
    // before the input's run, then those from `end` on), since the run is one copy.
    std::vector<std::vector<int64_t>> maps(rank);
    std::vector<int64_t> edges;
    int64_t begin = 0, end = 0;
    for (int64_t k = 0; k < rank; ++k) {
      const int64_t n = in.dims[k];
      if (out.dims[k] != n + pads[k] + pads[k + rank]) {
        return ctx.Error(absl::StrCat("output ", out.DebugString(), " does not match pads [",
                                      absl::StrJoin(pads, ", "), "] of ", in.DebugString()));
      }
      if (n == 0 && mode_ != PadMode::kConstant && out.dims[k] > 0) {
        return ctx.Error(absl::StrCat("cannot pad empty dim ", k, " of ", in.DebugString(),
                                      " in reflect or edge mode"));
      }
      const int64_t lo = std::clamp<int64_t>(pads[k], 0, out.dims[k]);
      const int64_t hi = std::clamp<int64_t>(pads[k] + n, lo, out.dims[k]);
      if (k + 1 == rank) {
        // Not even a counting run over the interior: an STFT's 16k-sample frame spent twice
        // the copy's time writing its map.
        begin = lo;
        end = hi;
        edges.reserve(lo + out.dims[k] - hi);
        for (int64_t o = 0; o < lo; ++o) edges.push_back(MapIndex(o - pads[k], n));
        for (int64_t o = hi; o < out.dims[k]; ++o) edges.push_back(MapIndex(o - pads[k], n));
        continue;
      }
      maps[k].resize(out.dims[k]);
      std::iota(maps[k].begin() + lo, maps[k].begin() + hi, lo - pads[k]);
      for (int64_t o = 0; o < lo; ++o) maps[k][o] = MapIndex(o - pads[k], n);
      for (int64_t o = hi; o < out.dims[k]; ++o) maps[k][o] = MapIndex(o - pads[k], n);
    }

    char* dst = static_cast<char*>(out.data);
    const char* src = static_cast<const char*>(in.data);
    if (rank == 0) {
      std::memcpy(dst, src, esize);
      return absl::OkStatus();
    }
    // The innermost dim: a contiguous run of input elements in [begin, end), its edges mapped.
    const int64_t width = out.dims[rank - 1];
    const int64_t in_first = std::max<int64_t>(-pads[rank - 1], 0);
    const int64_t run = end - begin;
    const int64_t rows = out.NumElements() / width;
    std::vector<int64_t> index(rank - 1, 0);
    for (int64_t r = 0; r < rows; ++r, dst += width * esize) {
      // The input row this output row reads.
      int64_t offset = 0;
      bool inside = true;
      for (int64_t k = 0; k + 1 < rank; ++k) {
        const int64_t i = maps[k][index[k]];
        if (i < 0) {
          inside = false;
          break;
        }
        offset += i * in.strides[k];
      }
      if (!inside) {
        FillBytes(dst, value, width, esize);
      } else {
        const char* row = src + offset * static_cast<int64_t>(esize);
        std::memcpy(dst + begin * esize, row + in_first * esize, run * esize);
        for (int64_t e = 0; e < static_cast<int64_t>(edges.size()); ++e) {
          const int64_t j = e < begin ? e : end + (e - begin);
          const int64_t i = edges[e];
          std::memcpy(dst + j * esize, i < 0 ? value : row + i * esize, esize);
        }
      }
      for (int64_t k = rank - 2; k >= 0; --k) {  // odometer over the outer dims
        if (++index[k] < out.dims[k]) break;
        index[k] = 0;
      }
    }
    return absl::OkStatus();
  }

 private:
  // The input index output position `i` (relative to the input's start) reads from a dim of
  // `n`, or -1 for the constant.
  int64_t MapIndex(int64_t i, int64_t n) const {
    if (i >= 0 && i < n) return i;
    switch (mode_) {
      case PadMode::kConstant:
        return -1;
      case PadMode::kEdge:
        return i < 0 ? 0 : n - 1;
      case PadMode::kReflect: {
        // numpy's reflect (no edge repeat) is periodic with period 2 (n - 1), also for pads
        // wider than the dim.
        if (n == 1) return 0;
        const int64_t period = 2 * (n - 1);
        int64_t m = i % period;
        if (m < 0) m += period;
        return m < n ? m : period - m;
      }
      case PadMode::kWrap: {  // periodic with period n (opset 19)
        const int64_t m = i % n;
        return m < 0 ? m + n : m;
      }
    }
    return -1;
  }

  PadMode mode_;
  std::vector<int64_t> pads_;
  float value_;
  int64_t opset_;
};

// ---- ReverseSequence ----

class ReverseSequenceKernel final : public OpKernel {
 public:
  ReverseSequenceKernel(int64_t batch_axis, int64_t time_axis)
      : batch_axis_(batch_axis), time_axis_(time_axis) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& in = ctx.input(0);
    ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, in.type));
    ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
    if (in.rank() < 2)
      return ctx.Error(absl::StrCat("input must have rank >= 2, is ", in.DebugString()));
    ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> lens, ReadInt64s(ctx, 1));
    const int64_t b_axis = batch_axis_, t_axis = time_axis_;
    const int64_t batch = in.dims[b_axis], time = in.dims[t_axis];
    if (static_cast<int64_t>(lens.size()) != batch) {
      return ctx.Error(absl::StrCat(lens.size(), " sequence_lens for batch ", batch));
    }
    // Elements past each sequence's length stay in place: copy everything, then reverse the
    // prefixes.
    CopyView(*out, in);
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t len = lens[b];
      if (len < 0 || len > time) {
        return ctx.Error(absl::StrCat("sequence_lens value ", len, " of batch ", b,
                                      " is out of range [0, ", time, "]"));
      }
      if (len <= 1) continue;
      TensorView src = Offset(in, b * in.strides[b_axis] + (len - 1) * in.strides[t_axis]);
      src.dims[b_axis] = 1;
      src.dims[t_axis] = len;
      src.strides[t_axis] = -in.strides[t_axis];
      TensorView dst = Offset(*out, b * out->strides[b_axis]);
      dst.dims = src.dims;
      CopyView(dst, src);
    }
    return absl::OkStatus();
  }

 private:
  int64_t batch_axis_;
  int64_t time_axis_;
};

}  // namespace

// ---- Factories ----

absl::StatusOr<std::unique_ptr<OpKernel>> MakeCopy(const Node&, int64_t) {
  return std::unique_ptr<OpKernel>(new FunctionKernel(&CopyCompute));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeTranspose(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new TransposeKernel(node));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeConcat(const Node& node, int64_t opset) {
  const Attribute* axis = node.FindAttribute("axis");
  if (axis == nullptr && opset >= 4) {
    return absl::InvalidArgumentError(absl::StrCat(node.Describe(), ": missing attribute axis"));
  }
  return std::unique_ptr<OpKernel>(new ConcatKernel(axis != nullptr ? axis->i : 1));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeSplit(const Node& node, int64_t opset) {
  return std::unique_ptr<OpKernel>(new SplitKernel(node, opset));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeSlice(const Node& node, int64_t opset) {
  if (opset < 10) {
    for (const char* name : {"starts", "ends"}) {
      if (node.FindAttribute(name) == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(node.Describe(), ": missing attribute ", name));
      }
    }
  }
  return std::unique_ptr<OpKernel>(new SliceKernel(node, opset));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeTile(const Node&, int64_t) {
  return std::unique_ptr<OpKernel>(new FunctionKernel(&TileCompute));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeExpand(const Node&, int64_t) {
  return std::unique_ptr<OpKernel>(new FunctionKernel(&ExpandCompute));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeDepthToSpace(const Node& node, int64_t opset) {
  const int64_t block = node.GetInt("blocksize", 0);
  if (block <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": blocksize ", block, " is not positive"));
  }
  const std::string mode = opset >= 11 ? node.GetString("mode", "DCR") : "DCR";
  if (mode != "DCR" && mode != "CRD") {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": unknown mode '", mode, "' (DCR or CRD)"));
  }
  return std::unique_ptr<OpKernel>(new BlockKernel(block, /*to_space=*/true, mode == "CRD"));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeSpaceToDepth(const Node& node, int64_t) {
  const int64_t block = node.GetInt("blocksize", 0);
  if (block <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": blocksize ", block, " is not positive"));
  }
  return std::unique_ptr<OpKernel>(new BlockKernel(block, /*to_space=*/false, false));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakePad(const Node& node, int64_t opset) {
  const std::string mode_name = node.GetString("mode", "constant");
  PadMode mode;
  if (mode_name == "constant") {
    mode = PadMode::kConstant;
  } else if (mode_name == "reflect") {
    mode = PadMode::kReflect;
  } else if (mode_name == "edge") {
    mode = PadMode::kEdge;
  } else if (mode_name == "wrap" && opset >= 19) {
    mode = PadMode::kWrap;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": unknown mode '", mode_name, "' (constant, reflect, edge",
                     opset >= 19 ? " or wrap)" : " or, from opset 19, wrap)"));
  }
  std::vector<int64_t> pads;
  if (opset < 11) {
    const char* name = opset < 2 ? "paddings" : "pads";
    if (node.FindAttribute(name) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(node.Describe(), ": missing attribute ", name));
    }
    pads = node.GetInts(name);
  }
  return std::unique_ptr<OpKernel>(
      new PadKernel(mode, std::move(pads), node.GetFloat("value", 0), opset));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeReverseSequence(const Node& node, int64_t) {
  const int64_t batch_axis = node.GetInt("batch_axis", 1);
  const int64_t time_axis = node.GetInt("time_axis", 0);
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0))) {
    return absl::InvalidArgumentError(absl::StrCat(node.Describe(), ": batch_axis ", batch_axis,
                                                   " and time_axis ", time_axis,
                                                   " must be 0 and 1 in some order"));
  }
  return std::unique_ptr<OpKernel>(new ReverseSequenceKernel(batch_axis, time_axis));
}

}  // namespace anvil::data_ops
