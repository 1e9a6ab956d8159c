// The opset-17 signal ops: DFT, STFT, HannWindow, HammingWindow, BlackmanWindow and
// MelWeightMatrix. Shapes are in shape/ops/compute_signal.cc: a signal's last dim is 1 (real) or
// 2 (real, imaginary), and DFT/STFT outputs are always complex.
//
// Everything is computed in double and converted when written: float32 transforms of a few
// hundred points already lose more than the backend tests' tolerance when accumulated in float.
// Transforms use an iterative radix-2 FFT for powers of two, a direct sum for other small sizes
// and Bluestein's algorithm (a chirp convolution through a power-of-two FFT) for other sizes.
#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/ops/misc_internal.h"

namespace anvil::misc {
namespace {

using Complex = std::complex<double>;

// Below this size a direct O(n^2) sum is cheaper than Bluestein's three FFTs of size >= 2n.
constexpr int64_t kMaxDirectSize = 64;

bool IsPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// e^(sign * 2*pi*i * k / n), with k reduced mod n first so large k keep full precision.
Complex Twiddle(int64_t k, int64_t n, double sign) {
  const double angle = sign * 2.0 * std::numbers::pi * static_cast<double>(k % n) / n;
  return {std::cos(angle), std::sin(angle)};
}

// An unnormalized DFT of one size and direction: X[k] = sum_j x[j] e^(-+2*pi*i*jk/n) (minus for
// forward, plus for inverse). Plans are built once per Compute and reused for every line.
class FftPlan {
 public:
  FftPlan(int64_t n, bool inverse) : n_(n), sign_(inverse ? 1.0 : -1.0) {
    if (IsPowerOfTwo(n)) {
      kind_ = Kind::kRadix2;
      twiddles_.resize(n / 2);
      for (int64_t k = 0; k < n / 2; ++k) twiddles_[k] = Twiddle(k, n, sign_);
      bit_reverse_.resize(n);
      int bits = 0;
      while ((int64_t{1} << bits) < n) ++bits;
      for (int64_t i = 0; i < n; ++i) {
        int64_t r = 0;
        for (int b = 0; b < bits; ++b) r |= ((i >> b) & 1) << (bits - 1 - b);
        bit_reverse_[i] = r;
      }
    } else if (n <= kMaxDirectSize) {
      kind_ = Kind::kDirect;
      twiddles_.resize(n);
      for (int64_t k = 0; k < n; ++k) twiddles_[k] = Twiddle(k, n, sign_);
    } else {
      // Bluestein: jk = (j^2 + k^2 - (k - j)^2) / 2 turns the DFT into a convolution with the
      // chirp e^(sign*pi*i*j^2/n), done with power-of-two FFTs of size m >= 2n - 1.
      kind_ = Kind::kBluestein;
      int64_t m = 1;
      while (m < 2 * n - 1) m <<= 1;
      chirp_.resize(n);
      for (int64_t j = 0; j < n; ++j) {
        // j^2 mod 2n keeps the angle small and exact.
        const int64_t j2 = (j * j) % (2 * n);
        const double angle = sign_ * std::numbers::pi * static_cast<double>(j2) / n;
        chirp_[j] = {std::cos(angle), std::sin(angle)};
      }
      forward_ = std::make_unique<FftPlan>(m, /*inverse=*/false);
      backward_ = std::make_unique<FftPlan>(m, /*inverse=*/true);
      kernel_.assign(m, Complex(0));
      kernel_[0] = std::conj(chirp_[0]);
      for (int64_t j = 1; j < n; ++j) kernel_[j] = kernel_[m - j] = std::conj(chirp_[j]);
      forward_->Run(kernel_);
    }
  }

