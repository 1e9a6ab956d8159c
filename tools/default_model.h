// The model `anvil-opt` runs on when no model file is given: a small
// transformer-style block in ONNX text syntax (graph/text_format.h), so that
// every pass has something real to chew on and examples work out of the box.
//
// Contract: DefaultModelText() parses with ParseModelText (and with ONNX 1.12's
// own parser) and passes onnx.checker.check_model(full_check=True). It is opset
// 17 (default domain only), ir_version 8, and its constants are written in full
// (about 10 KB of text).
//
// What it exercises:
//  - Dynamic dims: input X and output Y are float[batch,seq,16]; value_info
//    entries carry the symbolic dims (shape inference, symbolic shapes).
//  - Pre-norm layer normalization written out as arithmetic (ReduceMean, Sub,
//    Pow, ReduceMean, Add epsilon, Sqrt, Div, Mul gamma, Add beta): fusion
//    patterns.
//  - Q/K/V MatMul projections with 16x16 weights, Einsum attention
//    ("bqd,bkd->bqk" scores, Softmax, "bqk,bkd->bqd"), an output projection
//    and a residual Add.
//  - Constant folding: the attention scale 1/sqrt(d) computed as
//    Constant -> Cast -> Sqrt -> Reciprocal, and the output weight computed as
//    Transpose of an initializer.
//  - CSE: `centered_again` repeats `centered` (same op, same inputs).
//  - DCE: `unused_scores` (a Relu of the scores) is never read.
#ifndef ANVIL_TOOLS_DEFAULT_MODEL_H_
#define ANVIL_TOOLS_DEFAULT_MODEL_H_

#include <string_view>

// anvil-opt runs kDefaultPipeline when no --passes is given.
#include "passes/default_pipeline.h"

namespace anvil {

// The default model as ONNX text; static storage, valid for the program's
// lifetime.
std::string_view DefaultModelText();

}  // namespace anvil

#endif  // ANVIL_TOOLS_DEFAULT_MODEL_H_
