// Tensor IR functions and modules.
//
// A Function has typed parameters (variables and tensors), a return type and a body. A Module is
// what one ONNX graph lowers to: functions, globals (tensors with contents: weights and
// pre-processed weights), the kernel table the `kernel` intrinsic indexes (ONNX nodes run by the
// kernel registry), and the entry function with how its parameters bind to the graph's inputs
// and outputs. Modules are values: passes build new ones, sharing unchanged nodes.
#ifndef ANVIL_LOWER_IR_MODULE_H_
#define ANVIL_LOWER_IR_MODULE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "lower/ir/expr.h"
#include "lower/ir/stmt.h"

namespace anvil::tir {

struct Function {
  std::string name;
  std::vector<Expr> params;  // VarNodes and TensorNodes
  DataType ret = DataType::Void();
  Stmt body;
  // Free-form attributes (`origin` = the ONNX nodes a function came from, ...), printed.
  std::vector<std::pair<std::string, std::string>> attrs;
};

struct Global {
  Expr tensor;                            // a TensorNode
  std::shared_ptr<const Elements> data;   // its contents (null in a parsed module)
  std::string source;                     // the initializer or Constant it holds
};

// One row of the kernel table: an ONNX node the `kernel` intrinsic runs through the runtime's
// kernel registry (the same OpKernel the interpreter runtime uses). `node` points into the
// module's source model (Module::source); a parsed module has only the names.
struct KernelBinding {
  std::string op_type;
  std::string domain;
  int64_t opset = 0;
  std::string node_name;
  // Why the node is a kernel call: "intrinsic" for ops whose kernels are the compute-bound
  // building blocks (Conv, pooling, ...), "fallback" for ops no lowering rule covers.
  std::string category;
  const Node* node = nullptr;
  // Per operand after the id: the node's input slot (>= 0) or output slot (-1 - slot).
  std::vector<int> slots;
  // Values of enclosing graphs that the node's subgraphs read (If/Loop/Scan), passed as the
  // operands after those of `slots`, by name.
  std::vector<std::string> captures;
  std::vector<const Value*> captured_values;  // null in a parsed module
};

// How the entry function meets the graph. Tensor parameters are the graph's inputs and outputs,
// in order; `dims` are index parameters read off the inputs' dims at run time (the symbols shape
// inference found, and unnamed dynamic dims). Outputs whose dims only data decides are `dynamic`
// and come back from the function through `results` instead of being caller-allocated.
struct EntryBinding {
  struct Tensor {
    std::string name;   // the graph value
    Expr tensor;        // the parameter (or, for dynamic outputs, the defined tensor)
    bool dynamic = false;
    // Inputs that are also initializers: the value when the caller gives none.
    std::shared_ptr<const Elements> default_value;
  };
  struct DimSource {
    Expr var;           // an index parameter
    int input = 0;      // graph input position
    int axis = 0;
  };
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  std::vector<DimSource> dims;
};

// Where the entry function's planned intermediates live (lower/passes/plan_buffers.h): one
// workspace buffer per run, each planned tensor's Define `at` a byte offset into it. A static
// plan has constant offsets and a constant `bytes`; a dynamic one (sizes depending on dims)
// reads its offsets from `offsets`, an s64 tensor parameter of the entry function that the
// runner fills by placing `buffers` (byte sizes over the entry's index parameters, lifetimes in
// top-level statements of the entry) with the runtime's MemoryPlanner.
struct WorkspaceBuffer {
  Expr tensor;
  Expr bytes;     // index expression
  int first = 0;  // first and last top-level statement of the entry that touch it
  int last = 0;
};
struct Workspace {
  Expr bytes;    // static plans: the total; else null
  Expr offsets;  // dynamic plans: the parameter the runner fills; else null
  std::vector<WorkspaceBuffer> buffers;
  bool empty() const { return !bytes.defined() && !offsets.defined(); }
};

class Module {
 public:
  std::vector<Function> functions;
  std::vector<Global> globals;
  std::vector<KernelBinding> kernels;
  std::string entry = "main";
  EntryBinding binding;
  Workspace workspace;
  // Keeps the nodes of `kernels` alive (the shape-inferred model the module was lowered from).
  std::shared_ptr<const Model> source;

  const Function* FindFunction(std::string_view name) const;
  Function* FindFunction(std::string_view name);
};

// Checks what factories cannot see one node at a time: every variable and tensor used is a
// parameter, a global or defined in an enclosing scope before its use; loop variables are not
// assigned; calls name functions of the module with matching arguments; kernel ids are in the
// table; a function returning a value returns one. InvalidArgument naming the function and the
// offending statement.
absl::Status VerifyModule(const Module& module);

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_MODULE_H_
