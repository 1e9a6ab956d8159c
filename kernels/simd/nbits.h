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
  // The scale of block b of row `row`, in either layout.
  float Scale(int64_t row, int64_t b, int64_t blocks) const {
    return scales[interleaved ? InterleavedScaleIndex(row, b, blocks, block) : row * blocks + b];
  }
  // The bytes of row `row` from element k (even) on, in either layout: up to the end of the row,
  // or in the interleaved one up to the end of k's run of 32 (k's half of a 64-element step).
  const uint8_t* Bytes(int64_t row, int64_t k, int64_t blocks) const {
    const int64_t row_bytes = blocks * block / 2;
    return q + (interleaved ? InterleavedByteIndex(row, k, row_bytes) : row * row_bytes + k / 2);
  }
  // Where the interleaved layout (Int4Interleaved below) keeps block b's scale of row `row`, and
  // the byte of element k (even) of a row of row_bytes: PackInt4Interleaved writes by these, the
  // readers read by them.
  static int64_t InterleavedScaleIndex(int64_t row, int64_t b, int64_t blocks, int64_t block) {
    const int64_t g = row / 4, c = row % 4;
    return block == 32 ? g * 8 * (blocks / 2) + 8 * (b / 2) + 4 * (b & 1) + c
                       : (g * blocks + b) * 4 + c;
  }
  static int64_t InterleavedByteIndex(int64_t row, int64_t k, int64_t row_bytes) {
    return ((row / 4 * (row_bytes / 32) + k / 64) * 4 + row % 4) * 32 + (k % 64) / 2;
  }
};

// The weights of 4 columns at a time stream from memory as one sequence instead of four (the
// hardware prefetchers keep up with it: ~25% more weights per second at one thread, measured on
// 4864 x 4864, and more at two): for each group of 4 rows and each 64-element step of K, the 4
// rows' 32 bytes in turn; the scales likewise, per step of two blocks of 32 the 4 rows' scales of
// the first block then of the second, or per block the 4 rows' one. Rows past n are zeros. Only the
// int8 arithmetic reads it (Int4MatVec with int8 set), and only on targets with byte products, for
// blocks of 32 (an even count of them) or more; DequantizeInt4Rows reads it too.
struct Int4Interleaved {
  std::vector<uint8_t> q;
  std::vector<float> scales;
};
// Whether this CPU's target runs the interleaved layout, and whether `w` (ONNX Runtime's layout)
// can be packed into it.
bool Int4InterleavedSupported(const Int4Weights& w);
// Whether this CPU's target has the byte products (vpmaddubsw) the int8 arithmetic's fast paths
// need: the interleaved layout above and Int4GemmInt8 below.
bool Int4ByteProductsSupported();
Int4Interleaved PackInt4Interleaved(const Int4Weights& w);

// Bytes of scratch Int4MatVec needs for a row of K (its permuted or quantized copy of a).
int64_t Int4MatVecScratchBytes(const Int4Weights& w);

// y[j] = sum_k a[k] W[n0 + j, k] for the columns n0 <= n < n1 (one row a of K values), in the
// int8 arithmetic when `int8` is set, else in float; `scratch` holds
// Int4MatVecScratchBytes(w) bytes, 64-byte aligned. Single-threaded: callers split columns.
void Int4MatVec(const float* a, const Int4Weights& w, bool int8, int64_t n0, int64_t n1,
                void* scratch, float* y);

// The int8 arithmetic's quantization of one row a of K values, per block of `w`: q[i] =
// round_half_even(a[i] * 127 / max|a|) (zeros past K, up to whole blocks), scales[b] = max|a| / 127
// and sums[b] = the block's sum of q.
void QuantizeRowInt8(const float* a, const Int4Weights& w, int8_t* q, float* scales, int32_t* sums);

// The int8 arithmetic for many rows of A (a prompt): A quantized once, by QuantizeRowsInt8, then
// Int4GemmInt8 per range of columns. Per row and block, the same arithmetic as Int4MatVec's int8
// path (a's scale and int8 values, the exact int32 dot products with q - zero); their sum over
// blocks is in float in a different order. Runs where Int4GemmInt8Supported says so (targets with
// byte products, integer or no zero points); elsewhere the caller takes the float GEMM.
struct Int4QuantizedRows {
  int64_t m = 0;
  int64_t stride = 0;              // bytes per row of q: the blocks' padded K
  int64_t chunk = 0;               // elements per sum: min(block, 32)
  std::vector<int8_t> q;           // [m, stride]
  std::vector<float> scales;       // [m, stride / chunk]: the scale of the chunk's block
  std::vector<float> scaled_sums;  // [m, stride / chunk]: scale * the chunk's sum of q
  // The chunk for a block size: the longest run whose int16 sums of byte products cannot overflow.
  static int64_t ChunkFor(int64_t block) { return block < 32 ? block : 32; }
};
bool Int4GemmInt8Supported(const Int4Weights& w);
// Room for m quantized rows of A for `w`.
Int4QuantizedRows Int4QuantizedRowsFor(const Int4Weights& w, int64_t m);
// Rows [r0, r1) of `rows` from the rows of a (K values each); callers may split rows across
// threads.
void QuantizeRowsInt8(const float* a, const Int4Weights& w, int64_t r0, int64_t r1,
                      Int4QuantizedRows& rows);
// Bytes of scratch Int4GemmInt8 needs (its unpacked panel of W).
int64_t Int4GemmInt8ScratchBytes(const Int4Weights& w);
// y[r * ldy + j] = sum_k a[r, k] W[n0 + j, k] for all rows r of `a` and the columns
// n0 <= n < n1; `scratch` holds Int4GemmInt8ScratchBytes(w) bytes, 64-byte aligned.
// Single-threaded: callers split columns.
void Int4GemmInt8(const Int4QuantizedRows& a, const Int4Weights& w, int64_t n0, int64_t n1,
                  void* scratch, float* y, int64_t ldy);

// The float values of W's rows n0 <= n < n1, K each: dst[(n - n0) * K + k] = (q - zero) * scale
// (exact in float): a slice of W for a GEMM with a transposed B.
void DequantizeInt4Rows(const Int4Weights& w, int64_t n0, int64_t n1, float* dst);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_NBITS_H_
