// The shape-op family's rule table, its shared value helpers, and the ops that create tensors
// or read shapes: Shape, Size, Constant, ConstantOfShape, Range, the random generators and
// TfIdfVectorizer. Layout ops are in shape_ops_layout.cc, indexing ops in shape_ops_index.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "shape/ops/elementwise.h"
#include "shape/ops/op_util.h"
#include "shape/ops/shape_ops_internal.h"
#include "shape/shape_rules.h"
#include "shape/tensor_info.h"

namespace anvil::shape_ops::shape_family {

// ---- Shared helpers ----

void SetValues(TensorInfo& out, IndexExprList values) {
  if (static_cast<int64_t>(values.size()) <= kMaxValues) out.values = std::move(values);
}

std::optional<IndexExprList> IntValues(const ShapeContext& ctx, int i) {
  if (!ctx.HasInput(i)) return std::nullopt;
  if (const std::optional<IndexExprList>& values = ctx.InputValues(i)) return values;
  std::shared_ptr<const Elements> constant = ctx.InputConstant(i);
  if (constant == nullptr || !IsIntegerOrBoolType(constant->element_type()) ||
      constant->NumElements() > kMaxValues) {
    return std::nullopt;
  }
  IndexExprList values;
  for (int64_t k = 0; k < constant->NumElements(); ++k) values.push_back(constant->GetInt64(k));
  return values;
}

std::optional<int64_t> InputLength(const ShapeContext& ctx, int i) {
  if (!ctx.HasInput(i)) return std::nullopt;
  if (std::optional<IndexExprList> values = IntValues(ctx, i)) {
    return static_cast<int64_t>(values->size());
  }
  std::optional<DimsExpr> dims = ctx.InputDims(i);
  if (!dims) return std::nullopt;
  if (dims->empty()) return 1;
  if (dims->size() == 1 && (*dims)[0].IsLiteral() && (*dims)[0].literal() <= kMaxDerivedRank) {
    return (*dims)[0].literal();
  }
  return std::nullopt;
}

std::optional<std::vector<double>> DoubleValues(const ShapeContext& ctx, int i) {
  if (!ctx.HasInput(i)) return std::nullopt;
  std::shared_ptr<const Elements> constant = ctx.InputConstant(i);
  if (constant != nullptr && constant->element_type() != ElementType::kString) {
    std::vector<double> values;
    for (int64_t k = 0; k < constant->NumElements(); ++k) values.push_back(constant->GetDouble(k));
    return values;
  }
  std::optional<std::vector<int64_t>> literals = ctx.InputLiteralValues(i);
  if (!literals) return std::nullopt;
  return std::vector<double>(literals->begin(), literals->end());
}

absl::StatusOr<std::vector<int64_t>> NormalizeAxes(const ShapeContext& ctx,
                                                   absl::Span<const int64_t> axes, int64_t rank) {
  std::vector<int64_t> result;
  for (int64_t a : axes) {
    ANVIL_ASSIGN_OR_RETURN(int64_t axis, ctx.NormalizeAxis(a, rank, "axis"));
    if (std::find(result.begin(), result.end(), axis) != result.end()) {
      return ctx.Error(
          absl::StrCat("axis ", a, " repeats in axes [", absl::StrJoin(axes, ", "), "]"));
    }
    result.push_back(axis);
  }
  return result;
}

IndexExprList BroadcastValues(const IndexExprList& values, const std::vector<int64_t>& in_dims,
                              const std::vector<int64_t>& out_dims) {
  const size_t rank = out_dims.size();
  // Input strides aligned to the output's trailing dims; 0 where the input broadcasts.
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t k = 0; k < in_dims.size(); ++k) {
    const size_t in_k = in_dims.size() - 1 - k;
    if (in_dims[in_k] != 1) strides[rank - 1 - k] = stride;
    stride *= in_dims[in_k];
  }
  int64_t count = 1;
  for (int64_t d : out_dims) count *= d;
  IndexExprList result;
  result.reserve(count);
  std::vector<int64_t> index(rank, 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (size_t k = 0; k < rank; ++k) offset += index[k] * strides[k];
    result.push_back(values[offset]);
    for (size_t k = rank; k-- > 0;) {  // odometer increment
      if (++index[k] < out_dims[k]) break;
      index[k] = 0;
    }
  }
  return result;
}

namespace {

// ---- Sparse constants ----

// The IR keeps sparse attributes as serialized SparseTensorProtos; Constant only needs their
// dims and element type, so a few lines of protobuf wire format beat a proto dependency.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  bool done() const { return pos_ >= data_.size(); }

