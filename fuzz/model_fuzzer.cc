// Structure-aware fuzzing of the whole tool chain: a custom mutator edits valid models the way
// hostile or broken exporters do (dims, attribute values, op types, wiring, opsets, initializer
// shapes), and each input is imported, verified, run through anvil-opt's default pipeline and the
// nchwc layout pass, lowered to the Tensor IR (whose printed form must parse back to the same
// module) and then run once through Session::Run with small random inputs. Any error is fine; a
// crash, a hang, an allocation past the limits below, or a value whose dims at run time break what
// shape inference promised (exec/shape_promise.h) is a bug.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "exec/shape_promise.h"
#include "fuzz/fuzz_target.h"
#include "graph/onnx_import.h"
#include "graph/pass_manager.h"
#include "graph/verifier.h"
#include "kernels/tensor.h"
#include "lower/ir/equal.h"
#include "lower/ir/parser.h"
#include "lower/ir/printer.h"
#include "lower/lowering/lower_to_tir.h"
#include "onnx/onnx_pb.h"
#include "runtime/session.h"
#include "tools/default_model.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace anvil {
namespace {

// Small enough that a fuzzing process never approaches its RSS limit.
constexpr int64_t kMaxAllocationBytes = int64_t{64} << 20;
constexpr int64_t kMaxInputElements = 1 << 16;

const int64_t kInterestingInts[] = {0,
                                    1,
                                    -1,
                                    2,
                                    3,
                                    -2,
                                    7,
                                    64,
                                    255,
                                    1 << 20,
                                    int64_t{1} << 31,
                                    int64_t{1} << 40,
                                    int64_t{1} << 62,
                                    INT64_MAX,
                                    INT64_MIN};

int64_t Interesting(std::mt19937_64& rng) {
  return kInterestingInts[rng() % std::size(kInterestingInts)];
}

template <typename T>
T* Pick(google::protobuf::RepeatedPtrField<T>* field, std::mt19937_64& rng) {
  return field->empty() ? nullptr : field->Mutable(static_cast<int>(rng() % field->size()));
}

// All value names a node could refer to.
std::vector<std::string> ValueNames(const onnx::GraphProto& g) {
  std::vector<std::string> names;
  for (const auto& v : g.input()) names.push_back(v.name());
  for (const auto& t : g.initializer()) names.push_back(t.name());
  for (const auto& n : g.node()) {
    for (const std::string& o : n.output()) names.push_back(o);
  }
  return names;
}

// One structural edit of `model`; false when it had nothing to edit.
bool MutateModel(onnx::ModelProto& model, std::mt19937_64& rng) {
  onnx::GraphProto* g = model.mutable_graph();
  switch (rng() % 10) {
    case 0: {  // a declared dim of an input or output
      auto* infos = rng() % 2 ? g->mutable_input() : g->mutable_output();
      onnx::ValueInfoProto* v = Pick(infos, rng);
      if (v == nullptr || !v->type().has_tensor_type()) return false;
      auto* dims = v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim();
      onnx::TensorShapeProto::Dimension* d = Pick(dims, rng);
      if (d == nullptr) return false;
      if (rng() % 3 == 0) {
        d->set_dim_param(rng() % 2 ? "N" : "2*N+1");
      } else {
        d->set_dim_value(Interesting(rng));
      }
      return true;
    }
    case 1: {  // an integer attribute, or one element of an ints attribute
      onnx::NodeProto* n = Pick(g->mutable_node(), rng);
      if (n == nullptr) return false;
      onnx::AttributeProto* a = Pick(n->mutable_attribute(), rng);
      if (a == nullptr) return false;
      if (a->ints_size() > 0) {
        a->set_ints(static_cast<int>(rng() % a->ints_size()), Interesting(rng));
      } else if (a->has_i()) {
        a->set_i(Interesting(rng));
      } else if (a->has_f()) {
        a->set_f(static_cast<float>(Interesting(rng)));
      } else {
        return false;
      }
      return true;
    }
    case 2: {  // one node takes another's op type
      onnx::NodeProto* a = Pick(g->mutable_node(), rng);
      onnx::NodeProto* b = Pick(g->mutable_node(), rng);
      if (a == nullptr || a == b) return false;
      a->set_op_type(b->op_type());
      return true;
    }
    case 3: {  // rewire an input to another value (possibly later: a cycle or forward use)
      onnx::NodeProto* n = Pick(g->mutable_node(), rng);
      const std::vector<std::string> names = ValueNames(*g);
      if (n == nullptr || n->input_size() == 0 || names.empty()) return false;
      n->set_input(static_cast<int>(rng() % n->input_size()), names[rng() % names.size()]);
      return true;
    }
    case 4: {  // drop or add an input
      onnx::NodeProto* n = Pick(g->mutable_node(), rng);
      if (n == nullptr) return false;
      if (n->input_size() > 0 && rng() % 2) {
        n->mutable_input()->RemoveLast();
      } else {
        const std::vector<std::string> names = ValueNames(*g);
        n->add_input(names.empty() ? "" : names[rng() % names.size()]);
      }
      return true;
    }
    case 5: {  // delete or duplicate a node
      if (g->node_size() == 0) return false;
      const int i = static_cast<int>(rng() % g->node_size());
      if (rng() % 2) {
        g->mutable_node()->DeleteSubrange(i, 1);
      } else {
        *g->add_node() = g->node(i);
      }
      return true;
    }
    case 6: {  // an initializer's dims (its data no longer matches, or does for a reshape)
      onnx::TensorProto* t = Pick(g->mutable_initializer(), rng);
      if (t == nullptr) return false;
      if (t->dims_size() > 0 && rng() % 2) {
        t->set_dims(static_cast<int>(rng() % t->dims_size()), Interesting(rng));
      } else {
        t->add_dims(rng() % 2 ? 1 : Interesting(rng));
      }
      return true;
    }
    case 7: {  // an integer initializer's value (shapes, axes, repeats, pads read from it)
      onnx::TensorProto* t = Pick(g->mutable_initializer(), rng);
      if (t == nullptr || t->data_type() != onnx::TensorProto::INT64) return false;
      int64_t count = 1;
      for (int64_t d : t->dims()) count *= d;
      if (count <= 0 || count > 64) return false;
      std::vector<int64_t> values(count);
      if (t->raw_data().size() == static_cast<size_t>(count) * 8) {
        std::memcpy(values.data(), t->raw_data().data(), count * 8);
      } else if (t->int64_data_size() == count) {
        std::copy(t->int64_data().begin(), t->int64_data().end(), values.begin());
      } else {
        return false;
      }
      values[rng() % count] = Interesting(rng);
      t->clear_int64_data();
      t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), count * 8));
      return true;
    }
    case 8: {  // the opset
      onnx::OperatorSetIdProto* o = Pick(model.mutable_opset_import(), rng);
      if (o == nullptr) return false;
      o->set_version(static_cast<int64_t>(rng() % 20));
      return true;
    }
    default: {  // an element type
      auto* infos = g->mutable_input();
      onnx::ValueInfoProto* v = Pick(infos, rng);
      if (v == nullptr || !v->type().has_tensor_type()) return false;
      v->mutable_type()->mutable_tensor_type()->set_elem_type(static_cast<int>(rng() % 18));
      return true;
    }
  }
}

