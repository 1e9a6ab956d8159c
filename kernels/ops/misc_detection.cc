// Detection and sampling ops: NonMaxSuppression, RoiAlign, MaxRoiPool and GridSample. Where the
// spec is loose (ties, boundary samples, the RoiAlign max mode) they follow ONNX Runtime, whose
// behaviour the backend tests and ONNX's reference implementation record.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/checked_math.h"
#include "base/status_macros.h"
#include "kernels/ops/misc_internal.h"

namespace anvil::misc {
namespace {

// ---- NonMaxSuppression ----

struct NmsAttrs {
  bool center_point_box = false;
};

// Box corners (x_min, y_min, x_max, y_max) from [y1, x1, y2, x2] (either diagonal) or from
// [x_center, y_center, width, height].
template <typename T>
void Corners(const T* box, bool center_point_box, T* c) {
  if (center_point_box) {
    const T half_w = box[2] / 2;
    const T half_h = box[3] / 2;
    c[0] = box[0] - half_w;
    c[1] = box[1] - half_h;
    c[2] = box[0] + half_w;
    c[3] = box[1] + half_h;
  } else {
    c[0] = std::min(box[1], box[3]);
    c[1] = std::min(box[0], box[2]);
    c[2] = std::max(box[1], box[3]);
    c[3] = std::max(box[0], box[2]);
  }
}

// Whether the boxes overlap by more than `threshold` (intersection over union); boxes without
// area never suppress.
template <typename T>
bool Suppresses(const T* a, const T* b, T threshold) {
  const T ix_min = std::max(a[0], b[0]);
  const T iy_min = std::max(a[1], b[1]);
  const T ix_max = std::min(a[2], b[2]);
  const T iy_max = std::min(a[3], b[3]);
  if (ix_max <= ix_min || iy_max <= iy_min) return false;
  const T intersection = (ix_max - ix_min) * (iy_max - iy_min);
  const T area_a = (a[2] - a[0]) * (a[3] - a[1]);
  const T area_b = (b[2] - b[0]) * (b[3] - b[1]);
  const T union_area = area_a + area_b - intersection;
  if (area_a <= 0 || area_b <= 0 || union_area <= 0) return false;
  return intersection / union_area > threshold;
}

template <typename T>
absl::Status NmsRun(KernelContext& ctx, const NmsAttrs& attrs) {
  const TensorView& bv = ctx.input(0);
  const TensorView& sv = ctx.input(1);
  if (bv.rank() != 3 || sv.rank() != 3 || bv.dims[2] != 4 || bv.dims[0] != sv.dims[0] ||
      bv.dims[1] != sv.dims[2]) {
    return ctx.Error(absl::StrCat("boxes ", bv.DebugString(), " and scores ", sv.DebugString(),
                                  " must be [batches, boxes, 4] and [batches, classes, boxes]"));
  }
  int64_t max_boxes = 0;
  if (ctx.HasInput(2)) {
    ANVIL_ASSIGN_OR_RETURN(int64_t m, ScalarInt(ctx, 2, "max_output_boxes_per_class"));
    max_boxes = std::max<int64_t>(m, 0);
  }
  T iou_threshold = 0;
  if (ctx.HasInput(3)) {
    ANVIL_ASSIGN_OR_RETURN(double t, ScalarDouble(ctx, 3, "iou_threshold"));
    iou_threshold = static_cast<T>(t);
  }
  std::optional<T> score_threshold;
  if (ctx.HasInput(4)) {
    ANVIL_ASSIGN_OR_RETURN(double t, ScalarDouble(ctx, 4, "score_threshold"));
    score_threshold = static_cast<T>(t);
  }
  const int64_t batches = bv.dims[0];
  const int64_t num_boxes = bv.dims[1];
  const int64_t classes = sv.dims[1];

  ANVIL_ASSIGN_OR_RETURN(std::vector<T> boxes, ReadAs<T>(bv, "NonMaxSuppression boxes"));
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> scores, ReadAs<T>(sv, "NonMaxSuppression scores"));
  std::vector<T> corners(boxes.size());
  for (int64_t i = 0; i < batches * num_boxes; ++i) {
    Corners(boxes.data() + 4 * i, attrs.center_point_box, corners.data() + 4 * i);
  }

