// Bounded quotes of user text for one-line error messages: a 100,000-character pipeline or option
// value must not be echoed whole. Short text is returned unchanged.
#ifndef ANVIL_BASE_EXCERPT_H_
#define ANVIL_BASE_EXCERPT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace anvil {

inline constexpr size_t kDefaultExcerptChars = 120;

// `text` if it has at most `max_chars` characters; else its start and end around a marker that
// says how many characters were left out: "cse,cse,...[99880 more]...,nope".
std::string Excerpt(std::string_view text, size_t max_chars = kDefaultExcerptChars);

// Like Excerpt, but the part kept is centered on `position` (a column being reported), with
// the leading and trailing cuts marked; *position_in_excerpt is where `position` landed.
std::string ExcerptAround(std::string_view text, size_t position, size_t* position_in_excerpt,
                          size_t max_chars = kDefaultExcerptChars);

}  // namespace anvil

#endif  // ANVIL_BASE_EXCERPT_H_
