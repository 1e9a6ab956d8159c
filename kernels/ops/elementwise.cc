// The element-wise kernel family's KernelRule table. The kernels are spread over
// elementwise_{binary,compare,unary,activation,cast}.cc, with shared machinery in
// elementwise_internal.h / elementwise_loop.cc and the float32 SIMD routines in
// simd/elementwise.h.
//
// One row per op, from the op's first ONNX version through opset 17; kernels read the opset
// where versions differ (legacy broadcast attributes before 7, Clip's attributes before 11,
// per-axis quantization from 13, Selu's defaults before 6).
#include "kernels/kernel_rules.h"
#include "kernels/ops/elementwise_internal.h"

namespace anvil::kernel_rules {

// Sorted by op_type (keep sorted).
const KernelRule kElementwiseKernels[] = {
    {"", "Abs", &elementwise::CreateAbs},
    {"", "Acos", &elementwise::CreateAcos},
    {"", "Acosh", &elementwise::CreateAcosh},
    {"", "Add", &elementwise::CreateAdd},
    {"", "And", &elementwise::CreateAnd},
    {"", "Asin", &elementwise::CreateAsin},
    {"", "Asinh", &elementwise::CreateAsinh},
    {"", "Atan", &elementwise::CreateAtan},
    {"", "Atanh", &elementwise::CreateAtanh},
    {"", "BitShift", &elementwise::CreateBitShift},
    {"", "Cast", &elementwise::CreateCast},
    {"", "CastLike", &elementwise::CreateCastLike},
    {"", "Ceil", &elementwise::CreateCeil},
    {"", "Celu", &elementwise::CreateCelu},
    {"", "Clip", &elementwise::CreateClip},
    {"", "Cos", &elementwise::CreateCos},
    {"", "Cosh", &elementwise::CreateCosh},
    {"", "DequantizeLinear", &elementwise::CreateDequantizeLinear},
    {"", "Div", &elementwise::CreateDiv},
    {"", "DynamicQuantizeLinear", &elementwise::CreateDynamicQuantizeLinear},
    {"", "Elu", &elementwise::CreateElu},
    {"", "Equal", &elementwise::CreateEqual},
    {"", "Erf", &elementwise::CreateErf},
    {"", "Exp", &elementwise::CreateExp},
    {"", "Floor", &elementwise::CreateFloor},
    {"", "Greater", &elementwise::CreateGreater},
    {"", "GreaterOrEqual", &elementwise::CreateGreaterOrEqual},
    {"", "HardSigmoid", &elementwise::CreateHardSigmoid},
    {"", "HardSwish", &elementwise::CreateHardSwish},
    {"", "Identity", &elementwise::CreateIdentity},
    {"", "IsInf", &elementwise::CreateIsInf},
    {"", "IsNaN", &elementwise::CreateIsNaN},
    {"", "LeakyRelu", &elementwise::CreateLeakyRelu},
    {"", "Less", &elementwise::CreateLess},
    {"", "LessOrEqual", &elementwise::CreateLessOrEqual},
    {"", "Log", &elementwise::CreateLog},
    {"", "Max", &elementwise::CreateMax},
    {"", "Mean", &elementwise::CreateMean},
    {"", "Min", &elementwise::CreateMin},
    {"", "Mod", &elementwise::CreateMod},
    {"", "Mul", &elementwise::CreateMul},
    {"", "Neg", &elementwise::CreateNeg},
    {"", "Not", &elementwise::CreateNot},
    {"", "Or", &elementwise::CreateOr},
    {"", "PRelu", &elementwise::CreatePRelu},
    {"", "Pow", &elementwise::CreatePow},
    {"", "QuantizeLinear", &elementwise::CreateQuantizeLinear},
    {"", "Reciprocal", &elementwise::CreateReciprocal},
    {"", "Relu", &elementwise::CreateRelu},
    {"", "Round", &elementwise::CreateRound},
    {"", "Selu", &elementwise::CreateSelu},
    {"", "Shrink", &elementwise::CreateShrink},
    {"", "Sigmoid", &elementwise::CreateSigmoid},
    {"", "Sign", &elementwise::CreateSign},
    {"", "Sin", &elementwise::CreateSin},
    {"", "Sinh", &elementwise::CreateSinh},
    {"", "Softplus", &elementwise::CreateSoftplus},
    {"", "Softsign", &elementwise::CreateSoftsign},
    {"", "Sqrt", &elementwise::CreateSqrt},
    {"", "Sub", &elementwise::CreateSub},
    {"", "Sum", &elementwise::CreateSum},
    {"", "Tan", &elementwise::CreateTan},
    {"", "Tanh", &elementwise::CreateTanh},
    {"", "ThresholdedRelu", &elementwise::CreateThresholdedRelu},
    {"", "Where", &elementwise::CreateWhere},
    {"", "Xor", &elementwise::CreateXor},
    // ONNX Runtime's contrib ops: what fuse-activations makes, and its quantizers' Q/DQ.
    {"com.microsoft", "DequantizeLinear", &elementwise::CreateDequantizeLinear},
    {"com.microsoft", "Gelu", &elementwise::CreateGelu},
    {"com.microsoft", "QuantizeLinear", &elementwise::CreateQuantizeLinear},
    {"com.microsoft", "QuickGelu", &elementwise::CreateQuickGelu},
    {nullptr, nullptr, nullptr},
};

}  // namespace anvil::kernel_rules
