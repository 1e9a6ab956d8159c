// The compute kernel family's table: matrix products (compute_matmul.cc), convolutions
// (compute_conv*.cc over conv_*.cc), pools (compute_pool.cc), reductions, CumSum and
// MeanVarianceNormalization (compute_reduce.cc), softmax and normalizations (compute_norm.cc),
// Einsum and Det (compute_linalg.cc), com.microsoft MultiHeadAttention (compute_attention.cc),
// ONNX Runtime's quantized com.microsoft ops (compute_quantized.cc), and its decoder LLM ops:
// MatMulNBits (compute_nbits.cc), GroupQueryAttention (compute_gqa.cc), RotaryEmbedding
// (compute_rotary.cc) and the RMS and skip norms (compute_skip_norm.cc).
// Shared helpers are in compute_util.h; GEMM and row routines in simd/.
#include "kernels/kernel_rules.h"
#include "kernels/ops/compute_util.h"

namespace anvil::kernel_rules {

namespace ops = ::anvil::compute_ops;

// Sorted by op_type; every version of each op from its first up to opset 17 (the kernels read
// the version-dependent attributes and semantics themselves).
const KernelRule kComputeKernels[] = {
    {"", "ArgMax", ops::CreateArgMinMax},
    {"", "ArgMin", ops::CreateArgMinMax},
    {"", "Attention", ops::CreateOnnxAttention},
    {"", "AveragePool", ops::CreatePool},
    {"", "BatchNormalization", ops::CreateBatchNormalization},
    {"", "Conv", ops::CreateConv},
    {"", "ConvInteger", ops::CreateConvInteger},
    {"", "ConvTranspose", ops::CreateConvTranspose},
    {"", "CumSum", ops::CreateCumSum},
    {"", "Det", ops::CreateDet},
    {"com.microsoft", "DynamicQuantizeMatMul", ops::CreateDynamicQuantizeMatMul},
    {"", "Einsum", ops::CreateEinsum},
    {"com.microsoft", "FusedConv", ops::CreateFusedConv},
    {"com.microsoft", "FusedMatMul", ops::CreateFusedMatMul},
    {"", "Gemm", ops::CreateGemm},
    {"", "GlobalAveragePool", ops::CreateGlobalPool},
    {"", "GlobalLpPool", ops::CreateGlobalPool},
    {"", "GlobalMaxPool", ops::CreateGlobalPool},
    {"", "GroupNormalization", ops::CreateGroupNormalization},
    {"com.microsoft", "GroupQueryAttention", ops::CreateGroupQueryAttention},
    {"", "Hardmax", ops::CreateSoftmax},
    {"", "InstanceNormalization", ops::CreateInstanceNormalization},
    {"", "LRN", ops::CreateLrn},
    {"", "LayerNormalization", ops::CreateLayerNormalization},
    {"", "LogSoftmax", ops::CreateSoftmax},
    {"", "LpPool", ops::CreatePool},
    {"", "MatMul", ops::CreateMatMul},
    {"", "MatMulInteger", ops::CreateMatMulInteger},
    {"com.microsoft", "MatMulIntegerToFloat", ops::CreateMatMulIntegerToFloat},
    {"com.microsoft", "MatMulNBits", ops::CreateMatMulNBits},
    {"", "MaxPool", ops::CreatePool},
    {"", "MaxUnpool", ops::CreateMaxUnpool},
    {"", "MeanVarianceNormalization", ops::CreateMeanVarianceNormalization},
    {"com.microsoft", "MultiHeadAttention", ops::CreateMultiHeadAttention},
    {"com.microsoft", "QGemm", ops::CreateQGemm},
    {"com.microsoft", "QLinearAdd", ops::CreateQLinearAdd},
    {"com.microsoft", "QLinearAveragePool", ops::CreateQLinearAveragePool},
    {"com.microsoft", "QLinearConcat", ops::CreateQLinearConcat},
    {"", "QLinearConv", ops::CreateQLinearConv},
    {"com.microsoft", "QLinearGlobalAveragePool", ops::CreateQLinearGlobalAveragePool},
    {"com.microsoft", "QLinearLeakyRelu", ops::CreateQLinearLeakyRelu},
    {"", "QLinearMatMul", ops::CreateQLinearMatMul},
    {"com.microsoft", "QLinearMul", ops::CreateQLinearMul},
    {"com.microsoft", "QLinearSigmoid", ops::CreateQLinearSigmoid},
    {"com.microsoft", "QLinearSoftmax", ops::CreateQLinearSoftmax},
    {"com.microsoft", "QLinearWhere", ops::CreateQLinearWhere},
    {"", "RMSNormalization", ops::CreateSimplifiedLayerNormalization},
    {"", "ReduceL1", ops::CreateReduce},
    {"", "ReduceL2", ops::CreateReduce},
    {"", "ReduceLogSum", ops::CreateReduce},
    {"", "ReduceLogSumExp", ops::CreateReduce},
    {"", "ReduceMax", ops::CreateReduce},
    {"", "ReduceMean", ops::CreateReduce},
    {"", "ReduceMin", ops::CreateReduce},
    {"", "ReduceProd", ops::CreateReduce},
    {"", "ReduceSum", ops::CreateReduce},
    {"", "ReduceSumSquare", ops::CreateReduce},
    {"", "RotaryEmbedding", ops::CreateRotaryEmbedding},
    {"com.microsoft", "RotaryEmbedding", ops::CreateRotaryEmbedding},
    {"", "SimplifiedLayerNormalization", ops::CreateSimplifiedLayerNormalization},
    {"com.microsoft", "SkipLayerNormalization", ops::CreateSkipLayerNormalization},
    {"com.microsoft", "SkipSimplifiedLayerNormalization",
     ops::CreateSkipSimplifiedLayerNormalization},
    {"", "Softmax", ops::CreateSoftmax},
    {nullptr, nullptr, nullptr},
};

}  // namespace anvil::kernel_rules
