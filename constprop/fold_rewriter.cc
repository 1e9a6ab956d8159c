#include "constprop/fold_rewriter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/checked_math.h"
#include "constprop/gc.h"
#include "shape/analysis_builder.h"

namespace anvil {

std::shared_ptr<const Elements> FoldRewriter::ConstantOf(const Value* v) {
  return ShapeState::ConstantOf(v);
}

void FoldRewriter::ReplaceOutputWithValue(Graph& g, Node* node, int i, Value* replacement,
                                          bool fresh) {
  Value* out = node->output(i);
  if (out == nullptr) return;
  shapes_.MarkUsersDirty(*out);
  if (!out->IsGraphOutput()) {
    out->ReplaceAllUsesWith(replacement);
    return;
  }
  if (fresh && !replacement->IsGraphOutput() && replacement->graph() == &g) {
    pending_renames_.push_back({replacement, out->name()});
    out->ReplaceAllUsesWith(replacement);
    return;
  }
  Node* id = InsertNodeBefore(g, node, "Identity");
  id->AddInput(replacement);
  Value* id_out = id->AddOutput(g.UniqueName(absl::StrCat(out->name(), "_id")));
  id_out->set_type(out->type());
  pending_renames_.push_back({id_out, out->name()});
  out->ReplaceAllUsesWith(id_out);
}

void FoldRewriter::EraseAndRename(Graph& g, Node* node) {
  EraseNode(g, node);
  for (auto& [value, name] : pending_renames_) value->SetName(name);
  pending_renames_.clear();
}

void FoldRewriter::ReplaceWithConstants(Graph& g, Node* node,
                                        std::vector<std::shared_ptr<const Elements>> results) {
  std::vector<Value*> inputs(node->inputs().begin(), node->inputs().end());
  for (int i = 0; i < node->num_outputs(); ++i) {
    Value* out = node->output(i);
    if (out == nullptr) continue;
    Value* init =
        g.AddInitializer(g.UniqueName(absl::StrCat(out->name(), "_const")), std::move(results[i]));
    pending_renames_.push_back({init, out->name()});
    shapes_.MarkUsersDirty(*out);
    out->ReplaceAllUsesWith(init);
  }
  EraseAndRename(g, node);
  DropDeadConstants(inputs);
}

void FoldRewriter::DropDeadConstants(const std::vector<Value*>& values) {
  std::vector<Value*> dropped;
  for (Value* v : values) {
    // A value listed twice (Add(c, c)) may already be erased: compare the pointer before
    // reading through it (use-after-free found by --config=asan).
    if (v == nullptr || std::find(dropped.begin(), dropped.end(), v) != dropped.end()) continue;
    if (v->HasUses() || v->IsGraphOutput() || v->IsGraphInput()) continue;
    if (v->IsInitializer()) {
      dropped.push_back(v);
      NoteDropped(v->constant());
      Forget(v);
      v->graph()->EraseValue(v);
    } else if (Node* producer = v->producer(); producer != nullptr &&
                                               producer->op_type() == "Constant" &&
                                               producer->num_outputs() == 1) {
      dropped.push_back(v);
      NoteDropped(ConstantOf(v));
      EraseNode(*producer->graph(), producer);
    }
  }
}

void FoldRewriter::NoteDropped(const std::shared_ptr<const Elements>& constant) {
  if (auto d = std::dynamic_pointer_cast<const DisposableElements>(constant)) {
    d->ForEachBuffer(
        [&](const std::shared_ptr<const Buffer>& b) { dropped_buffers_.push_back(b.get()); });
  }
}

void FoldRewriter::ReleaseDropped() {
  if (!options_.collect) {
    dropped_buffers_.clear();
    return;
  }
  // A buffer the pool no longer holds is not found; one still read elsewhere is kept.
  for (const Buffer* b : dropped_buffers_) pool_.ReleaseIfUnused(b);
  dropped_buffers_.clear();
}

Node* FoldRewriter::InsertNodeBefore(Graph& g, Node* before, std::string op_type) {
  Node* n = g.InsertNodeBefore(before, std::move(op_type));
  erased_.erase(n);  // a new node at an erased one's address
  shapes_.MarkDirty(*n);
  return n;
}

void FoldRewriter::SetInput(Node* node, int i, Value* v) {
  node->SetInput(i, v);
  shapes_.MarkDirty(*node);
}

void FoldRewriter::EraseNode(Graph& g, Node* node) {
  shapes_.ForgetNode(*node);
  for (const Value* v : node->outputs()) {
    if (v != nullptr) outer_tensors_.erase(v);
  }
  erased_.insert(node);
  g.EraseNode(node);
}

void FoldRewriter::Forget(const Value* v) {
  shapes_.Forget(*v);
  outer_tensors_.erase(v);
}

void FoldRewriter::MaybeCollect(int64_t materialized_bytes) {
  if (!options_.collect || materialized_bytes < options_.collect_bytes) return;
  pool_.ReleaseUnreachable(ReachableBuffers(model_));
}

bool FoldRewriter::WithinLimits(const Node& node, ElementType type, absl::Span<const int64_t> dims,
                                int64_t input_bytes) {
  absl::StatusOr<int64_t> bytes = CheckedByteSize(dims, static_cast<int64_t>(ElementSize(type)));
  const bool too_large = !bytes.ok() || (options_.max_bytes > 0 && *bytes > options_.max_bytes &&
                                         *bytes > input_bytes);
  if (too_large) {
    Count("skipped-size", 1);
    if (ctx_ != nullptr && size_remarked_.insert(&node).second) {
      ctx_->AddRemark(absl::StrCat(
          "kept ", node.Describe(), ": its output ", DimsToString(dims), " would take ",
          bytes.ok() ? HumanBytes(*bytes) : std::string("more than 2^63 bytes"),
          ", over max-bytes (", HumanBytes(options_.max_bytes), ")"));
    }
    return false;
  }
  if (options_.max_expansion > 0 &&
      static_cast<double>(*bytes) >
          options_.max_expansion * static_cast<double>(std::max<int64_t>(input_bytes, 1))) {
    Count("skipped-expansion", 1);
    return false;
  }
  return true;
}

const Tensor* FoldRewriter::OuterTensor(const Value* v) {
  auto it = outer_tensors_.find(v);
  if (it != outer_tensors_.end()) return &it->second;
  std::shared_ptr<const Elements> c = ConstantOf(v);
  if (c == nullptr) return nullptr;
  return &outer_tensors_.emplace(v, Tensor::FromElements(*c)).first->second;
}

}  // namespace anvil
