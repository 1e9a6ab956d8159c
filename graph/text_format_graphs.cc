#include "graph/text_format_graphs.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/text_format_syntax.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace text_format_internal {

void GraphPrinter::AppendModel(const Model& m) {
  std::vector<std::string> fields;
  fields.push_back(absl::StrCat("ir_version: ", m.ir_version));
  std::vector<std::string> opsets;
  for (const OpsetImport& o : m.opset_imports) {
    opsets.push_back(absl::StrCat(Quote(o.domain), " : ", o.version));
  }
  fields.push_back(absl::StrCat("opset_import: [", absl::StrJoin(opsets, ", "), "]"));
  if (!m.producer_name.empty()) {
    fields.push_back(absl::StrCat("producer_name: ", Quote(m.producer_name)));
  }
  if (!m.producer_version.empty()) {
    fields.push_back(absl::StrCat("producer_version: ", Quote(m.producer_version)));
  }
  if (!m.domain.empty()) fields.push_back(absl::StrCat("domain: ", Quote(m.domain)));
  if (m.model_version != 0) {
    fields.push_back(absl::StrCat("model_version: ", m.model_version));
  }
  if (!m.doc_string.empty()) {
    fields.push_back(absl::StrCat("doc_string: ", Quote(m.doc_string)));
  }
  if (!m.metadata_props.empty()) {
    std::vector<std::string> props;
    for (const auto& [key, value] : m.metadata_props) {
      props.push_back(absl::StrCat(Quote(key), " : ", Quote(value)));
    }
    fields.push_back(absl::StrCat("metadata_props: [", absl::StrJoin(props, ", "), "]"));
  }
  out() += "<\n";
  for (size_t i = 0; i < fields.size(); ++i) {
    absl::StrAppend(&out(), "  ", fields[i], i + 1 < fields.size() ? ",\n" : "\n");
  }
  out() += ">\n";
  for (const std::string& f : m.opaque.functions) {
    onnx::FunctionProto fn;
    fn.ParseFromString(f);
    Loss("model-local functions are not kept", fn.name());
  }
  if (!m.opaque.training_info.empty()) Loss("training info is not kept", "training_info");
  AppendGraph(m.graph(), /*indent=*/0, /*fallback_name=*/"");
  out() += "\n";
}

void GraphPrinter::AppendGraph(const Graph& g, int indent, absl::string_view fallback_name) {
  std::string name = g.name();
  if (!IsIdentifier(name) || IsTypeKeyword(name)) {
    // The main graph may be nameless; a graph attribute needs a name to be
    // seen as a graph.
    if (!(name.empty() && fallback_name.empty())) {
      const std::string original = name;
      name = SanitizeIdentifier(name.empty() ? fallback_name : name);
      Loss("graph names are changed to identifiers", original.empty() ? name : original);
    }
  }
  if (!g.doc_string().empty()) Loss("graph doc strings are not kept", name);
  if (!g.opaque().sparse_initializers.empty()) {
    Loss("sparse initializers are not kept", name);
  }
  if (!g.opaque().quantization_annotations.empty()) {
    Loss("quantization annotations are not kept", name);
  }

  std::vector<ListItem> inputs;
  for (const Value* v : g.inputs()) {
    if (v->IsInitializer()) {
      inputs.push_back(InitializerItem(*v));
    } else {
      inputs.push_back({TypedName(*v), ""});
    }
    NoteDocStrings(*v);
  }
  std::vector<ListItem> outputs;
  for (const Value* v : g.outputs()) outputs.push_back({TypedName(*v), ""});

  std::vector<ListItem> value_infos;
  for (const Value* v : g.initializers()) {
    if (v->IsGraphInput()) continue;
    value_infos.push_back(InitializerItem(*v));
    NoteDocStrings(*v);
  }
  for (const Value* v : g.value_info()) {
    value_infos.push_back({TypedName(*v), ""});
    NoteDocStrings(*v);
  }
  for (const std::string& serialized : g.opaque().orphan_value_infos) {
    onnx::ValueInfoProto vi;
    vi.ParseFromString(serialized);
    std::string type;
    std::string text = ValueName(vi.name());
    if (vi.has_type() && AppendTypeProto(&type, vi.type(), vi.name())) {
      text = absl::StrCat(type, " ", text);
    }
    value_infos.push_back({std::move(text), ""});
  }

  if (!name.empty()) absl::StrAppend(&out(), name, " ");
  AppendList(inputs, '(', ')', indent);
  out() += " => ";
  AppendList(outputs, '(', ')', indent);
  if (!value_infos.empty()) {
    out() += "\n";
    Indent(indent);
    AppendList(value_infos, '<', '>', indent, /*multiline=*/true);
    out() += "\n";
    Indent(indent);
    out() += "{\n";
  } else {
    out() += " {\n";
  }
  for (const Node* n : g.nodes()) {
    Indent(indent + 2);
    AppendNode(*n, indent + 2);
    out() += "\n";
  }
  Indent(indent);
  out() += "}";
}

