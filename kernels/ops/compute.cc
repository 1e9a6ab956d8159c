// The compute kernel family's table: matrix products (compute_matmul.cc), convolutions
// (compute_conv.cc), pools (compute_pool.cc), reductions, CumSum and MeanVarianceNormalization
// (compute_reduce.cc), softmax and normalizations (compute_norm.cc), Einsum and Det
// (compute_linalg.cc). Shared helpers are in compute_util.h; GEMM and row routines in simd/.
#include "kernels/kernel_rules.h"
#include "kernels/ops/compute_util.h"

namespace anvil::kernel_rules {

namespace ops = ::anvil::compute_ops;

// Sorted by op_type; every version of each op from its first up to opset 17 (the kernels read
// the version-dependent attributes and semantics themselves).
const KernelRule kComputeKernels[] = {
    {"", "ArgMax", 1, 17, ops::CreateArgMinMax},
    {"", "ArgMin", 1, 17, ops::CreateArgMinMax},
    {"", "AveragePool", 1, 17, ops::CreatePool},
    {"", "BatchNormalization", 1, 17, ops::CreateBatchNormalization},
    {"", "Conv", 1, 17, ops::CreateConv},
    {"", "ConvInteger", 10, 17, ops::CreateConvInteger},
    {"", "ConvTranspose", 1, 17, ops::CreateConvTranspose},
    {"", "CumSum", 11, 17, ops::CreateCumSum},
    {"", "Det", 11, 17, ops::CreateDet},
    {"", "Einsum", 12, 17, ops::CreateEinsum},
    {"", "Gemm", 1, 17, ops::CreateGemm},
    {"", "GlobalAveragePool", 1, 17, ops::CreateGlobalPool},
    {"", "GlobalLpPool", 1, 17, ops::CreateGlobalPool},
    {"", "GlobalMaxPool", 1, 17, ops::CreateGlobalPool},
    {"", "Hardmax", 1, 17, ops::CreateSoftmax},
    {"", "InstanceNormalization", 1, 17, ops::CreateInstanceNormalization},
    {"", "LRN", 1, 17, ops::CreateLrn},
    {"", "LayerNormalization", 17, 17, ops::CreateLayerNormalization},
    {"", "LogSoftmax", 1, 17, ops::CreateSoftmax},
    {"", "LpPool", 1, 17, ops::CreatePool},
    {"", "MatMul", 1, 17, ops::CreateMatMul},
    {"", "MatMulInteger", 10, 17, ops::CreateMatMulInteger},
    {"", "MaxPool", 1, 17, ops::CreatePool},
    {"", "MaxUnpool", 9, 17, ops::CreateMaxUnpool},
    {"", "MeanVarianceNormalization", 9, 17, ops::CreateMeanVarianceNormalization},
    {"", "QLinearConv", 10, 17, ops::CreateQLinearConv},
    {"", "QLinearMatMul", 10, 17, ops::CreateQLinearMatMul},
    {"", "ReduceL1", 1, 17, ops::CreateReduce},
    {"", "ReduceL2", 1, 17, ops::CreateReduce},
    {"", "ReduceLogSum", 1, 17, ops::CreateReduce},
    {"", "ReduceLogSumExp", 1, 17, ops::CreateReduce},
    {"", "ReduceMax", 1, 17, ops::CreateReduce},
    {"", "ReduceMean", 1, 17, ops::CreateReduce},
    {"", "ReduceMin", 1, 17, ops::CreateReduce},
    {"", "ReduceProd", 1, 17, ops::CreateReduce},
    {"", "ReduceSum", 1, 17, ops::CreateReduce},
    {"", "ReduceSumSquare", 1, 17, ops::CreateReduce},
    {"", "Softmax", 1, 17, ops::CreateSoftmax},
    {nullptr, nullptr, 0, 0, nullptr},
};

}  // namespace anvil::kernel_rules
