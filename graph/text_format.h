// The ONNX textual syntax for Anvil models: what pass tests, `anvil-opt` and
// debug dumps show, and what .onnxtxt files hold.
//
// The syntax is the one ONNX 1.12's `onnx::OnnxParser` (onnx/defs/parser.h)
// reads, and ParseModelText uses that parser, so printed text is plain ONNX:
//
//   <
//     ir_version: 8,
//     opset_import: ["" : 17, "com.microsoft" : 1]
//   >
//   main (float[batch,3] x, float[2] w = {1.0, 2.0}) => (float[batch,3] y)
//   <
//     float[3] bias = {0.5, 0.25, -1.0},
//     float[batch,3] t
//   >
//   {
//     t = Add (x, bias)
//     y, = com.microsoft.Foo <alpha = 0.5, axes = [0, 1]> (t, , w)  # name
//     z = If <
//       then_branch = then_g () => (float s) {
//         s = Identity (t)
//       },
//       ...
//     > (c)
//   }
//
// Types: `float[N,3,?]` (dim_param N, literal 3, unknown ?); `float` is a
// scalar (rank 0), `float[]` a tensor of unknown rank, a bare name has no type.
// Anvil extends the 1.12 syntax with expression dims, the dim_params shape
// inference writes: `float[N, floor((H - 1) / 2) + 1, min(W, 4)]`. A dim made
// only of identifiers, integers, blanks, `+ - * / % ( )`, with commas only
// inside parentheses, is printed verbatim and read back as that dim_param
// (ParseModelText swaps such dims for placeholders around the ONNX parser).
// An input with `= {...}` is also an initializer (old style); the `<...>` list
// after the outputs holds initializers (`= {...}`) and value_info entries. An
// omitted optional input or output is an empty slot: `(a, , c)`, `y, = Op`.
//
// Contract:
//  - PrintModel never fails. For a model using only what the 1.12 syntax can
//    say (any model parsed from text, for one), ParseModelText(PrintModel(m))
//    gives back the same model (equal as binary ONNX), and printing is a fixed
//    point: PrintModel(ParseModelText(PrintModel(m))) == PrintModel(m).
//  - Text keeps: the model header (ir_version, opset_import, producer_name,
//    producer_version, domain, model_version, doc_string, metadata_props),
//    graph and value names, tensor types and dims, initializers (in full with
//    PrintOptions::full_constants), value_info, node order, op domains,
//    attributes of kinds int, float, string, ints, floats, strings, tensor and
//    graph, omitted optional slots, subgraphs and the outer values they use.
//  - Text drops or alters (binary .onnx keeps all of it; PrintOptions::losses
//    reports each kind): node names (shown as trailing `# name` comments,
//    which the parser skips), doc strings below the model, type and dim
//    denotations, model-local functions, training info, sparse initializers,
//    quantization annotations. Names that are not identifiers
//    ([A-Za-z_][A-Za-z0-9_]*) or that are type keywords (`float`, `seq`, ...)
//    are printed sanitized and unique (`onnx::Add_1` -> `onnx__Add_1`); a
//    leading omitted output, which 1.12 cannot spell, gets an unused name.
//  - Non-tensor types (`seq(T)`, `optional(T)`, `map(K, V)`, `sparse_tensor(T)`)
//    print and parse in value lists (the 1.12 parser reads them only as
//    standalone types; ParseModelText stands placeholders in for them).
//  - What the 1.12 parser cannot read at all is printed as newer ONNX spells
//    it, so a dump still shows it but the text does not parse:
//    float16/bfloat16/complex constants, inf/NaN/subnormal floats, strings
//    holding `"`, empty lists, tensor-list/graph-list/sparse/type attributes,
//    a leading omitted input (`""`).
//  - Large constants: unless PrintOptions::full_constants is set, a constant
//    (initializer or tensor attribute) with more than max_elements elements
//    keeps its type and loses its values to a comment
//    `# anvil-elided N values: v0, v1, v2, v3, ...`. Elided text is for
//    reading; ParseModelText rejects it rather than build a model with missing
//    data.
#ifndef ANVIL_GRAPH_TEXT_FORMAT_H_
#define ANVIL_GRAPH_TEXT_FORMAT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ir.h"

namespace anvil {

struct PrintOptions {
  // Constants with more elements than this are elided (see above); negative:
  // never elide.
  int64_t max_elements = 16;
  // Print every constant in full whatever max_elements says: the form that
  // parses back, which saving an .onnxtxt file must use.
  bool full_constants = false;
  // Print node names as trailing `# name` comments.
  bool node_name_comments = true;
  // When set, receives one line per kind of information the text cannot carry,
  // e.g. "node names are not kept: 12, e.g. 'mm0'". Empty: the text is
  // faithful (elision aside).
  std::vector<std::string>* losses = nullptr;
};

// The model in ONNX text syntax: the `<...>` header, then the main graph.
std::string PrintModel(const Model& model, const PrintOptions& options = {});

// One graph as a graph attribute shows it:
// `name (inputs) => (outputs) <...> {nodes}`. For subgraph dumps and debugging;
// values it uses from enclosing graphs appear by name.
std::string PrintGraph(const Graph& graph, const PrintOptions& options = {});

// One node as a graph body shows it, without indentation or trailing newline
// (a node with subgraphs spans several lines). For diagnostics.
std::string PrintNode(const Node& node, const PrintOptions& options = {});

// Parses ONNX text with onnx::OnnxParser and imports it (ImportModelProto).
// Without a `<...>` header, or when the header leaves them out, ir_version is 8
// and opset_import is ["" : 17]. Syntax errors are InvalidArgument with the
// parser's message on one line, e.g.
//   ONNX text: line 3, column 10: Expected character ) not found.
//   [context: `y = Op(, x)`]
// (one line in the message); import errors (an undefined name, tensor data of
// the wrong size) are ImportModelProto's, and so are its warnings (graphs it
// sorted), appended to `warnings` when given. Text nested deeper than import
// accepts (graph/limits.h) is refused before the ONNX parser, which recurses
// without a limit, sees it: "ONNX text: line 9: subgraphs nested deeper than
// 100 levels".
absl::StatusOr<std::unique_ptr<Model>> ParseModelText(std::string_view text,
                                                      std::vector<std::string>* warnings = nullptr);

}  // namespace anvil

#endif  // ANVIL_GRAPH_TEXT_FORMAT_H_
