// Fuzzes the pass-pipeline parser: any text is refused, or gives a pipeline whose canonical text
// parses again to the same canonical text. Every pass of the default pipeline is linked in.
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "graph/pass_manager.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<anvil::PassManager> pm = anvil::PassManager::Parse(text);
  if (!pm.ok()) return 0;
  const std::string canonical = pm->ToString();
  absl::StatusOr<anvil::PassManager> again = anvil::PassManager::Parse(canonical);
  if (!again.ok() || again->ToString() != canonical) std::abort();
  return 0;
}