  // Transforms `data` (n_ values) in place.
  void Run(std::vector<Complex>& data) const {
    switch (kind_) {
      case Kind::kRadix2:
        Radix2(data);
        return;
      case Kind::kDirect: {
        std::vector<Complex> out(n_);
        for (int64_t k = 0; k < n_; ++k) {
          Complex sum = 0;
          for (int64_t j = 0; j < n_; ++j) sum += data[j] * twiddles_[(j * k) % n_];
          out[k] = sum;
        }
        data = std::move(out);
        return;
      }
      case Kind::kBluestein: {
        const int64_t m = static_cast<int64_t>(kernel_.size());
        std::vector<Complex> a(m, Complex(0));
        for (int64_t j = 0; j < n_; ++j) a[j] = data[j] * chirp_[j];
        forward_->Run(a);
        for (int64_t j = 0; j < m; ++j) a[j] *= kernel_[j];
        backward_->Run(a);
        for (int64_t k = 0; k < n_; ++k) data[k] = a[k] * chirp_[k] / static_cast<double>(m);
        return;
      }
    }
  }

 private:
  enum class Kind { kRadix2, kDirect, kBluestein };

  void Radix2(std::vector<Complex>& a) const {
    for (int64_t i = 0; i < n_; ++i) {
      if (i < bit_reverse_[i]) std::swap(a[i], a[bit_reverse_[i]]);
    }
    for (int64_t len = 2; len <= n_; len <<= 1) {
      const int64_t half = len / 2;
      const int64_t step = n_ / len;
      for (int64_t i = 0; i < n_; i += len) {
        for (int64_t k = 0; k < half; ++k) {
          const Complex u = a[i + k];
          const Complex v = a[i + k + half] * twiddles_[k * step];
          a[i + k] = u + v;
          a[i + k + half] = u - v;
        }
      }
    }
  }

  int64_t n_;
  double sign_;
  Kind kind_ = Kind::kDirect;
  std::vector<Complex> twiddles_;
  std::vector<int64_t> bit_reverse_;
  std::vector<Complex> chirp_;
  std::vector<Complex> kernel_;  // FFT of the conjugate chirp, size m
  std::unique_ptr<FftPlan> forward_;
  std::unique_ptr<FftPlan> backward_;
};

// The component dim of a signal view: 1 (real) or 2 (complex).
absl::StatusOr<int64_t> Components(const KernelContext& ctx, const TensorView& v) {
  const int64_t comps = v.rank() == 0 ? 0 : v.dims.back();
  if (comps != 1 && comps != 2) {
    return ctx.Error(
        absl::StrCat("signal ", v.DebugString(), " must end in a dim of 1 (real) or 2 (complex)"));
  }
  return comps;
}

// DFT-17.
absl::Status DftCompute(KernelContext& ctx) {
  const Node& node = ctx.node();
  const TensorView& xv = ctx.input(0);
  const int64_t rank = xv.rank();
  ANVIL_ASSIGN_OR_RETURN(int64_t comps, Components(ctx, xv));
  // DFT-20 moves the axis to input 2, default -2 (the last signal dim).
  int64_t axis_value = node.GetInt("axis", 1);
  if (ctx.opset() >= 20) {
    axis_value = -2;
    if (ctx.HasInput(2)) {
      ANVIL_ASSIGN_OR_RETURN(axis_value, ScalarInt(ctx, 2, "axis"));
    }
  }
  int64_t axis = axis_value < 0 ? axis_value + rank : axis_value;
  if (axis < 0 || axis >= rank - 1) {
    return ctx.Error(
        absl::StrCat("axis ", axis_value, " is not a signal dim of ", xv.DebugString()));
  }
  const bool inverse = node.GetInt("inverse", 0) != 0;
  const int64_t n_in = xv.dims[axis];
  int64_t n = n_in;
  if (ctx.HasInput(1)) {
    ANVIL_ASSIGN_OR_RETURN(int64_t length, ScalarInt(ctx, 1, "dft_length"));
    if (length < 1) return ctx.Error(absl::StrCat("dft_length ", length, " must be >= 1"));
    n = length;
  }
  TensorView& out = ctx.output(0);
  const int64_t out_n = out.dims[axis];

  int64_t outer = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= xv.dims[k];
  int64_t inner = 1;
  for (int64_t k = axis + 1; k < rank - 1; ++k) inner *= xv.dims[k];

  ANVIL_ASSIGN_OR_RETURN(std::vector<double> x, ReadAs<double>(xv, "DFT"));
  std::vector<double> y(out.NumElements());
  const FftPlan plan(n, inverse);
  std::vector<Complex> line(n);
  const int64_t used = std::min(n, n_in);  // zero-padded or truncated to dft_length
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      line.assign(n, Complex(0));
      for (int64_t j = 0; j < used; ++j) {
        const double* v = x.data() + ((o * n_in + j) * inner + i) * comps;
        line[j] = {v[0], comps == 2 ? v[1] : 0.0};
      }
      plan.Run(line);
      for (int64_t k = 0; k < out_n; ++k) {
        const Complex value = inverse ? line[k] / static_cast<double>(n) : line[k];
        double* dst = y.data() + ((o * out_n + k) * inner + i) * 2;
        dst[0] = value.real();
        dst[1] = value.imag();
      }
    }
  }
  return WriteAs(out, y.data(), "DFT");
}

