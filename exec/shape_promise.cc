#include "exec/shape_promise.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/checked_math.h"
#include "exec/interpreter.h"
#include "graph/elements.h"
#include "shape/index_expr.h"
#include "shape/shape_inference.h"

namespace anvil {
namespace {

// `t` with no dims (element type and kind kept), sequence and optional elements too.
Type WithoutDims(const Type& t) {
  if (t.is_sequence()) return Type::Sequence(WithoutDims(t.elem()));
  if (t.is_optional()) return Type::Optional(WithoutDims(t.elem()));
  if (!t.is_tensor() || !t.has_shape()) return t;
  Type out = t;
  out.clear_shape();
  return out;
}

// An inferred dim or value as plain data (IndexExprs live in inference's context, which is gone
// by the time the run compares): constant + sum of coeff * product of atoms.
struct Poly;
struct Atom {
  IndexAtom::Kind kind;
  std::string name;           // kSymbol
  uint64_t questionmark = 0;  // kQuestionmark
  std::vector<Poly> args;     // kFloorDiv {numerator, divisor}, kMin, kMax
};
struct Poly {
  int64_t constant = 0;
  std::vector<std::pair<int64_t, std::vector<Atom>>> terms;
};

std::optional<Poly> ToPoly(const IndexExpr& e) {
  std::optional<IndexExprStructure> s = Decompose(e);
  if (!s) return std::nullopt;
  Poly p;
  p.constant = s->constant;
  for (const IndexTerm& t : s->terms) {
    std::vector<Atom> factors;
    for (const IndexAtom& a : t.factors) {
      Atom atom{a.kind, a.name, a.questionmark_id, {}};
      for (const IndexExpr& arg : a.args) {
        std::optional<Poly> q = ToPoly(arg);
        if (!q) return std::nullopt;
        atom.args.push_back(*std::move(q));
      }
      factors.push_back(std::move(atom));
    }
    p.terms.emplace_back(t.coeff, std::move(factors));
  }
  return p;
}

// The symbol `p` is, when it is exactly one.
const std::string* LoneSymbol(const Poly& p) {
  if (p.constant != 0 || p.terms.size() != 1 || p.terms[0].first != 1 ||
      p.terms[0].second.size() != 1 || p.terms[0].second[0].kind != IndexAtom::Kind::kSymbol) {
    return nullptr;
  }
  return &p.terms[0].second[0].name;
}

// The questionmark `p` is, when it is exactly one.
std::optional<uint64_t> LoneQuestionmark(const Poly& p) {
  if (p.constant != 0 || p.terms.size() != 1 || p.terms[0].first != 1 ||
      p.terms[0].second.size() != 1 ||
      p.terms[0].second[0].kind != IndexAtom::Kind::kQuestionmark) {
    return std::nullopt;
  }
  return p.terms[0].second[0].questionmark;
}

// What the symbols (named dims of the inputs) and questionmarks (unknown dims, identified by
// inference) are in this run; nullopt: bound to two different sizes.
struct Sizes {
  absl::flat_hash_map<std::string, std::optional<int64_t>> symbols;
  absl::flat_hash_map<uint64_t, int64_t> questionmarks;
};

std::optional<int64_t> Evaluate(const Poly& p, const Sizes& sizes) {
  std::optional<int64_t> sum = p.constant;
  for (const auto& [coeff, factors] : p.terms) {
    std::optional<int64_t> product = coeff;
    for (const Atom& a : factors) {
      std::optional<int64_t> x;
      switch (a.kind) {
        case IndexAtom::Kind::kSymbol:
          if (auto it = sizes.symbols.find(a.name); it != sizes.symbols.end()) x = it->second;
          break;
        case IndexAtom::Kind::kQuestionmark:
          if (auto it = sizes.questionmarks.find(a.questionmark); it != sizes.questionmarks.end()) {
            x = it->second;
          }
          break;
        case IndexAtom::Kind::kFloorDiv: {
          std::optional<int64_t> n = Evaluate(a.args[0], sizes);
          std::optional<int64_t> d = Evaluate(a.args[1], sizes);
          if (!n || !d || *d == 0 || (*d == -1 && *n == INT64_MIN)) return std::nullopt;
          x = *n / *d - ((*n % *d != 0) && ((*n < 0) != (*d < 0)) ? 1 : 0);
          break;
        }
        case IndexAtom::Kind::kMin:
        case IndexAtom::Kind::kMax:
          for (const Poly& arg : a.args) {
            std::optional<int64_t> v = Evaluate(arg, sizes);
            if (!v) return std::nullopt;
            if (!x || (a.kind == IndexAtom::Kind::kMin ? *v < *x : *v > *x)) x = v;
          }
          break;
      }
      if (!x) return std::nullopt;
      product = CheckedMul(*product, *x);
      if (!product) return std::nullopt;
    }
    sum = CheckedAdd(*sum, *product);
    if (!sum) return std::nullopt;
  }
  return sum;
}

// What inference promised about one value.
struct Promise {
  std::optional<std::vector<std::optional<Poly>>> dims;  // nullopt: rank unknown
  std::vector<IndexRange> ranges;                        // of each dim, as inferred
  std::optional<std::vector<std::optional<Poly>>> values;
  std::string text;  // as inferred, e.g. "[N, 3]"
};

std::vector<std::optional<Poly>> ToPolys(const IndexExprList& exprs) {
  std::vector<std::optional<Poly>> out;
  for (const IndexExpr& e : exprs) out.push_back(ToPoly(e));
  return out;
}

std::string Where(const Value& v) {
  if (v.producer() != nullptr) {
    return absl::StrCat("value '", v.name(), "' (output ", v.producer_output(), " of ",
                        v.producer()->Describe(), ")");
  }
  const Node* owner = v.graph()->owner_node();
  return absl::StrCat("input '", v.name(), "' of graph '", v.graph()->name(), "'",
                      owner != nullptr ? absl::StrCat(" (body of ", owner->Describe(), ")") : "");
}

// "N = 2, ? = 3" for the sizes the promise's atoms had.
void AppendSizes(const Poly& p, const Sizes& sizes, std::vector<std::string>* out) {
  for (const auto& [coeff, factors] : p.terms) {
    for (const Atom& a : factors) {
      if (a.kind == IndexAtom::Kind::kSymbol) {
        auto it = sizes.symbols.find(a.name);
        if (it != sizes.symbols.end() && it->second) {
          out->push_back(absl::StrCat(a.name, " = ", *it->second));
        }
      } else if (a.kind == IndexAtom::Kind::kQuestionmark) {
        auto it = sizes.questionmarks.find(a.questionmark);
        if (it != sizes.questionmarks.end()) out->push_back(absl::StrCat("? = ", it->second));
      }
      for (const Poly& arg : a.args) AppendSizes(arg, sizes, out);
    }
  }
}

std::string SizesText(const std::vector<std::optional<Poly>>& polys, const Sizes& sizes) {
  std::vector<std::string> parts;
  for (const std::optional<Poly>& p : polys) {
    if (p) AppendSizes(*p, sizes, &parts);
  }
  std::vector<std::string> unique;
  for (std::string& s : parts) {
    if (std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(std::move(s));
  }
  return unique.empty() ? "" : absl::StrCat(" with ", absl::StrJoin(unique, ", "));
}

// Checks `actual` against `promised`, learning the sizes of questionmarks and symbols no input
// binds (a data-dependent dim's) that stand alone when `learn` (values of the main graph:
// computed once per run).
bool Keeps(const std::vector<std::optional<Poly>>& promised, const std::vector<int64_t>& actual,
           bool learn, Sizes& sizes, int64_t* compared) {
  if (promised.size() != actual.size()) return false;
  for (size_t k = 0; k < promised.size(); ++k) {
    if (!promised[k]) continue;
    std::optional<int64_t> expected = Evaluate(*promised[k], sizes);
    if (!expected) {
      if (std::optional<uint64_t> q = LoneQuestionmark(*promised[k]); q && learn) {
        sizes.questionmarks[*q] = actual[k];
      } else if (const std::string* name = LoneSymbol(*promised[k]); name != nullptr && learn) {
        sizes.symbols.try_emplace(*name, actual[k]);
      }
      continue;
    }
    ++*compared;
    if (*expected != actual[k]) return false;
  }
  return true;
}

// The first dim of `actual` outside its inferred range, or -1.
int OutOfRange(const std::vector<IndexRange>& ranges, const std::vector<int64_t>& actual,
               ShapePromiseReport* report) {
  for (size_t k = 0; k < ranges.size() && k < actual.size(); ++k) {
    ++report->ranged;
    if (ranges[k].hi.has_value()) ++report->bounded;
    if ((ranges[k].lo && actual[k] < *ranges[k].lo) ||
        (ranges[k].hi && actual[k] > *ranges[k].hi)) {
      return static_cast<int>(k);
    }
  }
  return -1;
}

std::string RangesText(const std::vector<IndexRange>& ranges) {
  std::vector<std::string> parts;
  for (const IndexRange& r : ranges) parts.push_back(RangeToString(r));
  return absl::StrJoin(parts, " x ");
}

}  // namespace

absl::StatusOr<ShapePromiseReport> CheckShapePromises(const Model& model,
                                                      const std::vector<Tensor>& inputs,
                                                      int64_t max_allocation_bytes) {
  ShapePromiseReport report;
  std::unique_ptr<Model> copy = model.Clone();
  Graph& main = copy->graph();
  main.ForEachGraph([&](Graph& g) {
    if (&g != &main) {
      for (Value* v : g.inputs()) v->set_type(WithoutDims(v->type()));
    }
    for (Node* n : g.nodes()) {
      for (Value* v : n->outputs()) {
        if (v != nullptr) v->set_type(WithoutDims(v->type()));
      }
    }
  });

  // The inputs must be ones the model accepts: the declared rank and literal dims.
  for (size_t i = 0; i < main.inputs().size() && i < inputs.size(); ++i) {
    const Value* v = main.inputs()[i];
    const Tensor& t = inputs[i];
    if (!t.defined() || !t.is_tensor() || !v->type().is_tensor() || !v->type().has_shape()) {
      continue;
    }
    bool fits = v->type().rank() == static_cast<int64_t>(t.dims().size());
    for (size_t k = 0; fits && k < t.dims().size(); ++k) {
      const Dim& d = v->type().shape()[k];
      fits = !d.is_literal() || *d.value == t.dims()[k];
    }
    if (!fits) {
      report.skipped = absl::StrCat("input '", v->name(), "' is ", DimsToString(t.dims()),
                                    ", the model declares ", v->type().ToString());
      return report;
    }
  }

  absl::flat_hash_map<const Value*, Promise> promises;
  Sizes sizes;
  {
    ShapeInference inference(*copy);
    absl::StatusOr<bool> inferred = inference.InferAll();
    if (!inferred.ok()) {
      report.skipped = absl::StrCat("shape inference: ", inferred.status().message());
      return report;
    }
    IndexExprContext::Scope scope(inference.context());
    ShapeState& state = inference.state();
    // The sizes the inputs give their dims' symbols.
    for (size_t i = 0; i < main.inputs().size() && i < inputs.size(); ++i) {
      const TensorInfo& info = state.Get(main.inputs()[i]);
      const Tensor& t = inputs[i];
      if (!info.dims || !t.defined() || !t.is_tensor() || info.dims->size() != t.dims().size()) {
        continue;
      }
      for (size_t k = 0; k < info.dims->size(); ++k) {
        const IndexExpr& d = (*info.dims)[k];
        if (!d.IsSymbol()) continue;
        auto [it, added] = sizes.symbols.try_emplace(d.Symbols()[0], t.dims()[k]);
        if (!added && it->second != t.dims()[k]) it->second = std::nullopt;
      }
    }
    auto add = [&](const Value* v) {
      if (v == nullptr || !state.Has(v)) return;
      const TensorInfo& info = state.Get(v);
      if (!info.is_tensor()) return;
      Promise p;
      if (info.dims) {
        p.dims = ToPolys(*info.dims);
        p.text = DimsToString(*info.dims);
        for (const IndexExpr& d : *info.dims) p.ranges.push_back(RangeOf(d));
      } else {
        p.text = "[unknown rank]";
      }
      if (info.values && IsIntegerOrBoolType(info.type)) {
        p.values = ToPolys(*info.values);
        absl::StrAppend(&p.text, " holding ", DimsToString(*info.values));
      }
      promises[v] = std::move(p);
    };
    main.ForEachGraph([&](Graph& g) {
      for (const Value* v : g.inputs()) add(v);
      for (const Node* n : g.nodes()) {
        for (const Value* v : n->outputs()) add(v);
      }
    });
  }

  // Declared input dims are the model's precondition, not a promise: an expression dim such as
  // `2*N + 1` is a name to ONNX Runtime, which runs any size, so inputs that do not satisfy it
  // (N = 2, dim 5) only leave nothing to check.
  for (size_t i = 0; i < main.inputs().size() && i < inputs.size(); ++i) {
    const Value* v = main.inputs()[i];
    auto it = promises.find(v);
    const Tensor& t = inputs[i];
    if (it == promises.end() || !it->second.dims || !t.defined() || !t.is_tensor()) continue;
    const std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
    int64_t compared = 0;
    ShapePromiseReport unused;
    if (const int k = OutOfRange(it->second.ranges, dims, &unused); k >= 0) {
      report.skipped = absl::StrCat(Where(*v), " is ", DimsToString(dims), ", outside the range ",
                                    RangeToString(it->second.ranges[k]), " of its dim ", k);
      return report;
    }
    if (!Keeps(*it->second.dims, dims, /*learn=*/false, sizes, &compared)) {
      report.skipped =
          absl::StrCat(Where(*v), " is ", DimsToString(dims), ", which its declared ",
                       it->second.text, SizesText(*it->second.dims, sizes), " does not allow");
      return report;
    }
  }

  absl::flat_hash_set<const Value*> seen;
  absl::Status broken;
  auto observe = [&](const Value& v, const Tensor& t) -> absl::Status {
    auto it = promises.find(&v);
    if (it == promises.end() || !t.defined() || !t.is_tensor()) return absl::OkStatus();
    const Promise& p = it->second;
    ++report.observations;
    seen.insert(&v);
    const bool learn = v.graph() == &main;
    const std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
    if (const int k = OutOfRange(p.ranges, dims, &report); k >= 0) {
      broken = absl::InternalError(absl::StrCat(Where(v), ": inferred ", p.text, " in ",
                                                RangesText(p.ranges), ", but ", DimsToString(dims),
                                                " at run time (dim ", k, ")"));
      return broken;
    }
    if (p.dims && !Keeps(*p.dims, dims, learn, sizes, &report.dims)) {
      broken = absl::InternalError(absl::StrCat(Where(v), ": inferred ", p.text,
                                                SizesText(*p.dims, sizes), ", but ",
                                                DimsToString(dims), " at run time"));
      return broken;
    }
    if (p.values && t.data() != nullptr) {
      std::vector<int64_t> contents;
      for (int64_t k = 0; k < t.NumElements(); ++k) {
        contents.push_back(ReadElementAsInt64(t.type(), static_cast<const uint8_t*>(t.data()), k));
      }
      if (!Keeps(*p.values, contents, learn, sizes, &report.elements)) {
        broken = absl::InternalError(absl::StrCat(Where(v), ": inferred ", p.text,
                                                  SizesText(*p.values, sizes), ", but holding ",
                                                  DimsToString(contents), " at run time"));
        return broken;
      }
    }
    return absl::OkStatus();
  };
  absl::StatusOr<std::vector<Tensor>> run =
      InterpretGraph(*copy, main, inputs, nullptr, observe, max_allocation_bytes);
  if (!broken.ok()) return broken;
  if (!run.ok()) {
    report.skipped = absl::StrCat("run: ", run.status().message());
    return report;
  }
  report.values = static_cast<int64_t>(seen.size());
  return report;
}

}  // namespace anvil
