#include "shape/dim_ranges.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "shape/index_expr.h"

namespace anvil {
namespace {

bool NeedsQuotes(std::string_view name) {
  return name.empty() || name.find_first_of(",=:`") != std::string_view::npos ||
         name.front() == ' ' || name.back() == ' ';
}

std::string QuoteName(std::string_view name) {
  if (!NeedsQuotes(name)) return std::string(name);
  std::string out = "`";
  for (char c : name) {
    out.push_back(c);
    if (c == '`') out.push_back('`');
  }
  out.push_back('`');
  return out;
}

absl::Status EntryError(std::string_view text, size_t at, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("dim ranges '", std::string(text), "', column ",
                                                 at + 1, ": ", std::string(what),
                                                 " (want name=lo:hi, hi empty for none)"));
}

bool ParseInt(std::string_view s, int64_t* out) { return absl::SimpleAtoi(std::string(s), out); }

}  // namespace

absl::StatusOr<std::vector<SymbolRange>> ParseSymbolRanges(std::string_view text) {
  std::vector<SymbolRange> out;
  absl::flat_hash_set<std::string> seen;
  size_t i = 0;
  auto skip_spaces = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  skip_spaces();
  if (i == text.size()) return out;
  while (true) {
    skip_spaces();
    const size_t start = i;
    SymbolRange r;
    if (i < text.size() && text[i] == '`') {
      ++i;
      while (true) {
        if (i >= text.size()) return EntryError(text, start, "unterminated backquote");
        if (text[i] == '`') {
          if (i + 1 < text.size() && text[i + 1] == '`') {
            r.name.push_back('`');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        r.name.push_back(text[i++]);
      }
    } else {
      while (i < text.size() && text[i] != '=' && text[i] != ',') r.name.push_back(text[i++]);
      while (!r.name.empty() && r.name.back() == ' ') r.name.pop_back();
    }
    if (r.name.empty()) return EntryError(text, start, "no name");
    skip_spaces();
    if (i >= text.size() || text[i] != '=') return EntryError(text, i, "expected '='");
    ++i;
    const size_t end = std::min(text.find(',', i), text.size());
    std::string_view bounds = text.substr(i, end - i);
    const size_t colon = bounds.find(':');
    if (colon == std::string_view::npos) return EntryError(text, i, "expected ':'");
    std::string_view lo_text = bounds.substr(0, colon), hi_text = bounds.substr(colon + 1);
    auto trim = [](std::string_view s) {
      while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
      while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
      return s;
    };
    lo_text = trim(lo_text);
    hi_text = trim(hi_text);
    if (!ParseInt(lo_text, &r.lo)) return EntryError(text, i, "lo is not an integer");
    if (!hi_text.empty()) {
      int64_t hi;
      if (!ParseInt(hi_text, &hi)) return EntryError(text, i + colon + 1, "hi is not an integer");
      r.hi = hi;
    }
    if (r.lo < 0 || (r.hi && *r.hi < r.lo)) {
      return EntryError(text, start, absl::StrCat("`", r.name, "`: need 0 <= lo <= hi"));
    }
    if (!seen.insert(r.name).second) {
      return EntryError(text, start, absl::StrCat("`", r.name, "` is given twice"));
    }
    out.push_back(std::move(r));
    i = end;
    if (i == text.size()) break;
    ++i;  // the comma
  }
  return out;
}

std::string FormatSymbolRanges(absl::Span<const SymbolRange> ranges) {
  std::string out;
  for (const SymbolRange& r : ranges) {
    if (!out.empty()) out += ",";
    absl::StrAppend(&out, QuoteName(r.name), "=", r.lo, ":", r.hi ? absl::StrCat(*r.hi) : "");
  }
  return out;
}

absl::StatusOr<std::vector<SymbolRange>> ReadModelRanges(const Model& model) {
  for (const auto& [key, value] : model.metadata_props) {
    if (key != kDimRangesKey) continue;
    absl::StatusOr<std::vector<SymbolRange>> ranges = ParseSymbolRanges(value);
    if (!ranges.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("model metadata ", kDimRangesKey, ": ", ranges.status().message()));
    }
    return ranges;
  }
  return std::vector<SymbolRange>{};
}

std::vector<SymbolRange> ModelRangesOrNone(const Model& model, std::string* problem) {
  absl::StatusOr<std::vector<SymbolRange>> ranges = ReadModelRanges(model);
  if (ranges.ok()) return *std::move(ranges);
  if (problem != nullptr) {
    *problem = absl::StrCat(ranges.status().message(), "; the ranges are ignored");
  }
  return {};
}

void WriteModelRanges(Model& model, std::vector<SymbolRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const SymbolRange& a, const SymbolRange& b) { return a.name < b.name; });
  auto& props = model.metadata_props;
  props.erase(std::remove_if(props.begin(), props.end(),
                             [](const auto& p) { return p.first == kDimRangesKey; }),
              props.end());
  if (!ranges.empty()) props.emplace_back(kDimRangesKey, FormatSymbolRanges(ranges));
}

