#include "graph/text_format_writer.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/text_format_syntax.h"

namespace anvil::text_format_internal {

TextWriter::~TextWriter() {
  if (options_.losses == nullptr) return;
  for (const std::string& kind : loss_order_) {
    const LossInfo& info = losses_.at(kind);
    options_.losses->push_back(absl::StrCat(kind, ": ", info.count, ", e.g. '", info.example, "'"));
  }
}

void TextWriter::Loss(const std::string& kind, absl::string_view example) {
  auto [it, inserted] = losses_.try_emplace(kind);
  if (inserted) {
    loss_order_.push_back(kind);
    it->second.example = std::string(example);
  }
  ++it->second.count;
}

std::string TextWriter::SlotList(const std::vector<std::string>& names) {
  std::string s = absl::StrJoin(names, ", ");
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string TextWriter::OneLine(absl::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::string TextWriter::Quote(absl::string_view s) {
  if (s.find('"') != absl::string_view::npos) {
    // 1.12 strings have no escapes; `\"` is what newer parsers read.
    Loss("strings containing '\"' do not parse", s);
    std::string escaped;
    for (char c : s) {
      if (c == '"') escaped += '\\';
      escaped += c;
    }
    return absl::StrCat("\"", escaped, "\"");
  }
  return absl::StrCat("\"", s, "\"");
}

void TextWriter::AppendList(const std::vector<ListItem>& items, char open, char close, int indent,
                            bool multiline) {
  for (const ListItem& item : items) multiline |= !item.comment.empty();
  out_ += open;
  if (!multiline || items.empty()) {
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out_ += ", ";
      out_ += items[i].text;
    }
  } else {
    out_ += "\n";
    for (size_t i = 0; i < items.size(); ++i) {
      Indent(indent + 2);
      out_ += items[i].text;
      if (i + 1 < items.size()) out_ += ",";
      if (!items[i].comment.empty()) absl::StrAppend(&out_, "  ", items[i].comment);
      out_ += "\n";
    }
    Indent(indent);
  }
  out_ += close;
}

std::string TextWriter::ValueName(const std::string& name) {
  if (IsIdentifier(name) && !IsTypeKeyword(name)) return name;
  auto it = renamed_.find(name);
  if (it != renamed_.end()) return it->second;
  std::string printed = FreshName(SanitizeIdentifier(name));
  Loss("names that are not identifiers are changed", name);
  renamed_.emplace(name, printed);
  return printed;
}

std::string TextWriter::FreshName(const std::string& base) {
  auto taken = [&](const std::string& s) {
    return (model_ != nullptr && model_->NameInUse(s)) || assigned_.contains(s);
  };
  std::string candidate = base;
  for (int64_t k = 1; taken(candidate); ++k) candidate = absl::StrCat(base, "_", k);
  assigned_.insert(candidate);
  return candidate;
}

}  // namespace anvil::text_format_internal
