#include "graph/pass_options.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/excerpt.h"

namespace anvil {
namespace {

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

}  // namespace

void PassContext::AddStatistic(std::string_view name, int64_t delta) {
  for (auto& [key, value] : statistics_) {
    if (key == name) {
      value += delta;
      return;
    }
  }
  statistics_.emplace_back(std::string(name), delta);
}

int64_t PassContext::GetStatistic(std::string_view name) const {
  for (const auto& [key, value] : statistics_) {
    if (key == name) return value;
  }
  return 0;
}

std::string_view PassOptionTypeName(PassOptionType type) {
  switch (type) {
    case PassOptionType::kInt64:
      return "int64";
    case PassOptionType::kBool:
      return "bool";
    case PassOptionType::kDouble:
      return "double";
    case PassOptionType::kString:
      return "string";
  }
  return "?";
}

namespace pass_internal {

absl::Status ParseOptionValue(std::string_view text, int64_t* out) {
  if (!absl::SimpleAtoi(AsAbsl(text), out)) {
    return absl::InvalidArgumentError(absl::StrCat("expected an int64, got '", Excerpt(text), "'"));
  }
  return absl::OkStatus();
}

absl::Status ParseOptionValue(std::string_view text, bool* out) {
  // Only the spellings OptionValueText prints (and 0/1) so that pipelines stay
  // canonical-ish.
  if (text == "true" || text == "1") {
    *out = true;
  } else if (text == "false" || text == "0") {
    *out = false;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a bool (true/false), got '", Excerpt(text), "'"));
  }
  return absl::OkStatus();
}

absl::Status ParseOptionValue(std::string_view text, double* out) {
  // nan and inf parse as doubles but mean nothing as limits or weights of a pass.
  if (!absl::SimpleAtod(AsAbsl(text), out) || !std::isfinite(*out)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a finite double, got '", Excerpt(text), "'"));
  }
  return absl::OkStatus();
}

absl::Status ParseOptionValue(std::string_view text, std::string* out) {
  *out = std::string(text);
  return absl::OkStatus();
}

std::string OptionValueText(int64_t v) { return absl::StrCat(v); }
std::string OptionValueText(bool v) { return v ? "true" : "false"; }
std::string OptionValueText(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // The shortest %g spelling that reads back to the same double, so that
  // printing a parsed pipeline reproduces "0.1" rather than
  // "0.10000000000000001".
  for (int precision = 1; precision < 17; ++precision) {
    std::string text = absl::StrFormat("%.*g", precision, v);
    if (std::strtod(text.c_str(), nullptr) == v) return text;
  }
  return absl::StrFormat("%.17g", v);
}
std::string OptionValueText(const std::string& v) { return v; }

void RegisterOption(PassBase* pass, PassOptionBase* option) { pass->options_.push_back(option); }

absl::Status BelowMinimum(std::string_view text, std::string_view minimum) {
  return absl::InvalidArgumentError(
      absl::StrCat("expected at least ", AsAbsl(minimum), ", got '", Excerpt(text), "'"));
}

std::string QuoteOptionValueIfNeeded(std::string_view text) {
  return IsBarePipelineValue(text) ? std::string(text) : Quote(text);
}

}  // namespace pass_internal

PassOptionBase* PassBase::FindOption(std::string_view key) const {
  for (PassOptionBase* option : options_) {
    if (option->name() == key) return option;
  }
  return nullptr;
}

absl::Status PassBase::SetOption(std::string_view key, std::string_view value_text) {
  PassOptionBase* option = FindOption(key);
  if (option == nullptr) {
    if (options_.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("pass '", AsAbsl(name()), "' has no option '",
                                                     Excerpt(key), "'; it takes no options"));
    }
    std::string options;
    for (const PassOptionBase* o : options_) {
      absl::StrAppend(&options, options.empty() ? "" : ", ", o->name(), " (",
                      AsAbsl(PassOptionTypeName(o->type())), ", default ", o->DefaultText(), ")");
    }
    return absl::InvalidArgumentError(absl::StrCat("pass '", AsAbsl(name()), "' has no option '",
                                                   Excerpt(key), "'; its options are: ", options));
  }
  absl::Status status = option->SetFromText(value_text);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("pass '", AsAbsl(name()), "' option '", AsAbsl(key), "' (",
                     AsAbsl(PassOptionTypeName(option->type())), "): ", status.message()));
  }
  return absl::OkStatus();
}

std::string PassBase::OptionsToString() const {
  std::vector<std::string> parts;
  for (const PassOptionBase* option : options_) {
    if (option->IsDefault()) continue;
    std::string text = option->ValueText();
    if (option->type() == PassOptionType::kString) {
      text = pass_internal::QuoteOptionValueIfNeeded(text);
    }
    parts.push_back(absl::StrCat(option->name(), "=", text));
  }
  return absl::StrJoin(parts, ",");
}

std::string PassBase::ToPipelineText() const {
  std::string options = OptionsToString();
  if (options.empty()) return std::string(name());
  return absl::StrCat(AsAbsl(name()), "{", options, "}");
}

std::string PassBase::DescribeOptions() const {
  std::string out;
  for (const PassOptionBase* option : options_) {
    std::string default_text = option->DefaultText();
    if (option->type() == PassOptionType::kString) {
      default_text = pass_internal::QuoteOptionValueIfNeeded(default_text);
    }
    absl::StrAppend(&out, "  ", option->name(), " (", AsAbsl(PassOptionTypeName(option->type())),
                    ", default ", default_text, "): ", option->help(), "\n");
  }
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace anvil
