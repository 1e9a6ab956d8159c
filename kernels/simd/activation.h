// An activation applied to a convolution's results in registers, before they are stored (a
// fused epilogue: ONNX Runtime's FusedConv activations that have vector ops in
// simd/vector_math.inc). Applying it gives the bits of the activation's own kernel run on the
// stored results afterwards: the same vector op on the same values.
#ifndef ANVIL_KERNELS_SIMD_ACTIVATION_H_
#define ANVIL_KERNELS_SIMD_ACTIVATION_H_

#include <cstdint>

namespace anvil::simd {

enum class Activation : int32_t { kNone, kRelu, kLeakyRelu, kClip, kSigmoid, kTanh };

struct Epilogue {
  Activation activation = Activation::kNone;
  float alpha = 0.0f;  // LeakyRelu's slope; Clip's lower bound
  float beta = 0.0f;   // Clip's upper bound
};

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_ACTIVATION_H_
