// Helpers for tests of lowering and the passes on the Tensor IR (testonly): parsing a model,
// lowering it with chosen options, deterministic inputs, bit-for-bit comparison of two lowerings
// through the evaluator, and the text of weights and of a small feed-forward block.
#ifndef ANVIL_LOWER_TESTING_LOWERING_TEST_UTIL_H_
#define ANVIL_LOWER_TESTING_LOWERING_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/ir.h"
#include "kernels/tensor.h"
#include "lower/ir/module.h"
#include "lower/lowering/lower_to_tir.h"

namespace anvil::lower::testing {

// The model of ONNX text (a test failure, and null, when it does not parse).
std::unique_ptr<Model> ParseModel(const std::string& text);

struct Lowered {
  tir::Module module;
  LoweringStats stats;
};
// `model` lowered with `options` (a test failure when lowering fails).
Lowered LowerModel(const Model& model, const LoweringOptions& options);
// Every pass on, or every pass off.
LoweringOptions AllPasses(bool on);

// Deterministic values with negatives and zeros: floats (k * 37 + salt * 11) % 23 - 11 over 4
// (doubles over 3, int32 the integer), int64 (k * 7 + salt) % 5, bools every third.
Tensor TestInput(ElementType type, std::vector<int64_t> dims, int salt);

// Evaluates `model` lowered with `a` and with `b` on `inputs`: both succeed and give the same
// outputs bit for bit.
void ExpectSameBits(const Model& model, const LoweringOptions& a, const LoweringOptions& b,
                    const std::vector<Tensor>& inputs);

// ONNX text of a float weight `name` of [rows, cols] (rows 0: [cols]) with deterministic
// values in [-0.5, 0.5].
std::string WeightText(const std::string& name, int rows, int cols, int salt);

// A transformer's feed-forward half on x [B, S, 16], weights as initializers: layer norm, a
// linear layer to 32, bias, Relu, a linear layer back to 16, bias, residual.
std::string FeedForwardModelText();

}  // namespace anvil::lower::testing

#endif  // ANVIL_LOWER_TESTING_LOWERING_TEST_UTIL_H_
