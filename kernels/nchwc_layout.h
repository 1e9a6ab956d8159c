// `nchwc`: chains of depthwise and pointwise convolutions moved into the blocked channel layout
// NCHWc (kernels/simd/nchwc.h), where a vector holds one pixel of B consecutive channels, with
// reorders only at the chain's edges. This is the layout in which ONNX Runtime runs
// MobileNet-style networks; measured on MobileNetV2 (one thread), the NCHW kernels spent 23.6 ms
// in convolutions where ONNX Runtime's blocked ones spent 12.8 ms, while layer for layer in NCHW
// the two were even.
//
// Rewrites, in the main graph, in node order:
//  - Conv and com.microsoft FusedConv (activation Relu, LeakyRelu, Clip, Sigmoid, Tanh or
//    HardSigmoid; no Z) on float32 or float16 [N, C, H, W] with a constant W (and B) of its type
//    that is
//    depthwise (group = C = M, square 3x3 or 5x5 kernel, equal strides 1 or 2, no dilation,
//    explicit or VALID pads) or pointwise (1x1, stride 1, no pads, group 1) -> com.anvil.nchwc
//    Conv on the blocked input (HardSigmoid, which has no epilogue there, as its own node after),
//    when its input is already blocked or its output feeds such a convolution (directly or
//    through the element-wise ops below): a lone convolution stays, two reorders would cost more
//    than it gains.
//  - The same with group 1, no dilation and an NCHW input of fewer than B channels (a first
//    layer on RGB) whose output feeds a blocked chain or a MaxPool below (ResNet's stem) ->
//    com.anvil.nchwc Conv<planar_input = 1>, which reads the planar input and writes the blocked
//    output: the chain's first (and largest) activation is never reordered.
//  - Relu, LeakyRelu, Sigmoid, Tanh or HardSwish whose input is a blocked Conv's output that only
//    it reads -> that Conv's epilogue (`activation`; the activation kernel's vector op, so its
//    bits). Otherwise these, Clip (scalar bounds) and HardSigmoid of a blocked value -> the same
//    op on the blocked value (padded lanes hold f(0), finite, which the next convolution's zero
//    weights cancel).
//  - Add of two blocked values of the same shape (no broadcasting) -> the Sum input of the
//    pointwise Conv producing one of them (Y = act(conv + bias + sum): the Add's bits) when that
//    Conv has no activation and the Add is the only reader of its output; else Add (or Mul) on
//    the blocked values.
//  - A zero Pad of only H and W read by a depthwise or planar-input Conv: folded into that
//    Conv's pads (it reads the Pad's input; dce removes the Pad once nothing else reads it). A
//    zero Pad of only the end of the channel axis of a blocked value -> com.anvil.nchwc Pad
//    (zero channels, and padded lanes, appended). MaxPool with pads smaller than the window and
//    no dilation, ceil_mode or Indices -> com.anvil.nchwc MaxPool. (BlazeFace's blocks: channel
//    padding and pooling on the shortcut, a spatial Pad before each stride-2 depthwise layer.)
//  - Squeeze-and-excitation: GlobalAveragePool of a blocked value -> com.anvil.nchwc
//    GlobalAveragePool (blocked [N, C, 1, 1]); Mul of a blocked [N, C, H, W] by a blocked
//    [N, C, 1, 1] -> com.anvil.nchwc Mul (a per-channel scale). The generic ReduceMean and
//    broadcasting Mul over views of the blocked layout were measured 5-10x slower.
// Blocked values are float32 whatever the model's type: a float16 chain computes and keeps its
// values in float32 (the kernels widen float16 weights when they pack them) and rounds them to
// float16 where they leave it (a Cast after ReorderOutput; a Cast to float32 before ReorderInput
// or a planar-input Conv, float32 copies of float16 Clip bounds). Inside the chain that is
// fewer roundings than the model's per-op float16 (as XLA keeps fusions' intermediates in
// float32): results differ from a per-op float16 run by a few float16 ulps, and are closer to
// the float32 network's.
// A value in the blocked layout that something else reads (another op, a graph output) is
// reordered back once (com.anvil.nchwc ReorderOutput, under its original name); a value entering
// the layout is reordered once (ReorderInput) however many blocked ops read it.
//
// Option `block` (default 0: this CPU's NchwcBlock(), 8 with AVX2, 16 with AVX-512) is the
// channels per block; the kernels refuse any other, so a model rewritten here runs on CPUs of the
// same vector width (as ONNX Runtime's saved optimized models do). The model gains the
// com.anvil.nchwc opset import (version 1); the pass does nothing when it imports another version.
//
// Statistics: convs, sums, activations (fused as epilogues), elementwise (ops added on blocked
// values), folded-pads, reorders-in, reorders-out, casts (float16 edges).
#ifndef ANVIL_KERNELS_NCHWC_LAYOUT_H_
#define ANVIL_KERNELS_NCHWC_LAYOUT_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class NchwcLayoutPass : public Pass {
 public:
  std::string_view name() const override { return "nchwc"; }
  std::string_view description() const override {
    return "Runs chains of depthwise and pointwise convolutions in the blocked NCHWc layout.";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;

 private:
  PassOption<int64_t> block_{this, "block", 0,
                             "Channels per block; 0: this CPU's vector width in floats."};
};

}  // namespace anvil

#endif  // ANVIL_KERNELS_NCHWC_LAYOUT_H_
