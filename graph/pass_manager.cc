#include "graph/pass_manager.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/excerpt.h"
#include "base/status_macros.h"
#include "graph/pass_registry.h"

namespace anvil {
namespace {

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

bool IsBareValueChar(char c) {
  return !absl::ascii_isspace(static_cast<unsigned char>(c)) && !absl::ascii_iscntrl(c) &&
         c != ',' && c != '{' && c != '}' && c != '=' && c != '"' && c != '\\';
}

struct OptionSpec {
  std::string key;
  std::string value;
  size_t column;  // 1-based, of the key
};

struct PassSpec {
  std::string name;
  size_t column;
  std::vector<OptionSpec> options;
};

// Recursive-descent parser for the grammar in pass_manager.h; positions are
// byte offsets.
class PipelineParser {
 public:
  explicit PipelineParser(std::string_view text) : text_(text) {}

  absl::StatusOr<std::vector<PassSpec>> Parse() {
    std::vector<PassSpec> specs;
    SkipBlanks();
    if (AtEnd()) return specs;  // The empty pipeline is valid and does nothing.
    while (true) {
      PassSpec spec;
      ANVIL_RETURN_IF_ERROR(ParsePass(&spec));
      specs.push_back(std::move(spec));
      SkipBlanks();
      if (AtEnd()) return specs;
      if (Peek() != ',') return Error("expected ',' between passes or end of pipeline");
      ++pos_;
      SkipBlanks();
    }
  }

 private:
  absl::Status ParsePass(PassSpec* spec) {
    spec->column = pos_ + 1;
    if (!ParseName(&spec->name)) return Error("expected a pass name");
    SkipBlanks();
    if (AtEnd() || Peek() != '{') return absl::OkStatus();
    ++pos_;
    SkipBlanks();
    if (!AtEnd() && Peek() == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      OptionSpec option;
      option.column = pos_ + 1;
      if (!ParseName(&option.key)) return Error("expected an option name");
      for (const OptionSpec& earlier : spec->options) {
        if (earlier.key == option.key) {
          pos_ = option.column - 1;
          return Error(absl::StrCat("option '", Excerpt(option.key), "' given twice"));
        }
      }
      SkipBlanks();
      if (AtEnd() || Peek() != '=') {
        return Error(absl::StrCat("expected '=' after option '", Excerpt(option.key), "'"));
      }
      ++pos_;
      SkipBlanks();
      ANVIL_RETURN_IF_ERROR(ParseValue(&option.value));
      spec->options.push_back(std::move(option));
      SkipBlanks();
      if (AtEnd()) return Error("expected ',' or '}' to close the options");
      if (Peek() == '}') {
        ++pos_;
        return absl::OkStatus();
      }
      if (Peek() != ',') return Error("expected ',' or '}' after an option value");
      ++pos_;
      SkipBlanks();
    }
  }

  bool ParseName(std::string* out) {
    size_t start = pos_;
    while (!AtEnd() && IsNameChar(Peek())) ++pos_;
    *out = std::string(text_.substr(start, pos_ - start));
    return pos_ > start;
  }

  absl::Status ParseValue(std::string* out) {
    out->clear();
    if (!AtEnd() && Peek() == '"') {
      size_t open = pos_;
      ++pos_;
      while (!AtEnd() && Peek() != '"') {
        if (Peek() == '\\') {
          ++pos_;
          if (AtEnd()) break;
        }
        out->push_back(Peek());
        ++pos_;
      }
      if (AtEnd()) {
        pos_ = open;
        return Error("unterminated quoted value");
      }
      ++pos_;  // closing quote
      return absl::OkStatus();
    }
    size_t start = pos_;
    while (!AtEnd() && IsBareValueChar(Peek())) ++pos_;
    if (pos_ == start) return Error("expected an option value");
    *out = std::string(text_.substr(start, pos_ - start));
    return absl::OkStatus();
  }

  void SkipBlanks() {
    while (!AtEnd() && absl::ascii_isspace(static_cast<unsigned char>(Peek()))) ++pos_;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }

  // One line (tools print errors as one line): the column, the problem, and the text with
  // blanks folded so that the column counts visibly.
  absl::Status Error(std::string_view what) const {
    size_t unused;
    std::string line = ExcerptAround(text_, pos_, &unused);
    for (char& c : line) {
      if (absl::ascii_isspace(static_cast<unsigned char>(c))) c = ' ';
    }
    return absl::InvalidArgumentError(absl::StrCat("invalid pass pipeline at column ", pos_ + 1,
                                                   ": ", AsAbsl(what), " in '", line, "'"));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

absl::Status Annotate(const absl::Status& status, std::string_view prefix) {
  return absl::Status(status.code(), absl::StrCat(AsAbsl(prefix), status.message()));
}

}  // namespace

PassManager::PassManager() = default;
PassManager::~PassManager() = default;
PassManager::PassManager(PassManager&&) noexcept = default;
PassManager& PassManager::operator=(PassManager&&) noexcept = default;

absl::StatusOr<PassManager> PassManager::Parse(std::string_view pipeline) {
  PassManager manager;
  ANVIL_RETURN_IF_ERROR(manager.AddPipeline(pipeline));
  return manager;
}

absl::Status PassManager::AddPipeline(std::string_view pipeline) {
  absl::StatusOr<std::vector<PassSpec>> specs = PipelineParser(pipeline).Parse();
  if (!specs.ok()) return specs.status();
  std::vector<std::unique_ptr<Pass>> created;
  for (const PassSpec& spec : *specs) {
    absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass(spec.name);
    // The registry reports NotFound; for a pipeline the text is what is wrong.
    if (!pass.ok()) return absl::InvalidArgumentError(pass.status().message());
    for (const OptionSpec& option : spec.options) {
      absl::Status s = (*pass)->SetOption(option.key, option.value);
      if (!s.ok()) return s;
    }
    created.push_back(*std::move(pass));
  }
  for (auto& pass : created) passes_.push_back(std::move(pass));
  return absl::OkStatus();
}

void PassManager::AddPass(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }

std::string PassManager::ToString() const {
  std::vector<std::string> parts;
  for (const auto& pass : passes_) {
    std::string options = pass->OptionsToString();
    if (options.empty()) {
      parts.emplace_back(pass->name());
    } else {
      parts.push_back(absl::StrCat(AsAbsl(pass->name()), "{", options, "}"));
    }
  }
  return absl::StrJoin(parts, ",");
}

void PassManager::AssumeProperty(std::string property) {
  assumed_properties_.push_back(std::move(property));
}

absl::Status PassManager::CheckPipelineOrder() const {
  // property -> name of the pass that invalidated it ("" while established).
  std::map<std::string, std::string, std::less<>> state;
  for (const std::string& p : assumed_properties_) state[p] = "";
  for (const auto& pass : passes_) {
    for (const std::string& required : pass->Requires()) {
      auto it = state.find(required);
      if (it != state.end() && it->second.empty()) continue;
      std::string message =
          absl::StrCat("pass '", AsAbsl(pass->name()), "' requires '", required, "'");
      if (it != state.end()) absl::StrAppend(&message, " (invalidated by '", it->second, "')");
      std::vector<std::string> providers = PassesEstablishing(required);
      if (providers.empty()) {
        absl::StrAppend(&message, ", which no registered pass establishes");
      } else {
        absl::StrAppend(&message, "; run '", absl::StrJoin(providers, "' or '"), "' before it");
      }
      return absl::FailedPreconditionError(message);
    }
    for (const std::string& p : pass->Invalidates()) {
      auto it = state.find(p);
      if (it != state.end()) it->second = std::string(pass->name());
    }
    for (const std::string& p : pass->Establishes()) state[p] = "";
  }
  return absl::OkStatus();
}

absl::Status PassManager::Run(Model& model) {
  ANVIL_RETURN_IF_ERROR(CheckPipelineOrder());
  for (auto& inst : instrumentations_) inst->RunBeforePipeline(model);

  absl::Status status;
  for (auto& pass : passes_) {
    for (auto& inst : instrumentations_) {
      absl::Status s = inst->RunBeforePass(*pass, model);
      if (!s.ok()) {
        status = Annotate(s, absl::StrCat("failed before ", AsAbsl(pass->name()), ": "));
        break;
      }
    }
    if (!status.ok()) break;

    PassContext ctx(log_);
    absl::StatusOr<bool> changed = pass->Run(model, ctx);
    if (!changed.ok()) {
      for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it) {
        (*it)->RunAfterPassFailed(*pass, model, changed.status());
      }
      status = Annotate(changed.status(), absl::StrCat("failed in ", AsAbsl(pass->name()), ": "));
      break;
    }
    for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it) {
      absl::Status s = (*it)->RunAfterPass(*pass, model, ctx, *changed);
      if (!s.ok() && status.ok()) {
        status = Annotate(s, absl::StrCat("failed after ", AsAbsl(pass->name()), ": "));
      }
    }
    if (!status.ok()) break;
  }

  for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it) {
    (*it)->RunAfterPipeline(model, status);
  }
  return status;
}

}  // namespace anvil