  std::vector<int64_t> selected;  // (batch, class, box) triples
  std::vector<int64_t> order;
  std::vector<int64_t> kept;
  for (int64_t b = 0; b < batches && max_boxes > 0; ++b) {
    const T* box_corners = corners.data() + b * num_boxes * 4;
    for (int64_t c = 0; c < classes; ++c) {
      const T* s = scores.data() + (b * classes + c) * num_boxes;
      order.clear();
      for (int64_t i = 0; i < num_boxes; ++i) {
        if (!score_threshold || s[i] > *score_threshold) order.push_back(i);
      }
      // Highest score first; equal scores keep the lower box index first.
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t i, int64_t j) { return s[i] > s[j]; });
      kept.clear();
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= max_boxes) break;
        bool suppressed = false;
        for (int64_t k : kept) {
          if (Suppresses(box_corners + 4 * i, box_corners + 4 * k, iou_threshold)) {
            suppressed = true;
            break;
          }
        }
        if (suppressed) continue;
        kept.push_back(i);
        selected.insert(selected.end(), {b, c, i});
      }
    }
  }
  const int64_t count = static_cast<int64_t>(selected.size()) / 3;
  ANVIL_ASSIGN_OR_RETURN(TensorView* out, ctx.AllocateOutput(0, {count, 3}));
  std::copy(selected.begin(), selected.end(), out->As<int64_t>());
  return absl::OkStatus();
}

absl::Status NmsCompute(KernelContext& ctx, const NmsAttrs& attrs) {
  return DispatchFloatCompute(ctx.input(0).type, "NonMaxSuppression",
                              [&](auto tag) { return NmsRun<decltype(tag)>(ctx, attrs); });
}

// ---- RoiAlign ----

struct RoiAlignAttrs {
  bool max_mode = false;
  int64_t output_height = 1;
  int64_t output_width = 1;
  int64_t sampling_ratio = 0;
  float spatial_scale = 1.0f;
  bool half_pixel = false;  // coordinate_transformation_mode half_pixel (opset 16's default)
};

// One bilinear sample: four input offsets and their weights.
template <typename T>
struct Sample {
  int64_t pos[4] = {0, 0, 0, 0};
  T weight[4] = {0, 0, 0, 0};
};

template <typename T>
Sample<T> BilinearSample(T y, T x, int64_t height, int64_t width) {
  Sample<T> s;
  // Samples more than one pixel outside the map contribute nothing.
  if (y < -1 || y > height || x < -1 || x > width) return s;
  y = std::max(y, T(0));
  x = std::max(x, T(0));
  int64_t y_low = static_cast<int64_t>(y);
  int64_t x_low = static_cast<int64_t>(x);
  int64_t y_high = y_low + 1;
  int64_t x_high = x_low + 1;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<T>(y_low);
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<T>(x_low);
  }
  const T ly = y - y_low;
  const T lx = x - x_low;
  const T hy = 1 - ly;
  const T hx = 1 - lx;
  s.pos[0] = y_low * width + x_low;
  s.pos[1] = y_low * width + x_high;
  s.pos[2] = y_high * width + x_low;
  s.pos[3] = y_high * width + x_high;
  s.weight[0] = hy * hx;
  s.weight[1] = hy * lx;
  s.weight[2] = ly * hx;
  s.weight[3] = ly * lx;
  return s;
}

// Work bounds of RoiAlign, whose sampling grid data decides: samples per ROI (each kept with its
// four corners and weights, ~48 bytes) and sample reads per run. Detection models use a few
// hundred samples per ROI (7x7 bins of 2x2); adaptive sampling of a whole 1000-pixel image in
// 7x7 bins is ~20,000.
constexpr int64_t kMaxRoiAlignSamples = int64_t{1} << 22;
constexpr int64_t kMaxRoiAlignSampleReads = int64_t{1} << 32;

