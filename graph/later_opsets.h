// ONNX's default-domain opsets 18 to 26 (ONNX 1.13 to 1.21), which libonnx 1.12 predates: which
// ops each of them revised or introduced, and how their definitions changed. op_schema.cc builds
// an op's schema at such an opset from its last libonnx definition (opset 17) and the revisions
// listed here, or wholly from here for an op these opsets introduced. Written from ONNX's
// docs/Changelog.md of the releases; revisions that only add element types Anvil does not model
// (float8, int4, float4, int2) change nothing here but the version number. 26 is the last opset
// ONNX Runtime 1.30 loads.
#ifndef ANVIL_GRAPH_LATER_OPSETS_H_
#define ANVIL_GRAPH_LATER_OPSETS_H_

#include <cstdint>
#include <string_view>

#include "graph/op_schema_info.h"

namespace anvil {

// The last default-domain opset libonnx defines, and the last one Anvil reads.
inline constexpr int kLastLibonnxOpset = 17;
inline constexpr int kLastOnnxOpset = 26;
// ai.onnx.ml: libonnx knows versions 1 to 3; ONNX 1.15 and 1.16 added 4 and 5 (LabelEncoder-4,
// TreeEnsemble-5). Anvil runs no ml op, but reads models that import them beside opsets 20-26.
inline constexpr int kLastOnnxMlOpset = 5;

// Revises `schema`, the definition of default-domain `op_type` at opset 17 (empty when the op did
// not exist then), to its definition at `opset` (18 to 26). Returns false, leaving the schema
// alone, when no opset from 18 to `opset` revised or introduced the op.
bool ReviseToLaterOpset(std::string_view op_type, int64_t opset, OpSchemaInfo& schema);

// The opset (18 to 26) that introduced `op_type` when Anvil has no definition of it (Col2Im,
// DeformConv, ImageDecoder, ...), else 0: such ops are ONNX's, but not implemented here.
int UndefinedLaterOp(std::string_view op_type);

}  // namespace anvil

#endif  // ANVIL_GRAPH_LATER_OPSETS_H_