// Models whose shape promises were checked, over the process's life: printed at exit.
struct PromiseTally {
  int64_t models = 0, skipped = 0, values = 0, observations = 0, dims = 0, elements = 0;
  void Print() const {
    if (models + skipped == 0) return;
    std::fprintf(stderr,
                 "model_fuzzer: shape promises checked on %lld models (%lld not run by the "
                 "interpreter): %lld values, %lld observations, %lld exact dims, %lld known "
                 "elements\n",
                 static_cast<long long>(models), static_cast<long long>(skipped),
                 static_cast<long long>(values), static_cast<long long>(observations),
                 static_cast<long long>(dims), static_cast<long long>(elements));
  }
};
PromiseTally& Tally() {
  static PromiseTally* const tally = [] {
    std::atexit([] { Tally().Print(); });
    return new PromiseTally();
  }();
  return *tally;
}

absl::flat_hash_map<std::string, Tensor> SmallInputs(const Model& model) {
  absl::flat_hash_map<std::string, Tensor> inputs;
  for (const Value* in : model.graph().inputs()) {
    if (in->IsInitializer() || !in->type().is_tensor()) continue;
    std::vector<int64_t> dims;
    int64_t count = 1;
    if (in->type().has_shape()) {
      for (const Dim& d : in->type().shape()) {
        const int64_t n = d.is_literal() && *d.value >= 0 ? std::min<int64_t>(*d.value, 64) : 2;
        dims.push_back(n);
        count *= std::max<int64_t>(n, 1);
        if (count > kMaxInputElements) return {};
      }
    }
    absl::StatusOr<Tensor> t =
        Tensor::Allocate(in->type().element_type(), dims, kMaxAllocationBytes);
    if (!t.ok()) return {};
    inputs[in->name()] = *std::move(t);
  }
  return inputs;
}

}  // namespace
}  // namespace anvil

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  onnx::ModelProto model;
  std::mt19937_64 rng(seed);
  if (rng() % 8 != 0 && model.ParseFromArray(data, static_cast<int>(size))) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      if (anvil::MutateModel(model, rng)) break;
    }
    std::string bytes = model.SerializeAsString();
    if (bytes.size() <= max_size) {
      std::memcpy(data, bytes.data(), bytes.size());
      return bytes.size();
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);  // bytes, sometimes: the parser's edge cases
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  onnx::ModelProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<std::unique_ptr<anvil::Model>> model = anvil::ImportModelProto(proto, {});
  if (!model.ok() || !anvil::VerifyModel(**model).ok()) return 0;
  // The default pipeline, then the runtime's layout pass (its blocked ops then run below and in
  // the reference interpreter, whose shape promises cover them).
  absl::StatusOr<anvil::PassManager> pm = anvil::PassManager::Parse(
      std::string(anvil::kDefaultPipeline)
          .replace(std::string(anvil::kDefaultPipeline).find("constprop"), 9,
                   "constprop{max-bytes=" + std::to_string(anvil::kMaxAllocationBytes) + "}") +
      ",nchwc");
  if (!pm.ok()) std::abort();
  if (!pm->Run(**model).ok()) return 0;
  // Lowered to the Tensor IR with every pass on it: any error is fine; the printed module must
  // read back as the same module (nothing lost on the text round trip).
  if (absl::StatusOr<anvil::tir::Module> lowered = anvil::lower::LowerToTir(**model);
      lowered.ok()) {
    const std::string printed = anvil::tir::PrintModule(*lowered);
    absl::StatusOr<anvil::tir::Module> reparsed = anvil::tir::ParseModule(printed);
    if (!reparsed.ok()) {
      std::fprintf(stderr, "the printed module does not parse: %s\n%s\n",
                   std::string(reparsed.status().message()).c_str(), printed.c_str());
      std::abort();
    }
    if (const std::string diff = anvil::tir::FirstDifference(*lowered, *reparsed); !diff.empty()) {
      std::fprintf(stderr, "the reparsed module differs: %s\n%s\n", diff.c_str(), printed.c_str());
      std::abort();
    }
  }
  absl::flat_hash_map<std::string, anvil::Tensor> inputs = anvil::SmallInputs(**model);
  std::vector<anvil::Tensor> positional;  // the same inputs, for the reference interpreter
  for (const anvil::Value* in : (*model)->graph().inputs()) {
    auto it = inputs.find(in->name());
    positional.push_back(it != inputs.end() ? it->second : anvil::Tensor());
  }
  const std::unique_ptr<anvil::Model> optimized = (*model)->Clone();
  anvil::SessionOptions options;
  options.pipeline = "";
  options.max_allocation_bytes = anvil::kMaxAllocationBytes;
  absl::StatusOr<std::unique_ptr<anvil::Session>> session =
      anvil::Session::Load(*std::move(model), options);
  if (!session.ok()) return 0;
  if (!(*session)->Run(inputs).ok()) return 0;
  // A model that runs within the limits runs once more in the reference interpreter, every value
  // checked against what shape inference promised.
  absl::StatusOr<anvil::ShapePromiseReport> promises =
      anvil::CheckShapePromises(*optimized, positional, anvil::kMaxAllocationBytes);
  if (!promises.ok()) {
    std::fprintf(stderr, "a shape promise is broken: %s\n",
                 std::string(promises.status().message()).c_str());
    std::abort();
  }
  anvil::PromiseTally& tally = anvil::Tally();
  if (!promises->skipped.empty()) {
    ++tally.skipped;
    return 0;
  }
  ++tally.models;
  tally.values += promises->values;
  tally.observations += promises->observations;
  tally.dims += promises->dims;
  tally.elements += promises->elements;
  return 0;
}
