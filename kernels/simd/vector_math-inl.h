// Per-target expansion of simd/vector_math.inc (ReluOp, SigmoidOp, ClipOp, ...) with D =
// ScalableTag<float> and V = Vec<D>, and ApplyEpilogue (simd/activation.h), for the per-target
// bodies of the kernels that use them (elementwise-inl.h, winograd-inl.h, depthwise-inl.h; each
// in its own translation unit).
#if defined(ANVIL_KERNELS_SIMD_VECTOR_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ANVIL_KERNELS_SIMD_VECTOR_MATH_INL_H_
#undef ANVIL_KERNELS_SIMD_VECTOR_MATH_INL_H_
#else
#define ANVIL_KERNELS_SIMD_VECTOR_MATH_INL_H_
#endif

#include <limits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "kernels/simd/activation.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

#define ANVIL_VECTOR_MATH(...) __VA_ARGS__
#include "kernels/simd/vector_math.inc"
#undef ANVIL_VECTOR_MATH

// `e`'s activation of x (x itself for kNone): the activation kernel's vector op.
HWY_INLINE V ApplyEpilogue(D d, const Epilogue& e, V x) {
  switch (e.activation) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return ReluOp()(d, x);
    case Activation::kLeakyRelu:
      return LeakyReluOp{e.alpha}(d, x);
    case Activation::kClip:
      return ClipOp{e.alpha, e.beta}(d, x);
    case Activation::kSigmoid:
      return SigmoidOp()(d, x);
    case Activation::kTanh:
      return TanhOp()(d, x);
    case Activation::kHardSwish:
      return HardSwishOp()(d, x);
  }
  return x;
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