template <typename T>
absl::Status RoiAlignRun(KernelContext& ctx, const RoiAlignAttrs& attrs) {
  const TensorView& xv = ctx.input(0);
  const TensorView& rv = ctx.input(1);
  const TensorView& iv = ctx.input(2);
  if (xv.rank() != 4 || rv.rank() != 2 || rv.dims[1] != 4 || iv.rank() != 1 ||
      iv.dims[0] != rv.dims[0]) {
    return ctx.Error(absl::StrCat("X ", xv.DebugString(), ", rois ", rv.DebugString(),
                                  " and batch_indices ", iv.DebugString(),
                                  " must be [N, C, H, W], [R, 4] and [R]"));
  }
  const int64_t n = xv.dims[0], channels = xv.dims[1], height = xv.dims[2], width = xv.dims[3];
  const int64_t num_rois = rv.dims[0];
  // Bilinear sampling reads the nearest row and column even at the image's edge: an empty
  // image has none (the model fuzzer read through X's null data at W = 0).
  if ((height == 0 || width == 0) && num_rois > 0 && channels > 0) {
    return ctx.Error(absl::StrCat("X ", xv.DebugString(),
                                  " has an empty image, which no roi can be sampled from"));
  }
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> x, ReadAs<T>(xv, "RoiAlign X"));
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> rois, ReadAs<T>(rv, "RoiAlign rois"));
  ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> batch, ReadAs<int64_t>(iv, "RoiAlign batch_indices"));

  const int64_t ph_count = attrs.output_height, pw_count = attrs.output_width;
  std::vector<T> y(num_rois * channels * ph_count * pw_count);
  std::vector<Sample<T>> samples;
  const T offset = attrs.half_pixel ? T(0.5) : T(0);
  const T scale = static_cast<T>(attrs.spatial_scale);
  for (int64_t r = 0; r < num_rois; ++r) {
    const int64_t b = batch[r];
    if (b < 0 || b >= n) {
      return ctx.Error(absl::StrCat("batch index ", b, " of roi ", r, " is outside [0, ", n, ")"));
    }
    const T* roi = rois.data() + 4 * r;
    const T start_w = roi[0] * scale - offset;
    const T start_h = roi[1] * scale - offset;
    T roi_w = roi[2] * scale - offset - start_w;
    T roi_h = roi[3] * scale - offset - start_h;
    if (!attrs.half_pixel) {  // the legacy mode forces rois of at least one pixel
      roi_w = std::max(roi_w, T(1));
      roi_h = std::max(roi_h, T(1));
    }
    const T bin_h = roi_h / static_cast<T>(ph_count);
    const T bin_w = roi_w / static_cast<T>(pw_count);
    // The sampling grid per bin: the attribute, or adaptive (about one sample per pixel). Its
    // size is data (ROI coordinates) or a hostile attribute: bounded before anything is sized by
    // it, the float converted only once known to be in range.
    auto grid = [&](T extent, int64_t bins) -> std::optional<int64_t> {
      if (attrs.sampling_ratio > 0) return attrs.sampling_ratio;
      const double g = std::ceil(static_cast<double>(extent) / static_cast<double>(bins));
      if (!(g >= 0 && g <= static_cast<double>(kMaxRoiAlignSamples))) return std::nullopt;
      return static_cast<int64_t>(g);
    };
    const std::optional<int64_t> grid_h = grid(roi_h, ph_count);
    const std::optional<int64_t> grid_w = grid(roi_w, pw_count);
    std::optional<int64_t> per_roi;
    if (grid_h && grid_w) {
      per_roi = CheckedMul(ph_count, pw_count);
      if (per_roi) per_roi = CheckedMul(*per_roi, *grid_h);
      if (per_roi) per_roi = CheckedMul(*per_roi, *grid_w);
    }
    if (!per_roi || *per_roi > kMaxRoiAlignSamples) {
      return ctx.Error(absl::StrCat("roi ", r, " needs more than ", kMaxRoiAlignSamples,
                                    " samples (output ", ph_count, "x", pw_count,
                                    ", sampling_ratio ", attrs.sampling_ratio, ", roi ", roi_h, "x",
                                    roi_w, "); refusing the work"));
    }
    std::optional<int64_t> reads = CheckedMul(*per_roi, channels);
    if (reads) reads = CheckedMul(*reads, num_rois);
    if (!reads || *reads > kMaxRoiAlignSampleReads) {
      return ctx.Error(absl::StrCat("roi ", r, ": ", num_rois, " rois x ", channels, " channels x ",
                                    *per_roi, " samples is over the work limit of ",
                                    kMaxRoiAlignSampleReads, " sample reads"));
    }
    const int64_t grid_area = *grid_h * *grid_w;
    const T count = static_cast<T>(std::max<int64_t>(grid_area, 1));

    // Sample positions are the same for every channel.
    samples.clear();
    for (int64_t ph = 0; ph < ph_count; ++ph) {
      for (int64_t pw = 0; pw < pw_count; ++pw) {
        for (int64_t iy = 0; iy < *grid_h; ++iy) {
          const T yy = start_h + ph * bin_h + (iy + T(0.5)) * bin_h / static_cast<T>(*grid_h);
          for (int64_t ix = 0; ix < *grid_w; ++ix) {
            const T xx = start_w + pw * bin_w + (ix + T(0.5)) * bin_w / static_cast<T>(*grid_w);
            samples.push_back(BilinearSample(yy, xx, height, width));
          }
        }
      }
    }
    const int64_t per_bin = grid_area;
    for (int64_t c = 0; c < channels; ++c) {
      const T* plane = x.data() + (b * channels + c) * height * width;
      T* out = y.data() + (r * channels + c) * ph_count * pw_count;
      for (int64_t bin = 0; bin < ph_count * pw_count; ++bin) {
        const Sample<T>* s = samples.data() + bin * per_bin;
        if (attrs.max_mode) {
          // ONNX Runtime's max mode: the largest weighted corner over all samples.
          T best = 0;
          for (int64_t k = 0; k < per_bin; ++k) {
            T v = s[k].weight[0] * plane[s[k].pos[0]];
            for (int q = 1; q < 4; ++q) v = std::max(v, s[k].weight[q] * plane[s[k].pos[q]]);
            best = k == 0 ? v : std::max(best, v);
          }
          out[bin] = best;
        } else {
          T sum = 0;
          for (int64_t k = 0; k < per_bin; ++k) {
            for (int q = 0; q < 4; ++q) sum += s[k].weight[q] * plane[s[k].pos[q]];
          }
          out[bin] = sum / count;
        }
      }
    }
  }
  return WriteAs(ctx.output(0), y.data(), "RoiAlign");
}