std::vector<std::string> GraphPrinter::SlotNames(const Node& n, bool outputs) {
  const int count = outputs ? n.num_outputs() : n.num_inputs();
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    const Value* v = outputs ? n.output(i) : n.input(i);
    if (v != nullptr) {
      names.push_back(ValueName(v->name()));
    } else if (i > 0) {
      names.push_back("");
    } else if (outputs) {
      // The 1.12 parser reads an empty first slot as an empty list; an unused
      // fresh name means the same to the op.
      names.push_back(FreshName("_unused"));
      Loss("leading omitted outputs are given an unused name", n.Describe());
    } else {
      // Newer parsers read `""`; 1.12 has no spelling for an empty first
      // input.
      names.push_back("\"\"");
      Loss("leading omitted inputs do not parse", n.Describe());
    }
  }
  return names;
}

void GraphPrinter::AppendNode(const Node& n, int indent) {
  const std::vector<std::string> outs = SlotNames(n, /*outputs=*/true);
  absl::StrAppend(&out(), SlotList(outs), outs.empty() ? "= " : " = ");

  std::string op;
  if (!n.domain().empty()) {
    for (absl::string_view part : absl::StrSplit(n.domain(), '.')) {
      if (!IsIdentifier(part)) Loss("op domains that are not dotted identifiers", n.domain());
    }
    absl::StrAppend(&op, n.domain(), ".");
  }
  if (!IsIdentifier(n.op_type())) Loss("op types that are not identifiers", n.op_type());
  absl::StrAppend(&op, n.op_type());
  out() += op;

  if (!n.attributes().empty()) {
    std::vector<ListItem> attrs;
    bool multiline = false;
    for (const Attribute& a : n.attributes()) {
      attrs.push_back(AttributeItem(a, indent + 2, &multiline));
    }
    out() += " ";
    AppendList(attrs, '<', '>', indent, multiline);
  }

  // Named after the attributes, in text order: sanitized names are handed out in that order.
  absl::StrAppend(&out(), " (", SlotList(SlotNames(n, /*outputs=*/false)), ")");

  if (!n.name().empty()) {
    Loss("node names are not kept", n.name());
    if (options().node_name_comments) absl::StrAppend(&out(), "  # ", OneLine(n.name()));
  }
  if (!n.doc_string().empty()) Loss("node doc strings are not kept", n.Describe());
}

std::string GraphPrinter::GraphText(const Graph& g, int indent, absl::string_view fallback_name) {
  std::string saved = std::move(out());
  out().clear();
  AppendGraph(g, indent, fallback_name);
  std::string text = std::move(out());
  out() = std::move(saved);
  return text;
}

}  // namespace text_format_internal

std::string PrintModel(const Model& model, const PrintOptions& options) {
  text_format_internal::GraphPrinter printer(&model, options);
  printer.AppendModel(model);
  return std::move(printer.out());
}

std::string PrintGraph(const Graph& graph, const PrintOptions& options) {
  text_format_internal::GraphPrinter printer(graph.model(), options);
  printer.AppendGraph(graph, /*indent=*/0, /*fallback_name=*/"graph");
  printer.out() += "\n";
  return std::move(printer.out());
}

std::string PrintNode(const Node& node, const PrintOptions& options) {
  const Model* model = node.graph() != nullptr ? node.graph()->model() : nullptr;
  text_format_internal::GraphPrinter printer(model, options);
  printer.AppendNode(node, /*indent=*/0);
  return std::move(printer.out());
}

}  // namespace anvil
