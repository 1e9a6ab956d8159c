#include "tools/generate_loop.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/tensor.h"

namespace anvil {
namespace {

constexpr char kPastPrefix[] = "past_key_values.";
constexpr char kPresentPrefix[] = "present.";

struct CacheInput {
  std::string past, present;
  int64_t kv_heads = 0, head = 0;
};

struct Layout {
  std::vector<CacheInput> caches;
  int64_t vocab = 0;
};

absl::StatusOr<int64_t> LiteralDim(const Value& v, int i) {
  const Type& t = v.type();
  if (!t.is_tensor() || !t.has_shape() || t.rank() <= i || !t.shape()[i].is_literal()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--generate: ", v.name(), " ", t.ToString(), " needs a literal dim ", i));
  }
  return *t.shape()[i].value;
}

absl::StatusOr<Layout> ReadLayout(const Session& session) {
  Layout layout;
  bool ids = false, mask = false;
  for (const Value* in : session.inputs()) {
    if (in->name() == "input_ids") ids = true;
    if (in->name() == "attention_mask") mask = true;
    if (!absl::StartsWith(in->name(), kPastPrefix)) continue;
    CacheInput c;
    c.past = in->name();
    c.present = absl::StrCat(kPresentPrefix, in->name().substr(sizeof(kPastPrefix) - 1));
    ANVIL_ASSIGN_OR_RETURN(c.kv_heads, LiteralDim(*in, 1));
    ANVIL_ASSIGN_OR_RETURN(c.head, LiteralDim(*in, 3));
    bool has_present = false;
    for (const Value* out : session.outputs()) has_present |= out->name() == c.present;
    if (!has_present) {
      return absl::InvalidArgumentError(
          absl::StrCat("--generate: input ", c.past, " has no output ", c.present));
    }
    layout.caches.push_back(std::move(c));
  }
  const Value* logits = nullptr;
  for (const Value* out : session.outputs()) {
    if (out->name() == "logits") logits = out;
  }
  if (!ids || !mask || logits == nullptr || layout.caches.empty()) {
    return absl::InvalidArgumentError(
        "--generate needs a decoder with inputs input_ids, attention_mask and past_key_values.* "
        "and outputs logits and present.* (ONNX Runtime's model builder's names)");
  }
  ANVIL_ASSIGN_OR_RETURN(layout.vocab, LiteralDim(*logits, 2));
  return layout;
}

Tensor Int64s(const std::vector<int64_t>& values) {
  Tensor t(ElementType::kInt64, {1, static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.As<int64_t>());
  return t;
}

int64_t ArgmaxLastRow(const Tensor& logits, int64_t vocab) {
  const float* row = logits.As<float>() + logits.NumElements() - vocab;
  return std::max_element(row, row + vocab) - row;
}

struct Round {
  std::vector<int64_t> tokens;
  double ttft_ms = 0;
  double decode_ms = 0;
};

absl::StatusOr<Round> GenerateOnce(Session& session, const Layout& layout,
                                   const GenerateOptions& options) {
  const int64_t capacity = options.prompt_len + options.generate;
  absl::flat_hash_map<std::string, Tensor> inputs, bound;
  for (const CacheInput& c : layout.caches) {
    const int64_t length = options.share_cache ? capacity : 0;
    ANVIL_ASSIGN_OR_RETURN(
        Tensor cache,
        Tensor::Allocate(ElementType::kFloat, {1, c.kv_heads, length, c.head}, kNoAllocationLimit));
    inputs[c.past] = cache;
    if (options.share_cache) bound[c.present] = cache;
  }
  std::vector<int64_t> ids(static_cast<size_t>(options.prompt_len));
  for (int64_t i = 0; i < options.prompt_len; ++i) {
    ids[i] = (int64_t{options.seed} * 1000003 + i * 7919) % layout.vocab;
  }
  // Outputs by name, in the session's order.
  absl::flat_hash_map<std::string, int> output_index;
  for (size_t i = 0; i < session.outputs().size(); ++i) {
    output_index[session.outputs()[i]->name()] = static_cast<int>(i);
  }
  Round round;
  int64_t total = 0;
  for (int64_t step = 0; step < options.generate; ++step) {
    total += static_cast<int64_t>(ids.size());
    inputs["input_ids"] = Int64s(ids);
    inputs["attention_mask"] = Int64s(std::vector<int64_t>(static_cast<size_t>(total), 1));
    const auto start = std::chrono::steady_clock::now();
    ANVIL_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, session.Run(inputs, bound));
    const int64_t token = ArgmaxLastRow(outputs[output_index["logits"]], layout.vocab);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    (step == 0 ? round.ttft_ms : round.decode_ms) += ms;
    round.tokens.push_back(token);
    if (!options.share_cache) {
      for (const CacheInput& c : layout.caches) inputs[c.past] = outputs[output_index[c.present]];
    }
    ids.assign(1, token);
  }
  return round;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

absl::StatusOr<GenerateResult> Generate(Session& session, const GenerateOptions& options) {
  if (options.prompt_len < 1 || options.generate < 1 || options.rounds < 1) {
    return absl::InvalidArgumentError("--generate, --prompt-len and --rounds must be >= 1");
  }
  ANVIL_ASSIGN_OR_RETURN(const Layout layout, ReadLayout(session));
  GenerateResult result;
  std::vector<double> ttfts, rates;
  for (int64_t r = 0; r < options.rounds; ++r) {
    ANVIL_ASSIGN_OR_RETURN(Round round, GenerateOnce(session, layout, options));
    if (r == 0) {
      result.tokens = round.tokens;
    } else if (round.tokens != result.tokens) {
      return absl::InternalError(absl::StrCat("round ", r, " generated [",
                                              absl::StrJoin(round.tokens, ","), "], round 0 [",
                                              absl::StrJoin(result.tokens, ","), "]"));
    }
    ttfts.push_back(round.ttft_ms);
    rates.push_back(round.decode_ms > 0 ? (options.generate - 1) / (round.decode_ms / 1000.0) : 0);
  }
  result.ttft_ms = *std::min_element(ttfts.begin(), ttfts.end());
  result.ttft_median_ms = Median(ttfts);
  result.tokens_per_s = *std::max_element(rates.begin(), rates.end());
  result.median_tokens_per_s = Median(rates);
  return result;
}

std::string GenerateJsonFields(const GenerateOptions& options, const GenerateResult& result) {
  return absl::StrFormat(
      "\"mode\": \"%s\", \"prompt_len\": %d, \"generated\": %d, \"ttft_ms\": %.3f, "
      "\"ttft_median_ms\": %.3f, \"decode_tokens_per_s\": %.2f, "
      "\"decode_median_tokens_per_s\": %.2f, \"tokens\": [%s]",
      options.share_cache ? "shared" : "grow", options.prompt_len, options.generate, result.ttft_ms,
      result.ttft_median_ms, result.tokens_per_s, result.median_tokens_per_s,
      absl::StrJoin(result.tokens, ","));
}

}  // namespace anvil