absl::Status RoiAlignCompute(KernelContext& ctx, const RoiAlignAttrs& attrs) {
  return DispatchFloatCompute(ctx.input(0).type, "RoiAlign",
                              [&](auto tag) { return RoiAlignRun<decltype(tag)>(ctx, attrs); });
}

// ---- MaxRoiPool ----

struct MaxRoiPoolAttrs {
  int64_t pooled_h = 1;
  int64_t pooled_w = 1;
  float spatial_scale = 1.0f;
};

// Caffe's ROI pooling: rois rounded to whole pixels, bins of floor/ceil bounds, empty bins 0.
template <typename T>
absl::Status MaxRoiPoolRun(KernelContext& ctx, const MaxRoiPoolAttrs& attrs) {
  const TensorView& xv = ctx.input(0);
  const TensorView& rv = ctx.input(1);
  if (xv.rank() != 4 || rv.rank() != 2 || rv.dims[1] != 5) {
    return ctx.Error(absl::StrCat("X ", xv.DebugString(), " and rois ", rv.DebugString(),
                                  " must be [N, C, H, W] and [R, 5]"));
  }
  const int64_t n = xv.dims[0], channels = xv.dims[1], height = xv.dims[2], width = xv.dims[3];
  const int64_t num_rois = rv.dims[0];
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> x, ReadAs<T>(xv, "MaxRoiPool X"));
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> rois, ReadAs<T>(rv, "MaxRoiPool rois"));
  const int64_t ph_count = attrs.pooled_h, pw_count = attrs.pooled_w;
  std::vector<T> y(num_rois * channels * ph_count * pw_count);
  const T scale = static_cast<T>(attrs.spatial_scale);
  for (int64_t r = 0; r < num_rois; ++r) {
    const T* roi = rois.data() + 5 * r;
    const int64_t b = static_cast<int64_t>(roi[0]);
    if (b < 0 || b >= n) {
      return ctx.Error(absl::StrCat("batch index ", b, " of roi ", r, " is outside [0, ", n, ")"));
    }
    const int64_t start_w = static_cast<int64_t>(std::round(roi[1] * scale));
    const int64_t start_h = static_cast<int64_t>(std::round(roi[2] * scale));
    const int64_t end_w = static_cast<int64_t>(std::round(roi[3] * scale));
    const int64_t end_h = static_cast<int64_t>(std::round(roi[4] * scale));
    const T bin_h = static_cast<T>(std::max<int64_t>(end_h - start_h + 1, 1)) / ph_count;
    const T bin_w = static_cast<T>(std::max<int64_t>(end_w - start_w + 1, 1)) / pw_count;
    for (int64_t c = 0; c < channels; ++c) {
      const T* plane = x.data() + (b * channels + c) * height * width;
      T* out = y.data() + (r * channels + c) * ph_count * pw_count;
      for (int64_t ph = 0; ph < ph_count; ++ph) {
        const int64_t h0 = static_cast<int64_t>(std::floor(ph * bin_h)) + start_h;
        const int64_t h1 = static_cast<int64_t>(std::ceil((ph + 1) * bin_h)) + start_h;
        const int64_t hs = std::clamp<int64_t>(h0, 0, height);
        const int64_t he = std::clamp<int64_t>(h1, 0, height);
        for (int64_t pw = 0; pw < pw_count; ++pw) {
          const int64_t w0 = static_cast<int64_t>(std::floor(pw * bin_w)) + start_w;
          const int64_t w1 = static_cast<int64_t>(std::ceil((pw + 1) * bin_w)) + start_w;
          const int64_t ws = std::clamp<int64_t>(w0, 0, width);
          const int64_t we = std::clamp<int64_t>(w1, 0, width);
          T best = 0;
          bool any = false;
          for (int64_t h = hs; h < he; ++h) {
            for (int64_t w = ws; w < we; ++w) {
              const T v = plane[h * width + w];
              if (!any || v > best) best = v;
              any = true;
            }
          }
          out[ph * pw_count + pw] = best;
        }
      }
    }
  }
  return WriteAs(ctx.output(0), y.data(), "MaxRoiPool");
}

