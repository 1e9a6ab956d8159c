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
    {"", "Compress", 9, 17, &d::MakeCompress},
    {"", "Concat", 1, 17, &d::MakeConcat},
    {"", "Constant", 1, 17, &d::MakeConstant},
    {"", "ConstantOfShape", 9, 17, &d::MakeConstantOfShape},
    {"", "DepthToSpace", 1, 17, &d::MakeDepthToSpace},
    {"", "Expand", 8, 17, &d::MakeExpand},
    {"", "EyeLike", 9, 17, &d::MakeEyeLike},
    {"", "Flatten", 1, 17, &d::MakeCopy},
    {"", "Gather", 1, 17, &d::MakeGather},
    {"", "GatherElements", 11, 17, &d::MakeGatherElements},
    {"", "GatherND", 11, 17, &d::MakeGatherND},
    {"", "NonZero", 9, 17, &d::MakeNonZero},
    {"", "OneHot", 9, 17, &d::MakeOneHot},
    {"", "Pad", 1, 17, &d::MakePad},
    {"", "Range", 11, 17, &d::MakeRange},
    {"", "Reshape", 1, 17, &d::MakeCopy},
    {"", "Resize", 10, 17, &d::MakeResize},
    {"", "ReverseSequence", 10, 17, &d::MakeReverseSequence},
    {"", "Scatter", 9, 17, &d::MakeScatter},
    {"", "ScatterElements", 11, 17, &d::MakeScatterElements},
    {"", "ScatterND", 11, 17, &d::MakeScatterND},
    {"", "Shape", 1, 17, &d::MakeShape},
    {"", "Size", 1, 17, &d::MakeSize},
    {"", "Slice", 1, 17, &d::MakeSlice},
    {"", "SpaceToDepth", 1, 17, &d::MakeSpaceToDepth},
    {"", "Split", 1, 17, &d::MakeSplit},
    {"", "Squeeze", 1, 17, &d::MakeCopy},
    {"", "Tile", 1, 17, &d::MakeTile},
    {"", "Transpose", 1, 17, &d::MakeTranspose},
    {"", "Trilu", 14, 17, &d::MakeTrilu},
    {"", "Unsqueeze", 1, 17, &d::MakeCopy},
    {"", "Upsample", 1, 17, &d::MakeUpsample},
    {nullptr, nullptr, 0, 0, nullptr},
};

}  // namespace anvil::kernel_rules
