// Greedy token generation with a decoder LLM as ONNX Runtime's model builder writes it
// (input_ids, attention_mask, past_key_values.{i}.key / .value -> logits, present.{i}.key /
// .value): the loop `anvil-run --generate` runs, and tools/ort_generate.js runs in ONNX Runtime.
//
// The prompt is prompt_len tokens, token i = (seed * 1000003 + i * 7919) mod vocab (the rule both
// tools share); it runs once (time to first token), then generate - 1 decode steps feed the
// argmax of the last logits row back. With share_cache, one cache of prompt_len + generate
// positions per past input is bound as both that past and its present (Session::Run's bound
// outputs, ONNX Runtime's past_present_share_buffer): no step copies the cache. Otherwise each
// step's present is the next step's past (a cache that grows, copied by every step).
#ifndef ANVIL_TOOLS_GENERATE_LOOP_H_
#define ANVIL_TOOLS_GENERATE_LOOP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/session.h"

namespace anvil {

struct GenerateOptions {
  int64_t prompt_len = 16;
  int64_t generate = 16;  // tokens generated, the first by the prompt's run
  int64_t rounds = 1;     // whole generations; times are the best and the median of them
  uint32_t seed = 1;
  bool share_cache = true;
};

struct GenerateResult {
  std::vector<int64_t> tokens;  // of the first round (every round must give the same)
  double ttft_ms = 0, ttft_median_ms = 0;
  double tokens_per_s = 0, median_tokens_per_s = 0;  // decode steps (after the first token)
};

// InvalidArgument when the session's model does not have the inputs and outputs above (naming
// what is missing) or rounds disagree on the tokens.
absl::StatusOr<GenerateResult> Generate(Session& session, const GenerateOptions& options);

// The result as JSON fields (no braces): "prompt_len": .., "generated": .., "ttft_ms": ..
std::string GenerateJsonFields(const GenerateOptions& options, const GenerateResult& result);

}  // namespace anvil

#endif  // ANVIL_TOOLS_GENERATE_LOOP_H_