absl::Status MaxRoiPoolCompute(KernelContext& ctx, const MaxRoiPoolAttrs& attrs) {
  return DispatchFloatCompute(ctx.input(0).type, "MaxRoiPool",
                              [&](auto tag) { return MaxRoiPoolRun<decltype(tag)>(ctx, attrs); });
}

// ---- GridSample ----

enum class GridMode { kBilinear, kNearest, kBicubic };
enum class GridPadding { kZeros, kBorder, kReflection };

struct GridSampleAttrs {
  GridMode mode = GridMode::kBilinear;
  GridPadding padding = GridPadding::kZeros;
  bool align_corners = false;
};

// Reflects `x` into [lo, hi] by folding at the borders as often as needed.
template <typename T>
T Reflect(T x, T lo, T hi) {
  const T range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const T d = lo - x;
    const int64_t folds = static_cast<int64_t>(d / range);
    const T rest = d - folds * range;
    return folds % 2 == 0 ? lo + rest : hi - rest;
  }
  if (x > hi) {
    const T d = x - hi;
    const int64_t folds = static_cast<int64_t>(d / range);
    const T rest = d - folds * range;
    return folds % 2 == 0 ? hi - rest : lo + rest;
  }
  return x;
}

// Keys' cubic convolution weights (a = -0.75, as PyTorch and ONNX Runtime) for a sample at
// fraction t past the second of four points.
template <typename T>
void CubicWeights(T t, T* w) {
  constexpr T a = T(-0.75);
  auto near = [&](T d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
  auto far = [&](T d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

template <typename T>
absl::Status GridSampleRun(KernelContext& ctx, const GridSampleAttrs& attrs) {
  const TensorView& xv = ctx.input(0);
  const TensorView& gv = ctx.input(1);
  if (xv.rank() != 4 && xv.rank() == gv.rank() && xv.rank() >= 3) {
    // GridSample-20 samples N-D images; Anvil has the 2-D sampler.
    return absl::UnimplementedError(absl::StrCat(ctx.node().Describe(), ": X ", xv.DebugString(),
                                                 " has ", xv.rank() - 2,
                                                 " spatial dims; only 2 are supported"));
  }
  if (xv.rank() != 4 || gv.rank() != 4 || gv.dims[3] != 2 || gv.dims[0] != xv.dims[0]) {
    return ctx.Error(absl::StrCat("X ", xv.DebugString(), " and grid ", gv.DebugString(),
                                  " must be [N, C, H, W] and [N, H_out, W_out, 2]"));
  }
  const int64_t n = xv.dims[0], channels = xv.dims[1], height = xv.dims[2], width = xv.dims[3];
  const int64_t out_h = gv.dims[1], out_w = gv.dims[2];
  // Border and reflection padding repeat the image's pixels: an empty image has none to repeat
  // (zeros padding samples zeros from it).
  if ((height == 0 || width == 0) && attrs.padding != GridPadding::kZeros &&
      n * channels * out_h * out_w > 0) {
    return ctx.Error(absl::StrCat("X ", xv.DebugString(),
                                  " has an empty image, which border and reflection padding "
                                  "cannot sample"));
  }
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> x, ReadAs<T>(xv, "GridSample X"));
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> grid, ReadAs<T>(gv, "GridSample grid"));

  // The valid coordinate range: pixel centers with align_corners, pixel edges without.
  const T x_min = attrs.align_corners ? T(0) : T(-0.5);
  const T y_min = x_min;
  const T x_max = attrs.align_corners ? T(width - 1) : T(width) - T(0.5);
  const T y_max = attrs.align_corners ? T(height - 1) : T(height) - T(0.5);
  auto unnormalize = [&](T v, int64_t size) {
    return attrs.align_corners ? (v + 1) / 2 * T(size - 1) : ((v + 1) * T(size) - 1) / 2;
  };
  // The value at integer pixel (r, c), padded per padding_mode.
  auto pixel = [&](const T* plane, int64_t r, int64_t c) -> T {
    switch (attrs.padding) {
      case GridPadding::kZeros:
        return r >= 0 && r < height && c >= 0 && c < width ? plane[r * width + c] : T(0);
      case GridPadding::kBorder:
        return plane[std::clamp<int64_t>(r, 0, height - 1) * width +
                     std::clamp<int64_t>(c, 0, width - 1)];
      case GridPadding::kReflection: {
        const int64_t rr = static_cast<int64_t>(Reflect(T(r), y_min, y_max));
        const int64_t cc = static_cast<int64_t>(Reflect(T(c), x_min, x_max));
        return plane[std::clamp<int64_t>(rr, 0, height - 1) * width +
                     std::clamp<int64_t>(cc, 0, width - 1)];
      }
    }
    return T(0);
  };

  std::vector<T> y(n * channels * out_h * out_w);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oy = 0; oy < out_h; ++oy) {
      for (int64_t ox = 0; ox < out_w; ++ox) {
        const T* g = grid.data() + ((b * out_h + oy) * out_w + ox) * 2;
        T px = unnormalize(g[0], width);
        T py = unnormalize(g[1], height);
        if (attrs.mode == GridMode::kNearest) {
          px = std::nearbyint(px);
          py = std::nearbyint(py);
        }
        if (px < x_min || px > x_max || py < y_min || py > y_max) {
          if (attrs.padding == GridPadding::kBorder) {
            px = std::clamp(px, T(0), T(width - 1));
            py = std::clamp(py, T(0), T(height - 1));
          } else if (attrs.padding == GridPadding::kReflection) {
            px = Reflect(px, x_min, x_max);
            py = Reflect(py, y_min, y_max);
          }
        }
        for (int64_t c = 0; c < channels; ++c) {
          const T* plane = x.data() + (b * channels + c) * height * width;
          T value = 0;
          switch (attrs.mode) {
            case GridMode::kNearest:
              value = pixel(plane, static_cast<int64_t>(py), static_cast<int64_t>(px));
              break;
            case GridMode::kBilinear: {
              const int64_t x1 = static_cast<int64_t>(std::floor(px));
              const int64_t y1 = static_cast<int64_t>(std::floor(py));
              const T dx1 = px - T(x1), dx2 = T(x1 + 1) - px;
              const T dy1 = py - T(y1), dy2 = T(y1 + 1) - py;
              value = dy2 * (dx2 * pixel(plane, y1, x1) + dx1 * pixel(plane, y1, x1 + 1)) +
                      dy1 * (dx2 * pixel(plane, y1 + 1, x1) + dx1 * pixel(plane, y1 + 1, x1 + 1));
              break;
            }
            case GridMode::kBicubic: {
              const int64_t x0 = static_cast<int64_t>(std::floor(px)) - 1;
              const int64_t y0 = static_cast<int64_t>(std::floor(py)) - 1;
              T wx[4], wy[4];
              CubicWeights(px - T(x0 + 1), wx);
              CubicWeights(py - T(y0 + 1), wy);
              for (int i = 0; i < 4; ++i) {
                T row = 0;
                for (int j = 0; j < 4; ++j) row += wx[j] * pixel(plane, y0 + i, x0 + j);
                value += wy[i] * row;
              }
              break;
            }
          }
          y[((b * channels + c) * out_h + oy) * out_w + ox] = value;
        }
      }
    }
  }
  return WriteAs(ctx.output(0), y.data(), "GridSample");
}

