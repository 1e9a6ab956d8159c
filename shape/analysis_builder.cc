#include "shape/analysis_builder.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "shape/tensor_info.h"

namespace anvil {

void ShapeState::Set(const Value* v, TensorInfo info) {
  if (const int64_t slot = Slot(v); slot >= 0) {
    infos_[slot] = std::move(info);
    return;
  }
  if (v->id() >= slot_by_id_.size()) slot_by_id_.resize(v->id() + 1, -1);
  slot_by_id_[v->id()] = static_cast<int64_t>(infos_.size());
  infos_.push_back(std::move(info));
}

const TensorInfo& ShapeState::Get(const Value* v) {
  if (const int64_t slot = Slot(v); slot >= 0) return infos_[slot];
  TensorInfo info;
  if (std::shared_ptr<const Elements> c = ConstantOf(v)) {
    info = InfoFromElements(*c);
  } else {
    info = InfoFromType(v->type());
  }
  if (v->id() >= slot_by_id_.size()) slot_by_id_.resize(v->id() + 1, -1);
  slot_by_id_[v->id()] = static_cast<int64_t>(infos_.size());
  infos_.push_back(std::move(info));
  return infos_.back();
}

std::shared_ptr<const Elements> ShapeState::ConstantOf(const Value* v) {
  if (v == nullptr) return nullptr;
  if (v->IsInitializer()) {
    // An initializer that is also a graph input can be overridden at run time: not a constant.
    return v->IsGraphInput() ? nullptr : v->constant();
  }
  const Node* producer = v->producer();
  if (producer == nullptr || producer->op_type() != "Constant" || !producer->domain().empty()) {
    return nullptr;
  }
  const Attribute* value = producer->FindAttribute("value");
  if (value == nullptr || value->type() != AttributeType::kTensor || value->tensors.empty()) {
    return nullptr;
  }
  return value->tensors[0].elements;
}

bool AnalysisBuilder::HasInput(int i) const {
  return i >= 0 && i < node_.num_inputs() && node_.input(i) != nullptr;
}

TensorInfo AnalysisBuilder::Input(int i) const {
  if (!HasInput(i)) return TensorInfo{};
  return state_.Get(node_.input(i));
}

std::shared_ptr<const Elements> AnalysisBuilder::InputConstant(int i) const {
  if (!HasInput(i)) return nullptr;
  return ShapeState::ConstantOf(node_.input(i));
}

namespace {

// What identifies `node` among every node of the model: its first named output (names are
// unique within a graph), after the path of the subgraphs it is in (the owner's own path and the
// attribute holding the graph, so that an If's two branches differ).
std::string NodePath(const Node& node) {
  std::string own;
  for (const Value* v : node.outputs()) {
    if (v != nullptr && !v->name().empty()) {
      own = v->name();
      break;
    }
  }
  if (own.empty()) own = node.name();
  const Node* owner = node.graph()->owner_node();
  if (owner == nullptr) return own;
  std::string attribute;
  for (const Attribute& a : owner->attributes()) {
    for (const auto& g : a.graphs) {
      if (g.get() == node.graph()) attribute = a.name();
    }
  }
  return absl::StrCat(NodePath(*owner), "/", attribute, "/", own);
}

}  // namespace

std::string DataDependentSymbolName(const Node& node, std::string_view suffix) {
  const std::string source = NodePath(node);
  std::string name;
  for (char c : source) {
    if (absl::ascii_isalnum(static_cast<unsigned char>(c))) {
      name.push_back(c);
    } else if (!name.empty() && name.back() != '_') {
      name.push_back('_');
    }
  }
  if (!name.empty() && name.back() == '_') name.pop_back();
  if (name != source) {
    // Two paths may read the same once made identifiers ("a.b", "a_b"): the path's own hash
    // (FNV-1a, the same in every process) keeps them apart.
    uint32_t hash = 2166136261u;
    for (char c : source) hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
    absl::StrAppend(&name, name.empty() ? "" : "_", absl::Hex(hash & 0xffffff, absl::kZeroPad6));
  }
  if (name.find(node.op_type()) == std::string::npos) {
    name = absl::StrCat(node.op_type(), "_", name);
  }
  return absl::StrCat(name, "_", std::string(suffix));
}

IndexExpr AnalysisBuilder::DataDependentDim(const Node& node, std::string_view suffix,
                                            const IndexExpr& lo, const IndexExpr& hi) const {
  if (!bounded_dims_) return IndexExpr::Questionmark();
  const int64_t low = std::max<int64_t>(RangeOf(lo).lo.value_or(0), 0);
  std::optional<int64_t> high = RangeOf(hi).hi;
  if (high.has_value() && *high < low) high = low;  // an empty range: the bounds disagree
  return IndexExpr::BoundedSymbol(DataDependentSymbolName(node, suffix), low, high);
}

absl::StatusOr<std::vector<TensorInfo>> AnalysisBuilder::InferSubgraph(
    const Graph& body, const std::vector<TensorInfo>& inputs) const {
  if (subgraphs_ == nullptr) return IndexExprBuilder::InferSubgraph(body, inputs);
  return (*subgraphs_)(body, inputs);
}

}  // namespace anvil
