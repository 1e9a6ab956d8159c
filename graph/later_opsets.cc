#include "graph/later_opsets.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace anvil {
namespace {

using Parameter = OpSchemaInfo::Parameter;
using Option = Parameter::Option;

const std::vector<std::string>& Floats() {
  static const auto* types = new std::vector<std::string>{"tensor(bfloat16)", "tensor(double)",
                                                          "tensor(float)", "tensor(float16)"};
  return *types;
}

const std::vector<std::string>& Integers() {
  static const auto* types = new std::vector<std::string>{
      "tensor(int16)",  "tensor(int32)",  "tensor(int64)",  "tensor(int8)",
      "tensor(uint16)", "tensor(uint32)", "tensor(uint64)", "tensor(uint8)"};
  return *types;
}

Parameter Param(std::string name, std::string type_str, std::vector<std::string> types,
                Option option = Option::kSingle) {
  std::sort(types.begin(), types.end());
  return Parameter{std::move(name), std::move(type_str), option, true, std::move(types)};
}

void AddTypes(Parameter& p, std::vector<std::string> types) {
  for (std::string& t : types) {
    if (!std::binary_search(p.allowed_types.begin(), p.allowed_types.end(), t)) {
      p.allowed_types.insert(std::lower_bound(p.allowed_types.begin(), p.allowed_types.end(), t),
                             std::move(t));
    }
  }
}

// Adds `types` to every parameter of type variable `type_str`.
void AddTypes(OpSchemaInfo& s, std::string_view type_str, const std::vector<std::string>& types) {
  for (auto* params : {&s.inputs, &s.outputs}) {
    for (Parameter& p : *params) {
      if (p.type_str == type_str) AddTypes(p, types);
    }
  }
}

void AddInput(OpSchemaInfo& s, Parameter p) {
  s.inputs.push_back(std::move(p));
  s.max_input = static_cast<int>(s.inputs.size());
}

void AddAttribute(OpSchemaInfo& s, const char* name, AttributeType type) {
  s.attributes[name] = {type, false};
}

// A schema of an op these opsets introduced: inputs, outputs and attributes as given; trailing
// optional parameters lower the minimum counts.
void Define(OpSchemaInfo& s, std::vector<Parameter> inputs, std::vector<Parameter> outputs,
            std::vector<std::pair<const char*, AttributeType>> attributes) {
  s = OpSchemaInfo();
  s.inputs = std::move(inputs);
  s.outputs = std::move(outputs);
  s.max_input = static_cast<int>(s.inputs.size());
  s.max_output = static_cast<int>(s.outputs.size());
  s.min_input = s.max_input;
  while (s.min_input > 0 && s.inputs[s.min_input - 1].option == Option::kOptional) --s.min_input;
  s.min_output = s.max_output;
  while (s.min_output > 0 && s.outputs[s.min_output - 1].option == Option::kOptional) {
    --s.min_output;
  }
  for (const auto& [name, type] : attributes) s.attributes[name] = {type, false};
}

// ---- The revisions, each a function of the schema before it ----

// Reduce*-18 (all but ReduceSum, which moved at 13): `axes` moves from an attribute to optional
// input 1, and `noop_with_empty_axes` says whether no axes reduce nothing.
void ReduceAxesInput(OpSchemaInfo& s) {
  s.attributes.erase("axes");
  AddAttribute(s, "noop_with_empty_axes", AttributeType::kInt);
  AddInput(s, Param("axes", "tensor(int64)", {"tensor(int64)"}, Option::kOptional));
}

void PadAxes(OpSchemaInfo& s) {  // Pad-18: pads apply to the dims named by optional input 3
  AddInput(s, Param("axes", "Tind", {"tensor(int32)", "tensor(int64)"}, Option::kOptional));
}

void SplitNumOutputs(OpSchemaInfo& s) { AddAttribute(s, "num_outputs", AttributeType::kInt); }

void LpPoolCeilDilations(OpSchemaInfo& s) {
  AddAttribute(s, "ceil_mode", AttributeType::kInt);
  AddAttribute(s, "dilations", AttributeType::kInts);
}

void AveragePoolDilations(OpSchemaInfo& s) { AddAttribute(s, "dilations", AttributeType::kInts); }

void ResizeAntialiasAxes(OpSchemaInfo& s) {
  AddAttribute(s, "antialias", AttributeType::kInt);
  AddAttribute(s, "axes", AttributeType::kInts);
  AddAttribute(s, "keep_aspect_ratio_policy", AttributeType::kString);
}

void CastSaturate(OpSchemaInfo& s) { AddAttribute(s, "saturate", AttributeType::kInt); }

void EqualStrings(OpSchemaInfo& s) { AddTypes(s, "T", {"tensor(string)"}); }

void ReduceBools(OpSchemaInfo& s) { AddTypes(s, "T", {"tensor(bool)"}); }

void IsInfHalfs(OpSchemaInfo& s) { AddTypes(s, "T1", {"tensor(bfloat16)", "tensor(float16)"}); }

// DFT-20: the `axis` attribute (default 1) becomes optional input 2 (default -2).
void DftAxisInput(OpSchemaInfo& s) {
  s.attributes.erase("axis");
  AddInput(s, Param("axis", "tensor(int64)", {"tensor(int64)"}, Option::kOptional));
}

// OptionalGetElement-18 and OptionalHasElement-18 also take a plain tensor or sequence; the
// latter's input becomes optional (absent: false).
void OptionalOfAnything(OpSchemaInfo& s) {
  for (Parameter& p : s.inputs) {
    p.allowed_types.clear();
    if (s.outputs.size() == 1 && s.outputs[0].type_str == "B") p.option = Option::kOptional;
  }
  if (!s.inputs.empty() && s.inputs[0].option == Option::kOptional) s.min_input = 0;
  for (Parameter& p : s.outputs) {
    if (p.type_str != "B") p.allowed_types.clear();
  }
}

// DequantizeLinear-19: the scale may be float16 or bfloat16, and the output takes its type.
void DequantizeScaleTypes(OpSchemaInfo& s) {
  const std::vector<std::string> scales = {"tensor(bfloat16)", "tensor(float)", "tensor(float16)"};
  if (s.inputs.size() > 1) s.inputs[1] = Param(s.inputs[1].name, "T2", scales);
  if (!s.outputs.empty()) s.outputs[0] = Param(s.outputs[0].name, "T2", scales);
}

// QuantizeLinear-19: x may be float16 or bfloat16, and the scale has x's type.
void QuantizeScaleTypes(OpSchemaInfo& s) {
  AddTypes(s, "T1", {"tensor(bfloat16)", "tensor(float16)"});
  if (s.inputs.size() > 1 && !s.inputs.empty()) {
    s.inputs[1] = Param(s.inputs[1].name, "T1", s.inputs[0].allowed_types);
  }
  AddAttribute(s, "saturate", AttributeType::kInt);
}

// DequantizeLinear-21: blocked scales; 16-bit integers.
void DequantizeBlocks(OpSchemaInfo& s) {
  AddAttribute(s, "block_size", AttributeType::kInt);
  AddTypes(s, "T1", {"tensor(int16)", "tensor(uint16)"});
  AddTypes(s, "T", {"tensor(int16)", "tensor(uint16)"});
}

// QuantizeLinear-21: blocked scales, the output type without a zero point, 16-bit integers.
void QuantizeBlocks(OpSchemaInfo& s) {
  AddAttribute(s, "block_size", AttributeType::kInt);
  AddAttribute(s, "output_dtype", AttributeType::kInt);
  AddTypes(s, "T2", {"tensor(int16)", "tensor(uint16)"});
}

// DequantizeLinear-23: the output type may differ from the scale's.
void DequantizeOutputType(OpSchemaInfo& s) {
  AddAttribute(s, "output_dtype", AttributeType::kInt);
  if (!s.outputs.empty()) {
    s.outputs[0] =
        Param(s.outputs[0].name, "T3", {"tensor(bfloat16)", "tensor(float)", "tensor(float16)"});
  }
}

// QuantizeLinear-23: the scale has a type of its own, and `precision` says how x is scaled.
void QuantizePrecision(OpSchemaInfo& s) {
  AddAttribute(s, "precision", AttributeType::kInt);
  if (s.inputs.size() > 1) {
    s.inputs[1] = Param(s.inputs[1].name, "TS",
                        {"tensor(bfloat16)", "tensor(float)", "tensor(float16)", "tensor(int32)"});
  }
}

// Attention-24: optional input 6, the non-padded length of each batch's keys.
void AttentionNonpadLengths(OpSchemaInfo& s) {
  AddInput(s, Param("nonpad_kv_seqlen", "tensor(int64)", {"tensor(int64)"}, Option::kOptional));
}

// Cast-24 and CastLike-24: how a cast to float8e8m0 rounds.
void CastRoundMode(OpSchemaInfo& s) { AddAttribute(s, "round_mode", AttributeType::kString); }

// Opset 22 adds bfloat16 wherever float16 is allowed.
void AddBfloat16(OpSchemaInfo& s) {
  for (auto* params : {&s.inputs, &s.outputs}) {
    for (Parameter& p : *params) {
      if (std::binary_search(p.allowed_types.begin(), p.allowed_types.end(), "tensor(float16)")) {
        AddTypes(p, {"tensor(bfloat16)"});
      }
    }
  }
}

// ---- Ops these opsets introduced ----

void BitwiseBinary(OpSchemaInfo& s) {
  Define(s, {Param("A", "T", Integers()), Param("B", "T", Integers())},
         {Param("C", "T", Integers())}, {});
}

void BitwiseNot(OpSchemaInfo& s) {
  Define(s, {Param("X", "T", Integers())}, {Param("Y", "T", Integers())}, {});
}

void Mish(OpSchemaInfo& s) {
  Define(s, {Param("X", "T", Floats())}, {Param("Y", "T", Floats())}, {});
}

void Gelu(OpSchemaInfo& s) {
  Define(s, {Param("X", "T", Floats())}, {Param("Y", "T", Floats())},
         {{"approximate", AttributeType::kString}});
}

// GroupNormalization-18: scale and bias per group; -21 makes them per channel (same parameters)
// and adds stash_type.
void GroupNormalization(OpSchemaInfo& s) {
  Define(s,
         {Param("X", "T", Floats()), Param("scale", "T", Floats()), Param("bias", "T", Floats())},
         {Param("Y", "T", Floats())},
         {{"epsilon", AttributeType::kFloat}, {"num_groups", AttributeType::kInt}});
  s.attributes["num_groups"].required = true;
}

void GroupNormalizationStash(OpSchemaInfo& s) {
  AddAttribute(s, "stash_type", AttributeType::kInt);
}

void Swish(OpSchemaInfo& s) {
  Define(s, {Param("X", "T", Floats())}, {Param("Y", "T", Floats())},
         {{"alpha", AttributeType::kFloat}});
}

// TensorScatter-24: writes `update` into a cache along `axis` at each batch's write index.
void TensorScatter(OpSchemaInfo& s) {
  Define(s,
         {Param("past_cache", "T", {}), Param("update", "T", {}),
          Param("write_indices", "tensor(int64)", {"tensor(int64)"}, Option::kOptional)},
         {Param("present_cache", "T", {})},
         {{"axis", AttributeType::kInt}, {"mode", AttributeType::kString}});
}

void RmsNormalization(OpSchemaInfo& s) {
  Define(s, {Param("X", "T", Floats()), Param("scale", "V", Floats())}, {Param("Y", "V", Floats())},
         {{"axis", AttributeType::kInt},
          {"epsilon", AttributeType::kFloat},
          {"stash_type", AttributeType::kInt}});
}

void RotaryEmbedding(OpSchemaInfo& s) {
  const std::vector<std::string> t = {"tensor(bfloat16)", "tensor(float)", "tensor(float16)"};
  Define(s,
         {Param("X", "T", t), Param("cos_cache", "T", t), Param("sin_cache", "T", t),
          Param("position_ids", "M", {"tensor(int64)"}, Option::kOptional)},
         {Param("Y", "T", t)},
         {{"interleaved", AttributeType::kInt},
          {"num_heads", AttributeType::kInt},
          {"rotary_embedding_dim", AttributeType::kInt}});
}

void Attention(OpSchemaInfo& s) {
  std::vector<std::string> mask = Floats();
  mask.push_back("tensor(bool)");
  Define(s,
         {Param("Q", "T1", Floats()), Param("K", "T1", Floats()), Param("V", "T2", Floats()),
          Param("attn_mask", "U", mask, Option::kOptional),
          Param("past_key", "T1", Floats(), Option::kOptional),
          Param("past_value", "T2", Floats(), Option::kOptional)},
         {Param("Y", "T1", Floats()), Param("present_key", "T1", Floats(), Option::kOptional),
          Param("present_value", "T2", Floats(), Option::kOptional),
          Param("qk_matmul_output", "T1", Floats(), Option::kOptional)},
         {{"is_causal", AttributeType::kInt},
          {"kv_num_heads", AttributeType::kInt},
          {"q_num_heads", AttributeType::kInt},
          {"qk_matmul_output_mode", AttributeType::kInt},
          {"scale", AttributeType::kFloat},
          {"softcap", AttributeType::kFloat},
          {"softmax_precision", AttributeType::kInt}});
}

struct Revision {
  std::string_view op;
  int version;
  // Null for a revision that only adds element types Anvil does not model (float8, int4,
  // float4) or attribute values (Pad-19's wrap mode).
  void (*revise)(OpSchemaInfo&);
};

// Sorted by op, then version.
constexpr Revision kRevisions[] = {
    {"Acos", 22, &AddBfloat16},
    {"Acosh", 22, &AddBfloat16},
    {"Asin", 22, &AddBfloat16},
    {"Asinh", 22, &AddBfloat16},
    {"Atan", 22, &AddBfloat16},
    {"Atanh", 22, &AddBfloat16},
    {"Attention", 23, &Attention},
    {"Attention", 24, &AttentionNonpadLengths},
    {"AveragePool", 19, &AveragePoolDilations},
    {"AveragePool", 22, &AddBfloat16},
    {"Bernoulli", 22, &AddBfloat16},
    {"BitwiseAnd", 18, &BitwiseBinary},
    {"BitwiseNot", 18, &BitwiseNot},
    {"BitwiseOr", 18, &BitwiseBinary},
    {"BitwiseXor", 18, &BitwiseBinary},
    {"Cast", 19, &CastSaturate},
    {"Cast", 21, nullptr},
    {"Cast", 23, nullptr},
    {"Cast", 24, &CastRoundMode},
    {"Cast", 25, nullptr},
    {"CastLike", 19, &CastSaturate},
    {"CastLike", 21, nullptr},
    {"CastLike", 23, nullptr},
    {"CastLike", 24, &CastRoundMode},
    {"CastLike", 25, nullptr},
    {"Constant", 19, nullptr},
    {"Constant", 21, nullptr},
    {"Constant", 23, nullptr},
    {"Constant", 24, nullptr},
    {"Constant", 25, nullptr},
    {"ConstantOfShape", 20, nullptr},
    {"ConstantOfShape", 21, nullptr},
    {"ConstantOfShape", 23, nullptr},
    {"ConstantOfShape", 24, nullptr},
    {"ConstantOfShape", 25, nullptr},
    {"Conv", 22, &AddBfloat16},
    {"ConvTranspose", 22, &AddBfloat16},
    {"Cos", 22, &AddBfloat16},
    {"Cosh", 22, &AddBfloat16},
    {"DFT", 20, &DftAxisInput},
    {"DequantizeLinear", 19, &DequantizeScaleTypes},
    {"DequantizeLinear", 21, &DequantizeBlocks},
    {"DequantizeLinear", 23, &DequantizeOutputType},
    {"DequantizeLinear", 24, nullptr},
    {"DequantizeLinear", 25, nullptr},
    {"Det", 22, &AddBfloat16},
    {"Dropout", 22, &AddBfloat16},
    {"Elu", 22, &AddBfloat16},
    {"Equal", 19, &EqualStrings},
    {"EyeLike", 22, &AddBfloat16},
    {"Flatten", 21, nullptr},
    {"Flatten", 23, nullptr},
    {"Flatten", 24, nullptr},
    {"Flatten", 25, nullptr},
    {"GRU", 22, &AddBfloat16},
    {"Gelu", 20, &Gelu},
    {"GlobalAveragePool", 22, &AddBfloat16},
    {"GlobalLpPool", 22, &AddBfloat16},
    {"GlobalMaxPool", 22, &AddBfloat16},
    {"GridSample", 20, nullptr},  // mode names and N-D grids: attribute values and ranks
    {"GridSample", 22, &AddBfloat16},
    {"GroupNormalization", 18, &GroupNormalization},
    {"GroupNormalization", 21, &GroupNormalizationStash},
    {"HardSigmoid", 22, &AddBfloat16},
    {"HardSwish", 22, &AddBfloat16},
    {"Identity", 19, nullptr},
    {"Identity", 21, nullptr},
    {"Identity", 23, nullptr},
    {"Identity", 24, nullptr},
    {"Identity", 25, nullptr},
    {"If", 19, nullptr},
    {"If", 21, nullptr},
    {"If", 23, nullptr},
    {"If", 24, nullptr},
    {"If", 25, nullptr},
    {"InstanceNormalization", 22, &AddBfloat16},
    {"IsInf", 20, &IsInfHalfs},
    {"IsNaN", 20, nullptr},
    {"LSTM", 22, &AddBfloat16},
    {"Loop", 19, nullptr},
    {"Loop", 21, nullptr},
    {"Loop", 23, nullptr},
    {"Loop", 24, nullptr},
    {"Loop", 25, nullptr},
    {"LpPool", 18, &LpPoolCeilDilations},
    {"LpPool", 22, &AddBfloat16},
    {"MaxPool", 22, &AddBfloat16},
    {"MaxRoiPool", 22, &AddBfloat16},
    {"MaxUnpool", 22, &AddBfloat16},
    {"Mish", 18, &Mish},
    {"Mish", 22, &AddBfloat16},
    {"Multinomial", 22, &AddBfloat16},
    {"NegativeLogLikelihoodLoss", 22, &AddBfloat16},
    {"OptionalGetElement", 18, &OptionalOfAnything},
    {"OptionalHasElement", 18, &OptionalOfAnything},
    {"Pad", 18, &PadAxes},
    {"Pad", 19, nullptr},
    {"Pad", 21, nullptr},
    {"Pad", 23, nullptr},
    {"Pad", 24, nullptr},
    {"Pad", 25, nullptr},
    {"QLinearMatMul", 21, nullptr},
    {"QuantizeLinear", 19, &QuantizeScaleTypes},
    {"QuantizeLinear", 21, &QuantizeBlocks},
    {"QuantizeLinear", 23, &QuantizePrecision},
    {"QuantizeLinear", 24, nullptr},
    {"QuantizeLinear", 25, nullptr},
    {"RMSNormalization", 23, &RmsNormalization},
    {"RNN", 22, &AddBfloat16},
    {"RandomNormal", 22, &AddBfloat16},
    {"RandomNormalLike", 22, &AddBfloat16},
    {"RandomUniform", 22, &AddBfloat16},
    {"RandomUniformLike", 22, &AddBfloat16},
    {"ReduceL1", 18, &ReduceAxesInput},
    {"ReduceL2", 18, &ReduceAxesInput},
    {"ReduceLogSum", 18, &ReduceAxesInput},
    {"ReduceLogSumExp", 18, &ReduceAxesInput},
    {"ReduceMax", 18, &ReduceAxesInput},
    {"ReduceMax", 20, &ReduceBools},
    {"ReduceMean", 18, &ReduceAxesInput},
    {"ReduceMin", 18, &ReduceAxesInput},
    {"ReduceMin", 20, &ReduceBools},
    {"ReduceProd", 18, &ReduceAxesInput},
    {"ReduceSumSquare", 18, &ReduceAxesInput},
    {"Reshape", 19, nullptr},
    {"Reshape", 21, nullptr},
    {"Reshape", 23, nullptr},
    {"Reshape", 24, nullptr},
    {"Reshape", 25, nullptr},
    {"Resize", 18, &ResizeAntialiasAxes},
    {"Resize", 19, nullptr},  // coordinate_transformation_mode half_pixel_symmetric
    {"RoiAlign", 22, &AddBfloat16},
    {"RotaryEmbedding", 23, &RotaryEmbedding},
    {"Round", 22, &AddBfloat16},
    {"Scan", 19, nullptr},
    {"Scan", 21, nullptr},
    {"Scan", 23, nullptr},
    {"Scan", 24, nullptr},
    {"Scan", 25, nullptr},
    {"ScatterElements", 18, nullptr},  // reduction max and min
    {"ScatterND", 18, nullptr},        // reduction max and min
    {"Selu", 22, &AddBfloat16},
    {"Shape", 19, nullptr},
    {"Shape", 21, nullptr},
    {"Shape", 23, nullptr},
    {"Shape", 24, nullptr},
    {"Shape", 25, nullptr},
    {"Sin", 22, &AddBfloat16},
    {"Sinh", 22, &AddBfloat16},
    {"Size", 19, nullptr},
    {"Size", 21, nullptr},
    {"Size", 23, nullptr},
    {"Size", 24, nullptr},
    {"Size", 25, nullptr},
    {"Softplus", 22, &AddBfloat16},
    {"Softsign", 22, &AddBfloat16},
    {"Split", 18, &SplitNumOutputs},
    {"SplitToSequence", 24, &AddBfloat16},
    {"Squeeze", 21, nullptr},
    {"Squeeze", 23, nullptr},
    {"Squeeze", 24, nullptr},
    {"Squeeze", 25, nullptr},
    {"Swish", 24, &Swish},
    {"Tan", 22, &AddBfloat16},
    {"TensorScatter", 24, &TensorScatter},
    {"ThresholdedRelu", 22, &AddBfloat16},
    {"TopK", 24, &AddBfloat16},
    {"Transpose", 21, nullptr},
    {"Transpose", 23, nullptr},
    {"Transpose", 24, nullptr},
    {"Transpose", 25, nullptr},
    {"Unsqueeze", 21, nullptr},
    {"Unsqueeze", 23, nullptr},
    {"Unsqueeze", 24, nullptr},
    {"Unsqueeze", 25, nullptr},
};

struct Undefined {
  std::string_view op;
  int version;
};

// ONNX ops of opsets 18 to 26 that Anvil has no definition of (sorted by op).
constexpr Undefined kUndefined[] = {
    {"AffineGrid", 20},     {"BitCast", 26},      {"CenterCropPad", 18}, {"Col2Im", 18},
    {"CumProd", 26},        {"DeformConv", 19},   {"ImageDecoder", 20},  {"LpNormalization", 22},
    {"RegexFullMatch", 20}, {"StringConcat", 20}, {"StringSplit", 20},
};

}  // namespace

bool ReviseToLaterOpset(std::string_view op_type, int64_t opset, OpSchemaInfo& schema) {
  const Revision* first =
      std::lower_bound(std::begin(kRevisions), std::end(kRevisions), op_type,
                       [](const Revision& r, std::string_view op) { return r.op < op; });
  bool revised = false;
  for (const Revision* r = first; r != std::end(kRevisions) && r->op == op_type; ++r) {
    if (r->version > opset) break;
    if (r->revise != nullptr) r->revise(schema);
    schema.since_version = r->version;
    revised = true;
  }
  return revised;
}

int UndefinedLaterOp(std::string_view op_type) {
  for (const Undefined& u : kUndefined) {
    if (u.op == op_type) return u.version;
  }
  return 0;
}

}  // namespace anvil
