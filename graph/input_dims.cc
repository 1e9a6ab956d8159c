#include "graph/input_dims.h"

#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace anvil {
absl::Status ParseInputDims(const std::string& text, InputDims* dims) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is not NAME=D0,D1,... (an input's dims)"));
  }
  const std::string name(text.substr(0, eq));
  std::vector<int64_t> values;
  for (absl::string_view d : absl::StrSplit(text.substr(eq + 1), ',', absl::SkipEmpty())) {
    int64_t n;
    if (!absl::SimpleAtoi(d, &n) || n < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", text, "': '", d, "' is not a dim (an integer >= 0)"));
    }
    values.push_back(n);
  }
  if (!dims->emplace(name, std::move(values)).second) {
    return absl::InvalidArgumentError(absl::StrCat("input '", name, "' is given dims twice"));
  }
  return absl::OkStatus();
}

absl::Status FixInputDims(Model& model, const InputDims& dims) {
  Graph& graph = model.graph();
  absl::flat_hash_map<std::string, Value*> inputs;
  std::vector<std::string> names;
  for (Value* in : graph.inputs()) {
    if (in->IsInitializer()) continue;
    inputs[in->name()] = in;
    names.push_back(absl::StrCat("'", in->name(), "'"));
  }
  // First every check and the symbols' values; then the rewrite, so that an error changes nothing.
  absl::flat_hash_map<std::string, std::pair<int64_t, std::string>> symbols;  // value, where
  for (const auto& [name, given] : dims) {
    auto it = inputs.find(name);
    if (it == inputs.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("dims given for '", name, "', which is no input of the model (its inputs: ",
                       names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
    }
    const Type& type = it->second->type();
    if (!type.is_tensor()) {
      return absl::InvalidArgumentError(absl::StrCat("input '", name, "' is ", type.ToString(),
                                                     ", not a tensor: its dims cannot be fixed"));
    }
    if (!type.has_shape()) continue;
    if (type.rank() != static_cast<int64_t>(given.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", name, "' is ", type.ToString(), " (rank ", type.rank(),
                       "); given ", given.size(), " dims [", absl::StrJoin(given, ","), "]"));
    }
    for (size_t k = 0; k < given.size(); ++k) {
      const Dim& d = type.shape()[k];
      const std::string where = absl::StrCat("input '", name, "' axis ", k);
      if (d.is_literal() && *d.value != given[k]) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, " is ", *d.value, "; given ", given[k]));
      }
      if (!d.is_param()) continue;
      auto [seen, inserted] = symbols.try_emplace(d.param, given[k], where);
      if (!inserted && seen->second.first != given[k]) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, " is ", d.param, ", given ", given[k], "; but ", seen->second.second,
            " is the same ", d.param, ", given ", seen->second.first));
      }
    }
  }
  for (Value* in : graph.inputs()) {
    if (in->IsInitializer() || !in->type().is_tensor() || !in->type().has_shape()) continue;
    auto given = dims.find(in->name());
    std::vector<Dim> shape = in->type().shape();
    bool changed = false;
    for (size_t k = 0; k < shape.size(); ++k) {
      Dim& d = shape[k];
      std::optional<int64_t> value;
      if (given != dims.end()) value = given->second[k];
      if (d.is_param()) {
        auto s = symbols.find(d.param);
        if (s != symbols.end()) value = s->second.first;
      }
      if (!value.has_value() || d.is_literal()) continue;
      d = Dim::Literal(*value);
      changed = true;
    }
    if (changed) in->set_type(Type::Tensor(in->type().element_type(), std::move(shape)));
  }
  // An input of unknown rank takes the given dims whole.
  for (const auto& [name, given] : dims) {
    Value* in = inputs[name];
    if (in->type().has_shape()) continue;
    std::vector<Dim> shape;
    for (int64_t d : given) shape.push_back(Dim::Literal(d));
    in->set_type(Type::Tensor(in->type().element_type(), std::move(shape)));
  }
  return absl::OkStatus();
}

}  // namespace anvil
