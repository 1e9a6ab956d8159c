// The IR-independent part of passes, shared by the graph's passes (pass.h) and
// the Tensor IR's (lower/passes/tir_pass.h): typed options settable from
// pipeline text, the per-run PassContext (statistics, remarks, log), and
// PassBase (name, description, options).
//
// Options are `PassOption<T>` members of a pass, T in {int64_t, bool, double,
// std::string}, declared with name, default and help:
//
//     PassOption<int64_t> max_expansion_{this, "max-expansion", 4,
//                                        "Largest growth allowed."};
//
// and read typed with `*max_expansion_`. Options are set from text by
// SetOption() before the pass runs and are constant while it runs.
#ifndef ANVIL_GRAPH_PASS_OPTIONS_H_
#define ANVIL_GRAPH_PASS_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace anvil {

// Per-run state handed to a pass's Run (graph or Tensor IR): statistics and an optional debug log.
// The manager creates a fresh context for every pass execution, so statistics are per pass run.
class PassContext {
 public:
  PassContext() = default;
  explicit PassContext(std::ostream* log) : log_(log) {}

  // Adds `delta` to the statistic `name` (kebab-case, e.g. "nodes-erased") of
  // this pass run.
  void AddStatistic(std::string_view name, int64_t delta);
  // Statistics in the order they were first added.
  const std::vector<std::pair<std::string, int64_t>>& statistics() const { return statistics_; }
  // The value of one statistic, 0 when never added.
  int64_t GetStatistic(std::string_view name) const;

  // A one-line note for the user about something the pass chose not to do
  // (e.g. "node 'e' (Einsum): kept: MatMul does not accept int8 at opset 17");
  // the statistics report lists them under the pass.
  void AddRemark(std::string remark) { remarks_.push_back(std::move(remark)); }
  const std::vector<std::string>& remarks() const { return remarks_; }

  // Where a pass may write human-readable debug output; nullptr when nobody
  // listens.
  std::ostream* log() const { return log_; }

 private:
  std::vector<std::pair<std::string, int64_t>> statistics_;
  std::vector<std::string> remarks_;
  std::ostream* log_ = nullptr;
};

enum class PassOptionType { kInt64, kBool, kDouble, kString };

// "int64", "bool", "double", "string".
std::string_view PassOptionTypeName(PassOptionType type);

// Type-erased view of one declared option; PassOption<T> implements it.
class PassOptionBase {
 public:
  PassOptionBase(const PassOptionBase&) = delete;
  PassOptionBase& operator=(const PassOptionBase&) = delete;
  virtual ~PassOptionBase() = default;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  virtual PassOptionType type() const = 0;

  // Parses and stores `text`; InvalidArgument (naming the expected type) when
  // it does not parse.
  virtual absl::Status SetFromText(std::string_view text) = 0;
  // Canonical text of the current / default value: SetFromText(ValueText()) is
  // the identity.
  virtual std::string ValueText() const = 0;
  virtual std::string DefaultText() const = 0;
  virtual bool IsDefault() const = 0;
  virtual void ResetToDefault() = 0;

 protected:
  PassOptionBase(std::string name, std::string help)
      : name_(std::move(name)), help_(std::move(help)) {}

 private:
  std::string name_;
  std::string help_;
};

class PassBase;

namespace pass_internal {
// Text parsing / printing of option values, shared by all PassOption<T>.
absl::Status ParseOptionValue(std::string_view text, int64_t* out);
absl::Status ParseOptionValue(std::string_view text, bool* out);
absl::Status ParseOptionValue(std::string_view text, double* out);
absl::Status ParseOptionValue(std::string_view text, std::string* out);
std::string OptionValueText(int64_t v);
std::string OptionValueText(bool v);
std::string OptionValueText(double v);
std::string OptionValueText(const std::string& v);
void RegisterOption(PassBase* pass, PassOptionBase* option);
// InvalidArgument "expected at least MINIMUM, got 'TEXT'".
absl::Status BelowMinimum(std::string_view text, std::string_view minimum);
// `text` as a pipeline option value: verbatim when it is a bare word, else in
// double quotes with `"` and `\` backslash-escaped (the pipeline parser undoes
// this).
std::string QuoteOptionValueIfNeeded(std::string_view text);
// True when `value` reads back from the pipeline syntax (pipeline_text.h, which defines this) as
// exactly this bare, unquoted value.
bool IsBarePipelineValue(std::string_view value);

template <typename T>
struct OptionTypeOf;
template <>
struct OptionTypeOf<int64_t> {
  static constexpr PassOptionType kType = PassOptionType::kInt64;
};
template <>
struct OptionTypeOf<bool> {
  static constexpr PassOptionType kType = PassOptionType::kBool;
};
template <>
struct OptionTypeOf<double> {
  static constexpr PassOptionType kType = PassOptionType::kDouble;
};
template <>
struct OptionTypeOf<std::string> {
  static constexpr PassOptionType kType = PassOptionType::kString;
};
}  // namespace pass_internal

