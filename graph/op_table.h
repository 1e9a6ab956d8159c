// The op table: one row per ONNX op Anvil knows (graph/op_list.inc), with the opsets it covers
// and its traits. The shape registry (shape/shape_helper.h) and the kernel registry
// (kernels/op_kernel.h) bind their functions to these rows; passes and the runtime ask the
// traits here instead of keeping lists of op names.
//
// Traits describe the op, not one node, except where a node's attributes or inputs decide
// (Dropout is random only in training mode): ask IsRandom(node) for that.
#ifndef ANVIL_GRAPH_OP_TABLE_H_
#define ANVIL_GRAPH_OP_TABLE_H_

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "graph/ir.h"

namespace anvil {

enum OpTrait : uint32_t {
  // Output element i is a function of element i of each input (numpy broadcasting).
  kElementwise = 1u << 0,
  // The kernel may write output 0 over input 0 when both have the same size: a pure elementwise
  // map computing out = f(in0, ...) element by element (only input 0: a binary kernel may compute
  // "out = a; out op= b", which an output aliasing b would break).
  kInPlace = 1u << 1,
  // Output 0 is input 0's bytes under other dims (Reshape, Squeeze, ...).
  kAlias = 1u << 2,
  // Draws random numbers: results are not repeatable, never fold or merge.
  kRandom = 1u << 3,
  // Draws random numbers in training mode only (Dropout): see IsRandom.
  kRandomInTraining = 1u << 4,
  // Binary op whose two operands may be swapped bit-exactly (variadic Sum/Mean with two inputs).
  // Max and Min are not: runtimes differ in which NaN operand they propagate.
  kCommutative = 1u << 5,
  // Runs subgraphs (If, Loop, Scan).
  kControlFlow = 1u << 6,
  // Its kernel handles string tensors (std::string elements), as inputs or outputs; the node
  // executor refuses string inputs to any other op (Unimplemented), whose kernels move bytes.
  kStrings = 1u << 7,
  // A layout op whose outputs are its inputs' elements picked by index, nothing computed: a
  // strided view of input 0 (Transpose, Slice, Expand, Split, and the kAlias ops), a gather
  // (Gather) or a concatenation (Concat). Constprop folds these over constant inputs without
  // running the kernel (constprop/fold_deferred.h). Other ops that only move elements (Tile,
  // DepthToSpace, GatherElements, ...) are not marked: nothing reads them as views.
  kView = 1u << 8,
};

struct OpInfo {
  std::string_view domain;  // "" for ai.onnx
  std::string_view op_type;
  int since_version;
  int last_version;
  uint32_t traits;

  bool Has(OpTrait t) const { return (traits & t) != 0; }
};

// Every row, in op_list.inc's order; a row's position is its index (OpIndex).
absl::Span<const OpInfo> AllOps();
inline int OpIndex(const OpInfo& op) { return static_cast<int>(&op - AllOps().data()); }

// The row of (domain, op_type) covering `opset` ("ai.onnx" is ""), or nullptr.
const OpInfo* FindOp(std::string_view domain, std::string_view op_type, int64_t opset);
// The op at any opset (traits do not depend on it), or nullptr.
const OpInfo* FindOpAnyVersion(std::string_view domain, std::string_view op_type);

// Where a Reduce* op (default domain) at `opset` reads its axes: input 1 (ReduceSum from opset
// 13, the other nine from 18, each with noop_with_empty_axes), or -1 for the `axes` attribute.
int ReduceAxesInput(std::string_view op_type, int64_t opset);

// The first row of (domain, op_type) for a registry binding functions to the table; aborts naming
// the op when the table does not know it (a programming error the tests catch at startup).
int RowToBind(const char* domain, const char* op_type);

// Binds per-op functions to the table: `tables` are arrays of rows {domain, op_type, fn} ended by
// a row whose op_type is nullptr (a family's shape rules, or kernels). Returns one fn per AllOps()
// row, nullptr where no table binds one.
template <typename Row>
std::vector<decltype(Row::fn)> BindToOps(std::initializer_list<const Row*> tables) {
  std::vector<decltype(Row::fn)> fns(AllOps().size(), nullptr);
  for (const Row* table : tables) {
    for (const Row* row = table; row->op_type != nullptr; ++row) {
      for (int i = RowToBind(row->domain, row->op_type);
           i < static_cast<int>(fns.size()) && AllOps()[i].op_type == row->op_type; ++i) {
        fns[i] = row->fn;
      }
    }
  }
  return fns;
}

// Whether the node's op has `trait` (false for ops the table does not know).
bool HasTrait(const Node& node, OpTrait trait);
// Whether the node draws random numbers: a kRandom op, or Dropout in training mode (is_test = 0
// before opset 7, a training_mode input from opset 12).
bool IsRandom(const Node& node);

}  // namespace anvil

#endif  // ANVIL_GRAPH_OP_TABLE_H_
