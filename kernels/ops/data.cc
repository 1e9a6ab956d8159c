// The data-movement family's kernel table. Kernels live in data_layout.cc (reshape-like copies,
// Transpose, Concat, Split, Slice, Tile, Expand, DepthToSpace, SpaceToDepth, Pad,
// ReverseSequence), data_index.cc (Gather*, Scatter*, Compress, OneHot, NonZero),
// data_create.cc (Shape, Size, Range, Constant*, EyeLike, Trilu) and data_resize.cc (Resize,
// Upsample); the copy engine they share is data_util.cc.
#include "kernels/kernel_rules.h"
#include "kernels/ops/data_internal.h"

namespace anvil::data_ops {
namespace {

// Scatter (9, deprecated from 11) is ScatterElements without a reduction.
absl::StatusOr<std::unique_ptr<OpKernel>> MakeScatter(const Node& node, int64_t) {
  return MakeScatterElements(node, 11);
}

}  // namespace
}  // namespace anvil::data_ops

namespace anvil::kernel_rules {

namespace d = data_ops;

// Sorted by op_type. One row per op: each factory reads the opset and handles every version
// (attributes that became inputs, new attributes). Deprecated ops (Scatter from 11, Upsample
// from 10) keep their last semantics, as their ShapeHelpers do.
const KernelRule kDataKernels[] = {
    {"", "Compress", &d::MakeCompress},
    {"", "Concat", &d::MakeConcat},
    {"", "Constant", &d::MakeConstant},
    {"", "ConstantOfShape", &d::MakeConstantOfShape},
    {"", "DepthToSpace", &d::MakeDepthToSpace},
    {"", "Expand", &d::MakeExpand},
    {"", "EyeLike", &d::MakeEyeLike},
    {"", "Flatten", &d::MakeCopy},
    {"", "Gather", &d::MakeGather},
    {"", "GatherElements", &d::MakeGatherElements},
    {"", "GatherND", &d::MakeGatherND},
    {"", "NonZero", &d::MakeNonZero},
    {"", "OneHot", &d::MakeOneHot},
    {"", "Pad", &d::MakePad},
    {"", "Range", &d::MakeRange},
    {"", "Reshape", &d::MakeCopy},
    {"", "Resize", &d::MakeResize},
    {"", "ReverseSequence", &d::MakeReverseSequence},
    {"", "Scatter", &d::MakeScatter},
    {"", "ScatterElements", &d::MakeScatterElements},
    {"", "ScatterND", &d::MakeScatterND},
    {"", "Shape", &d::MakeShape},
    {"", "Size", &d::MakeSize},
    {"", "Slice", &d::MakeSlice},
    {"", "SpaceToDepth", &d::MakeSpaceToDepth},
    {"", "Split", &d::MakeSplit},
    {"", "Squeeze", &d::MakeCopy},
    {"", "TensorScatter", &d::MakeTensorScatter},
    {"", "Tile", &d::MakeTile},
    {"", "Transpose", &d::MakeTranspose},
    {"", "Trilu", &d::MakeTrilu},
    {"", "Unsqueeze", &d::MakeCopy},
    {"", "Upsample", &d::MakeUpsample},
    {nullptr, nullptr, nullptr},
};

}  // namespace anvil::kernel_rules
