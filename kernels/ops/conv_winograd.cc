#include "kernels/ops/conv_winograd.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/parallel.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/winograd.h"

namespace anvil::compute_ops {
namespace {

using simd::kWinogradOutTile;
using simd::kWinogradPoints;

// Fewer channels than this on either side make products too thin to run at GEMM speed (a
// 3-channel first layer stays with im2col, whose K is 27).
constexpr int64_t kMinChannels = 8;
// Fewer output tiles than this leave the products' columns mostly empty.
constexpr int64_t kMinTiles = 16;
// Bytes of a block's transformed inputs and products together: within a 1 MiB L2 with room for
// the weights.
constexpr int64_t kBlockBytes = 768 * 1024;
// Block widths are multiples of the GEMM micro-kernel's widest column panel (3 vectors of 16
// floats on AVX-512) where the budget allows.
constexpr int64_t kColumnPanel = 48;
constexpr int64_t kCacheLineFloats = 64 / sizeof(float);

template <typename T>
T* Scratch(int slot, size_t n) {
  thread_local std::vector<T> buffers[2];
  if (buffers[slot].size() < n) buffers[slot].resize(n);
  return buffers[slot].data();
}

bool AllOnes(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
}

int64_t Ceil(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Tiles per block: as many as kBlockBytes holds, in whole column panels when that is at least
// one, spread evenly over the blocks a grid of `tiles` needs.
int64_t BlockTiles(int64_t tiles, int64_t C, int64_t K) {
  const int64_t per_tile = kWinogradPoints * (C + K) * static_cast<int64_t>(sizeof(float));
  int64_t block = std::max<int64_t>(16, kBlockBytes / per_tile);
  block = block >= kColumnPanel ? block / kColumnPanel * kColumnPanel : block / 16 * 16;
  const int64_t blocks = Ceil(tiles, block);
  return std::min(block, Ceil(Ceil(tiles, blocks), 16) * 16);
}

// Asks for the cache lines of [p, p + n) to be fetched: the input transform gathers from many
// lines at once, which the hardware prefetchers do not foresee.
void PrefetchFloats(const float* p, int64_t n) {
  for (int64_t i = 0; i < n; i += kCacheLineFloats) __builtin_prefetch(p + i);
}

}  // namespace

std::unique_ptr<const WinogradWeights> PrepareWinogradWeights(const Node& node) {
  if (node.num_inputs() < 2 || node.GetInt("group", 1) != 1) return nullptr;
  if (!AllOnes(node.GetInts("strides")) || !AllOnes(node.GetInts("dilations"))) return nullptr;
  const Value* v = node.input(1);
  if (v == nullptr || !v->IsInitializer() || v->IsGraphInput()) return nullptr;
  const Elements& e = *v->constant();
  const absl::Span<const int64_t> dims = e.dims();
  if (e.element_type() != ElementType::kFloat || dims.size() != 4 || dims[2] != 3 || dims[3] != 3 ||
      dims[0] < kMinChannels || dims[1] < kMinChannels) {
    return nullptr;
  }
  const int64_t K = dims[0], C = dims[1];
  std::vector<float> copy;
  const float* data = reinterpret_cast<const float*>(e.ContiguousData());
  if (data == nullptr) {
    copy.resize(K * C * 9);
    e.CopyTo(reinterpret_cast<uint8_t*>(copy.data()));
    data = copy.data();
  }
  auto w = std::make_unique<WinogradWeights>();
  w->out_channels = K;
  w->in_channels = C;
  w->u.resize(kWinogradPoints * K * C);
  simd::WinogradTransformWeights(data, K, C, w->u.data());
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
  const int64_t tiles =
      images * Ceil(g.out[0], kWinogradOutTile) * Ceil(g.out[1], kWinogradOutTile);
  return tiles >= kMinTiles;
}

void WinogradConv2D(const WindowGeometry& g, int64_t images, const WinogradWeights& w,
                    const float* x, const float* bias, float* y) {
  const int64_t K = w.out_channels, C = w.in_channels;
  const int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1];
  const int64_t tiles_w = Ceil(OW, kWinogradOutTile);
  const int64_t per_image = Ceil(OH, kWinogradOutTile) * tiles_w;
  const int64_t tiles = images * per_image;
  const int64_t block = BlockTiles(tiles, C, K);
  const int64_t blocks = Ceil(tiles, block);
  const double block_flops = 2.0 * kWinogradPoints * static_cast<double>(K * C * block);
  parallel::For(blocks, parallel::MinChunk(block_flops, parallel::kMinChunkFlops),
                [&](int64_t begin, int64_t end) {
                  // One cache line between the points' matrices: rows a step touches at the same
                  // column of 36 matrices whose size is a multiple of 4 KiB would share one L1 set.
                  const int64_t v_stride = C * block + kCacheLineFloats;
                  const int64_t m_stride = K * block + kCacheLineFloats;
                  float* v = Scratch<float>(0, kWinogradPoints * v_stride);
                  float* m = Scratch<float>(1, kWinogradPoints * m_stride);
                  int64_t* desc = Scratch<int64_t>(0, 6 * block);
                  simd::WinogradTiles t;
                  t.image_offset = desc;
                  t.row0 = desc + block;
                  t.col0 = desc + 2 * block;
                  t.out_offset = desc + 3 * block;
                  t.out_rows = desc + 4 * block;
                  t.out_cols = desc + 5 * block;
                  t.height = H;
                  t.width = W;
                  t.out_plane = OH * OW;
                  t.out_width = OW;
                  // The input images block b reads: contiguous in x.
                  auto block_images = [&](int64_t b, const float** first, int64_t* count) {
                    const int64_t lo = b * block / per_image;
                    const int64_t hi = (std::min(tiles, (b + 1) * block) - 1) / per_image;
                    *first = x + lo * C * H * W;
                    *count = (hi - lo + 1) * C * H * W;
                  };
                  const float* first;
                  int64_t count;
                  block_images(begin, &first, &count);
                  PrefetchFloats(first, count);
                  for (int64_t b = begin; b < end; ++b) {
                    const int64_t p0 = b * block;
                    const int64_t n = std::min(block, tiles - p0);
                    t.count = n;
                    for (int64_t j = 0; j < n; ++j) {
                      const int64_t image = (p0 + j) / per_image, tile = (p0 + j) % per_image;
                      const int64_t oh = tile / tiles_w * kWinogradOutTile;
                      const int64_t ow = tile % tiles_w * kWinogradOutTile;
                      desc[j] = image * C * H * W;
                      desc[block + j] = oh - g.pad_begin[0];
                      desc[2 * block + j] = ow - g.pad_begin[1];
                      desc[3 * block + j] = image * K * OH * OW + oh * OW + ow;
                      desc[4 * block + j] = std::min(kWinogradOutTile, OH - oh);
                      desc[5 * block + j] = std::min(kWinogradOutTile, OW - ow);
                    }
                    simd::WinogradTransformInput(x, C, t, v, n, v_stride);
                    if (b + 1 < end) {  // arrives while the products run
                      block_images(b + 1, &first, &count);
                      PrefetchFloats(first, count);
                    }
                    for (int64_t xi = 0; xi < kWinogradPoints; ++xi) {
                      simd::Sgemm(false, false, K, n, C, 1.0f, w.u.data() + xi * K * C, C,
                                  v + xi * v_stride, n, 0.0f, m + xi * m_stride, n);
                    }
                    simd::WinogradTransformOutput(m, n, m_stride, K, bias, t, y);
                  }
                });
}

}  // namespace anvil::compute_ops
