#include "constprop/gc.h"

#include "absl/strings/str_format.h"

namespace anvil {
namespace {

void MarkElements(const std::shared_ptr<const Elements>& e,
                  absl::flat_hash_set<const Buffer*>* reachable) {
  if (auto d = std::dynamic_pointer_cast<const DisposableElements>(e)) {
    d->ForEachBuffer([&](const std::shared_ptr<const Buffer>& b) { reachable->insert(b.get()); });
  }
}

}  // namespace

DisposablePool& PoolFor(Model& model) { return model.Attachment<DisposablePool>(); }

absl::flat_hash_set<const Buffer*> ReachableBuffers(const Model& model) {
  absl::flat_hash_set<const Buffer*> reachable;
  const_cast<Model&>(model).graph().ForEachGraph([&](Graph& g) {
    for (const Value* v : g.initializers()) MarkElements(v->constant(), &reachable);
    for (const Node* n : g.nodes()) {
      for (const Attribute& a : n->attributes()) {
        for (const TensorAttr& t : a.tensors) MarkElements(t.elements, &reachable);
      }
    }
  });
  return reachable;
}

void DisposableGarbageCollector::Collect(const Model& model) {
  DisposablePool* pool = model.FindAttachment<DisposablePool>();
  if (pool == nullptr) return;
  pool->ReleaseUnreachable(ReachableBuffers(model));
  stats_ = pool->stats();
  ++collections_;
}

absl::Status DisposableGarbageCollector::RunAfterPass(const Pass&, Model& model, const PassContext&,
                                                      bool changed) {
  if (changed) Collect(model);
  return absl::OkStatus();
}

void DisposableGarbageCollector::RunAfterPipeline(Model& model, const absl::Status&) {
  Collect(model);
}

void DisposableGarbageCollector::PrintReport(std::ostream& os) const {
  const DisposablePool::Stats& s = stats_;
  auto mib = [](int64_t b) { return static_cast<double>(b) / (1 << 20); };
  os << "===----- Constant store -----===\n"
     << absl::StrFormat(
            "live %.1f MiB, peak %.1f MiB, released %.1f MiB in %d buffers over %d "
            "collections\n",
            mib(s.bytes_live), mib(s.bytes_peak), mib(s.bytes_released), s.buffers_released,
            collections_);
}

}  // namespace anvil