// STFT-17: frames of frame_length samples every frame_step, times the window, transformed.
absl::Status StftCompute(KernelContext& ctx) {
  const TensorView& sv = ctx.input(0);
  if (sv.rank() != 3) return ctx.Error(absl::StrCat("signal ", sv.DebugString(), " is not 3-D"));
  ANVIL_ASSIGN_OR_RETURN(int64_t comps, Components(ctx, sv));
  absl::StatusOr<int64_t> step = ScalarInt(ctx, 1, "frame_step");
  if (!step.ok()) return step.status();
  std::vector<double> window;
  if (ctx.HasInput(2)) {
    ANVIL_ASSIGN_OR_RETURN(window, ReadAs<double>(ctx.input(2), "STFT window"));
  }
  int64_t length = static_cast<int64_t>(window.size());
  if (ctx.HasInput(3)) {
    ANVIL_ASSIGN_OR_RETURN(int64_t l, ScalarInt(ctx, 3, "frame_length"));
    if (ctx.HasInput(2) && l != length) {
      return ctx.Error(
          absl::StrCat("frame_length ", l, " differs from the window length ", length));
    }
    length = l;
  }
  if (!ctx.HasInput(2)) window.assign(length, 1.0);
  TensorView& out = ctx.output(0);
  const int64_t batch = sv.dims[0];
  const int64_t samples = sv.dims[1];
  const int64_t frames = out.dims[1];
  const int64_t bins = out.dims[2];
  if (length < 1 || *step < 1 || (frames > 0 && (frames - 1) * *step + length > samples)) {
    return ctx.Error(absl::StrCat("frames of ", length, " every ", *step,
                                  " samples do not fit the signal ", sv.DebugString()));
  }

  ANVIL_ASSIGN_OR_RETURN(std::vector<double> s, ReadAs<double>(sv, "STFT"));
  std::vector<double> y(out.NumElements());
  const FftPlan plan(length, /*inverse=*/false);
  std::vector<Complex> line(length);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t j = 0; j < length; ++j) {
        const double* v = s.data() + (b * samples + f * *step + j) * comps;
        line[j] = Complex(v[0], comps == 2 ? v[1] : 0.0) * window[j];
      }
      plan.Run(line);
      for (int64_t k = 0; k < bins; ++k) {
        double* dst = y.data() + ((b * frames + f) * bins + k) * 2;
        dst[0] = line[k].real();
        dst[1] = line[k].imag();
      }
    }
  }
  return WriteAs(out, y.data(), "STFT");
}

