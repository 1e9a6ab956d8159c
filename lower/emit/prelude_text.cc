#include "lower/emit/prelude_text.h"

namespace anvil::lower {

// clang-format off
const char kCcPrelude[] =
#include "lower/emit/prelude.embed.inc"
    ;

const char kCcVectorPrelude[] =
#include "lower/emit/vector_prelude.embed.inc"
    ;
// clang-format on

}  // namespace anvil::lower
