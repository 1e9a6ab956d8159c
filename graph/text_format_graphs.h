// The structural part of the ONNX text printer (private to //graph:text_format): the model
// header, graphs with their inputs, outputs, initializers and value_info, and nodes, over the
// value printer (text_format_values.h), for which it writes graph attributes. Its .cc file also
// holds the printer's entry points of text_format.h (PrintModel, PrintGraph, PrintNode).
//
// Contracts (text_format.h states the syntax and what the text keeps): nothing fails; names
// the parser could not read are printed sanitized and unique (TextWriter::ValueName), and every
// kind of information the text drops is reported through TextWriter::Loss.
#ifndef ANVIL_GRAPH_TEXT_FORMAT_GRAPHS_H_
#define ANVIL_GRAPH_TEXT_FORMAT_GRAPHS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "graph/ir.h"
#include "graph/text_format_values.h"

namespace anvil::text_format_internal {

class GraphPrinter final : public ValuePrinter {
 public:
  using ValuePrinter::ValuePrinter;

  // The `<...>` header, the main graph and a newline.
  void AppendModel(const Model& m);

  // `name (inputs) => (outputs) <initializers, value_info> {nodes}`, starting at the current
  // position, with continuation lines and the closing brace at `indent`. A nameless graph is
  // printed nameless when `fallback_name` is empty, else under that name.
  void AppendGraph(const Graph& g, int indent, absl::string_view fallback_name);

  // `outs = Domain.Op <attrs> (ins)  # name`, continuation lines at `indent`.
  void AppendNode(const Node& n, int indent);

 protected:
  std::string GraphText(const Graph& g, int indent, absl::string_view fallback_name) override;

 private:
  // The printed names of the outputs or inputs of `n`, an omitted slot empty; an omitted first
  // slot, which the 1.12 syntax cannot leave empty, gets an unused name (outputs) or `""`.
  std::vector<std::string> SlotNames(const Node& n, bool outputs);
};

}  // namespace anvil::text_format_internal

#endif  // ANVIL_GRAPH_TEXT_FORMAT_GRAPHS_H_
