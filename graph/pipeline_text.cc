#include "graph/pipeline_text.h"

#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/excerpt.h"
#include "base/status_macros.h"

namespace anvil {
namespace {

bool IsNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

bool IsBareValueChar(char c) {
  return !absl::ascii_isspace(static_cast<unsigned char>(c)) && !absl::ascii_iscntrl(c) &&
         c != ',' && c != '{' && c != '}' && c != '=' && c != '"' && c != '\\';
}

// Recursive-descent parser for the grammar in pipeline_text.h; positions are
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
      PassOptionSpec option;
      option.column = pos_ + 1;
      if (!ParseName(&option.key)) return Error("expected an option name");
      for (const PassOptionSpec& earlier : spec->options) {
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
    // Items joined by commas; a comma followed by `NAME =` ends the value (the next option).
    const size_t start = pos_;
    while (true) {
      ANVIL_RETURN_IF_ERROR(ParseBareItem());
      if (pos_ == start) return Error("expected an option value");
      if (AtEnd() || Peek() != ',' || !ItemFollows(pos_ + 1)) break;
      ++pos_;
    }
    *out = std::string(text_.substr(start, pos_ - start));
    return absl::OkStatus();
  }

  // Bare characters and balanced brace groups (quoted strings inside a group are skipped whole).
  absl::Status ParseBareItem() {
    while (!AtEnd()) {
      if (IsBareValueChar(Peek())) {
        ++pos_;
        continue;
      }
      if (Peek() != '{') break;
      const size_t open = pos_;
      int depth = 0;
      while (!AtEnd()) {
        const char c = Peek();
        if (c == '"') {
          ++pos_;
          while (!AtEnd() && Peek() != '"') pos_ += Peek() == '\\' ? 2 : 1;
          if (AtEnd()) break;
        } else if (c == '{') {
          ++depth;
        } else if (c == '}' && --depth == 0) {
          ++pos_;
          break;
        }
        ++pos_;
      }
      if (depth != 0 || pos_ > text_.size()) {
        pos_ = open;
        return Error("unbalanced '{' in an option value");
      }
    }
    return absl::OkStatus();
  }

  // Whether a bare value continues after the comma before `at`: an item follows that is not the
  // next option's `NAME =`.
  bool ItemFollows(size_t at) const {
    if (at >= text_.size()) return false;
    if (text_[at] == '{') return true;
    if (!IsBareValueChar(text_[at])) return false;
    size_t p = at;
    while (p < text_.size() && IsNameChar(text_[p])) ++p;
    while (p < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[p]))) ++p;
    return p == at || p >= text_.size() || text_[p] != '=';
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

}  // namespace

absl::StatusOr<std::vector<PassSpec>> ParsePipelineText(std::string_view text) {
  return PipelineParser(text).Parse();
}

namespace pass_internal {

bool IsBarePipelineValue(std::string_view value) {
  if (value.empty()) return false;
  // As the only option of a pass: the value must be read whole and end exactly at the brace.
  const std::string text = absl::StrCat("p{o=", AsAbsl(value), "}");
  absl::StatusOr<std::vector<PassSpec>> specs = ParsePipelineText(text);
  return specs.ok() && specs->size() == 1 && (*specs)[0].options.size() == 1 &&
         (*specs)[0].options[0].value == value;
}

}  // namespace pass_internal

}  // namespace anvil