  bool ReadVarint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && pos_ < data_.size(); shift += 7) {
      const uint8_t byte = static_cast<uint8_t>(data_[pos_++]);
      *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }

  // Reads one field: its number, wire type, varint value (wire type 0) or bytes (type 2).
  bool Next(int* field, int* wire_type, uint64_t* varint, std::string_view* bytes) {
    uint64_t key;
    if (!ReadVarint(&key)) return false;
    *field = static_cast<int>(key >> 3);
    *wire_type = static_cast<int>(key & 7);
    switch (*wire_type) {
      case 0:
        return ReadVarint(varint);
      case 1:
        return Skip(8);
      case 2: {
        uint64_t size;
        if (!ReadVarint(&size) || size > data_.size() - pos_) return false;
        *bytes = data_.substr(pos_, size);
        pos_ += size;
        return true;
      }
      case 5:
        return Skip(4);
      default:
        return false;
    }
  }

 private:
  bool Skip(size_t n) {
    if (n > data_.size() - pos_) return false;
    pos_ += n;
    return true;
  }

  std::string_view data_;
  size_t pos_ = 0;
};

struct SparseInfo {
  ElementType type = ElementType::kUndefined;
  std::vector<int64_t> dims;
};

// SparseTensorProto: values = 1 (TensorProto, whose data_type = 2), dims = 3 (repeated int64,
// packed or not).
std::optional<SparseInfo> ParseSparseTensor(std::string_view bytes) {
  SparseInfo info;
  WireReader reader(bytes);
  while (!reader.done()) {
    int field, wire_type;
    uint64_t varint = 0;
    std::string_view sub;
    if (!reader.Next(&field, &wire_type, &varint, &sub)) return std::nullopt;
    if (field == 3 && wire_type == 0) {
      info.dims.push_back(static_cast<int64_t>(varint));
    } else if (field == 3 && wire_type == 2) {
      WireReader packed(sub);
      while (!packed.done()) {
        uint64_t d;
        if (!packed.ReadVarint(&d)) return std::nullopt;
        info.dims.push_back(static_cast<int64_t>(d));
      }
    } else if (field == 1 && wire_type == 2) {
      WireReader values(sub);
      while (!values.done()) {
        int vfield, vwire;
        uint64_t vvarint = 0;
        std::string_view vsub;
        if (!values.Next(&vfield, &vwire, &vvarint, &vsub)) return std::nullopt;
        if (vfield == 2 && vwire == 0) info.type = static_cast<ElementType>(vvarint);
      }
    }
  }
  return info;
}

DimsExpr ToDims(absl::Span<const int64_t> dims) { return DimsExpr(dims.begin(), dims.end()); }

IndexExpr Length(size_t n) { return IndexExpr(static_cast<int64_t>(n)); }

}  // namespace

// ---- ShapeFns ----

// Constant: type and dims of whichever value attribute is set; small integer payloads become
// values so shape arithmetic on them stays exact.
absl::Status InferConstant(ShapeContext& ctx) {
  const Node& node = ctx.node();
  TensorInfo& out = ctx.output(0);
  if (const Attribute* a = node.FindAttribute("value")) {
    if (a->tensors.empty() || a->tensors[0].elements == nullptr) return absl::OkStatus();
    out = InfoFromElements(*a->tensors[0].elements);  // as the builders see constants
  } else if (const Attribute* a = node.FindAttribute("sparse_value")) {
    std::optional<SparseInfo> sparse;
    if (!a->serialized_protos.empty()) sparse = ParseSparseTensor(a->serialized_protos[0]);
    if (!sparse) return ctx.Error("cannot read the sparse_value attribute");
    out.type = sparse->type;
    out.dims = ToDims(sparse->dims);
  } else if (node.FindAttribute("value_float") != nullptr) {
    out.type = ElementType::kFloat;
    out.dims = DimsExpr{};
  } else if (const Attribute* a = node.FindAttribute("value_floats")) {
    out.type = ElementType::kFloat;
    out.dims = DimsExpr{Length(a->floats.size())};
  } else if (const Attribute* a = node.FindAttribute("value_int")) {
    out.type = ElementType::kInt64;
    out.dims = DimsExpr{};
    out.values = IndexExprList{a->i};
  } else if (const Attribute* a = node.FindAttribute("value_ints")) {
    out.type = ElementType::kInt64;
    out.dims = DimsExpr{Length(a->ints.size())};
    SetValues(out, IndexExprList(a->ints.begin(), a->ints.end()));
  } else if (node.FindAttribute("value_string") != nullptr) {
    out.type = ElementType::kString;
    out.dims = DimsExpr{};
  } else if (const Attribute* a = node.FindAttribute("value_strings")) {
    out.type = ElementType::kString;
    out.dims = DimsExpr{Length(a->strings.size())};
  } else {
    return ctx.Error(
        "no value attribute (value, sparse_value, value_float(s), value_int(s), "
        "value_string(s))");
  }
  return absl::OkStatus();
}

