// File bytes as a Buffer without reading them: a read-only private mapping of a file range
// (external tensor data). Pages are read on first touch and can be dropped again
// (DropResidentPages) once a one-time reader (export, a constant fold) is done with them; the
// next access reads them from the file (page cache) again.
//
// The file must not shrink while mapped (a read past its end is SIGBUS), as with any mmap-based
// reader, ONNX Runtime's included.
#ifndef ANVIL_GRAPH_MAPPED_BUFFER_H_
#define ANVIL_GRAPH_MAPPED_BUFFER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "graph/elements.h"

namespace anvil {

// Maps `size` bytes of the open file `fd` from `offset` (any offset: the mapping starts at the
// page below it). `label` names the data in errors. size 0 gives an empty buffer.
absl::StatusOr<std::shared_ptr<const Buffer>> MapFileRange(int fd, uint64_t offset, uint64_t size,
                                                           const std::string& label);

}  // namespace anvil

#endif  // ANVIL_GRAPH_MAPPED_BUFFER_H_
