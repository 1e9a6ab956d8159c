#include "base/excerpt.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace anvil {

std::string Excerpt(std::string_view text, size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  const size_t head = max_chars / 2, tail = max_chars - head;
  return absl::StrCat(absl::string_view(text.data(), head), "...[", text.size() - head - tail,
                      " more]...", absl::string_view(text.data() + text.size() - tail, tail));
}

std::string ExcerptAround(std::string_view text, size_t position, size_t* position_in_excerpt,
                          size_t max_chars) {
  position = std::min(position, text.size());
  if (text.size() <= max_chars) {
    *position_in_excerpt = position;
    return std::string(text);
  }
  const size_t begin =
      position > max_chars / 2 ? std::min(position - max_chars / 2, text.size() - max_chars) : 0;
  const size_t end = begin + max_chars;
  std::string out;
  if (begin > 0) absl::StrAppend(&out, "[", begin, " before]...");
  *position_in_excerpt = out.size() + (position - begin);
  absl::StrAppend(&out, absl::string_view(text.data() + begin, end - begin));
  if (end < text.size()) absl::StrAppend(&out, "...[", text.size() - end, " after]");
  return out;
}

}  // namespace anvil
