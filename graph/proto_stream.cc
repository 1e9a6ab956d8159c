#include "graph/proto_stream.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/reflection.h"
#include "google/protobuf/wire_format.h"
#include "google/protobuf/wire_format_lite.h"

namespace anvil {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::internal::WireFormat;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedOutputStream;

uint64_t VarintSize(uint64_t v) { return CodedOutputStream::VarintSize64(v); }

uint64_t TagSize(const FieldDescriptor* field) {
  return WireFormatLite::TagSize(field->number(), WireFormatLite::TYPE_BYTES);
}

void WriteLengthDelimitedTag(const FieldDescriptor* field, uint64_t size, CodedOutputStream& out) {
  out.WriteTag(WireFormatLite::MakeTag(field->number(), WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  out.WriteVarint64(size);
}

// The message elements of `field` (one for a singular field).
std::vector<const Message*> SubMessages(const Message& m, const FieldDescriptor* field) {
  const Reflection* r = m.GetReflection();
  std::vector<const Message*> subs;
  if (field->is_repeated()) {
    const int n = r->FieldSize(m, field);
    subs.reserve(n);
    for (int i = 0; i < n; ++i) subs.push_back(&r->GetRepeatedMessage(m, field, i));
  } else {
    subs.push_back(&r->GetMessage(m, field));
  }
  return subs;
}

std::vector<const FieldDescriptor*> SetFields(const Message& m) {
  std::vector<const FieldDescriptor*> fields;
  m.GetReflection()->ListFields(m, &fields);  // sorted by number, as serialization writes them
  return fields;
}

}  // namespace

void HoleyMessageWriter::AddHole(const Message* message, const FieldDescriptor* field,
                                 uint64_t size, Producer producer) {
  holes_[message] = Hole{field, size, std::move(producer)};
  sizes_.clear();
}

void HoleyMessageWriter::AddLazyRepeated(const Message* message, const FieldDescriptor* field,
                                         int64_t count, MakeElement make) {
  lazy_[message].push_back(LazyField{field, count, std::move(make)});
  ancestors_.insert(message);
  sizes_.clear();
}

std::vector<const FieldDescriptor*> HoleyMessageWriter::FieldsOf(const Message& m) const {
  std::vector<const FieldDescriptor*> fields = SetFields(m);
  if (auto it = lazy_.find(&m); it != lazy_.end()) {
    for (const LazyField& lazy : it->second) fields.push_back(lazy.field);
    std::sort(fields.begin(), fields.end(), [](const FieldDescriptor* a, const FieldDescriptor* b) {
      return a->number() < b->number();
    });
  }
  return fields;
}

const HoleyMessageWriter::LazyField* HoleyMessageWriter::FindLazy(
    const Message& m, const FieldDescriptor* field) const {
  auto it = lazy_.find(&m);
  if (it == lazy_.end()) return nullptr;
  for (const LazyField& lazy : it->second) {
    if (lazy.field == field) return &lazy;
  }
  return nullptr;
}

void HoleyMessageWriter::ForEachElement(const LazyField& lazy,
                                        const std::function<void(const Message&)>& fn) {
  std::unique_ptr<Message> storage;
  for (int64_t i = 0; i < lazy.count && status_.ok(); ++i) {
    absl::StatusOr<const Message*> element = lazy.make(i, storage);
    if (!element.ok()) {
      status_ = element.status();
      return;
    }
    fn(**element);
  }
}

uint64_t HoleyMessageWriter::ByteSize(const Message& m) {
  if (!ContainsHoles(m)) return m.ByteSizeLong();
  if (auto it = sizes_.find(&m); it != sizes_.end()) return it->second;
  m.ByteSizeLong();  // caches the sizes WireFormat's field serialization relies on
  const auto hole = holes_.find(&m);
  uint64_t size = 0;
  for (const FieldDescriptor* field : FieldsOf(m)) {
    if (hole != holes_.end() && field == hole->second.field) {
      size += TagSize(field) + VarintSize(hole->second.size) + hole->second.size;
    } else if (const LazyField* lazy = FindLazy(m, field)) {
      ForEachElement(*lazy, [&](const Message& element) {
        const uint64_t sub_size = ByteSize(element);
        size += TagSize(field) + VarintSize(sub_size) + sub_size;
      });
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      for (const Message* sub : SubMessages(m, field)) {
        const uint64_t sub_size = ByteSize(*sub);
        size += TagSize(field) + VarintSize(sub_size) + sub_size;
      }
    } else {
      size += WireFormat::FieldByteSize(field, m);
    }
  }
  size += WireFormat::ComputeUnknownFieldsSize(m.GetReflection()->GetUnknownFields(m));
  sizes_[&m] = size;
  return size;
}

absl::Status HoleyMessageWriter::Write(const Message& root, std::ostream& os) {
  ByteSize(root);
  if (!status_.ok()) return status_;
  google::protobuf::io::OstreamOutputStream stream(&os);
  absl::Status status;
  {
    CodedOutputStream out(&stream);
    std::function<void(const Message&)> write = [&](const Message& m) {
      if (!status.ok()) return;
      if (!ContainsHoles(m)) {
        m.ByteSizeLong();
        m.SerializeWithCachedSizes(&out);
        return;
      }
      ByteSize(m);  // sizes cached for m and below
      const auto hole = holes_.find(&m);
      for (const FieldDescriptor* field : FieldsOf(m)) {
        if (hole != holes_.end() && field == hole->second.field) {
          WriteLengthDelimitedTag(field, hole->second.size, out);
          uint64_t written = 0;
          status = hole->second.producer([&](absl::Span<const uint8_t> bytes) {
            out.WriteRaw(bytes.data(), static_cast<int>(bytes.size()));
            written += bytes.size();
            return out.HadError() ? absl::DataLossError("write failed") : absl::OkStatus();
          });
          if (status.ok() && written != hole->second.size) {
            status = absl::InternalError("a tensor produced a different number of bytes");
          }
          if (!status.ok()) return;
        } else if (const LazyField* lazy = FindLazy(m, field)) {
          ForEachElement(*lazy, [&](const Message& element) {
            if (!status.ok()) return;
            WriteLengthDelimitedTag(field, ByteSize(element), out);
            if (!ContainsHoles(element)) {
              element.SerializeWithCachedSizes(&out);
            } else {
              write(element);
            }
          });
          if (!status_.ok()) status = status_;
          if (!status.ok()) return;
        } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
          for (const Message* sub : SubMessages(m, field)) {
            WriteLengthDelimitedTag(field, ByteSize(*sub), out);
            if (!ContainsHoles(*sub)) {
              sub->SerializeWithCachedSizes(&out);
            } else {
              write(*sub);
            }
            if (!status.ok()) return;
          }
        } else {
          WireFormat::SerializeFieldWithCachedSizes(field, m, &out);
        }
      }
      const auto& unknown = m.GetReflection()->GetUnknownFields(m);
      if (!unknown.empty()) WireFormat::SerializeUnknownFields(unknown, &out);
    };
    write(root);
    if (status.ok() && out.HadError()) status = absl::DataLossError("write failed");
  }
  return status;
}

}  // namespace anvil
