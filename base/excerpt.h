// Bounded quotes of user text for one-line error messages: a 100,000-character pipeline or option
// value, or a node name of raw bytes from a hostile model, must not be echoed whole. Short text is
// returned unchanged.
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

// How many characters of a name (node, value, graph, op type, domain, attribute) a message quotes.
inline constexpr size_t kNameExcerptChars = 80;
// How long a whole message the tools print may be.
inline constexpr size_t kMaxMessageChars = 1000;

// `text` between single quotes for a message: its bytes that do not print (control characters,
// C1 controls, line and paragraph separators, invalid UTF-8) escaped as \n, \t, \xNN, cut to
// about `max_chars` like Excerpt (never inside an escape or a UTF-8 sequence). Names from a model
// go through it: 'conv1', 'a\x01b', 'xxxx...[199920 more]...xxxx'.
std::string Quoted(std::string_view text, size_t max_chars = kNameExcerptChars);
// Quoted without the quotes: for a name a message shows bare, such as an op type ("(Conv)").
std::string Printable(std::string_view text, size_t max_chars = kNameExcerptChars);

// `message` fit to print as one line: line breaks become spaces, other bytes that do not print are
// escaped as in Quoted, and the whole is cut to about `max_chars` (its start and end kept). The
// tools pass every error and warning through it before printing.
std::string OneLineMessage(std::string_view message, size_t max_chars = kMaxMessageChars);

}  // namespace anvil

#endif  // ANVIL_BASE_EXCERPT_H_