// A typed option, declared as a member of the pass that owns it (see the file
// comment).
template <typename T>
class PassOption final : public PassOptionBase {
 public:
  PassOption(PassBase* owner, std::string name, T default_value, std::string help)
      : PassOptionBase(std::move(name), std::move(help)),
        default_(default_value),
        value_(std::move(default_value)) {
    pass_internal::RegisterOption(owner, this);
  }
  // A numeric option whose values below `minimum` are refused when set from text.
  PassOption(PassBase* owner, std::string name, T default_value, std::string help,
             T minimum) requires(std::is_same_v<T, int64_t> || std::is_same_v<T, double>)
      : PassOption(owner, std::move(name), std::move(default_value), std::move(help)) {
    minimum_ = minimum;
  }

  const T& value() const { return value_; }
  const T& operator*() const { return value_; }
  const T* operator->() const { return &value_; }
  void set_value(T v) { value_ = std::move(v); }
  const T& default_value() const { return default_; }

  PassOptionType type() const override { return pass_internal::OptionTypeOf<T>::kType; }
  absl::Status SetFromText(std::string_view text) override {
    T parsed{};
    absl::Status status = pass_internal::ParseOptionValue(text, &parsed);
    if (status.ok() && minimum_.has_value() && parsed < *minimum_) {
      status = pass_internal::BelowMinimum(text, pass_internal::OptionValueText(*minimum_));
    }
    if (status.ok()) value_ = std::move(parsed);
    return status;
  }
  std::string ValueText() const override { return pass_internal::OptionValueText(value_); }
  std::string DefaultText() const override { return pass_internal::OptionValueText(default_); }
  // Doubles compare by canonical text so that -0.0 vs 0.0 and NaN behave
  // predictably.
  bool IsDefault() const override { return ValueText() == DefaultText(); }
  void ResetToDefault() override { value_ = default_; }

 private:
  T default_;
  T value_;
  std::optional<T> minimum_;
};
// What every pass has, whatever IR it rewrites: a stable kebab-case name, a
// description, and typed options settable from text. The graph's Pass
// (pass.h) and the Tensor IR's tir::Pass (lower/passes/tir_pass.h) derive
// from it. Passes are neither copyable nor movable (options register their
// own address with the pass).
class PassBase {
 public:
  PassBase() = default;
  PassBase(const PassBase&) = delete;
  PassBase& operator=(const PassBase&) = delete;
  virtual ~PassBase() = default;

  // Stable kebab-case identifier used in pipelines and reports, e.g.
  // "topo-sort".
  virtual std::string_view name() const = 0;
  // One line for pass listings and help output.
  virtual std::string_view description() const = 0;

  // ---- Options ----
  // Declared options in declaration order.
  const std::vector<PassOptionBase*>& options() const { return options_; }
  PassOptionBase* FindOption(std::string_view key) const;
  // Sets option `key` from text. InvalidArgument naming the pass when the key
  // is unknown (the message lists the declared options) or the value does not
  // parse as the option's type.
  absl::Status SetOption(std::string_view key, std::string_view value_text);
  // "key=value" of the options that differ from their defaults, in
  // declaration order, joined by ","; "" when all are default. String values
  // are quoted when the pipeline syntax needs it.
  std::string OptionsToString() const;
  // `name` or `name{options}` (OptionsToString), as a pipeline spells the pass.
  std::string ToPipelineText() const;
  // One line per option: "  name (type, default D): help".
  std::string DescribeOptions() const;

 private:
  friend void pass_internal::RegisterOption(PassBase* pass, PassOptionBase* option);
  std::vector<PassOptionBase*> options_;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASS_OPTIONS_H_
