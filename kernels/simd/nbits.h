// Products with 4-bit block-quantized weights in ONNX Runtime's MatMulNBits layout, with the
// weights dequantized in registers (never a float copy of them):
//
//   W[n, k] = (q[n, k] - zero[n, k / block]) * scale[n, k / block]
//   q: row n holds ceil(K / block) blocks of block / 2 bytes; byte j of a block holds element
//      2j in its low nibble and 2j + 1 in its high nibble (a partial last block: the nibbles
//      past K are ignored).
//   zero: 4-bit zero points packed the same way, two blocks per byte, each row padded to a whole
//      byte (ceil(blocks / 2) bytes); or float zero points, one per block; or none (8).
//
// Two arithmetics, as MatMulNBits' accuracy_level chooses:
//  - float: y[n] = sum over blocks of scale * sum_k a[k] (q[k] - zero), in float;
//  - int8 (accuracy_level 4): a is quantized per block (symmetric, scale max|a| / 127, rounded to
//    nearest even), each block's integer dot product sum_k (q - zero) a_q is exact in int32, and
//    y[n] = sum over blocks of float(dot) * (a_scale * scale). Integer zero points only (packed or
//    none): ONNX Runtime computes float zero points in float, and so must the caller.
// block is a power of two from 16 to 256. Results depend on neither the thread count nor the
// column split; they may differ in the last bits between SIMD targets (the order of float sums).
#ifndef ANVIL_KERNELS_SIMD_NBITS_H_
#define ANVIL_KERNELS_SIMD_NBITS_H_

#include <cstdint>
#include <vector>

namespace anvil::simd {

struct Int4Weights {
  // ONNX Runtime's layout (above), or with `interleaved` PackInt4Interleaved's.
  const uint8_t* q = nullptr;             // [n, blocks, block / 2]
  const float* scales = nullptr;          // [n, blocks]
  const uint8_t* packed_zeros = nullptr;  // [n, (blocks + 1) / 2], or null
  const float* float_zeros = nullptr;     // [n, blocks], or null (both null: zero point 8)
  int64_t n = 0, k = 0, block = 0;
  bool interleaved = false;

  int64_t blocks() const { return (k + block - 1) / block; }
  // The zero point of block b of row `row`, for blocks = blocks() (passed: no division per call).
  float Zero(int64_t row, int64_t b, int64_t blocks) const {
    if (float_zeros != nullptr) return float_zeros[row * blocks + b];
    if (packed_zeros == nullptr) return 8.0f;
    const uint8_t byte = packed_zeros[row * ((blocks + 1) / 2) + b / 2];
    return static_cast<float>((b & 1) ? byte >> 4 : byte & 0xF);
  }
};

// The weights of 4 columns at a time stream from memory as one sequence instead of four (the
// hardware prefetchers keep up with it: ~25% more weights per second at one thread, measured on
// 4864 x 4864, and more at two): for each group of 4 rows and each 64-element step of K, the 4
// rows' 32 bytes in turn; the scales likewise, per step of two blocks of 32 the 4 rows' two
// scales, or per block the 4 rows' one. Rows past n are zeros. Only the int8 arithmetic reads it
// (Int4MatVec with int8 set), and only on targets with byte products, for blocks of 32 (an even
// count of them) or more; DequantizeInt4Rows reads it too.
struct Int4Interleaved {
  std::vector<uint8_t> q;
  std::vector<float> scales;
};
// Whether this CPU's target runs the interleaved layout, and whether `w` (ONNX Runtime's layout)
// can be packed into it.
bool Int4InterleavedSupported(const Int4Weights& w);
Int4Interleaved PackInt4Interleaved(const Int4Weights& w);

// Bytes of scratch Int4MatVec needs for a row of K (its permuted or quantized copy of a).
int64_t Int4MatVecScratchBytes(const Int4Weights& w);

// y[j] = sum_k a[k] W[n0 + j, k] for the columns n0 <= n < n1 (one row a of K values), in the
// int8 arithmetic when `int8` is set, else in float; `scratch` holds
// Int4MatVecScratchBytes(w) bytes, 64-byte aligned. Single-threaded: callers split columns.
void Int4MatVec(const float* a, const Int4Weights& w, bool int8, int64_t n0, int64_t n1,
                void* scratch, float* y);

// The float values of W's rows n0 <= n < n1, K each: dst[(n - n0) * K + k] = (q - zero) * scale
// (exact in float): a slice of W for a GEMM with a transposed B.
void DequantizeInt4Rows(const Int4Weights& w, int64_t n0, int64_t n1, float* dst);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_NBITS_H_
