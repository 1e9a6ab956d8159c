// Writing a protobuf message whose large bytes fields are produced only while they are written:
// the bytes SerializeToString would give, without ever holding those fields (or the serialized
// message) in memory. Export uses it for inline tensor data: each TensorProto.raw_data is a hole
// filled from the tensor's elements, chunk by chunk, straight into the file.
//
// A hole is a singular bytes field that is set (possibly to "") in the message; its size must be
// exact. Everything else, including the order of fields, is protobuf's own serialization.
#ifndef ANVIL_GRAPH_PROTO_STREAM_H_
#define ANVIL_GRAPH_PROTO_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "google/protobuf/message.h"

namespace anvil {

class HoleyMessageWriter {
 public:
  // Writes a hole's bytes by calling `emit` with consecutive pieces; returns emit's first error.
  using Emit = std::function<absl::Status(absl::Span<const uint8_t>)>;
  using Producer = std::function<absl::Status(const Emit& emit)>;

  // `field` of `message` (a set singular bytes field) is written as `size` bytes from `producer`.
  void AddHole(const google::protobuf::Message* message,
               const google::protobuf::FieldDescriptor* field, uint64_t size, Producer producer);
  bool empty() const { return holes_.empty(); }

  // The serialized size of `root` with every hole filled.
  uint64_t ByteSize(const google::protobuf::Message& root);
  // Serializes `root` to `out` with every hole filled; errors name what failed to write.
  absl::Status Write(const google::protobuf::Message& root, std::ostream& out);

 private:
  struct Hole {
    const google::protobuf::FieldDescriptor* field;
    uint64_t size;
    Producer producer;
  };
  bool ContainsHoles(const google::protobuf::Message& m);

  absl::flat_hash_map<const google::protobuf::Message*, Hole> holes_;
  absl::flat_hash_map<const google::protobuf::Message*, bool> contains_;
  absl::flat_hash_map<const google::protobuf::Message*, uint64_t> sizes_;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PROTO_STREAM_H_