// ConstantOfShape: dims are the input's values; `value` sets the type (default float 0).
absl::Status InferConstantOfShape(ShapeContext& ctx) {
  ElementType type = ElementType::kFloat;
  int64_t fill = 0;
  if (const Attribute* a = ctx.node().FindAttribute("value")) {
    if (!a->tensors.empty() && a->tensors[0].elements != nullptr) {
      const Elements& value = *a->tensors[0].elements;
      if (value.NumElements() != 1) {
        return ctx.Error(absl::StrCat("value must hold one element, has ", value.NumElements()));
      }
      type = value.element_type();
      if (IsIntegerOrBoolType(type)) fill = value.GetInt64(0);
    }
  }
  TensorInfo& out = ctx.output(0);
  out.type = type;
  if (std::optional<IndexExprList> dims = IntValues(ctx, 0)) {
    for (const IndexExpr& d : *dims) {
      if (d.IsLiteral() && d.literal() < 0) {
        return ctx.Error(absl::StrCat("negative dim in shape ", DimsToString(*dims)));
      }
    }
    out.dims = *dims;
    for (size_t k = 0; k < dims->size(); ++k) {
      if ((*out.dims)[k].IsQuestionmark()) {
        (*out.dims)[k] = ctx.DataDependentDim(absl::StrCat("d", k), 0, IndexExpr::Questionmark());
      }
    }
    // A small integer fill (ConstantOfShape(Shape(x)) with value 1 is a common "ones" shape).
    if (std::optional<std::vector<int64_t>> literal = LiteralDims(*dims);
        literal && IsIntegerOrBoolType(type)) {
      int64_t count = 1;
      for (int64_t d : *literal) count *= d;
      if (count <= kMaxValues) out.values = IndexExprList(count, IndexExpr(fill));
    }
  } else if (std::optional<int64_t> rank = InputLength(ctx, 0)) {
    out.dims = ctx.UnboundedDims(*rank);
  }
  return absl::OkStatus();
}

// Multinomial: [batch_size, sample_size] of dtype (default int32).
absl::Status InferMultinomial(ShapeContext& ctx) {
  const std::optional<ElementType> type = shape_ops::elementwise::ElementTypeFromAttr(
      ctx.node().GetInt("dtype", static_cast<int>(ElementType::kInt32)));
  if (!type) return ctx.Error("dtype is not an ONNX data type");
  const IndexExpr samples = ctx.node().GetInt("sample_size", 1);
  std::optional<DimsExpr> dims = ctx.InputDims(0);
  if (dims && dims->size() != 2) {
    return ctx.Error(
        absl::StrCat("input must be 2-D [batch_size, class_size], is ", DimsToString(*dims)));
  }
  ctx.SetOutput(0, *type, DimsExpr{dims ? (*dims)[0] : IndexExpr::Questionmark(), samples});
  return absl::OkStatus();
}

// RandomNormal, RandomUniform: the `shape` attribute, dtype (default float).
absl::Status InferRandom(ShapeContext& ctx) {
  const std::optional<ElementType> type = shape_ops::elementwise::ElementTypeFromAttr(
      ctx.node().GetInt("dtype", static_cast<int>(ElementType::kFloat)));
  if (!type) return ctx.Error("dtype is not an ONNX data type");
  if (ctx.node().FindAttribute("shape") == nullptr) return ctx.Error("missing attribute shape");
  const std::vector<int64_t> shape = ctx.node().GetInts("shape");
  ctx.SetOutput(0, *type, DimsExpr(shape.begin(), shape.end()));
  return absl::OkStatus();
}