absl::Status MergeModelRanges(Model& model, absl::Span<const SymbolRange> ranges) {
  // A value that does not parse is replaced.
  std::vector<SymbolRange> merged = ModelRangesOrNone(model);
  for (const SymbolRange& r : ranges) {
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const SymbolRange& m) { return m.name == r.name; });
    if (it != merged.end()) {
      *it = r;
    } else {
      merged.push_back(r);
    }
  }
  WriteModelRanges(model, std::move(merged));
  return absl::OkStatus();
}

std::vector<SymbolRange> RangesOfTypes(Model& model) {
  // Dims repeat the same few texts: each is parsed once.
  absl::flat_hash_set<std::string> seen, params;
  std::vector<SymbolRange> out;
  std::function<void(const Type&)> visit = [&](const Type& type) {
    if (type.is_sequence() || type.is_optional()) {
      visit(type.elem());
      return;
    }
    if (!type.is_tensor() || !type.has_shape()) return;
    for (const Dim& d : type.shape()) {
      if (!d.is_param() || !params.insert(d.param).second) continue;
      for (const std::string& name : IndexExpr::FromDimParam(d.param).Symbols()) {
        if (!seen.insert(name).second) continue;
        const IndexRange r = RangeOf(IndexExpr::Symbol(name));
        if (r.lo.value_or(0) != 0 || r.hi.has_value()) {
          out.push_back({name, r.lo.value_or(0), r.hi});
        }
      }
    }
  };
  model.graph().ForEachGraph([&](Graph& g) {
    for (const Value* v : g.inputs()) visit(v->type());
    for (const Node* n : g.nodes()) {
      for (const Value* v : n->outputs()) {
        if (v != nullptr) visit(v->type());
      }
    }
  });
  return out;
}

absl::Status AddInputRanges(Model& model, absl::Span<const SymbolRange> ranges) {
  if (ranges.empty()) return absl::OkStatus();
  std::set<std::string> symbols;
  {
    ScopedIndexExprContext scope;
    for (const Value* v : model.graph().inputs()) {
      if (!v->type().is_tensor() || !v->type().has_shape()) continue;
      for (const Dim& d : v->type().shape()) {
        if (!d.is_param()) continue;
        for (std::string& s : IndexExpr::FromDimParam(d.param).Symbols()) {
          symbols.insert(std::move(s));
        }
      }
    }
  }
  for (const SymbolRange& r : ranges) {
    if (!symbols.contains(r.name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ranges: `", r.name, "` is not a symbolic dim of a graph input (they are: ",
          symbols.empty() ? std::string("none") : absl::StrJoin(symbols, ", "), ")"));
    }
  }
  return MergeModelRanges(model, ranges);
}

absl::Status DeclareRanges(absl::Span<const SymbolRange> ranges) {
  for (const SymbolRange& r : ranges) {
    if (absl::Status s = IndexExpr::DeclareSymbolRange(r.name, r.lo, r.hi); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace anvil
