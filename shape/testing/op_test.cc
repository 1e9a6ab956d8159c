#include "shape/testing/op_test.h"

#include "graph/element_type.h"
#include "graph/ir.h"
#include "shape/shape_helper.h"
#include "shape/testing/fake_builder.h"

namespace anvil::shape_testing {

OpTest::OpTest(std::string op_type, int64_t opset, std::string domain)
    : op_type_(std::move(op_type)), opset_(opset), domain_(std::move(domain)) {}

OpTest& OpTest::In(Arg arg) {
  if (arg.constant != nullptr) constants_[static_cast<int>(inputs_.size())] = arg.constant;
  inputs_.push_back(std::move(arg.info));
  return *this;
}

OpTest& OpTest::NoInput() { return In(Arg(std::nullopt, nullptr)); }

OpTest& OpTest::Attr(Attribute attr) {
  attrs_.push_back(std::move(attr));
  return *this;
}

OpTest& OpTest::Name(std::string name) {
  name_ = std::move(name);
  return *this;
}

OpTest& OpTest::Outputs(int n) {
  output_names_.clear();
  for (int i = 0; i < n; ++i) output_names_.push_back("y" + std::to_string(i));
  return *this;
}

OpTest& OpTest::Outputs(std::vector<std::string> names) {
  output_names_ = std::move(names);
  return *this;
}

absl::Status OpTest::Run() {
  Model model;
  model.opset_imports = {{domain_, opset_}};
  Graph& graph = model.graph();
  Node* node = graph.AddNode(op_type_, domain_);
  node->set_name(name_);
  for (size_t i = 0; i < inputs_.size(); ++i) {
    node->AddInput(inputs_[i] ? graph.AddInput("x" + std::to_string(i), Type()) : nullptr);
  }
  for (const std::string& name : output_names_) node->AddOutput(name);
  for (const Attribute& attr : attrs_) node->SetAttribute(attr.Clone(&graph));
  FakeBuilder builder(inputs_, constants_);
  ShapeContext ctx(*node, opset_, builder);
  absl::Status status = InferNodeShapes(ctx);
  outputs_.assign(ctx.outputs().begin(), ctx.outputs().end());
  ran_ = true;
  return status;
}

TensorInfo OpTest::Info(int i) {
  if (!ran_) {
    absl::Status status = Run();
    EXPECT_TRUE(status.ok()) << status;
  }
  return i < static_cast<int>(outputs_.size()) ? outputs_[i] : TensorInfo{};
}

std::string OpTest::Text(int i) { return InfoText(Info(i)); }

std::string OpTest::Error() {
  absl::Status status = Run();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

std::string InfoText(const TensorInfo& info) {
  return std::string(ElementTypeName(info.type)) +
         (info.dims ? DimsToString(*info.dims) : std::string("[unknown rank]"));
}

::testing::AssertionResult SameExprs(const std::optional<IndexExprList>& actual,
                                     const std::optional<IndexExprList>& expected) {
  bool same = actual.has_value() == expected.has_value();
  if (same && actual) {
    same = actual->size() == expected->size();
    for (size_t k = 0; same && k < actual->size(); ++k) {
      same = (*expected)[k].IsQuestionmark() ? (*actual)[k].IsQuestionmark()
                                             : (*actual)[k] == (*expected)[k];
    }
  }
  if (same) return ::testing::AssertionSuccess();
  auto text = [](const std::optional<IndexExprList>& e) {
    return e ? DimsToString(*e) : std::string("none");
  };
  return ::testing::AssertionFailure() << "got " << text(actual) << ", expected " << text(expected);
}

}  // namespace anvil::shape_testing