// The grid's (float) type decides the compute type; X may be any numeric type.
absl::Status GridSampleCompute(KernelContext& ctx, const GridSampleAttrs& attrs) {
  return DispatchFloatCompute(ctx.input(1).type, "GridSample",
                              [&](auto tag) { return GridSampleRun<decltype(tag)>(ctx, attrs); });
}

}  // namespace

Factory CreateNonMaxSuppression(const Node& node, int64_t) {
  const int64_t center = node.GetInt("center_point_box", 0);
  if (center != 0 && center != 1) {
    return NodeError(node, absl::StrCat("center_point_box ", center, " is not 0 or 1"));
  }
  return MakeAttrKernel(NmsAttrs{center == 1}, &NmsCompute);
}

Factory CreateRoiAlign(const Node& node, int64_t opset) {
  RoiAlignAttrs attrs;
  const std::string mode = node.GetString("mode", "avg");
  if (mode != "avg" && mode != "max") {
    return NodeError(node, absl::StrCat("mode '", mode, "' is not avg or max"));
  }
  attrs.max_mode = mode == "max";
  attrs.output_height = node.GetInt("output_height", 1);
  attrs.output_width = node.GetInt("output_width", 1);
  attrs.sampling_ratio = node.GetInt("sampling_ratio", 0);
  attrs.spatial_scale = node.GetFloat("spatial_scale", 1.0f);
  if (attrs.output_height < 1 || attrs.output_width < 1 || attrs.sampling_ratio < 0) {
    return NodeError(node, "output_height and output_width must be >= 1, sampling_ratio >= 0");
  }
  // Opset 10 had no attribute and behaved as output_half_pixel; 16 defaults to half_pixel.
  const std::string transform = node.GetString("coordinate_transformation_mode",
                                               opset >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    return NodeError(node, absl::StrCat("coordinate_transformation_mode '", transform,
                                        "' is not half_pixel or output_half_pixel"));
  }
  attrs.half_pixel = transform == "half_pixel";
  return MakeAttrKernel(attrs, &RoiAlignCompute);
}