// Range: 1-D of max(ceil((limit - start) / delta), 0) elements.
absl::Status InferRange(ShapeContext& ctx) {
  ElementType type = ElementType::kUndefined;
  for (int i = 0; i < 3 && type == ElementType::kUndefined; ++i) type = ctx.InputType(i);
  TensorInfo& out = ctx.output(0);
  out.type = type;
  out.dims = DimsExpr{IndexExpr::Questionmark()};

  // Integer bounds, possibly symbolic (Range(0, Gather(Shape(x), 1), 1) is a common position
  // index): exact with a literal delta.
  auto scalar = [&](int i) -> std::optional<IndexExpr> {
    std::optional<IndexExprList> v = IntValues(ctx, i);
    if (!v || v->size() != 1) return std::nullopt;
    return (*v)[0];
  };
  const bool integral = type == ElementType::kUndefined || IsIntegerOrBoolType(type);
  std::optional<IndexExpr> start = integral ? scalar(0) : std::nullopt;
  std::optional<IndexExpr> limit = integral ? scalar(1) : std::nullopt;
  std::optional<IndexExpr> delta = integral ? scalar(2) : std::nullopt;
  if (delta && delta->IsLiteral()) {
    const int64_t step = delta->literal();
    if (step == 0) return ctx.Error("delta is 0");
    if (start && limit) {
      // Keep the divisor positive: ceil(a / -d) == ceil(-a / d).
      const IndexExpr count =
          step > 0 ? CeilDiv(*limit - *start, step) : CeilDiv(*start - *limit, -step);
      out.dims = DimsExpr{Max(count, 0)};
      const IndexExpr& n = out.dims->front();
      if (n.IsLiteral() && n.literal() <= kMaxValues && start->IsLiteral()) {
        IndexExprList values;
        for (int64_t k = 0; k < n.literal(); ++k) values.push_back(start->literal() + k * step);
        out.values = std::move(values);
      }
      return absl::OkStatus();
    }
  }

  // Floating-point bounds, all constants: as ONNX's own inference and ONNX Runtime do, the
  // difference in the input type and the division in double.
  std::optional<std::vector<double>> s = DoubleValues(ctx, 0);
  std::optional<std::vector<double>> l = DoubleValues(ctx, 1);
  std::optional<std::vector<double>> d = DoubleValues(ctx, 2);
  if (s && l && d && s->size() == 1 && l->size() == 1 && d->size() == 1) {
    if ((*d)[0] == 0) return ctx.Error("delta is 0");
    const double diff =
        type == ElementType::kFloat
            ? static_cast<double>(static_cast<float>((*l)[0]) - static_cast<float>((*s)[0]))
            : (*l)[0] - (*s)[0];
    const double count = std::ceil(diff / (*d)[0]);
    if (!std::isfinite(count)) return ctx.Error("the number of elements is not finite");
    out.dims = DimsExpr{IndexExpr(std::max<int64_t>(static_cast<int64_t>(count), 0))};
    return absl::OkStatus();
  }
  // Data-dependent: with integer start and limit known to lie in ranges, at most |limit - start|
  // elements (|delta| >= 1).
  IndexExpr most = IndexExpr::Questionmark();
  if (start && limit) {
    const IndexRange span = RangeOf(*limit - *start);
    if (span.lo && span.hi) most = std::max({*span.hi, -*span.lo, int64_t{0}});
  }
  out.dims = DimsExpr{ctx.DataDependentDim("n", 0, most)};
  return absl::OkStatus();
}

// Shape: the input's dims [start, end) (start/end since opset 15) as an int64 1-D tensor whose
// values are those dims.
absl::Status InferShape(ShapeContext& ctx) {
  TensorInfo& out = ctx.output(0);
  out.type = ElementType::kInt64;
  std::optional<DimsExpr> dims = ctx.InputDims(0);
  if (!dims) {
    out.dims = DimsExpr{IndexExpr::Questionmark()};
    return absl::OkStatus();
  }
  const int64_t rank = static_cast<int64_t>(dims->size());
  // Negative bounds count from the back; both are clamped into [0, rank].
  auto clamp = [rank](int64_t i) { return std::clamp(i < 0 ? i + rank : i, int64_t{0}, rank); };
  int64_t start = 0;
  int64_t end = rank;
  if (ctx.opset() >= 15) {
    start = clamp(ctx.node().GetInt("start", 0));
    end = clamp(ctx.node().GetInt("end", rank));
  }
  end = std::max(start, end);
  out.dims = DimsExpr{IndexExpr(end - start)};
  SetValues(out, IndexExprList(dims->begin() + start, dims->begin() + end));
  return absl::OkStatus();
}

// Size: int64 scalar holding the element count.
absl::Status InferSize(ShapeContext& ctx) {
  TensorInfo& out = ctx.output(0);
  out.type = ElementType::kInt64;
  out.dims = DimsExpr{};
  if (std::optional<DimsExpr> dims = ctx.InputDims(0)) {
    out.values = IndexExprList{NumElements(*dims)};
  }
  return absl::OkStatus();
}

