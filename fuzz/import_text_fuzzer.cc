// Fuzzes the ONNX text-format parser and importer: any text either fails to parse or gives a
// model the verifier judges and the printer prints.
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "graph/text_format.h"
#include "graph/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::unique_ptr<anvil::Model>> model = anvil::ParseModelText(text);
  if (!model.ok()) return 0;
  if (!anvil::VerifyModel(**model).ok()) return 0;
  (void)anvil::PrintModel(**model);
  return 0;
}
