// Convolutions in the blocked channel layout NCHWc (float32), with Highway, dispatched at run
// time: the kernels of a layout where a vector holds the same pixel of B consecutive channels
// (B = NchwcBlock(), the widest vector's float lanes: 8 with AVX2, 16 with AVX-512), as ONNX
// Runtime keeps MobileNet-style networks between its reorders. Measured on MobileNetV2 (Zen 3,
// one thread), ONNX Runtime's convolutions in that layout took 12.8 ms against 23.6 ms for
// Anvil's NCHW kernels, while layer by layer in NCHW (its reorders included) the two were even:
// the layout, not the arithmetic, is the difference. A depthwise layer is then one vector FMA
// per tap and pixel for B channels at once (no per-plane setup: a 7x7 plane of NCHW is mostly
// setup), and a pointwise layer a GEMM whose A operand is the pixels, read in place.
//
// Layout: a tensor of C channels and HW pixels (one image) is [ceil(C / B)][HW][B]: block b,
// pixel p, lane j holds channel b * B + j (zero past C, so padded lanes stay zero through a
// convolution without bias and contribute nothing).
//
// Results: every output accumulates its terms with fused multiply-adds starting from 0 (taps in
// (kh, kw) order, a tap in the padding adding 0 * w; input channels in order), then adds the
// bias, then the epilogue's activation: the operations of Anvil's NCHW depthwise kernels, so a
// depthwise layer gives their bits.
#ifndef ANVIL_KERNELS_SIMD_NCHWC_H_
#define ANVIL_KERNELS_SIMD_NCHWC_H_

#include <cstdint>

#include "kernels/simd/activation.h"

