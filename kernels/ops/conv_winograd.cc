#include "kernels/ops/conv_winograd.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "base/parallel.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/conv_internal.h"
#include "kernels/ops/scratch.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/winograd.h"

namespace anvil::compute_ops {
namespace {

using simd::kWinogradOutTile;
using simd::kWinogradPoints;

// Fewer channels than this on either side make products too thin to run at GEMM speed (a
// 3-channel first layer measured 0.26 -> 0.45 ms with Winograd; it takes the direct kernel).
constexpr int64_t kMinChannels = 8;
// More channels than this on either side (no network has them) stay with im2col: the
// transformed weight (36 x K x C floats) and a block's scratch grow with them.
constexpr int64_t kMaxChannels = 4096;
// The input region PrefetchFloats asks for at most: a block's images beyond it (large images
// with many channels) are read in order enough for the hardware prefetchers.
constexpr int64_t kMaxPrefetchFloats = (1 << 20) / sizeof(float);
// Fewer output tiles than this leave the tile-major products' columns (K x C times C x tiles)
// mostly empty: they run channel-major (WinogradChannelMajor), tiles x C times C x K, whose
// columns are the output channels. Measured on Zen 5, batch 1, against im2col + GEMM: 32 -> 64
// channels at 8x8 (4 tiles) 16.3 -> 8.8 us, 128 channels at 8x8 40 vs 101 us, 512 at 7x7
// 1.21 vs 1.38 ms.
constexpr int64_t kMinTiles = 16;
// Up to this many tiles, channel-major also beats tile-major when tile-major would leave over a
// tenth of its vectors' lanes empty (49 tiles: 4 vectors of 16 for 49 columns) and both channel
// counts fill whole vectors: 128 channels at 28x28 (49 tiles) 0.52 -> 0.39 ms, 64 at 28x28
// 0.156 -> 0.142 ms; with 32 channels at 64 tiles, tile-major is faster (0.061 vs 0.084 ms).
// The whole image is one block, so this also bounds its scratch.
constexpr int64_t kMaxChannelMajorTiles = 128;
constexpr int64_t kMinChannelMajorChannels = 64;
// Each block reads the whole transformed weight (36 K x C floats, four times im2col's): below
// this many tiles, only a weight that stays in cache pays for that (512 channels at 4x4, one
// tile: 0.81 ms against im2col's 0.44; 128 channels, 2.4 MB: 28 against 36 us). A weight
// streamed from memory does T multiply-adds per float loaded for T tiles, so with few tiles the
// products run at the memory's speed: 512 channels at 7x7 (4 tiles, 37.7 MB) measured 1.21 ms
// against im2col's 1.38 on Zen 5 but 4.8-8.1 against 3.9-6.3 ms on Zen 3 (AVX2, a shared
// guest), where ResNet-18's three such layers made it 0.98x ONNX Runtime against 0.93x with
// im2col. 16 tiles (256 channels at 14x14: 1.4-3.1 ms against im2col's 3.1) still win there.
constexpr int64_t kMinStreamedWeightTiles = 16;
constexpr int64_t kMaxCachedWeightBytes = 8 << 20;
// Bytes of a block's transformed inputs and products together: within a 1 MiB L2 with room for
// the weights.
constexpr int64_t kBlockBytes = 768 * 1024;
// Block widths are multiples of the GEMM micro-kernel's widest column panel (3 vectors of 16
// floats on AVX-512) where the budget allows.
constexpr int64_t kColumnPanel = 48;
constexpr int64_t kCacheLineFloats = 64 / sizeof(float);
// Threads split the tiles in units of this many (the last unit takes the remainder), and blocks
// are whole units: every product is at least 16 columns wide, so it takes the GEMM's packed path
// whatever the split, and each output's arithmetic does not depend on the thread count.
constexpr int64_t kTileUnit = 16;

int64_t Ceil(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Tiles per block at most: as many as kBlockBytes holds, in whole column panels when that is at
// least one.
int64_t MaxBlockTiles(int64_t C, int64_t K) {
  const int64_t per_tile = kWinogradPoints * (C + K) * static_cast<int64_t>(sizeof(float));
  const int64_t block = std::max<int64_t>(kTileUnit, kBlockBytes / per_tile);
  return block >= kColumnPanel ? block / kColumnPanel * kColumnPanel
                               : block / kTileUnit * kTileUnit;
}

// Scratch of a channel-major block (36 x tiles x (C + K) floats) over this, which only channel
// counts no network has reach, takes the tile-major blocks (or, under kMinTiles tiles, im2col).
constexpr double kMaxChannelMajorScratchBytes = 16 << 20;

// Whether a channel-major block of `tiles` tiles of `points` products each fits that bound.
bool ChannelMajorFits(int64_t tiles, int64_t C, int64_t K, int64_t points = kWinogradPoints) {
  return static_cast<double>(points) * static_cast<double>(tiles) * static_cast<double>(C + K) *
             sizeof(float) <=
         kMaxChannelMajorScratchBytes;
}

// Bytes of F(4x4, 3x3)'s transformed weight of a C -> K convolution (36 K x C floats).
double TransformedWeightBytes(int64_t C, int64_t K) {
  return static_cast<double>(kWinogradPoints) * static_cast<double>(K * C) * sizeof(float);
}

// Whether `tiles` tiles run as WinogradChannelMajor (the constants above say when that pays).
bool ChannelMajor(int64_t tiles, int64_t C, int64_t K) {
  if (!ChannelMajorFits(tiles, C, K)) return false;
  if (tiles < kMinTiles) return true;
  const int64_t vectors = Ceil(tiles, kTileUnit);
  return tiles <= kMaxChannelMajorTiles && 10 * tiles < 9 * vectors * kTileUnit &&
         std::min(C, K) >= kMinChannelMajorChannels;
}

// F(4x4, 3x3)'s transformed weight (36 K x C floats) above this many bytes is streamed from
// memory on every run of a network (ResNet-18's three 256-channel 14x14 layers hold 9.4 MB each,
// 28 MB together), and its products then wait on it: few tiles (channel-major) take F(2x2, 3x3)
// instead, 16 K x C floats for 2.25x fewer multiplies than im2col (where F(4x4) has 4x).
constexpr double kMaxStreamedWeightBytes = 4 << 20;

// Whether `small_tiles` 2x2 tiles of a C -> K convolution run as F(2x2, 3x3) channel-major.
bool SmallTilesPay(int64_t small_tiles, int64_t C, int64_t K) {
  return TransformedWeightBytes(C, K) > kMaxStreamedWeightBytes &&
         small_tiles <= kMaxChannelMajorTiles &&
         ChannelMajorFits(small_tiles, C, K, simd::kWinograd2Points);
}

// Asks for the cache lines of [p, p + n) to be fetched: the input transform gathers from many
// lines at once, which the hardware prefetchers do not foresee.
void PrefetchFloats(const float* p, int64_t n) {
  if (n > kMaxPrefetchFloats) return;
  for (int64_t i = 0; i < n; i += kCacheLineFloats) __builtin_prefetch(p + i);
}

}  // namespace

const std::vector<float>& WinogradWeights::U() const {
  absl::call_once(u_once_, [this] {
    u_.resize(kWinogradPoints * out_channels * in_channels);
    simd::WinogradTransformWeights(source.data, out_channels, in_channels, u_.data());
    transform_bytes_ += static_cast<int64_t>(u_.size() * sizeof(float));
  });
  return u_;
}

const std::vector<std::unique_ptr<const simd::PackedB>>& WinogradWeights::TransposedPacked() const {
  absl::call_once(packed_once_, [this] {
    const std::vector<float>& u = U();
    const int64_t K = out_channels, C = in_channels;
    packed_.reserve(kWinogradPoints);
    for (int64_t xi = 0; xi < kWinogradPoints; ++xi) {
      // U[xi] is stored K x C: as op(B) = U[xi]^T it is B stored "N x K", transposed.
      packed_.push_back(simd::PackB(/*trans_b=*/true, C, K, u.data() + xi * K * C, C));
      transform_bytes_ += static_cast<int64_t>(packed_.back()->data.size() * sizeof(float));
    }
  });
  return packed_;
}

const std::vector<std::unique_ptr<const simd::PackedB>>& WinogradWeights::TransposedPacked2()
    const {
  absl::call_once(packed2_once_, [this] {
    const int64_t K = out_channels, C = in_channels;
    std::vector<float> u(simd::kWinograd2Points * K * C);
    simd::Winograd2TransformWeights(source.data, K, C, u.data());
    packed2_.reserve(simd::kWinograd2Points);
    for (int64_t xi = 0; xi < simd::kWinograd2Points; ++xi) {
      packed2_.push_back(simd::PackB(/*trans_b=*/true, C, K, u.data() + xi * K * C, C));
      transform_bytes_ += static_cast<int64_t>(packed2_.back()->data.size() * sizeof(float));
    }
  });
  return packed2_;
}

namespace {

// Whether `tiles` output tiles of a C -> K convolution run faster with Winograd than with im2col
// (the constants above).
bool TilesPay(int64_t tiles, int64_t C, int64_t K) {
  if (tiles < kMinTiles && !ChannelMajorFits(tiles, C, K)) return false;
  if (tiles >= kMinStreamedWeightTiles) return true;
  return tiles >= 1 && TransformedWeightBytes(C, K) <= kMaxCachedWeightBytes;
}

// The tiles of `images` outputs of OH x OW in tiles of `side` x `side` outputs.
int64_t TileCount(int64_t images, int64_t OH, int64_t OW, int64_t side) {
  return images * Ceil(OH, side) * Ceil(OW, side);
}

// Whether `images` outputs of OH x OW run faster with either Winograd form than with im2col.
bool EitherPays(int64_t images, int64_t OH, int64_t OW, int64_t C, int64_t K) {
  return SmallTilesPay(TileCount(images, OH, OW, simd::kWinograd2OutTile), C, K) ||
         TilesPay(TileCount(images, OH, OW, kWinogradOutTile), C, K);
}

// Whether the node's output [N, K, OH, OW] is static and too small for Winograd to pay: its
// transformed weight (four times the weight) would never be read.
bool NeverPays(const Node& node, int64_t C, int64_t K) {
  const Value* y = node.num_outputs() > 0 ? node.output(0) : nullptr;
  if (y == nullptr || !y->type().is_tensor() || y->type().rank() != 4) return false;
  const std::vector<Dim>& d = y->type().shape();
  if (!d[0].is_literal() || !d[2].is_literal() || !d[3].is_literal()) return false;
  return !EitherPays(*d[0].value, *d[2].value, *d[3].value, C, K);
}

}  // namespace

std::unique_ptr<const WinogradWeights> PrepareWinogradWeights(const Node& node) {
  if (node.num_inputs() < 2 || node.GetInt("group", 1) != 1) return nullptr;
  if (!AllOnes(node.GetInts("strides")) || !AllOnes(node.GetInts("dilations"))) return nullptr;
  std::optional<ConstantFloats> weight = ReadConstantFloats(node, 1);
  if (!weight.has_value()) return nullptr;
  const Shape& dims = weight->dims;
  if (dims.size() != 4 || dims[2] != 3 || dims[3] != 3 || dims[0] < kMinChannels ||
      dims[1] < kMinChannels || dims[0] > kMaxChannels || dims[1] > kMaxChannels) {
    return nullptr;
  }
  const int64_t K = dims[0], C = dims[1];
  if (NeverPays(node, C, K)) return nullptr;
  auto w = std::make_unique<WinogradWeights>();
  w->out_channels = K;
  w->in_channels = C;
  w->source = *std::move(weight);
  return w;
}

bool WinogradApplies(const WindowGeometry& g, int64_t images, const WinogradWeights& w) {
  if (g.spatial != 2 || g.kernel[0] != 3 || g.kernel[1] != 3) return false;
  if (g.strides[0] != 1 || g.strides[1] != 1 || g.dilations[0] != 1 || g.dilations[1] != 1) {
    return false;
  }
  // The transforms address elements with 32-bit offsets (vector gathers and scatters).
  constexpr int64_t kMaxOffset = int64_t{1} << 30;
  if (images * w.in_channels * g.in_size >= kMaxOffset ||
      images * w.out_channels * g.out_size >= kMaxOffset) {
    return false;
  }
  return EitherPays(images, g.out[0], g.out[1], w.in_channels, w.out_channels);
}

namespace {

// The descriptors of tiles [p0, p0 + n) into t (desc holds 6 * stride values, stride >= n).
void DescribeTiles(const WindowGeometry& g, int64_t C, int64_t K, int64_t p0, int64_t n,
                   int64_t stride, int64_t* desc, simd::WinogradTiles& t,
                   int64_t out_tile = kWinogradOutTile) {
  const int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1];
  const int64_t tiles_w = Ceil(OW, out_tile);
  const int64_t per_image = Ceil(OH, out_tile) * tiles_w;
  t.count = n;
  t.image_offset = desc;
  t.row0 = desc + stride;
  t.col0 = desc + 2 * stride;
  t.out_offset = desc + 3 * stride;
  t.out_rows = desc + 4 * stride;
  t.out_cols = desc + 5 * stride;
  t.height = H;
  t.width = W;
  t.out_plane = OH * OW;
  t.out_width = OW;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t image = (p0 + j) / per_image, tile = (p0 + j) % per_image;
    const int64_t oh = tile / tiles_w * out_tile;
    const int64_t ow = tile % tiles_w * out_tile;
    desc[j] = image * C * H * W;
    desc[stride + j] = oh - g.pad_begin[0];
    desc[2 * stride + j] = ow - g.pad_begin[1];
    desc[3 * stride + j] = image * K * OH * OW + oh * OW + ow;
    desc[4 * stride + j] = std::min(out_tile, OH - oh);
    desc[5 * stride + j] = std::min(out_tile, OW - ow);
  }
}

// A block's scratch, owned by the call or chunk that makes it: the transformed inputs v (36
// matrices C x block, point_stride v_stride), the products m (36 matrices K x block) and the tile
// descriptors. One cache line between the points' matrices: rows a step touches at the same
// column of 36 matrices whose size is a multiple of 4 KiB would share one L1 set.
struct BlockScratch {
  BlockScratch(int64_t C, int64_t K, int64_t block)
      : v_stride(C * block + kCacheLineFloats),
        m_stride(K * block + kCacheLineFloats),
        v(buffers.Get<float>(0, kWinogradPoints * v_stride)),
        m(buffers.Get<float>(1, kWinogradPoints * m_stride)),
        desc(buffers.Get<int64_t>(2, 6 * block)) {}
  ScratchBuffers buffers;  // first: the pointers below are into it
  int64_t v_stride, m_stride;
  float* v;
  float* m;
  int64_t* desc;
};

// All `tiles` as one block whose three stages each split across threads: input channels for
// the input transform, the 36 points for the products, output channels for the output
// transform. For a convolution with too few tiles to split by tiles (a batch-1 16x16 image has
// 16); every value is computed exactly as in one serial block.
void WinogradByStages(const WindowGeometry& g, int64_t tiles, const WinogradWeights& w,
                      const float* x, const float* bias, const simd::Epilogue& epilogue, float* y) {
  const int64_t K = w.out_channels, C = w.in_channels;
  const BlockScratch s(C, K, tiles);
  const int64_t v_stride = s.v_stride, m_stride = s.m_stride;
  float *v = s.v, *m = s.m;
  simd::WinogradTiles t;
  DescribeTiles(g, C, K, 0, tiles, tiles, s.desc, t);
  const int64_t in_plane = g.in[0] * g.in[1], out_plane = g.out[0] * g.out[1];
  // A channel's transform reads and writes 36 values per tile.
  const double channel_work = 2.0 * kWinogradPoints * static_cast<double>(tiles);
  parallel::For(C, parallel::MinChunk(channel_work, parallel::kMinChunkElements),
                [&](int64_t c0, int64_t c1) {
                  simd::WinogradTransformInput(x + c0 * in_plane, c1 - c0, t, v + c0 * tiles, tiles,
                                               v_stride);
                });
  const double point_flops = 2.0 * static_cast<double>(K * C * tiles);
  parallel::For(kWinogradPoints, parallel::MinChunk(point_flops, parallel::kMinChunkFlops),
                [&](int64_t x0, int64_t x1) {
                  for (int64_t xi = x0; xi < x1; ++xi) {
                    simd::Sgemm(false, false, K, tiles, C, 1.0f, w.U().data() + xi * K * C, C,
                                v + xi * v_stride, tiles, 0.0f, m + xi * m_stride, tiles);
                  }
                });
  parallel::For(K, parallel::MinChunk(channel_work, parallel::kMinChunkElements),
                [&](int64_t k0, int64_t k1) {
                  simd::WinogradTransformOutput(m + k0 * tiles, tiles, m_stride, k1 - k0,
                                                bias != nullptr ? bias + k0 : nullptr, epilogue, t,
                                                y + k0 * out_plane);
                });
}

// All `tiles` (few: a late layer's small image at batch 1) as one block whose
// products are V[xi]^T U[xi]^T, tiles x K: with the tiles as the products' rows, the output
// channels fill whole vectors, where K x tiles products would leave most of each vector empty.
// The stages split across threads as WinogradByStages's (the output transform by whole vectors
// of channels); every value is computed as in a serial call. `small` runs F(2x2, 3x3) (tiles
// counted in 2x2 outputs), else F(4x4, 3x3).
void WinogradChannelMajor(const WindowGeometry& g, int64_t tiles, bool small,
                          const WinogradWeights& w, const float* x, const float* bias,
                          const simd::Epilogue& epilogue, float* y) {
  const int64_t K = w.out_channels, C = w.in_channels;
  const int64_t points = small ? simd::kWinograd2Points : kWinogradPoints;
  const std::vector<std::unique_ptr<const simd::PackedB>>& packed =
      small ? w.TransposedPacked2() : w.TransposedPacked();
  // v tiles x C and m tiles x K per point, with the slack the output transform's whole-vector
  // loads read.
  const int64_t v_stride = C * tiles + kCacheLineFloats, m_stride = tiles * K + kCacheLineFloats;
  ScratchBuffers scratch;
  float* v = scratch.Get<float>(0, points * v_stride);
  float* m = scratch.Get<float>(1, points * m_stride);
  int64_t* desc = scratch.Get<int64_t>(2, 6 * tiles);
  simd::WinogradTiles t;
  DescribeTiles(g, C, K, 0, tiles, tiles, desc, t,
                small ? simd::kWinograd2OutTile : kWinogradOutTile);
  const int64_t in_plane = g.in[0] * g.in[1], out_plane = g.out[0] * g.out[1];
  const double channel_work = 2.0 * static_cast<double>(points) * static_cast<double>(tiles);
  // Both transforms split channels in whole vectors of every target (16 floats is the widest).
  constexpr int64_t kChannelUnit = 16;
  parallel::For(
      Ceil(C, kChannelUnit),
      parallel::MinChunk(channel_work * kChannelUnit, parallel::kMinChunkElements),
      [&](int64_t u0, int64_t u1) {
        const int64_t c0 = u0 * kChannelUnit, c1 = std::min(C, u1 * kChannelUnit);
        (small ? simd::Winograd2TransformInputByChannels : simd::WinogradTransformInputByChannels)(
            x + c0 * in_plane, c1 - c0, t, v + c0, C, v_stride);
      });
  const double point_flops = 2.0 * static_cast<double>(K * C * tiles);
  parallel::For(points, parallel::MinChunk(point_flops, parallel::kMinChunkFlops),
                [&](int64_t x0, int64_t x1) {
                  for (int64_t xi = x0; xi < x1; ++xi) {
                    simd::SgemmPackedB(/*trans_a=*/false, tiles, 1.0f, v + xi * v_stride, C,
                                       *packed[xi], 0.0f, m + xi * m_stride, K);
                  }
                });
  parallel::For(Ceil(K, kChannelUnit),
                parallel::MinChunk(channel_work * kChannelUnit, parallel::kMinChunkElements),
                [&](int64_t u0, int64_t u1) {
                  const int64_t k0 = u0 * kChannelUnit, k1 = std::min(K, u1 * kChannelUnit);
                  (small ? simd::Winograd2TransformOutputByChannels
                         : simd::WinogradTransformOutputByChannels)(
                      m + k0, K, m_stride, k1 - k0, bias != nullptr ? bias + k0 : nullptr, epilogue,
                      t, y + k0 * out_plane);
                });
}

}  // namespace

