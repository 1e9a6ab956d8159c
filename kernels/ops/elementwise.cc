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
    {"", "Abs", 1, 17, &elementwise::CreateAbs},
    {"", "Acos", 7, 17, &elementwise::CreateAcos},
    {"", "Acosh", 9, 17, &elementwise::CreateAcosh},
    {"", "Add", 1, 17, &elementwise::CreateAdd},
    {"", "And", 1, 17, &elementwise::CreateAnd},
    {"", "Asin", 7, 17, &elementwise::CreateAsin},
    {"", "Asinh", 9, 17, &elementwise::CreateAsinh},
    {"", "Atan", 7, 17, &elementwise::CreateAtan},
    {"", "Atanh", 9, 17, &elementwise::CreateAtanh},
    {"", "BitShift", 11, 17, &elementwise::CreateBitShift},
    {"", "Cast", 1, 17, &elementwise::CreateCast},
    {"", "CastLike", 15, 17, &elementwise::CreateCastLike},
    {"", "Ceil", 1, 17, &elementwise::CreateCeil},
    {"", "Celu", 12, 17, &elementwise::CreateCelu},
    {"", "Clip", 1, 17, &elementwise::CreateClip},
    {"", "Cos", 7, 17, &elementwise::CreateCos},
    {"", "Cosh", 9, 17, &elementwise::CreateCosh},
    {"", "DequantizeLinear", 10, 17, &elementwise::CreateDequantizeLinear},
    {"", "Div", 1, 17, &elementwise::CreateDiv},
    {"", "DynamicQuantizeLinear", 11, 17, &elementwise::CreateDynamicQuantizeLinear},
    {"", "Elu", 1, 17, &elementwise::CreateElu},
    {"", "Equal", 1, 17, &elementwise::CreateEqual},
    {"", "Erf", 9, 17, &elementwise::CreateErf},
    {"", "Exp", 1, 17, &elementwise::CreateExp},
    {"", "Floor", 1, 17, &elementwise::CreateFloor},
    {"", "Greater", 1, 17, &elementwise::CreateGreater},
    {"", "GreaterOrEqual", 12, 17, &elementwise::CreateGreaterOrEqual},
    {"", "HardSigmoid", 1, 17, &elementwise::CreateHardSigmoid},
    {"", "HardSwish", 14, 17, &elementwise::CreateHardSwish},
    {"", "Identity", 1, 17, &elementwise::CreateIdentity},
    {"", "IsInf", 10, 17, &elementwise::CreateIsInf},
    {"", "IsNaN", 9, 17, &elementwise::CreateIsNaN},
    {"", "LeakyRelu", 1, 17, &elementwise::CreateLeakyRelu},
    {"", "Less", 1, 17, &elementwise::CreateLess},
    {"", "LessOrEqual", 12, 17, &elementwise::CreateLessOrEqual},
    {"", "Log", 1, 17, &elementwise::CreateLog},
    {"", "Max", 1, 17, &elementwise::CreateMax},
    {"", "Mean", 1, 17, &elementwise::CreateMean},
    {"", "Min", 1, 17, &elementwise::CreateMin},
    {"", "Mod", 10, 17, &elementwise::CreateMod},
    {"", "Mul", 1, 17, &elementwise::CreateMul},
    {"", "Neg", 1, 17, &elementwise::CreateNeg},
    {"", "Not", 1, 17, &elementwise::CreateNot},
    {"", "Or", 1, 17, &elementwise::CreateOr},
    {"", "PRelu", 1, 17, &elementwise::CreatePRelu},
    {"", "Pow", 1, 17, &elementwise::CreatePow},
    {"", "QuantizeLinear", 10, 17, &elementwise::CreateQuantizeLinear},
    {"", "Reciprocal", 1, 17, &elementwise::CreateReciprocal},
    {"", "Relu", 1, 17, &elementwise::CreateRelu},
    {"", "Round", 11, 17, &elementwise::CreateRound},
    {"", "Selu", 1, 17, &elementwise::CreateSelu},
    {"", "Shrink", 9, 17, &elementwise::CreateShrink},
    {"", "Sigmoid", 1, 17, &elementwise::CreateSigmoid},
    {"", "Sign", 9, 17, &elementwise::CreateSign},
    {"", "Sin", 7, 17, &elementwise::CreateSin},
    {"", "Sinh", 9, 17, &elementwise::CreateSinh},
    {"", "Softplus", 1, 17, &elementwise::CreateSoftplus},
    {"", "Softsign", 1, 17, &elementwise::CreateSoftsign},
    {"", "Sqrt", 1, 17, &elementwise::CreateSqrt},
    {"", "Sub", 1, 17, &elementwise::CreateSub},
    {"", "Sum", 1, 17, &elementwise::CreateSum},
    {"", "Tan", 7, 17, &elementwise::CreateTan},
    {"", "Tanh", 1, 17, &elementwise::CreateTanh},
    {"", "ThresholdedRelu", 10, 17, &elementwise::CreateThresholdedRelu},
    {"", "Where", 9, 17, &elementwise::CreateWhere},
    {"", "Xor", 1, 17, &elementwise::CreateXor},
    {nullptr, nullptr, 0, 0, nullptr},
};

}  // namespace anvil::kernel_rules
