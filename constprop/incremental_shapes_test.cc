// Constprop re-infers shapes only where its folds changed something (shape/shape_inference.h's
// ShapeInference). That must leave the same types a full re-inference would: after constprop on
// every model of the ONNX backend suite (and on the same models with every input made a
// constant, where nearly everything folds), a full InferShapes must find nothing to change.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "constprop/constprop.h"
#include "constprop/gc.h"
#include "graph/onnx_import.h"
#include "graph/pass_manager.h"
#include "gtest/gtest.h"
#include "kernels/tensor_file.h"
#include "shape/shape_inference.h"

namespace anvil {
namespace {

constexpr char kNodeTestDir[] = "/usr/include/onnx/backend/test/data/node";

// Makes the graph inputs that the test's first data set gives initializers.
void MakeInputsConstant(Model& model, const std::filesystem::path& dir) {
  Graph& g = model.graph();
  const std::vector<Value*> inputs = g.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]->type().is_tensor()) continue;  // sequences, optionals: not constants here
    absl::StatusOr<Tensor> t =
        ReadTensor((dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")).string());
    if (!t.ok() || inputs[i]->IsGraphOutput()) continue;
    // A constant in the input's place, under its name (an input that is also an initializer
    // could be overridden at run time, so it would not fold).
    const std::string name = inputs[i]->name();
    Value* c = g.AddInitializer(g.UniqueName(name + "_constant"), t->ToElements());
    inputs[i]->ReplaceAllUsesWith(c);
    g.EraseValue(inputs[i]);
    c->SetName(name);
  }
}

TEST(IncrementalShapesTest, ConstpropLeavesWhatFullInferenceWouldFind) {
  ASSERT_TRUE(std::filesystem::exists(kNodeTestDir));
  int models = 0, folded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kNodeTestDir)) {
    for (bool constant_inputs : {false, true}) {
      absl::StatusOr<std::unique_ptr<Model>> model =
          ImportModelFile((entry.path() / "model.onnx").string());
      if (!model.ok()) continue;
      if (constant_inputs) MakeInputsConstant(**model, entry.path());
      ShapeInferenceOptions options;
      options.skip_unknown_ops = true;
      if (!InferShapes(**model, options).ok()) continue;  // not an in-scope model
      ConstPropOptions constprop;
      absl::StatusOr<bool> changed =
          PropagateConstants(**model, constprop, PoolFor(**model), nullptr);
      if (!changed.ok()) continue;
      ++models;
      folded += *changed;
      absl::StatusOr<bool> again = InferShapes(**model, options);
      ASSERT_TRUE(again.ok()) << entry.path().filename() << ": " << again.status().message();
      EXPECT_FALSE(*again) << entry.path().filename()
                           << (constant_inputs ? " (constant inputs)" : "")
                           << ": full inference changed a type after constprop";
    }
  }
  EXPECT_GT(models, 1500);
  EXPECT_GT(folded, 800);
}

}  // namespace
}  // namespace anvil