bool WinogradConv2D(const WindowGeometry& g, int64_t images, const WinogradWeights& w,
                    const float* x, const float* bias, const simd::Epilogue& epilogue, float* y) {
  const int64_t K = w.out_channels, C = w.in_channels;
  const int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1];
  const int64_t per_image = TileCount(1, OH, OW, kWinogradOutTile);
  const int64_t tiles = images * per_image;
  const int64_t small_tiles = TileCount(images, OH, OW, simd::kWinograd2OutTile);
  if (SmallTilesPay(small_tiles, C, K)) {
    w.TransposedPacked2();  // made here, before any parallel stage reads it
    WinogradChannelMajor(g, small_tiles, /*small=*/true, w, x, bias, epilogue, y);
    return true;
  }
  if (ChannelMajor(tiles, C, K)) {
    w.TransposedPacked();
    WinogradChannelMajor(g, tiles, /*small=*/false, w, x, bias, epilogue, y);
    return false;
  }
  w.U();  // transformed here, before any parallel stage reads it
  const int64_t max_block = MaxBlockTiles(C, K);
  const int64_t units = std::max<int64_t>(1, tiles / kTileUnit);
  auto unit_begin = [&](int64_t u) { return u * kTileUnit; };  // unit `units` ends at `tiles`
  const double unit_flops = 2.0 * kWinogradPoints * static_cast<double>(K * C * kTileUnit);
  const int64_t min_units = parallel::MinChunk(unit_flops, parallel::kMinChunkFlops);
  if (tiles <= max_block && parallel::ChunkCount(units, min_units) < 2 &&
      parallel::ChunkCount(
          tiles, parallel::MinChunk(unit_flops / kTileUnit, parallel::kMinChunkFlops)) >= 2) {
    WinogradByStages(g, tiles, w, x, bias, epilogue, y);
    return false;
  }
  parallel::For(units, min_units, [&](int64_t u0, int64_t u1) {
    // This chunk's tiles [first_tile, last_tile) in blocks of near-equal whole units.
    const int64_t first_tile = unit_begin(u0);
    const int64_t last_tile = u1 == units ? tiles : unit_begin(u1);
    // (At most one block per unit: the remainder always joins a whole unit.)
    const int64_t blocks = std::min(u1 - u0, Ceil(last_tile - first_tile, max_block));
    const int64_t block =
        Ceil(u1 - u0, blocks) * kTileUnit + (u1 == units ? tiles - unit_begin(units) : 0);
    const BlockScratch s(C, K, block);
    const int64_t v_stride = s.v_stride, m_stride = s.m_stride;
    float *v = s.v, *m = s.m;
    int64_t* desc = s.desc;
    simd::WinogradTiles t;
    // Block b of this chunk: tiles [block_begin(b), block_begin(b + 1)).
    const int64_t chunk_units = u1 - u0;
    auto block_begin = [&](int64_t b) {
      return b == blocks ? last_tile
                         : first_tile + parallel::ChunkBegin(chunk_units, blocks, b) * kTileUnit;
    };
    // The input images tiles [p0, p1) read: contiguous in x.
    auto prefetch_images = [&](int64_t p0, int64_t p1) {
      const int64_t lo = p0 / per_image, hi = (p1 - 1) / per_image;
      PrefetchFloats(x + lo * C * H * W, (hi - lo + 1) * C * H * W);
    };
    prefetch_images(block_begin(0), block_begin(1));
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t p0 = block_begin(b);
      const int64_t n = block_begin(b + 1) - p0;
      DescribeTiles(g, C, K, p0, n, block, desc, t);
      simd::WinogradTransformInput(x, C, t, v, n, v_stride);
      if (b + 1 < blocks) {  // arrives while the products run
        prefetch_images(block_begin(b + 1), block_begin(b + 2));
      }
      for (int64_t xi = 0; xi < kWinogradPoints; ++xi) {
        simd::Sgemm(false, false, K, n, C, 1.0f, w.U().data() + xi * K * C, C, v + xi * v_stride, n,
                    0.0f, m + xi * m_stride, n);
      }
      simd::WinogradTransformOutput(m, n, m_stride, K, bias, epilogue, t, y);
    }
  });
  return false;
}

}  // namespace anvil::compute_ops
