// The vector part of the C++ emitter (emit_cc.h): loops marked `vectorize` whose body is f32
// arithmetic over unit-stride loads and stores (or float16: widened to float lanes at the load,
// rounded as the scalar code rounds, copied as bits when moved unchanged) become Highway vector
// loops (whole vectors, then
// the scalar loop for the tail), and loops that only accumulate a sum, max or min into an f32
// local become vector partial results and one lane reduction. Their math is the kernels'
// (kernels/simd/vector_math.inc, in vector_prelude.inc), so a vector loop gives the interpreter's
// bits; each IR kind's Highway op is named from the kinds lists (node_kinds.inc,
// intrinsics.inc). A loop with anything else stays scalar (ScalarEmitter).
//
// Private to lower/emit.
#ifndef ANVIL_LOWER_EMIT_VECTOR_EMITTER_H_
#define ANVIL_LOWER_EMIT_VECTOR_EMITTER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "lower/emit/scalar_emitter.h"

namespace anvil::lower {

class VectorEmitter : public ScalarEmitter {
 public:
  using ScalarEmitter::ScalarEmitter;

  // Whether some loop became vector code (the unit then includes Highway and kCcVectorPrelude).
  bool uses_highway() const { return uses_highway_; }

 protected:
  bool EmitVectorLoop(const tir::ForNode& n, const tir::Stmt& s, const std::string& v,
                      const std::string& begin) override;

 private:
  // The body of the vector loop over `n`'s variable, or nullopt when some statement or
  // expression has no vector form here (the loop then stays scalar).
  std::optional<std::string> VectorBody(const tir::ForNode& n);
  // Runs `emit` (VectorStmt calls) with the vector state of loop `n` set up, then clears it;
  // false, with no hoisted invariants left, when `emit` is.
  bool InVectorLoop(const tir::ForNode& n, const std::function<bool()>& emit);
  // Loop fission of a vector loop whose body first computes a local and then feeds it to an
  // exp, erf, tanh or log: the statement index the second part starts at, or 0 (see
  // EmitVectorLoop). `row_trips` gets the loop's constant trip count.
  size_t FissionPoint(const tir::ForNode& n, int64_t* row_trips);
  // The two parts' vector bodies: the first ends by storing the local into `row` (at the
  // iteration's offset from `start`), the second begins by loading it; nullopt when either part
  // has no vector form.
  std::optional<std::pair<std::string, std::string>> SplitVectorBody(const tir::ForNode& n,
                                                                     size_t split,
                                                                     const std::string& row,
                                                                     const std::string& start);
  // Prefetches of what the loads of vector loop `n` (statement `s`) will read on the next trip
  // of the loop around it, when `n` is that loop's last pass over its data.
  std::vector<std::string> NextTripPrefetches(const tir::ForNode& n, const tir::Stmt& s);
  // A loop whose body is `acc = acc + e` (or max / min) over an f32 accumulator defined outside
  // it: the vector accumulation and lane reduction, or nullopt.
  std::optional<std::string> VectorReduction(const tir::ForNode& n);
  bool VectorStmt(const tir::Stmt& s, std::string* out);
  // A vector (f32 lanes) or mask expression; nullopt when not vectorizable.
  std::optional<std::string> VE(const tir::Expr& e);
  // VE of a binary operator (after the loop-invariant case).
  std::optional<std::string> VectorBinary(const tir::BinaryNode& b);
  // VE of an intrinsic call.
  std::optional<std::string> VectorIntrinsic(const tir::IntrinsicNode& n);
  // Whether `e` is the same in every iteration of the vector loop.
  bool Invariant(const tir::Expr& e);
  // Whether an access (a load's or store's indices) touches consecutive elements as the vector
  // loop's variable steps (the variable is its last index, the other indices are invariant).
  bool UnitStride(const std::vector<tir::Expr>& indices);

  const tir::ExprNode* vector_var_ = nullptr;                // the loop variable being vectorized
  absl::flat_hash_set<const tir::ExprNode*> vector_locals_;  // f32 vars defined in the body
  absl::flat_hash_set<const tir::ExprNode*> stored_;         // tensors the body stores to
  // Loop-invariant loads of the vector body, as declarations to put before the vector loop: the
  // loop's stores (which may alias anything) would otherwise force a reload every iteration.
  std::vector<std::string> hoisted_;
  bool uses_highway_ = false;
};

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_EMIT_VECTOR_EMITTER_H_
