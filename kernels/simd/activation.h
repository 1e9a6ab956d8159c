// An activation applied to a convolution's results in registers, before they are stored (a
// fused epilogue: ONNX Runtime's FusedConv activations that have vector ops in
// simd/vector_math.inc). Applying it gives the bits of the activation's own kernel run on the
// stored results afterwards: the same vector op on the same values.
#ifndef ANVIL_KERNELS_SIMD_ACTIVATION_H_
#define ANVIL_KERNELS_SIMD_ACTIVATION_H_

#include <cstdint>
#include <string_view>

#include "base/float16.h"

namespace anvil::simd {

// The activations a fused convolution names in its `activation` attribute (ONNX Runtime's
// FusedConv: Relu, Sigmoid, Tanh, LeakyRelu, Clip, HardSigmoid; Anvil's blocked Conv also
// HardSwish) and how many `activation_params` each takes; -1 for any other name. The kernels
// (ReadFusedActivation) and the nchwc pass read this one list.
inline int FusedActivationParams(std::string_view name) {
  if (name == "Relu" || name == "Sigmoid" || name == "Tanh" || name == "HardSwish") return 0;
  if (name == "LeakyRelu") return 1;
  if (name == "Clip" || name == "HardSigmoid") return 2;
  return -1;
}

enum class Activation : int32_t { kNone, kRelu, kLeakyRelu, kClip, kSigmoid, kTanh, kHardSwish };

struct Epilogue {
  Activation activation = Activation::kNone;
  float alpha = 0.0f;  // LeakyRelu's slope; Clip's lower bound
  float beta = 0.0f;   // Clip's upper bound
};

// Whether applying `e` to float32 results and then rounding them to float16 (`half`) or
// bfloat16 gives the bits of rounding first and applying it after, as a 16-bit float network's
// own activation node does: no activation, Relu, and Clip with bounds the type represents
// exactly (a monotone map onto representable values commutes with rounding to nearest).
inline bool CommutesWithRounding(const Epilogue& e, bool half) {
  const auto exact = [half](float v) {
    return half ? fp16::HalfToFloat(fp16::FloatToHalf(v)) == v
                : fp16::Bfloat16ToFloat(fp16::FloatToBfloat16(v)) == v;
  };
  switch (e.activation) {
    case Activation::kNone:
    case Activation::kRelu:
      return true;
    case Activation::kClip:
      return exact(e.alpha) && exact(e.beta);
    default:
      return false;
  }
}

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_ACTIVATION_H_
