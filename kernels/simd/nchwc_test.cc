#include "kernels/simd/nchwc.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace anvil::simd {
namespace {

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

float Activate(const Epilogue& e, float v) {
  switch (e.activation) {
    case Activation::kRelu:
      return v < 0.0f ? 0.0f : v;
    case Activation::kClip:
      return std::min(std::max(v, e.alpha), e.beta);
    default:
      return v;
  }
}

std::vector<float> Blocked(const std::vector<float>& x, int64_t channels, int64_t pixels) {
  const int64_t B = NchwcBlock();
  std::vector<float> out((channels + B - 1) / B * B * pixels, -1.0f);
  ReorderToBlocked(x.data(), channels, pixels, out.data());
  return out;
}

std::vector<float> Unblocked(const std::vector<float>& x, int64_t channels, int64_t pixels) {
  std::vector<float> out(channels * pixels, -1.0f);
  ReorderFromBlocked(x.data(), channels, pixels, out.data());
  return out;
}

// Whole tiles of B x B (moved in registers) and the rest (one by one): channels and pixels on
// both sides of multiples of B.
TEST(Nchwc, ReordersRoundTripWithZeroPaddedLanes) {
  const int64_t B = NchwcBlock();
  EXPECT_GE(B, 4);
  for (int64_t channels : {int64_t{1}, B, B + 3, 3 * B}) {
    for (int64_t pixels : {int64_t{1}, int64_t{10}, 2 * B, 4 * B + 5}) {
      const std::vector<float> x = Random(channels * pixels, 1);
      const std::vector<float> blocked = Blocked(x, channels, pixels);
      for (int64_t c = 0; c < (channels + B - 1) / B * B; ++c) {
        for (int64_t p = 0; p < pixels; ++p) {
          const float want = c < channels ? x[c * pixels + p] : 0.0f;
          ASSERT_EQ(blocked[(c / B * pixels + p) * B + c % B], want)
              << channels << " " << pixels << " " << c << " " << p;
        }
      }
      EXPECT_EQ(Unblocked(blocked, channels, pixels), x);
    }
  }
}

struct DepthwiseCase {
  int64_t channels, h, w, kernel, stride, pad_top, pad_left, pad_bottom, pad_right;
};

// Depthwise windows with every pad arrangement (none, symmetric, TensorFlow's SAME at stride 2),
// planes narrower than a window, channels not a multiple of the block, and each epilogue: the
// NCHW definition's bits, taps accumulated in (kh, kw) order with fused multiply-adds from 0 (a
// padding tap adding 0 * w) and the bias added last, as Anvil's NCHW depthwise kernels do.
TEST(Nchwc, DepthwiseGivesTheDefinitionsBits) {
  const DepthwiseCase cases[] = {
      {8, 7, 7, 3, 1, 1, 1, 1, 1},    {13, 14, 14, 3, 2, 1, 1, 1, 1}, {24, 9, 12, 3, 2, 0, 0, 1, 1},
      {16, 2, 3, 3, 1, 1, 1, 1, 1},   {19, 11, 10, 5, 1, 2, 2, 2, 2}, {8, 15, 16, 5, 2, 1, 2, 2, 1},
      {40, 28, 28, 3, 1, 0, 0, 0, 0}, {9, 5, 17, 3, 2, 1, 1, 1, 1},   {17, 7, 7, 5, 1, 2, 2, 2, 2},
      {5, 9, 8, 5, 1, 1, 2, 3, 0},    {21, 12, 20, 5, 1, 0, 0, 0, 0}, {3, 2, 3, 5, 1, 2, 2, 2, 2},
  };
  Epilogue relu, clip;
  relu.activation = Activation::kRelu;
  clip.activation = Activation::kClip;
  clip.alpha = 0.0f;
  clip.beta = 0.5f;
  const int64_t B = NchwcBlock();
  for (const DepthwiseCase& c : cases) {
    const int64_t k = c.kernel, taps = k * k;
    const int64_t oh = (c.h + c.pad_top + c.pad_bottom - k) / c.stride + 1;
    const int64_t ow = (c.w + c.pad_left + c.pad_right - k) / c.stride + 1;
    const std::vector<float> x = Random(c.channels * c.h * c.w, 2);
    const std::vector<float> w = Random(c.channels * taps, 3), bias = Random(c.channels, 4);
    const int64_t blocks = (c.channels + B - 1) / B;
    std::vector<float> pw(blocks * taps * B), pb(blocks * B);
    PackBlockedDepthwiseWeights(w.data(), bias.data(), c.channels, taps, pw.data(), pb.data());
    const std::vector<float> xb = Blocked(x, c.channels, c.h * c.w);
    const Epilogue* const epilogues[] = {&relu, &clip, nullptr};
    for (const Epilogue* e : epilogues) {
      const Epilogue none;
      const Epilogue& epilogue = e != nullptr ? *e : none;
      std::vector<float> yb(blocks * oh * ow * B, -7.0f);
      std::vector<float> scratch(BlockedDepthwiseScratchSize(k, c.stride, oh, ow), -7.0f);
      BlockedDepthwiseConv(xb.data(), blocks, c.h, c.w, k, c.stride, c.pad_top, c.pad_left,
                           pw.data(), pb.data(), epilogue, yb.data(), oh, ow, scratch.data());
      const std::vector<float> y = Unblocked(yb, c.channels, oh * ow);
      for (int64_t ch = 0; ch < c.channels; ++ch) {
        for (int64_t r = 0; r < oh; ++r) {
          for (int64_t q = 0; q < ow; ++q) {
            float acc = 0.0f;
            for (int64_t kh = 0; kh < k; ++kh) {
              for (int64_t kw = 0; kw < k; ++kw) {
                const int64_t ih = r * c.stride - c.pad_top + kh;
                const int64_t iw = q * c.stride - c.pad_left + kw;
                const bool inside = ih >= 0 && ih < c.h && iw >= 0 && iw < c.w;
                acc = std::fma(inside ? x[(ch * c.h + ih) * c.w + iw] : 0.0f,
                               w[ch * taps + kh * k + kw], acc);
              }
            }
            const float want = Activate(epilogue, bias[ch] + acc);
            const float got = y[(ch * oh + r) * ow + q];
            ASSERT_EQ(std::signbit(got), std::signbit(want));
            ASSERT_EQ(got, want) << "channels " << c.channels << " " << c.h << "x" << c.w << " k"
                                 << k << " s" << c.stride << " at " << ch << "," << r << "," << q;
          }
        }
      }
    }
  }
}

struct PlanarCase {
  int64_t channels, out_channels, h, w, kh, kw, sh, sw, pad_top, pad_left, pad_bottom, pad_right;
};

// First layers on planar input: 3x3 stride 2 as MobileNets start, 5x5 with uneven pads as
// BlazeFace does, 7x7, planes narrower than a tile and output channels not a multiple of the
// block; and more channels: four-block tiles and the blocks left, rows wide enough for whole,
// half and single-pixel tiles, pads larger than the window.
// The definition's bits: terms in (channel, kh, kw) order with fused multiply-adds from 0 (a
// tap in the padding adds 0 * w, or is skipped: the same bits for finite weights), then the
// bias, then the epilogue.
TEST(Nchwc, PlanarInputConvGivesTheDefinitionsBits) {
  const PlanarCase cases[] = {
      {3, 16, 20, 20, 3, 3, 2, 2, 1, 1, 1, 1}, {3, 20, 17, 23, 5, 5, 2, 2, 1, 1, 2, 2},
      {1, 8, 9, 9, 3, 3, 1, 1, 1, 1, 1, 1},    {3, 12, 30, 30, 7, 7, 2, 2, 3, 3, 3, 3},
      {2, 9, 4, 5, 3, 3, 1, 2, 0, 0, 0, 0},    {8, 80, 11, 60, 3, 3, 2, 2, 1, 1, 1, 1},
      {4, 40, 6, 52, 3, 3, 1, 1, 1, 1, 1, 1},  {5, 72, 5, 33, 3, 5, 1, 1, 4, 2, 4, 2},
  };
  Epilogue clip;
  clip.activation = Activation::kClip;
  clip.alpha = 0.0f;
  clip.beta = 0.75f;
  const int64_t B = NchwcBlock();
  for (const PlanarCase& c : cases) {
    const int64_t taps = c.kh * c.kw;
    const int64_t oh = (c.h + c.pad_top + c.pad_bottom - c.kh) / c.sh + 1;
    const int64_t ow = (c.w + c.pad_left + c.pad_right - c.kw) / c.sw + 1;
    const std::vector<float> x = Random(c.channels * c.h * c.w, 5);
    const std::vector<float> w = Random(c.out_channels * c.channels * taps, 6);
    const std::vector<float> bias = Random(c.out_channels, 7);
    const int64_t out_blocks = (c.out_channels + B - 1) / B;
    std::vector<float> pw(BlockedPlanarWeightsSize(c.out_channels, c.channels, taps));
    PackBlockedPlanarWeights(w.data(), c.out_channels, c.channels, taps, pw.data());
    std::vector<float> pb(out_blocks * B, 0.0f);
    std::copy(bias.begin(), bias.end(), pb.begin());
    std::vector<float> yb(out_blocks * oh * ow * B, -7.0f);
    BlockedConvFromPlanar(x.data(), c.channels, c.h, c.w, c.kh, c.kw, c.sh, c.sw, c.pad_top,
                          c.pad_left, pw.data(), pb.data(), clip, yb.data(), out_blocks, oh, ow);
    // Row ranges (a split across threads) give the whole call's bits.
    std::vector<float> rows(yb.size(), -7.0f);
    const int64_t split = oh / 3 + 1;
    for (const auto& [r0, r1] : {std::pair<int64_t, int64_t>{0, split}, {split, oh}}) {
      BlockedConvFromPlanar(x.data(), c.channels, c.h, c.w, c.kh, c.kw, c.sh, c.sw, c.pad_top,
                            c.pad_left, pw.data(), pb.data(), clip, rows.data(), out_blocks, oh, ow,
                            r0, r1);
    }
    ASSERT_EQ(rows, yb) << c.channels << "->" << c.out_channels << " " << c.h << "x" << c.w;
    const std::vector<float> y = Unblocked(yb, c.out_channels, oh * ow);
    for (int64_t m = 0; m < c.out_channels; ++m) {
      for (int64_t r = 0; r < oh; ++r) {
        for (int64_t q = 0; q < ow; ++q) {
          float acc = 0.0f;
          for (int64_t ch = 0; ch < c.channels; ++ch) {
            for (int64_t kh = 0; kh < c.kh; ++kh) {
              for (int64_t kw = 0; kw < c.kw; ++kw) {
                const int64_t ih = r * c.sh - c.pad_top + kh;
                const int64_t iw = q * c.sw - c.pad_left + kw;
                const bool inside = ih >= 0 && ih < c.h && iw >= 0 && iw < c.w;
                acc = std::fma(inside ? x[(ch * c.h + ih) * c.w + iw] : 0.0f,
                               w[(m * c.channels + ch) * taps + kh * c.kw + kw], acc);
              }
            }
          }
          const float want = Activate(clip, bias[m] + acc);
          ASSERT_EQ(y[(m * oh + r) * ow + q], want)
              << c.channels << "->" << c.out_channels << " " << c.h << "x" << c.w << " k" << c.kh
              << "x" << c.kw << " at " << m << "," << r << "," << q;
        }
      }
    }
  }
}

// Pointwise convolutions of channel counts in and out of step with the block, pixel counts
// around the tiles' widths, with and without a bias and a residual sum: the definition's values,
// input channels accumulated in order with fused multiply-adds from 0, then the bias, the sum and
// the activation.
// Also over pixel ranges, with the whole call's bits.
TEST(Nchwc, PointwiseGivesTheDefinitionsValues) {
  const int64_t B = NchwcBlock();
  Epilogue clip;
  clip.activation = Activation::kClip;
  clip.alpha = 0.0f;
  clip.beta = 6.0f;
  for (int64_t in : {int64_t{8}, int64_t{13}, int64_t{24}, int64_t{40}}) {
    for (int64_t out : {int64_t{8}, int64_t{16}, int64_t{24}, int64_t{37}}) {
      for (int64_t pixels : {int64_t{1}, int64_t{5}, int64_t{49}, int64_t{100}}) {
        for (bool residual : {false, true}) {
          const std::vector<float> x = Random(in * pixels, 5), w = Random(out * in, 6),
                                   bias = Random(out, 7), sum = Random(out * pixels, 8);
          const int64_t in_blocks = (in + B - 1) / B, out_blocks = (out + B - 1) / B;
          std::vector<float> packed(BlockedPointwiseWeightsSize(out, in));
          const std::vector<float> pb = Blocked(bias, out, 1);  // [out_blocks][B]
          PackBlockedPointwiseWeights(w.data(), out, in, packed.data());
          std::vector<float> xb = Blocked(x, in, pixels);
          const std::vector<float> sb = Blocked(sum, out, pixels);
          // The lanes past `in` are not read: NaN there would reach every output.
          for (int64_t p = 0; p < pixels; ++p) {
            for (int64_t c = in; c < in_blocks * B; ++c) {
              xb[((in_blocks - 1) * pixels + p) * B + c % B] = std::nanf("");
            }
          }
          std::vector<float> yb(out_blocks * pixels * B, -7.0f);
          BlockedPointwiseConv(xb.data(), in, pixels, packed.data(), pb.data(),
                               residual ? sb.data() : nullptr, clip, yb.data(), out_blocks);
          // Pixel ranges (a split across threads) give the whole call's bits.
          std::vector<float> ranges(yb.size(), -7.0f);
          const int64_t split = pixels / 3 + 1;
          for (const auto& [p0, p1] : {std::pair<int64_t, int64_t>{0, split}, {split, pixels}}) {
            BlockedPointwiseConv(xb.data(), in, pixels, packed.data(), pb.data(),
                                 residual ? sb.data() : nullptr, clip, ranges.data(), out_blocks,
                                 p0, p1);
          }
          ASSERT_EQ(ranges, yb) << in << " -> " << out << " channels, " << pixels << " pixels";
          const std::vector<float> y = Unblocked(yb, out, pixels);
          for (int64_t m = 0; m < out; ++m) {
            for (int64_t p = 0; p < pixels; ++p) {
              float acc = 0.0f;
              for (int64_t c = 0; c < in; ++c)
                acc = std::fma(x[c * pixels + p], w[m * in + c], acc);
              float v = bias[m] + acc;
              if (residual) v += sum[m * pixels + p];
              ASSERT_EQ(y[m * pixels + p], Activate(clip, v))
                  << in << " -> " << out << " channels, " << pixels << " pixels"
                  << (residual ? " with a sum" : "") << ", at " << m << "," << p;
            }
          }
        }
      }
    }
  }
}

// Max pools with and without pads (ResNet's 3x3 stride 2 with one pixel of padding,
// asymmetric pads, 2x2 without), a NaN in a window: the maximum over the taps inside the input,
// the padding taking no part, NaN winning.
TEST(Nchwc, MaxPoolGivesTheMaxOfTheTapsInside) {
  struct Case {
    int64_t blocks, h, w, kh, kw, sh, sw, pt, pl, pb, pr;
  };
  const Case cases[] = {{2, 12, 12, 3, 3, 2, 2, 1, 1, 1, 1},
                        {1, 7, 9, 3, 2, 1, 2, 2, 0, 0, 1},
                        {3, 8, 6, 2, 2, 2, 2, 0, 0, 0, 0}};
  const int64_t B = NchwcBlock();
  for (const Case& c : cases) {
    const int64_t oh = (c.h + c.pt + c.pb - c.kh) / c.sh + 1;
    const int64_t ow = (c.w + c.pl + c.pr - c.kw) / c.sw + 1;
    std::vector<float> x = Random(c.blocks * c.h * c.w * B, 9);
    x[(c.h * c.w / 2) * B + 1] = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> y(c.blocks * oh * ow * B, -7.0f);
    BlockedMaxPool(x.data(), c.blocks, c.h, c.w, c.kh, c.kw, c.sh, c.sw, c.pt, c.pl, y.data(), oh,
                   ow);
    for (int64_t b = 0; b < c.blocks; ++b) {
      for (int64_t r = 0; r < oh; ++r) {
        for (int64_t q = 0; q < ow; ++q) {
          for (int64_t j = 0; j < B; ++j) {
            float want = -std::numeric_limits<float>::infinity();
            for (int64_t kh = 0; kh < c.kh; ++kh) {
              for (int64_t kw = 0; kw < c.kw; ++kw) {
                const int64_t ih = r * c.sh - c.pt + kh, iw = q * c.sw - c.pl + kw;
                if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w) continue;
                const float v = x[((b * c.h + ih) * c.w + iw) * B + j];
                if (std::isnan(v) || v > want) want = std::isnan(want) ? want : v;
              }
            }
            const float got = y[((b * oh + r) * ow + q) * B + j];
            if (std::isnan(want)) {
              EXPECT_TRUE(std::isnan(got)) << b << " " << r << " " << q << " " << j;
            } else {
              EXPECT_EQ(got, want) << b << " " << r << " " << q << " " << j;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace anvil::simd