Factory CreateMaxRoiPool(const Node& node, int64_t) {
  const std::vector<int64_t> pooled = node.GetInts("pooled_shape");
  if (pooled.size() != 2 || pooled[0] < 1 || pooled[1] < 1) {
    return NodeError(node, "pooled_shape must be two positive ints");
  }
  return MakeAttrKernel(MaxRoiPoolAttrs{pooled[0], pooled[1], node.GetFloat("spatial_scale", 1.0f)},
                        &MaxRoiPoolCompute);
}

Factory CreateGridSample(const Node& node, int64_t opset) {
  GridSampleAttrs attrs;
  // GridSample-20 renames bilinear and bicubic to linear (the default) and cubic.
  const bool renamed = opset >= 20;
  const std::string mode = node.GetString("mode", renamed ? "linear" : "bilinear");
  if (mode == (renamed ? "linear" : "bilinear")) {
    attrs.mode = GridMode::kBilinear;
  } else if (mode == "nearest") {
    attrs.mode = GridMode::kNearest;
  } else if (mode == (renamed ? "cubic" : "bicubic")) {
    attrs.mode = GridMode::kBicubic;
  } else {
    return NodeError(
        node, absl::StrCat("mode '", mode, "' is not ",
                           renamed ? "linear, nearest or cubic" : "bilinear, nearest or bicubic"));
  }
  const std::string padding = node.GetString("padding_mode", "zeros");
  if (padding == "zeros") {
    attrs.padding = GridPadding::kZeros;
  } else if (padding == "border") {
    attrs.padding = GridPadding::kBorder;
  } else if (padding == "reflection") {
    attrs.padding = GridPadding::kReflection;
  } else {
    return NodeError(
        node, absl::StrCat("padding_mode '", padding, "' is not zeros, border or reflection"));
  }
  attrs.align_corners = node.GetInt("align_corners", 0) != 0;
  return MakeAttrKernel(attrs, &GridSampleCompute);
}

}  // namespace anvil::misc