// TfIdfVectorizer: [C] or [N, C] floats, C = max(ngram_indexes) + 1.
absl::Status InferTfIdfVectorizer(ShapeContext& ctx) {
  const std::vector<int64_t> indexes = ctx.node().GetInts("ngram_indexes");
  const IndexExpr width = indexes.empty()
                              ? IndexExpr(0)
                              : IndexExpr(*std::max_element(indexes.begin(), indexes.end()) + 1);
  std::optional<DimsExpr> dims = ctx.InputDims(0);
  std::optional<DimsExpr> out;
  if (dims) {
    if (dims->size() == 1) {
      out = DimsExpr{width};
    } else if (dims->size() == 2) {
      out = DimsExpr{(*dims)[0], width};
    } else {
      return ctx.Error(absl::StrCat("input must be [C] or [N, C], is ", DimsToString(*dims)));
    }
  }
  ctx.SetOutput(0, ElementType::kFloat, std::move(out));
  return absl::OkStatus();
}

// StringNormalizer: strings [C] or [1, C] in, the same rank out; without stopwords nothing is
// removed (same dims), with them the count is data-dependent (and at least 1: an empty result is
// one empty string).
absl::Status InferStringNormalizer(ShapeContext& ctx) {
  if (ctx.InputType(0) != ElementType::kUndefined && ctx.InputType(0) != ElementType::kString) {
    return ctx.Error(absl::StrCat("input must be a string tensor, is ",
                                  AsAbsl(ElementTypeName(ctx.InputType(0)))));
  }
  const std::string action = ctx.node().GetString("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER") {
    return ctx.Error(absl::StrCat("case_change_action '", action,
                                  "' is not NONE, LOWER or UPPER"));
  }
  std::optional<DimsExpr> dims = ctx.InputDims(0);
  if (dims && !(dims->size() == 1 || (dims->size() == 2 && (!(*dims)[0].IsLiteral() ||
                                                            (*dims)[0].literal() == 1)))) {
    return ctx.Error(absl::StrCat("input must be [C] or [1, C], is ", DimsToString(*dims)));
  }
  const Attribute* stopwords = ctx.node().FindAttribute("stopwords");
  if (dims && stopwords != nullptr && !stopwords->strings.empty()) {
    // What the stopwords leave: at most the input's strings.
    dims->back() = ctx.DataDependentDim("n", 0, dims->back());
  }
  ctx.SetOutput(0, ElementType::kString, std::move(dims));
  return absl::OkStatus();
}

}  // namespace anvil::shape_ops::shape_family

namespace anvil::shape_rules {

namespace sf = shape_ops::shape_family;

// Sorted by op_type. Deprecated ops (Scatter from 11, Upsample from 10) keep the semantics of
// their last definition, as ONNX Runtime still runs them.
const ShapeRule kShapeOpRules[] = {
    {"", "Compress", sf::InferCompress},
    {"", "Concat", sf::InferConcat},
    {"", "Constant", sf::InferConstant},
    {"", "ConstantOfShape", sf::InferConstantOfShape},
    {"", "DepthToSpace", sf::InferDepthToSpace},
    {"", "Expand", sf::InferExpand},
    {"", "Flatten", sf::InferFlatten},
    {"", "Gather", sf::InferGather},
    {"", "GatherElements", sf::InferGatherElements},
    {"", "GatherND", sf::InferGatherND},
    {"", "Multinomial", sf::InferMultinomial},
    {"", "OneHot", sf::InferOneHot},
    {"", "Pad", sf::InferPad},
    {"", "RandomNormal", sf::InferRandom},
    {"", "RandomUniform", sf::InferRandom},
    {"", "Range", sf::InferRange},
    {"", "Reshape", sf::InferReshape},
    {"", "Resize", sf::InferResize},
    {"", "ReverseSequence", sf::InferSameAsData},
    {"", "Scatter", sf::InferSameAsData},
    {"", "ScatterElements", sf::InferSameAsData},
    {"", "ScatterND", sf::InferSameAsData},
    {"", "Shape", sf::InferShape},
    {"", "Size", sf::InferSize},
    {"", "Slice", sf::InferSlice},
    {"", "SpaceToDepth", sf::InferSpaceToDepth},
    {"", "Split", sf::InferSplit},
    {"", "Squeeze", sf::InferSqueeze},
    {"", "StringNormalizer", sf::InferStringNormalizer},
    {"", "TfIdfVectorizer", sf::InferTfIdfVectorizer},
    {"", "Tile", sf::InferTile},
    {"", "Transpose", sf::InferTranspose},
    {"", "Unsqueeze", sf::InferUnsqueeze},
    {"", "Upsample", sf::InferUpsample},
    {nullptr, nullptr, nullptr},
};

}  // namespace anvil::shape_rules