// HannWindow, HammingWindow, BlackmanWindow: generalized cosine windows
// a0 - a1 cos(2*pi*k/N) + a2 cos(4*pi*k/N), N = size (periodic) or size - 1 (symmetric).
absl::Status WindowCompute(KernelContext& ctx) {
  const Node& node = ctx.node();
  ANVIL_ASSIGN_OR_RETURN(int64_t size, ScalarInt(ctx, 0, "size"));
  const bool periodic = node.GetInt("periodic", 1) != 0;
  double a0 = 0.5, a1 = 0.5, a2 = 0.0;  // Hann
  if (node.op_type() == "HammingWindow") {
    a0 = 25.0 / 46.0;
    a1 = 21.0 / 46.0;
  } else if (node.op_type() == "BlackmanWindow") {
    a0 = 0.42;
    a1 = 0.5;
    a2 = 0.08;
  }
  TensorView& out = ctx.output(0);
  const int64_t n = out.NumElements();
  // A symmetric window of one point has N = 0; its only point is the window's peak, k = N/2.
  const double denominator = static_cast<double>(periodic ? size : size - 1);
  std::vector<double> y(n);
  for (int64_t k = 0; k < n; ++k) {
    const double phase =
        denominator == 0 ? std::numbers::pi : 2.0 * std::numbers::pi * k / denominator;
    y[k] = a0 - a1 * std::cos(phase) + a2 * std::cos(2.0 * phase);
  }
  return WriteAs(out, y.data(), node.op_type());
}

// MelWeightMatrix-17, as the ONNX reference computes it: num_mel_bins + 2 points evenly spaced
// on the mel scale between the edges (the step divides by num_mel_bins + 2), mapped to DFT bins
// floor((dft_length + 1) * hz / sample_rate), and a triangle of peak 1 per mel bin.
absl::Status MelWeightMatrixCompute(KernelContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(int64_t mel_bins, ScalarInt(ctx, 0, "num_mel_bins"));
  ANVIL_ASSIGN_OR_RETURN(int64_t dft_length, ScalarInt(ctx, 1, "dft_length"));
  ANVIL_ASSIGN_OR_RETURN(double sample_rate, ScalarDouble(ctx, 2, "sample_rate"));
  ANVIL_ASSIGN_OR_RETURN(double lower, ScalarDouble(ctx, 3, "lower_edge_hertz"));
  ANVIL_ASSIGN_OR_RETURN(double upper, ScalarDouble(ctx, 4, "upper_edge_hertz"));
  if (sample_rate <= 0) {
    return ctx.Error(absl::StrCat("sample_rate ", sample_rate, " must be positive"));
  }
  TensorView& out = ctx.output(0);
  const int64_t spectrogram_bins = out.dims[0];
  const int64_t bins = mel_bins;

  auto hz_to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  auto mel_to_hz = [](double mel) { return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0); };
  const double low_mel = hz_to_mel(lower);
  const double mel_step = (hz_to_mel(upper) - low_mel) / static_cast<double>(bins + 2);
  std::vector<int64_t> points(bins + 2);
  for (int64_t i = 0; i < bins + 2; ++i) {
    const double hz = mel_to_hz(static_cast<double>(i) * mel_step + low_mel);
    points[i] =
        static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz / sample_rate));
  }

  std::vector<double> y(out.NumElements(), 0.0);
  auto set = [&](int64_t row, int64_t col, double v) {
    if (row >= 0 && row < spectrogram_bins) y[row * bins + col] = v;
  };
  for (int64_t i = 0; i < bins; ++i) {
    const int64_t left = points[i];
    const int64_t center = points[i + 1];
    const int64_t right = points[i + 2];
    if (center == left) {
      set(center, i, 1.0);
    } else {
      for (int64_t j = left; j <= center; ++j) {
        set(j, i, static_cast<double>(j - left) / static_cast<double>(center - left));
      }
    }
    if (right > center) {
      for (int64_t j = center; j < right; ++j) {
        set(j, i, static_cast<double>(right - j) / static_cast<double>(right - center));
      }
    }
  }
  return WriteAs(out, y.data(), "MelWeightMatrix");
}

}  // namespace

Factory CreateDft(const Node& node, int64_t) {
  if (node.GetInt("onesided", 0) != 0 && node.GetInt("inverse", 0) != 0) {
    return NodeError(node, "onesided and inverse cannot both be set");
  }
  return Stateless<DftCompute>(node, 17);
}

Factory CreateStft(const Node& node, int64_t) { return Stateless<StftCompute>(node, 17); }

Factory CreateWindow(const Node& node, int64_t) { return Stateless<WindowCompute>(node, 17); }

Factory CreateMelWeightMatrix(const Node& node, int64_t) {
  return Stateless<MelWeightMatrixCompute>(node, 17);
}

}  // namespace anvil::misc
