// Bridges std::string_view (Anvil's API type) to absl::string_view. Debian's Abseil is built with
// ABSL_OPTION_USE_STD_STRING_VIEW=0, so absl::StrCat, StrJoin, SimpleAtoi and flat_hash_map
// lookups do not accept a std::string_view; with an Abseil that aliases the two this is the
// identity.
#ifndef ANVIL_BASE_ABSL_COMPAT_H_
#define ANVIL_BASE_ABSL_COMPAT_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace anvil {

inline absl::string_view AsAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

// The other way, e.g. for a Status message passed on to an Anvil API.
inline std::string_view FromAbsl(absl::string_view s) {
  return std::string_view(s.data(), s.size());
}

}  // namespace anvil

#endif  // ANVIL_BASE_ABSL_COMPAT_H_
