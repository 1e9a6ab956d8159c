#include "shape/shapes_report.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "shape/dim_ranges.h"
#include "shape/index_expr.h"

namespace anvil {
namespace {

class Reporter {
 public:
  explicit Reporter(ShapesReport* report) : report_(*report) {}

  void ReportGraph(const Graph& g, const std::string& title, int depth) {
    const std::string indent(2 * depth, ' ');
    absl::StrAppend(&report_.text, indent, title, "\n");
    for (const Value* v : g.inputs()) ReportValue(*v, depth + 1);
    for (const Node* n : g.nodes()) {
      for (const Value* v : n->outputs()) {
        if (v == nullptr) continue;
        // SequenceEmpty's output has no element whose rank could be unknown.
        if (n->op_type() == "SequenceEmpty" && n->domain().empty()) {
          ReportEmptySequence(*v, depth + 1);
        } else {
          ReportValue(*v, depth + 1);
        }
      }
      for (const Attribute& a : n->attributes()) {
        for (const auto& sub : a.graphs) {
          const std::string who = n->name().empty() ? n->op_type() : n->name();
          ReportGraph(*sub, absl::StrCat(n->op_type(), " ", who, " ", a.name()), depth + 1);
        }
      }
    }
  }

 private:
  // A tensor type's dims (a sequence's or optional's element's).
  static const Type* TensorOf(const Type& t) {
    if (t.is_sequence() || t.is_optional()) return TensorOf(t.elem());
    return t.is_tensor() ? &t : nullptr;
  }

  void ReportEmptySequence(const Value& v, int depth) {
    if (v.name().empty()) return;
    absl::StrAppend(&report_.text, std::string(2 * depth, ' '), v.name(), ": ", v.type().ToString(),
                    "  (empty)\n");
  }

  void ReportValue(const Value& v, int depth) {
    if (v.name().empty()) return;
    absl::StrAppend(&report_.text, std::string(2 * depth, ' '), v.name(), ": ",
                    v.type().has_value() ? v.type().ToString() : "(no type)");
    const Type* t = TensorOf(v.type());
    if (t == nullptr || !t->has_shape()) {
      ++report_.untyped;
      report_.text += "\n";
      return;
    }
    std::vector<std::string> ranges;
    for (const Dim& d : t->shape()) {
      if (d.is_literal()) {
        ++report_.literal;
        continue;
      }
      if (d.is_unknown()) {
        ++report_.unknown;
        continue;
      }
      const IndexRange r = RangeOf(IndexExpr::FromDimParam(d.param));
      ++(r.hi.has_value() ? report_.bounded : report_.unbounded);
      ranges.push_back(absl::StrCat(d.param, " in ",
                                    RangeToString({std::max<int64_t>(r.lo.value_or(0), 0), r.hi})));
    }
    if (!ranges.empty()) absl::StrAppend(&report_.text, "  ", absl::StrJoin(ranges, ", "));
    report_.text += "\n";
  }

  ShapesReport& report_;
};

}  // namespace

absl::StatusOr<ShapesReport> ReportShapes(Model& model) {
  ScopedIndexExprContext scope;
  ShapesReport report;
  std::string problem;
  const std::vector<SymbolRange> ranges = ModelRangesOrNone(model, &problem);
  if (!problem.empty()) absl::StrAppend(&report.text, "warning: ", problem, "\n");
  if (absl::Status s = DeclareRanges(ranges); !s.ok()) return s;
  Reporter(&report).ReportGraph(model.graph(), absl::StrCat("graph ", model.graph().name()), 0);
  absl::StrAppend(&report.text, "dims: ", report.literal, " literal, ", report.bounded,
                  " bounded, ", report.unbounded, " unbounded, ", report.unknown, " unknown; ",
                  report.untyped, " values of unknown rank or type\n");
  return report;
}

}  // namespace anvil
