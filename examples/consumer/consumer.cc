// Builds a two-node graph with Anvil's IR and rewires it: proof that the library links alone.
#include <iostream>

#include "graph/ir.h"

int main() {
  anvil::Model model;
  anvil::Graph& g = model.graph();
  anvil::Value* x =
      g.AddInput("x", anvil::Type::Tensor(anvil::ElementType::kFloat, {anvil::Dim::Param("N")}));
  anvil::Node* relu = g.AddNode("Relu");
  relu->AddInput(x);
  anvil::Node* neg = g.AddNode("Neg");
  neg->AddInput(relu->AddOutput("a"));
  g.AddOutput(neg->AddOutput("y"));
  neg->SetInput(0, x);  // bypass the Relu
  g.EraseNode(relu);
  std::cout << "consumer: " << g.num_nodes() << " node, input type " << x->type().ToString()
            << "\n";
  return g.num_nodes() == 1 ? 0 : 1;
}
