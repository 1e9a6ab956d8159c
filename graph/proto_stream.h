// Writing a protobuf message whose large bytes fields are produced only while they are written:
// the bytes SerializeToString would give, without ever holding those fields (or the serialized
// message) in memory. Export uses it for inline tensor data: each TensorProto.raw_data is a hole
// filled from the tensor's elements, chunk by chunk, straight into the file.
//
// A hole is a singular bytes field that is set (possibly to "") in the message; its size must be
// exact. The caller also names the messages that contain holes (every ancestor of a hole's
// message, up to the root): only those are walked field by field, so writing costs protobuf's
// own serialization for everything else, whatever the size of the message. The order of fields is
// protobuf's.
#ifndef ANVIL_GRAPH_PROTO_STREAM_H_
#define ANVIL_GRAPH_PROTO_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
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
  // Elements of repeated message `field` of `message` (left empty in it) made on demand, each
  // twice (to size, then to write), so that a million node protos never exist at once.
  // `make(i, storage)` returns element i: a new message it puts in `storage` (which must not
  // contain holes), or one kept elsewhere (which may). Marks `message` as containing holes.
  using MakeElement = std::function<absl::StatusOr<const google::protobuf::Message*>(
      int64_t i, std::unique_ptr<google::protobuf::Message>& storage)>;
  void AddLazyRepeated(const google::protobuf::Message* message,
                       const google::protobuf::FieldDescriptor* field, int64_t count,
                       MakeElement make);

  // `message` has a hole somewhere below it.
  void MarkContainsHoles(const google::protobuf::Message* message) { ancestors_.insert(message); }
  bool empty() const { return holes_.empty(); }

  // The serialized size of `root` with every hole filled.
  uint64_t ByteSize(const google::protobuf::Message& root);
  // The first error of a lazy field's element maker (ByteSize and Write stop at it).
  const absl::Status& status() const { return status_; }
  // Serializes `root` to `out` with every hole filled; errors name what failed to write.
  absl::Status Write(const google::protobuf::Message& root, std::ostream& out);

 private:
  struct Hole {
    const google::protobuf::FieldDescriptor* field;
    uint64_t size;
    Producer producer;
  };
  struct LazyField {
    const google::protobuf::FieldDescriptor* field;
    int64_t count;
    MakeElement make;
  };
  // The fields to write of `m` in number order: those set, and its lazy ones.
  std::vector<const google::protobuf::FieldDescriptor*> FieldsOf(
      const google::protobuf::Message& m) const;
  // Calls `fn` on each element of a lazy field; the first error stops it (and stays in status_).
  void ForEachElement(const LazyField& lazy,
                      const std::function<void(const google::protobuf::Message&)>& fn);
  const LazyField* FindLazy(const google::protobuf::Message& m,
                            const google::protobuf::FieldDescriptor* field) const;
  bool ContainsHoles(const google::protobuf::Message& m) const {
    return holes_.contains(&m) || ancestors_.contains(&m);
  }

  absl::flat_hash_map<const google::protobuf::Message*, Hole> holes_;
  absl::flat_hash_set<const google::protobuf::Message*> ancestors_;
  absl::flat_hash_map<const google::protobuf::Message*, std::vector<LazyField>> lazy_;
  absl::Status status_;
  absl::flat_hash_map<const google::protobuf::Message*, uint64_t> sizes_;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PROTO_STREAM_H_
