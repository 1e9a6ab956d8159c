// How deeply a model may nest: the one limit every reader of models enforces, so that the
// recursive walks downstream (verifier, shape inference, passes, printer, export, executor,
// interpreter, lowering) never see deeper nesting and need no limits of their own.
//
// Subgraphs (the bodies of If, Loop, Scan, SequenceMap, ...) may nest at most kMaxSubgraphDepth
// levels below the main graph. Real models use a handful of levels (ONNX Runtime's protobuf
// reader stops near 30); each level costs the deepest walk here (the Tensor IR interpreter) about
// 9 KiB of stack, so 100 levels stay far inside a thread's stack even under sanitizers. Deeper
// models are refused with one line saying so: by binary import (onnx_import.h) and text import
// (text_format.h) before anything recursive sees them, and by the verifier and the runtime's load
// for models built in memory.
#ifndef ANVIL_GRAPH_LIMITS_H_
#define ANVIL_GRAPH_LIMITS_H_

#include <string>

#include "absl/status/status.h"

namespace anvil {

class Graph;

inline constexpr int kMaxSubgraphDepth = 100;

// "subgraphs nested deeper than 100 levels": the words of every depth error.
std::string SubgraphDepthMessage();

// OK when no subgraph of `graph` (a main graph) nests more than kMaxSubgraphDepth levels below it;
// else InvalidArgument "graph 'g': node 'n' (If): subgraphs nested deeper than 100 levels",
// naming the node whose subgraph is one level too deep. The walk itself stops at the limit.
absl::Status CheckSubgraphDepth(const Graph& graph);

}  // namespace anvil

#endif  // ANVIL_GRAPH_LIMITS_H_
