// StringNormalizer: removes stopwords from a [C] or [1, C] string tensor and changes case.
// Stopwords match whole strings, case-insensitively unless is_case_sensitive; case changes
// (LOWER, UPPER) use Unicode's simple case mapping of each UTF-8 code point (the C.UTF-8
// locale's towlower/towupper), whatever the `locale` attribute names, so results do not depend
// on which locales a machine has installed. An empty result is one empty string ([1] or [1, 1]),
// as the operator's spec says. Strings that are not UTF-8 are an error naming the element.
#include <locale.h>
#include <wctype.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/ops/misc_internal.h"

namespace anvil::misc {
namespace {

enum class CaseChange { kNone, kLower, kUpper };

locale_t Utf8Locale() {
  static const locale_t locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", nullptr);
  return locale;
}

// Appends code point `c` to `out` as UTF-8.
void AppendUtf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// `s` with each code point case-mapped; false when `s` is not valid UTF-8.
bool ChangeCase(std::string_view s, CaseChange change, std::string& out) {
  out.clear();
  const locale_t locale = Utf8Locale();
  for (size_t i = 0; i < s.size();) {
    const auto byte = static_cast<unsigned char>(s[i]);
    const int length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3
                                      : (byte >> 3) == 0x1E ? 4 : 0;
    if (length == 0 || i + length > s.size()) return false;
    char32_t c = length == 1 ? byte : byte & (0x7F >> length);
    for (int k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(s[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      c = (c << 6) | (next & 0x3F);
    }
    if (locale != nullptr) {
      c = static_cast<char32_t>(change == CaseChange::kLower ? towlower_l(c, locale)
                                                             : towupper_l(c, locale));
    } else if (c < 0x80) {  // no C.UTF-8: ASCII only
      c = change == CaseChange::kLower ? absl::ascii_tolower(c) : absl::ascii_toupper(c);
    }
    AppendUtf8(c, out);
    i += length;
  }
  return true;
}

struct StringNormalizerAttrs {
  CaseChange change = CaseChange::kNone;
  bool case_sensitive = false;
  // Lower-cased when matching is case-insensitive.
  absl::flat_hash_set<std::string> stopwords;
};

absl::Status StringNormalizerCompute(KernelContext& ctx, const StringNormalizerAttrs& attrs) {
  const TensorView& x = ctx.input(0);
  if (x.type != ElementType::kString) {
    return ctx.Error(absl::StrCat("input ", x.DebugString(), " is not a string tensor"));
  }
  if (!(x.rank() == 1 || (x.rank() == 2 && x.dims[0] == 1))) {
    return ctx.Error(absl::StrCat("input ", x.DebugString(), " is not [C] or [1, C]"));
  }
  const int64_t count = x.dims.back();
  const int64_t stride = x.strides.back();
  const std::string* in = x.As<const std::string>();
  std::vector<std::string> kept;
  std::string folded;
  for (int64_t i = 0; i < count; ++i) {
    const std::string& s = in[i * stride];
    if (!attrs.stopwords.empty()) {
      const std::string* key = &s;
      if (!attrs.case_sensitive) {
        if (!ChangeCase(s, CaseChange::kLower, folded)) {
          return ctx.Error(absl::StrCat("element ", i, " \"", absl::CHexEscape(s),
                                        "\" is not UTF-8"));
        }
        key = &folded;
      }
      if (attrs.stopwords.contains(*key)) continue;
    }
    kept.push_back(s);
    if (attrs.change != CaseChange::kNone && !ChangeCase(s, attrs.change, kept.back())) {
      return ctx.Error(absl::StrCat("element ", i, " \"", absl::CHexEscape(s),
                                    "\" is not UTF-8"));
    }
  }
  if (kept.empty()) kept.emplace_back();
  Shape dims = x.dims;
  dims.back() = static_cast<int64_t>(kept.size());
  ANVIL_ASSIGN_OR_RETURN(TensorView* out, ctx.AllocateOutput(0, dims));
  std::string* y = out->As<std::string>();
  for (size_t i = 0; i < kept.size(); ++i) y[i] = std::move(kept[i]);
  return absl::OkStatus();
}

}  // namespace

Factory CreateStringNormalizer(const Node& node, int64_t) {
  StringNormalizerAttrs attrs;
  const std::string action = node.GetString("case_change_action", "NONE");
  if (action == "LOWER") {
    attrs.change = CaseChange::kLower;
  } else if (action == "UPPER") {
    attrs.change = CaseChange::kUpper;
  } else if (action != "NONE") {
    return NodeError(node, absl::StrCat("case_change_action '", action,
                                        "' is not NONE, LOWER or UPPER"));
  }
  attrs.case_sensitive = node.GetInt("is_case_sensitive", 0) != 0;
  if (const Attribute* a = node.FindAttribute("stopwords")) {
    for (const std::string& word : a->strings) {
      std::string key = word;
      if (!attrs.case_sensitive && !ChangeCase(word, CaseChange::kLower, key)) {
        return NodeError(node, absl::StrCat("stopword \"", absl::CHexEscape(word),
                                            "\" is not UTF-8"));
      }
      attrs.stopwords.insert(std::move(key));
    }
  }
  return MakeAttrKernel(std::move(attrs), &StringNormalizerCompute);
}

}  // namespace anvil::misc
