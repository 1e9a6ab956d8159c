#include "graph/op_table.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"

namespace anvil {
namespace {

constexpr OpInfo kOps[] = {
#define ANVIL_OP(domain, op_type, since, last, traits) {domain, op_type, since, last, traits},
#include "graph/op_list.inc"
#undef ANVIL_OP
};

// "domain:op" -> the first row of the op (rows of one op are adjacent).
const absl::flat_hash_map<std::string, int>& Index() {
  static const auto* index = [] {
    auto* map = new absl::flat_hash_map<std::string, int>();
    for (int i = 0; i < static_cast<int>(std::size(kOps)); ++i) {
      map->try_emplace(absl::StrCat(AsAbsl(kOps[i].domain), ":", AsAbsl(kOps[i].op_type)), i);
    }
    return map;
  }();
  return *index;
}

int FirstRow(std::string_view domain, std::string_view op_type) {
  if (domain == "ai.onnx") domain = "";
  // Without allocating: the hot path (shape inference, kernel creation) asks once per node.
  char key[128];
  if (domain.size() + op_type.size() + 1 > sizeof(key)) return -1;
  std::copy(domain.begin(), domain.end(), key);
  key[domain.size()] = ':';
  std::copy(op_type.begin(), op_type.end(), key + domain.size() + 1);
  const auto& index = Index();
  auto it = index.find(absl::string_view(key, domain.size() + 1 + op_type.size()));
  return it == index.end() ? -1 : it->second;
}

}  // namespace

absl::Span<const OpInfo> AllOps() { return kOps; }

const OpInfo* FindOp(std::string_view domain, std::string_view op_type, int64_t opset) {
  int i = FirstRow(domain, op_type);
  if (i < 0) return nullptr;
  const std::string_view row_domain = kOps[i].domain;
  for (; i < static_cast<int>(std::size(kOps)) && kOps[i].op_type == op_type &&
         kOps[i].domain == row_domain;
       ++i) {
    if (opset >= kOps[i].since_version && opset <= kOps[i].last_version) return &kOps[i];
  }
  return nullptr;
}

const OpInfo* FindOpAnyVersion(std::string_view domain, std::string_view op_type) {
  const int i = FirstRow(domain, op_type);
  return i < 0 ? nullptr : &kOps[i];
}

int RowToBind(const char* domain, const char* op_type) {
  const int i = FirstRow(domain, op_type);
  if (i < 0) {
    std::cerr << "anvil: internal error: a registry binds " << domain << (*domain ? "." : "")
              << op_type << ", which graph/op_list.inc does not list\n";
    std::abort();
  }
  return i;
}

int ReduceAxesInput(std::string_view op_type, int64_t opset) {
  return opset >= (op_type == "ReduceSum" ? 13 : 18) ? 1 : -1;
}

bool HasTrait(const Node& node, OpTrait trait) {
  const OpInfo* op = FindOpAnyVersion(node.domain(), node.op_type());
  return op != nullptr && op->Has(trait);
}

bool IsRandom(const Node& node) {
  const OpInfo* op = FindOpAnyVersion(node.domain(), node.op_type());
  if (op == nullptr) return false;
  if (op->Has(kRandom)) return true;
  if (!op->Has(kRandomInTraining)) return false;
  if (node.GetInt("is_test", 1) == 0) return true;
  return node.num_inputs() > 2 && node.input(2) != nullptr;
}

}  // namespace anvil
