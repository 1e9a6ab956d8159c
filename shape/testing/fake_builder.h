// FakeBuilder: an IndexExprBuilder over given TensorInfos (and, optionally, constant payloads
// by input slot), so ShapeHelper tests can run a rule on exactly the operands they describe.
// An input slot holding nullopt is absent (an omitted optional input).
#ifndef ANVIL_SHAPE_TESTING_FAKE_BUILDER_H_
#define ANVIL_SHAPE_TESTING_FAKE_BUILDER_H_

#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "graph/elements.h"
#include "shape/shape_helper.h"

namespace anvil {

class FakeBuilder : public IndexExprBuilder {
 public:
  explicit FakeBuilder(std::vector<std::optional<TensorInfo>> inputs,
                       std::map<int, std::shared_ptr<const Elements>> constants = {})
      : inputs_(std::move(inputs)), constants_(std::move(constants)) {}

  bool HasInput(int i) const override {
    return i >= 0 && i < static_cast<int>(inputs_.size()) && inputs_[i].has_value();
  }
  TensorInfo Input(int i) const override { return HasInput(i) ? *inputs_[i] : TensorInfo{}; }
  std::shared_ptr<const Elements> InputConstant(int i) const override {
    auto it = constants_.find(i);
    return it == constants_.end() ? nullptr : it->second;
  }

 private:
  std::vector<std::optional<TensorInfo>> inputs_;
  std::map<int, std::shared_ptr<const Elements>> constants_;
};

}  // namespace anvil

#endif  // ANVIL_SHAPE_TESTING_FAKE_BUILDER_H_
