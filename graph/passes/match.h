// What the fusion passes (fuse-activations, fuse-layernorm, fuse-attention, fuse-qdq, and the
// nchwc layout pass and the kernels' weight packing) match node patterns with - what a node is,
// which values are constants, which values a rewrite may remove - and the rewrite.
#ifndef ANVIL_GRAPH_PASSES_MATCH_H_
#define ANVIL_GRAPH_PASSES_MATCH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "graph/attribute.h"
#include "graph/ir.h"

namespace anvil::match {

// `node` is the ONNX-domain op `op_type` (false for nullptr).
bool Is(const Node* node, std::string_view op_type);

// The constant behind `v` when no run can override it (an initializer that is not also a graph
// input): what passes may rewrite from and kernels may keep their own copies of; null otherwise.
const Elements* RunConstant(const Value* v);

// `v`'s inferred type has one element in every run: rank 0, or every dim a literal 1.
bool OneElement(const Value* v);

// `v` is a tensor whose element type is known to be float, double or float16.
bool FloatTensor(const Value* v);

// The value of a one-element float, double or float16 constant: an initializer that no run can
// override, or a Constant node's `value`.
std::optional<double> Scalar(const Value* v);

// `v` is a scalar constant equal to `want` within float rounding (1/6 is stored as 0.16666667f).
bool IsScalar(const Value* v, double want);

// The rank of `v`'s tensor type, when known.
std::optional<int64_t> Rank(const Value* v);

// Two dims known to be equal: the same literal, or the same dim_param.
bool SameDim(const Dim& a, const Dim& b);

// `a` and `b` have tensor types of known and equal rank. A one-element constant of rank r
// broadcasts what it combines with to rank r: a pattern replaced by one op on x must end in a
// value of x's rank.
bool SameRank(const Value* a, const Value* b);

// `v` is read by `user` alone (once or more) and is not a graph output: a value the rewrite of a
// pattern ending at or after `user` may remove.
bool OnlyFeeds(const Value* v, const Node* user);

// Every node of `nodes` is in `graph` itself, not in a graph enclosing it: a pattern matched from
// a subgraph may reach producers in the enclosing graph through values read from outer scope,
// and only nodes of `graph` may be rewritten (or hoisted into a loop body) from there.
bool AllIn(const Graph& graph, const std::vector<Node*>& nodes);

// The com.microsoft opset import `model` has or gains (version 1), or false when it imports
// another version (whose contrib ops the rewrite's op may not mean).
bool UseContribOpset(Model& model);

// A new node `op_type` of `domain` inserted before `last`, computing `last`'s output 0 (same name
// and type, every reader moved to it) from `inputs` with `attrs`; then `last` and `dead` (the
// producers of values only the pattern read) are erased and added to `erased`. `last` and `dead`
// must be nodes of `graph` (AllIn).
Node* ReplaceWith(Graph& graph, Node* last, const std::string& op_type, const std::string& domain,
                  const std::vector<Value*>& inputs, std::vector<Attribute> attrs,
                  const std::vector<Node*>& dead, absl::flat_hash_set<const Node*>* erased);

// `v` is a tensor of float16 elements (false for nullptr).
bool IsFloat16Tensor(const Value* v);

// `v`, a float16 tensor, as float32 for a node about to read it: a float32 initializer copy
// when `v` is a run constant (RunConstant), else the output of a new Cast(to = float) inserted
// before `before`; *cast (when given) says which. The result has v's dims.
Value* WidenFloat16(Graph& graph, Value* v, Node* before, bool* cast = nullptr);

}  // namespace anvil::match

#endif  // ANVIL_GRAPH_PASSES_MATCH_H_
