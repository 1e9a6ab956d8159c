// The part of the ONNX text printer that writes what a graph holds besides its structure
// (private to //graph:text_format): types (`float[N,3]`, `seq(float[2])`), typed value names,
// constants (initializers and tensor attributes, elided or in full) and attributes. Graph
// attributes are written by the graph printer (text_format_graphs.h) through GraphText.
//
// Contracts (text_format.h states the syntax and what the text keeps):
//  - Nothing fails: what the 1.12 syntax cannot say is dropped, changed or written as newer ONNX
//    spells it, and reported through TextWriter::Loss.
//  - AppendType / AppendTypeProto append the type and return true, or append nothing useful and
//    return false when the value must be printed untyped.
//  - A constant with more than PrintOptions::max_elements elements (unless full_constants) loses
//    its values to the elision comment `# anvil-elided N values: v0, ...`, in ListItem::comment
//    or the `comment` argument; the caller places it.
#ifndef ANVIL_GRAPH_TEXT_FORMAT_VALUES_H_
#define ANVIL_GRAPH_TEXT_FORMAT_VALUES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "graph/ir.h"
#include "graph/text_format_writer.h"
#include "onnx/onnx_pb.h"

namespace anvil::text_format_internal {

class ValuePrinter : public TextWriter {
 public:
  using TextWriter::TextWriter;

 protected:
  // `name (inputs) => (outputs) <...> {nodes}` for graph `g`, its continuation lines and closing
  // brace at `indent`; `fallback_name` names a nameless graph.
  virtual std::string GraphText(const Graph& g, int indent, absl::string_view fallback_name) = 0;

  // ---- Types (for value `what`) ----
  bool AppendType(std::string* s, const Type& t, absl::string_view what);
  bool AppendTypeProto(std::string* s, const onnx::TypeProto& t, absl::string_view what);
  // `type name`, or just `name` for a value without a printable type.
  std::string TypedName(const Value& v);
  // Reports the doc strings of `v`, which the text does not keep.
  void NoteDocStrings(const Value& v);

  // ---- Constants ----
  // `float[2] w = {1.0, 2.0}`; elided: `float[2048] w` with the elision comment.
  ListItem InitializerItem(const Value& v);

  // ---- Attributes ----
  // `name = value` for one attribute; sets *multiline when the attribute spans lines (graph
  // bodies) or carries a comment. `indent` is where the attribute's line starts.
  ListItem AttributeItem(const Attribute& a, int indent, bool* multiline);

 private:
  // One dim of a shape: literal when `literal` is set, else `param`, or `?` when that is empty.
  struct DimText {
    std::optional<int64_t> literal;
    std::string param;
  };

  std::string DimParam(const std::string& param);
  // `[d0,d1]` for a shape (nothing for rank 0, `[]` for an unknown rank: no `dims`).
  void AppendShape(std::string* s, const std::optional<std::vector<DimText>>& dims);

  // The tensor type of a constant: element type and literal dims (`float` for a scalar).
  static std::string ConstantType(const Elements& e);
  static Type ConstantIrType(const Elements& e);
  bool ShouldElide(const Elements& e) const;
  std::string ElidedComment(const Elements& e);
  // `{v0, v1, ...}` with every value of `e`.
  void AppendElements(std::string* s, const Elements& e, absl::string_view what);
  // `float[2] {1.0, 2.0}` or `float[2] name {...}` for a tensor attribute value; elided values
  // leave the type and put the comment in `comment`.
  std::string TensorText(const TensorAttr& t, absl::string_view what, std::string* comment);
};

}  // namespace anvil::text_format_internal

#endif  // ANVIL_GRAPH_TEXT_FORMAT_VALUES_H_