namespace anvil::simd {

// Channels per block: the float lanes of the widest vector this CPU runs (at least 4).
int64_t NchwcBlock();

// x [C][HW] (NCHW, one image) into out [ceil(C / B)][HW][B], lanes past C zero; and back
// (out [C][HW] from the blocked x, padded lanes dropped).
void ReorderToBlocked(const float* x, int64_t channels, int64_t pixels, float* out);
void ReorderFromBlocked(const float* x, int64_t channels, int64_t pixels, float* out);

// Depthwise weights w [C][k * k] (ONNX's [C, 1, k, k]) as [ceil(C / B)][k * k][B], and a bias
// [C] (or null: zeros) as [ceil(C / B)][B]; padded lanes zero.
void PackBlockedDepthwiseWeights(const float* w, const float* bias, int64_t channels, int64_t taps,
                                 float* packed_w, float* packed_bias);

// Depthwise convolution of square `kernel` (3 or 5) windows at `stride` (1 or 2), no dilation,
// zero padding pad_top / pad_left (pads below and right follow from out_h / out_w): x blocked
// [blocks][h * w][B], y blocked [blocks][out_h * out_w][B], weights and bias packed above
// (bias may be null). `scratch` holds BlockedDepthwiseScratchSize floats (null if that is 0).
bool BlockedDepthwiseSupports(int64_t kernel, int64_t stride);
void BlockedDepthwiseConv(const float* x, int64_t blocks, int64_t h, int64_t w, int64_t kernel,
                          int64_t stride, int64_t pad_top, int64_t pad_left, const float* packed_w,
                          const float* packed_bias, const Epilogue& epilogue, float* y,
                          int64_t out_h, int64_t out_w, float* scratch);
// 5x5 windows at stride 1 pad each side by 2: on a 14x14 plane half the outputs are edge
// pixels, which computed tap by tap made MobileNetV3's 5x5 layers 1.1-1.9x ONNX Runtime's
// time. Such a layer copies each block with its padding into scratch (one block's padded plane)
// and computes every output from the copy without bounds checks. Measured on this layout, the
// copy paid for itself from 7x7 to 64x64 planes at stride 1, and cost more than it saved at
// stride 2 and for 3x3 windows (one pixel of padding).
bool DepthwiseCopiesPadded(int64_t kernel, int64_t stride);
int64_t BlockedDepthwiseScratchSize(int64_t kernel, int64_t stride, int64_t out_h, int64_t out_w);

// Pointwise weights w [M][C] (ONNX's [M, C, 1, 1]) as [ceil(M / B)][ceil(C / B) * B][B]:
// packed[ob][c][j] = w[ob * B + j][c], zero past M or C.
void PackBlockedPointwiseWeights(const float* w, int64_t out_channels, int64_t in_channels,
                                 float* packed);
// Elements of that packing.
int64_t BlockedPointwiseWeightsSize(int64_t out_channels, int64_t in_channels);

// Pointwise (1x1, stride 1, no pad) convolution: y [out_blocks][pixels][B] = epilogue(bias +
// sum over the in_channels input channels of x * w [+ sum]), x [ceil(in_channels / B)][pixels][B]
// (its lanes past in_channels are not read), weights packed above,
// bias blocked [out_blocks][B] (or null), `sum` (or null) a blocked tensor of y's shape added
// before the activation (a residual connection, ONNX Runtime's FusedConv Z). Only the pixels
// [pixel_begin, pixel_end) (pixel_end -1: to `pixels`) are computed, each with the same bits as
// in a whole call: threads may split a layer of one or two output blocks by pixels.
void BlockedPointwiseConv(const float* x, int64_t in_channels, int64_t pixels,
                          const float* packed_w, const float* packed_bias, const float* sum,
                          const Epilogue& epilogue, float* y, int64_t out_blocks,
                          int64_t pixel_begin = 0, int64_t pixel_end = -1);

// A dense convolution (group 1, no dilation) of a planar image with few channels - a network's
// first layer, whose 3 input channels fill no block - written in the blocked layout, as ONNX
// Runtime's NCHWc transformer starts a blocked chain: no reorder of the (large) first output.
// x [channels][h][w] (NCHW, one image); weights packed [out_blocks][channels][kh][kw][B]
// (PackBlockedPlanarWeights); bias blocked [out_blocks][B] or null; zero padding pad_top /
// pad_left (the bottom and right pads follow from out_h / out_w); y blocked
// [out_blocks][out_h * out_w][B]. Each output adds its terms in (channel, kh, kw) order with
// fused multiply-adds from 0 (window rows in the padding skipped: for finite weights the bits of
// adding 0 * w), then the bias, then the epilogue. Only the output rows [row_begin, row_end)
// (row_end -1: to out_h) are computed: threads split the layer by rows, each keeping the
// multi-block tiles (up to four blocks with AVX-512's 32 registers, two with AVX2's 16).
int64_t BlockedPlanarWeightsSize(int64_t out_channels, int64_t in_channels, int64_t taps);
void PackBlockedPlanarWeights(const float* w, int64_t out_channels, int64_t in_channels,
                              int64_t taps, float* packed);
void BlockedConvFromPlanar(const float* x, int64_t channels, int64_t h, int64_t w, int64_t kernel_h,
                           int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t pad_top,
                           int64_t pad_left, const float* packed_w, const float* packed_bias,
                           const Epilogue& epilogue, float* y, int64_t out_blocks, int64_t out_h,
                           int64_t out_w, int64_t row_begin = 0, int64_t row_end = -1);

// A zero Pad at the end of the channel axis: y blocked [out_blocks][pixels][B] holds x's
// `channels` channels (x blocked [ceil(channels / B)][pixels][B]) and zeros past them (lanes of
// x's last block past `channels` included, whatever x holds there).
void BlockedPadChannels(const float* x, int64_t channels, int64_t pixels, float* y,
                        int64_t out_blocks);

// Max pooling of kernel_h x kernel_w windows at the given strides, no dilation, the windows
// starting pad_top / pad_left before the input (the bottom and right pads follow from out_h /
// out_w; padding takes no part in a max, and a window wholly in it gives -inf): x blocked
// [blocks][h * w][B] -> y blocked [blocks][out_h * out_w][B]. A NaN in a window is its max.
void BlockedMaxPool(const float* x, int64_t blocks, int64_t h, int64_t w, int64_t kernel_h,
                    int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t pad_top,
                    int64_t pad_left, float* y, int64_t out_h, int64_t out_w);

// The mean of each channel over its pixels: x blocked [blocks][pixels][B] -> y [blocks][B] (the
// sum in pixel order, divided by the count).
void BlockedGlobalAveragePool(const float* x, int64_t blocks, int64_t pixels, float* y);

// y[b][p][j] = x[b][p][j] * scale[b][j]: a per-channel scale of a blocked tensor (a
// squeeze-and-excitation block's Mul). y may be x.
void BlockedScaleChannels(const float* x, const float* scale, int64_t blocks, int64_t pixels,
                          float* y);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_NCHWC_H_
