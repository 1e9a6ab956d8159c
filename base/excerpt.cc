#include "base/excerpt.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace anvil {
namespace {

// Length of the well-formed, printable UTF-8 sequence starting at text[i] (1 to 4), or 0 when the
// byte there does not print as itself: ASCII controls, C1 controls (U+0080..U+009F), the line and
// paragraph separators U+2028 / U+2029, and malformed or overlong sequences.
size_t PrintableLength(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return c >= 0x20 && c != 0x7f ? 1 : 0;
  size_t n;
  unsigned char lo = 0x80, hi = 0xbf;  // range of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;  // no surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  }
  if (c == 0xc2 && byte(i + 1) <= 0x9f) return 0;                                  // C1 controls
  if (c == 0xe2 && byte(i + 1) == 0x80 && (byte(i + 2) & 0xfe) == 0xa8) return 0;  // U+2028/9
  return n;
}

// Appends the character at text[i], escaped if it does not print (a line break as a space when
// `newline_as_space`); returns how many bytes of `text` it took.
size_t AppendPrintable(std::string_view text, size_t i, bool newline_as_space, std::string* out) {
  if (const size_t n = PrintableLength(text, i); n > 0) {
    out->append(text.data() + i, n);
    return n;
  }
  const char c = text[i];
  if (newline_as_space && (c == '\n' || c == '\r' || c == '\t')) {
    *out += ' ';
  } else if (c == '\n') {
    *out += "\\n";
  } else if (c == '\r') {
    *out += "\\r";
  } else if (c == '\t') {
    *out += "\\t";
  } else {
    absl::StrAppendFormat(out, "\\x%02x", static_cast<unsigned char>(c));
  }
  return 1;
}

// `text` with what does not print escaped, cut to at most `max_chars` (plus the marker) between
// whole characters or escapes, keeping its start and end as Excerpt does. Only the two ends of a
// long text are looked at: a 2 GB name costs no more than a short one.
std::string PrintableExcerpt(std::string_view text, size_t max_chars, bool newline_as_space) {
  std::string out;
  if (text.size() <= max_chars) {
    for (size_t i = 0; i < text.size();) i += AppendPrintable(text, i, newline_as_space, &out);
    if (out.size() <= max_chars) return out;
    out.clear();
  }
  const size_t head_budget = max_chars / 2, tail_budget = max_chars - head_budget;
  // The head: whole characters while they fit.
  size_t head_end = 0;
  std::string piece;
  while (head_end < text.size()) {
    piece.clear();
    const size_t n = AppendPrintable(text, head_end, newline_as_space, &piece);
    if (out.size() + piece.size() > head_budget) break;
    out += piece;
    head_end += n;
  }
  // The tail: every character yields at least one, so the last tail_budget bytes are enough;
  // start at a character boundary, then keep the longest suffix that fits.
  size_t from = std::max(head_end, text.size() > tail_budget ? text.size() - tail_budget : 0);
  for (int k = 0; k < 3 && from > head_end && from < text.size() &&
                  (static_cast<unsigned char>(text[from]) & 0xc0) == 0x80;
       ++k) {
    ++from;
  }
  std::vector<std::pair<size_t, std::string>> tail;  // (input offset, printed form)
  for (size_t i = from; i < text.size();) {
    piece.clear();
    const size_t n = AppendPrintable(text, i, newline_as_space, &piece);
    tail.emplace_back(i, piece);
    i += n;
  }
  size_t kept = tail.size(), tail_size = 0;
  while (kept > 0 && tail_size + tail[kept - 1].second.size() <= tail_budget) {
    tail_size += tail[--kept].second.size();
  }
  const size_t tail_begin = kept < tail.size() ? tail[kept].first : text.size();
  absl::StrAppend(&out, "...[", tail_begin - head_end, " more]...");
  for (size_t k = kept; k < tail.size(); ++k) out += tail[k].second;
  return out;
}

}  // namespace

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

std::string Quoted(std::string_view text, size_t max_chars) {
  return absl::StrCat("'", PrintableExcerpt(text, max_chars, /*newline_as_space=*/false), "'");
}

std::string Printable(std::string_view text, size_t max_chars) {
  return PrintableExcerpt(text, max_chars, /*newline_as_space=*/false);
}

std::string OneLineMessage(std::string_view message, size_t max_chars) {
  return PrintableExcerpt(message, max_chars, /*newline_as_space=*/true);
}

}  // namespace anvil
