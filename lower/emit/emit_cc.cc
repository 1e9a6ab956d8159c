#include "lower/emit/emit_cc.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "lower/ir/functor.h"
#include "lower/ir/printer.h"
#include "lower/ir/simplify.h"
#include "lower/passes/access.h"

namespace anvil::lower {

#define ANVIL_CC_ABI(...) #__VA_ARGS__
const char kAnvilCcAbi[] =
#include "lower/emit/abi.inc"
    ;
#undef ANVIL_CC_ABI

namespace {

using tir::DataType;
using tir::Expr;
using tir::ExprKind;
using tir::IntrinsicOp;
using tir::ScalarKind;
using tir::Stmt;

// Helpers of every emitted unit: the evaluator's scalar semantics (lower/ir/scalar.cc) in plain
// C++. The f16/bf16 conversions are those of kernels/dispatch.cc and graph/element_type.cc.
constexpr char kPrelude[] = R"cc(
  namespace {

  template <class T>
  inline T anvil_add(T a, T b) {
    using U = std::make_unsigned_t<T>;
    return (T)((U)a + (U)b);
  }
  template <class T>
  inline T anvil_sub(T a, T b) {
    using U = std::make_unsigned_t<T>;
    return (T)((U)a - (U)b);
  }
  template <class T>
  inline T anvil_mul(T a, T b) {
    using U = std::make_unsigned_t<T>;
    return (T)((U)a * (U)b);
  }
  // Size arithmetic (workspace bytes, output dims): the wrapped result, and *overflow set when
  // it wrapped.
  template <class T>
  inline T anvil_add_chk(T a, T b, bool* overflow) {
    T r;
    if (__builtin_add_overflow(a, b, &r)) *overflow = true;
    return r;
  }
  template <class T>
  inline T anvil_sub_chk(T a, T b, bool* overflow) {
    T r;
    if (__builtin_sub_overflow(a, b, &r)) *overflow = true;
    return r;
  }
  template <class T>
  inline T anvil_mul_chk(T a, T b, bool* overflow) {
    T r;
    if (__builtin_mul_overflow(a, b, &r)) *overflow = true;
    return r;
  }
  template <class T>
  inline T anvil_neg(T a) {
    using U = std::make_unsigned_t<T>;
    return (T)((U)0 - (U)a);
  }
  template <class T>
  inline T anvil_min(T a, T b) {
    return b < a ? b : a;
  }
  template <class T>
  inline T anvil_max(T a, T b) {
    return a < b ? b : a;
  }
  template <class T>
  inline T anvil_fmin(T a, T b) {
    if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
    return b < a ? b : a;
  }
  template <class T>
  inline T anvil_fmax(T a, T b) {
    if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
    return a < b ? b : a;
  }
  template <class T>
  inline T anvil_iabs(T a) {
    return a < 0 ? anvil_neg(a) : a;
  }

  // op: 0 division (toward zero), 1 floor division, 2 floor modulo, 3 C remainder (fmod).
  inline int64_t anvil_idiv(const AnvilHost* h, int32_t* err, int64_t x, int64_t y, int op,
                            bool is_unsigned) {
    if (y == 0) {
      if (!*err) h->fail(h->ctx, "integer division by zero");
      *err = 1;
      return 0;
    }
    if (is_unsigned) {
      const uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
      return (int64_t)(op >= 2 ? ux % uy : ux / uy);
    }
    if (op == 3) return y == -1 ? 0 : x % y;
    if (x == std::numeric_limits<int64_t>::min() && y == -1) return op == 2 ? 0 : x;
    int64_t q = x / y, r = x % y;
    if (op == 0) return q;
    if (r != 0 && ((r < 0) != (y < 0))) {
      --q;
      r += y;
    }
    return op == 1 ? q : r;
  }

  // Float to integer: NaN is 0, out of range saturates, then truncation toward zero.
  inline int64_t anvil_f2i(double v, double lo, double hi) {
    if (v != v) return 0;
    return (int64_t)std::trunc(v < lo ? lo : (v > hi ? hi : v));
  }
  inline int64_t anvil_f2s64(double v) {
    if (v != v) return 0;
    if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
    if (v >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
    return (int64_t)v;
  }
  inline uint64_t anvil_f2u64(double v) {
    if (v != v || v <= 0) return 0;
    if (v >= 18446744073709551616.0) return ~(uint64_t)0;
    return (uint64_t)v;
  }

  inline uint16_t anvil_f2h(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    if (abs >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
    if (abs < 0x38800000u) {
      float magnitude;
      std::memcpy(&magnitude, &abs, 4);
      return (uint16_t)(sign | (uint32_t)std::nearbyint(magnitude * 16777216.0f));
    }
    uint32_t h = ((abs >> 13) - ((127 - 15) << 10));
    const uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
    return (uint16_t)(sign | h);
  }
  inline float anvil_h2f(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, bits;
    if (exp == 0) {
      if (mant == 0) {
        bits = sign;
      } else {
        exp = 127 - 15 + 1;
        while ((mant & 0x400u) == 0) {
          mant <<= 1;
          --exp;
        }
        bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
      }
    } else if (exp == 0x1f) {
      bits = sign | 0x7f800000u | (mant << 13);
    } else {
      bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  inline uint16_t anvil_f2bf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
  }
  inline float anvil_bf2f(uint16_t h) {
    const uint32_t bits = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  inline float anvil_rnd_f16(float v) { return anvil_h2f(anvil_f2h(v)); }
  inline float anvil_rnd_bf16(float v) { return anvil_bf2f(anvil_f2bf(v)); }

  // The host of the dims and sizes functions: they divide by constants (a zero gives 0).
  inline void anvil_ignore_failure(void*, const char*) {}
  const AnvilHost anvil_quiet_host = {nullptr, nullptr, nullptr, nullptr, anvil_ignore_failure,
                                      nullptr};

  inline int64_t anvil_trips(int64_t begin, int64_t end, int64_t step) {
    return end > begin && step > 0 ? (end - begin + step - 1) / step : 0;
  }

  // A loop marked parallel: the body as a function of a range of trips, run by the host's
  // thread pool when it has one.
  template <class Chunk>
  inline int32_t anvil_parallel(const AnvilHost* h, int64_t trips, int64_t work_per_trip,
                                Chunk& chunk) {
    if (trips <= 0) return 0;
    if (h->parallel_for == nullptr) return chunk(0, trips);
    return h->parallel_for(
        h->ctx, trips, work_per_trip,
        [](void* c, int64_t lo, int64_t hi) -> int32_t {
          return (*static_cast<Chunk*>(c))(lo, hi);
        },
        &chunk);
  }

  // A local tensor's memory: bytes computed with overflow checks.
  inline uint8_t* anvil_alloc(const AnvilHost* h, int64_t element_size, int rank,
                              const int64_t* dims) {
    int64_t bytes = element_size;
    for (int k = 0; k < rank; ++k) {
      if (dims[k] < 0 || __builtin_mul_overflow(bytes, dims[k], &bytes)) {
        h->fail(h->ctx, "a local tensor's byte size overflows");
        return nullptr;
      }
    }
    return (uint8_t*)h->alloc(h->ctx, bytes);
  }

  }  // namespace
)cc";

// The kernels' element-wise vector math (kernels/simd/vector_math.inc), as text for emitted code.
#define ANVIL_VECTOR_MATH(...) #__VA_ARGS__
const char kVectorMath[] =
#include "kernels/simd/vector_math.inc"
    ;
#undef ANVIL_VECTOR_MATH

// Helpers of units with vector loops: the kernels' ops (ExpOp, TanhOp, ErfOp, ...) in the scope
// they expect, and min/max with the scalar code's NaN propagation.
constexpr char kVectorPreludeHead[] = R"cc(
  namespace {
  namespace hn = hwy::HWY_NAMESPACE;
  using D = hn::ScalableTag<float>;
  using V = hn::Vec<D>;
)cc";
constexpr char kVectorPreludeTail[] = R"cc(
  inline V anvil_vmin(D d, V a, V b) {
    const V r = hn::IfThenElse(hn::Lt(b, a), b, a);
    return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), hn::NaN(d), r);
  }
  inline V anvil_vmax(D d, V a, V b) {
    const V r = hn::IfThenElse(hn::Lt(a, b), b, a);
    return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), hn::NaN(d), r);
  }
  // x / d for a divisor d the same in every lane and iteration: `divisor` is 1 / d when
  // `reciprocal` (|d| in [2^-126, 2^126], where 1 / d is a normal float), else d itself.
  HWY_INLINE V anvil_vdiv(V x, V divisor, bool reciprocal) {
    return reciprocal ? hn::Mul(x, divisor) : hn::Div(x, divisor);
  }

  }  // namespace
)cc";

bool IsHalf(DataType t) { return t.kind() == ScalarKind::kF16; }
bool IsBf16(DataType t) { return t.kind() == ScalarKind::kBF16; }

// The C++ type of values of scalar kind `t` in expressions.
absl::StatusOr<std::string> ValueType(DataType t) {
  switch (t.kind()) {
    case ScalarKind::kBool:
      return std::string("bool");
    case ScalarKind::kS8:
      return std::string("int8_t");
    case ScalarKind::kS16:
      return std::string("int16_t");
    case ScalarKind::kS32:
      return std::string("int32_t");
    case ScalarKind::kS64:
    case ScalarKind::kIndex:
      return std::string("int64_t");
    case ScalarKind::kU8:
      return std::string("uint8_t");
    case ScalarKind::kU16:
      return std::string("uint16_t");
    case ScalarKind::kU32:
      return std::string("uint32_t");
    case ScalarKind::kU64:
      return std::string("uint64_t");
    case ScalarKind::kF16:
    case ScalarKind::kBF16:
    case ScalarKind::kF32:
      return std::string("float");
    case ScalarKind::kF64:
      return std::string("double");
    default:
      return absl::UnimplementedError(absl::StrCat("emit_cc: no C++ type for ", t.ToString()));
  }
}

// The C++ type elements of `t` are stored as.
absl::StatusOr<std::string> StorageType(DataType t) {
  if (t.is_bool()) return std::string("uint8_t");
  if (IsHalf(t) || IsBf16(t)) return std::string("uint16_t");
  return ValueType(t);
}

int64_t StorageSize(DataType t) {
  switch (t.kind()) {
    case ScalarKind::kBool:
    case ScalarKind::kS8:
    case ScalarKind::kU8:
      return 1;
    case ScalarKind::kS16:
    case ScalarKind::kU16:
    case ScalarKind::kF16:
    case ScalarKind::kBF16:
      return 2;
    case ScalarKind::kS32:
    case ScalarKind::kU32:
    case ScalarKind::kF32:
      return 4;
    case ScalarKind::kS64:
    case ScalarKind::kU64:
    case ScalarKind::kF64:
    case ScalarKind::kIndex:
      return 8;
    default:
      return 0;
  }
}

std::string FloatLiteral(double v, bool f64) {
  if (std::isnan(v)) {
    return f64 ? "std::numeric_limits<double>::quiet_NaN()"
               : "std::numeric_limits<float>::quiet_NaN()";
  }
  if (std::isinf(v)) {
    return absl::StrCat(v < 0 ? "-" : "", f64 ? "std::numeric_limits<double>::infinity()"
                                              : "std::numeric_limits<float>::infinity()");
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", v);
  return f64 ? absl::StrCat("(", buf, ")") : absl::StrCat("((float)", buf, ")");
}

std::string CString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\%03o", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

class Emitter {
 public:
  Emitter(const tir::Module& m, EmitOptions options) : options_(std::move(options)), m_(m) {}

  absl::StatusOr<EmittedModule> Run(const EmitOptions& options);

 private:
  // ---- Names ----
  std::string Name(const Expr& e) {
    auto it = names_.find(e.get());
    if (it != names_.end()) {
      if (in_group_) referenced_.insert(it->second);
      return it->second;
    }
    std::string base;
    const std::string& raw =
        e.as<tir::VarNode>() ? e.as<tir::VarNode>()->name : e.as<tir::TensorNode>()->name;
    // Identifier characters, no "__" (the suffixes of a tensor's locals use it), no leading digit.
    for (char c : raw) {
      const char x = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      if (x == '_' && !base.empty() && base.back() == '_') continue;
      base.push_back(x);
    }
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
    std::string name = base;
    for (int n = 1; !used_.insert(name).second; ++n) name = absl::StrCat(base, "_", n);
    names_[e.get()] = name;
    if (in_group_) referenced_.insert(name);
    return name;
  }
  std::string Dim(const Expr& t, size_t k) { return absl::StrCat(Name(t), "__d", k); }
  std::string Data(const Expr& t) { return absl::StrCat(Name(t), "__p"); }

  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  void Line(const std::string& text) {
    out_.append(static_cast<size_t>(indent_) * 2, ' ');
    out_ += text;
    out_.push_back('\n');
  }

  // Declares a tensor's dims (and data pointer) as locals.
  void DeclareTensor(const Expr& t, const std::string& data) {
    const auto* node = t.as<tir::TensorNode>();
    Line(absl::StrCat("uint8_t* ", Data(t), " = ", data, ";"));
    for (size_t k = 0; k < node->dims.size(); ++k) {
      Line(absl::StrCat("int64_t ", Dim(t, k), " = ", E(node->dims[k]), ";"));
    }
    Line(absl::StrCat("(void)", Data(t), ";"));
  }

  // Row-major element offset.
  std::string Offset(const Expr& t, const std::vector<Expr>& indices) {
    if (indices.empty()) return "0";
    std::string off = absl::StrCat("(", E(indices[0]), ")");
    for (size_t k = 1; k < indices.size(); ++k) {
      off = absl::StrCat("(", off, " * ", Dim(t, k), " + (", E(indices[k]), "))");
    }
    return off;
  }

  std::string E(const Expr& e);
  // A C expression for the element operations one trip of a parallel loop costs (see below).
  std::string WorkPerTrip(const tir::ForNode& n);
  std::string Work(const Stmt& s, absl::flat_hash_set<const tir::ExprNode*>& inner);
  std::string Binary(const tir::BinaryNode& n);
  std::string Cast(DataType to, const Expr& value);
  std::string Intrinsic(const tir::IntrinsicNode& n);
  // Rounds a float result to the type's precision (f16/bf16).
  std::string Round(DataType t, std::string v) {
    if (IsHalf(t)) return absl::StrCat("anvil_rnd_f16(", v, ")");
    if (IsBf16(t)) return absl::StrCat("anvil_rnd_bf16(", v, ")");
    return v;
  }

  void S(const Stmt& s);
  void EmitEvaluate(const tir::EvaluateNode& n);

  // ---- Vector code (Highway) for `vectorize` loops (emit_vector.cc) ----
  // The body of the vector loop over `n`'s variable, or nullopt when some statement or
  // expression has no vector form here (the loop then stays scalar).
  std::optional<std::string> VectorBody(const tir::ForNode& n);
  // Runs `emit` (VectorStmt calls) with the vector state of loop `n` set up, then clears it;
  // false, with no hoisted invariants left, when `emit` is.
  bool InVectorLoop(const tir::ForNode& n, const std::function<bool()>& emit);
  // Loop fission of a vector loop whose body first computes a local and then feeds it to an
  // exp, erf, tanh or log: the statement index the second part starts at, or 0 (see the kFor
  // case). `row_trips` gets the loop's constant trip count.
  size_t FissionPoint(const tir::ForNode& n, int64_t* row_trips);
  // The two parts' vector bodies: the first ends by storing the local into `row` (at the
  // iteration's offset from `start`), the second begins by loading it; nullopt when either part
  // has no vector form.
  std::optional<std::pair<std::string, std::string>> SplitVectorBody(const tir::ForNode& n,
                                                                     size_t split,
                                                                     const std::string& row,
                                                                     const std::string& start);
  // Prefetches of what the loads of vector loop `n` (statement `s`) will read on the next trip
  // of the loop around it, when `n` is that loop's last pass over its data (see the kFor case).
  std::vector<std::string> NextTripPrefetches(const tir::ForNode& n, const Stmt& s);
  std::vector<const tir::ForNode*> loops_;  // the loops around the statement being emitted
  // A loop whose body is `acc = acc + e` (or max / min) over an f32 accumulator defined outside
  // it: the vector accumulation and lane reduction, or nullopt.
  std::optional<std::string> VectorReduction(const tir::ForNode& n);
  bool VectorStmt(const Stmt& s, std::string* out);
  // A vector (f32 lanes) or mask expression; nullopt when not vectorizable.
  std::optional<std::string> VE(const Expr& e);
  bool Invariant(const Expr& e);
  const tir::ExprNode* vector_var_ = nullptr;                // the loop variable being vectorized
  absl::flat_hash_set<const tir::ExprNode*> vector_locals_;  // f32 vars defined in the body
  absl::flat_hash_set<const tir::ExprNode*> stored_;         // tensors the body stores to
  // Loop-invariant loads of the vector body, as declarations to put before the vector loop: the
  // loop's stores (which may alias anything) would otherwise force a reload every iteration.
  std::vector<std::string> hoisted_;
  EmitOptions options_;
  bool uses_highway_ = false;
  // Emitting a workspace size or an output dim: integer +, - and * set `anvil_overflow` when
  // they wrap (the size functions then report -1).
  bool size_arithmetic_ = false;

  // ---- One function per group of top-level statements ----
  // What the entry's top level declares lives in a state struct the group functions share: each
  // copies in the fields it reads, declared by earlier groups, and copies out the ones it
  // declares and the mutable ones (variables, kernel-allocated tensors) it may have assigned.
  struct Field {
    std::string name, type;
    bool is_mutable = false;
  };
  void AddField(const std::string& base, std::string name, std::string type, bool is_mutable) {
    fields_of_[base].push_back(static_cast<int>(fields_.size()));
    fields_.push_back({std::move(name), std::move(type), is_mutable});
  }
  // The fields of a top-level Define (its variable, or its tensor's data pointer and dims).
  void AddDefineFields(const tir::DefineNode& n);
  // The statements of each group: the comments, Defines and Asserts before a statement that does
  // work (a loop, an intrinsic call, a branch), and it.
  static std::vector<std::vector<Stmt>> Groups(const std::vector<Stmt>& body);
  // The group's function name: the entry's, "__g", the position and the first node's output.
  std::string GroupName(const std::vector<Stmt>& group, int index) const;
  std::vector<Field> fields_;
  absl::flat_hash_map<std::string, std::vector<int>> fields_of_;  // base name -> fields
  absl::flat_hash_set<std::string> referenced_;  // names used while emitting a group
  bool in_group_ = false;

  const tir::Module& m_;
  std::string out_;
  int indent_ = 0;
  absl::Status status_;
  absl::flat_hash_map<const tir::ExprNode*, std::string> names_;
  absl::flat_hash_set<std::string> used_;
  absl::flat_hash_set<const tir::ExprNode*> dynamic_;
  int next_temp_ = 0;
};

std::string Emitter::E(const Expr& e) {
  if (!e.defined()) return "0";
  const DataType t = e.type();
  if (t.lanes() > 1) {
    Fail(absl::UnimplementedError(
        absl::StrCat("emit_cc: vector expressions are not emitted yet: ", tir::PrintExpr(e))));
    return "0";
  }
  switch (e.kind()) {
    case ExprKind::kConstant: {
      const auto* c = e.as<tir::ConstantNode>();
      if (t.is_float()) return FloatLiteral(c->float_value, t.kind() == ScalarKind::kF64);
      if (t.is_bool()) return c->int_value != 0 ? "true" : "false";
      absl::StatusOr<std::string> type = ValueType(t);
      if (!type.ok()) {
        Fail(type.status());
        return "0";
      }
      if (c->int_value == std::numeric_limits<int64_t>::min()) {
        return absl::StrCat("(", *type, ")std::numeric_limits<int64_t>::min()");
      }
      if (t.kind() == ScalarKind::kU64) {
        return absl::StrCat("(uint64_t)", static_cast<uint64_t>(c->int_value), "ull");
      }
      return absl::StrCat("(", *type, ")", c->int_value, "ll");
    }
    case ExprKind::kVar:
      return Name(e);
    case ExprKind::kCast: {
      const auto* c = e.as<tir::CastNode>();
      return Cast(t, c->value);
    }
    case ExprKind::kSelect: {
      const auto* s = e.as<tir::SelectNode>();
      return absl::StrCat("(", E(s->cond), " ? ", E(s->if_true), " : ", E(s->if_false), ")");
    }
    case ExprKind::kNeg: {
      const auto* u = e.as<tir::UnaryNode>();
      if (t.is_float()) return absl::StrCat("(-", E(u->a), ")");
      return absl::StrCat("anvil_neg(", E(u->a), ")");
    }
    case ExprKind::kNot:
      return absl::StrCat("(!", E(e.as<tir::UnaryNode>()->a), ")");
    case ExprKind::kIndexing: {
      const auto* n = e.as<tir::IndexingNode>();
      const DataType elem = n->tensor.type();
      absl::StatusOr<std::string> storage = StorageType(elem);
      if (!storage.ok()) {
        Fail(storage.status());
        return "0";
      }
      const std::string at = absl::StrCat("((const ", *storage, "*)", Data(n->tensor), ")[",
                                          Offset(n->tensor, n->indices), "]");
      if (elem.is_bool()) return absl::StrCat("(", at, " != 0)");
      if (IsHalf(elem)) return absl::StrCat("anvil_h2f(", at, ")");
      if (IsBf16(elem)) return absl::StrCat("anvil_bf2f(", at, ")");
      return at;
    }
    case ExprKind::kTensorPtr: {
      const auto* n = e.as<tir::TensorPtrNode>();
      return absl::StrCat("(void*)(", Data(n->tensor), " + ", StorageSize(n->tensor.type()), " * ",
                          Offset(n->tensor, n->indices), ")");
    }
    case ExprKind::kIntrinsic:
      return Intrinsic(*e.as<tir::IntrinsicNode>());
    case ExprKind::kTensor:
      return Data(e);
    case ExprKind::kCall:
    case ExprKind::kBroadcast:
      Fail(absl::UnimplementedError(absl::StrCat("emit_cc: not emitted yet: ", tir::PrintExpr(e))));
      return "0";
    default:
      if (const auto* b = e.as<tir::BinaryNode>()) return Binary(*b);
  }
  Fail(absl::InternalError(absl::StrCat("emit_cc: unknown expression ", tir::PrintExpr(e))));
  return "0";
}

std::string Emitter::Binary(const tir::BinaryNode& n) {
  const DataType t = n.a.type();
  const std::string a = E(n.a), b = E(n.b);
  auto infix = [&](const char* op) { return absl::StrCat("(", a, " ", op, " ", b, ")"); };
  switch (n.kind()) {
    case ExprKind::kCmpEq:
      return infix("==");
    case ExprKind::kCmpNe:
      return infix("!=");
    case ExprKind::kCmpLt:
      return infix("<");
    case ExprKind::kCmpLe:
      return infix("<=");
    case ExprKind::kCmpGt:
      return infix(">");
    case ExprKind::kCmpGe:
      return infix(">=");
    case ExprKind::kAnd:
      return infix("&&");
    case ExprKind::kOr:
      return infix("||");
    default:
      break;
  }
  if (t.is_float()) {
    switch (n.kind()) {
      case ExprKind::kAdd:
        return Round(t, infix("+"));
      case ExprKind::kSub:
        return Round(t, infix("-"));
      case ExprKind::kMul:
        return Round(t, infix("*"));
      case ExprKind::kDiv:
        return Round(t, infix("/"));
      case ExprKind::kMin:
        return absl::StrCat("anvil_fmin(", a, ", ", b, ")");
      case ExprKind::kMax:
        return absl::StrCat("anvil_fmax(", a, ", ", b, ")");
      default:
        break;
    }
  } else {
    absl::StatusOr<std::string> type = ValueType(t);
    if (!type.ok()) {
      Fail(type.status());
      return "0";
    }
    const bool is_unsigned = t.is_unsigned_int() || t.kind() == ScalarKind::kU64;
    auto div = [&](int op) {
      return absl::StrCat("((", *type, ")anvil_idiv(host, &err, (int64_t)(", a, "), (int64_t)(", b,
                          "), ", op, ", ", is_unsigned ? "true" : "false", "))");
    };
    // In size expressions, wrapping sets the overflow flag in scope.
    const std::string chk = size_arithmetic_ ? "_chk" : "";
    const std::string flag = size_arithmetic_ ? ", &anvil_overflow" : "";
    switch (n.kind()) {
      case ExprKind::kAdd:
        return absl::StrCat("anvil_add", chk, "<", *type, ">(", a, ", ", b, flag, ")");
      case ExprKind::kSub:
        return absl::StrCat("anvil_sub", chk, "<", *type, ">(", a, ", ", b, flag, ")");
      case ExprKind::kMul:
        return absl::StrCat("anvil_mul", chk, "<", *type, ">(", a, ", ", b, flag, ")");
      case ExprKind::kDiv:
        return div(0);
      case ExprKind::kFloorDiv:
        return div(1);
      case ExprKind::kMod:
        return div(2);
      case ExprKind::kMin:
        return absl::StrCat("anvil_min<", *type, ">(", a, ", ", b, ")");
      case ExprKind::kMax:
        return absl::StrCat("anvil_max<", *type, ">(", a, ", ", b, ")");
      default:
        break;
    }
  }
  Fail(absl::InternalError(
      absl::StrCat("emit_cc: no ", AsAbsl(tir::ExprKindName(n.kind())), " on ", t.ToString())));
  return "0";
}

std::string Emitter::Cast(DataType to, const Expr& value) {
  const DataType from = value.type();
  const std::string v = E(value);
  if (to.is_bool()) return absl::StrCat("((", v, ") != 0)");
  if (to.is_float()) {
    const bool f64 = to.kind() == ScalarKind::kF64;
    const char* type = f64 ? "double" : "float";
    if (from.is_float()) return Round(to, absl::StrCat("(", type, ")(", v, ")"));
    if (from.kind() == ScalarKind::kU64) {
      return Round(to, absl::StrCat("(", type, ")(double)(uint64_t)(", v, ")"));
    }
    return Round(to, absl::StrCat("(", type, ")(int64_t)(", v, ")"));
  }
  absl::StatusOr<std::string> type = ValueType(to);
  if (!type.ok()) {
    Fail(type.status());
    return "0";
  }
  if (!from.is_float()) return absl::StrCat("((", *type, ")(", v, "))");
  const std::string d = absl::StrCat("(double)(", v, ")");
  switch (to.kind()) {
    case ScalarKind::kS8:
      return absl::StrCat("((int8_t)anvil_f2i(", d, ", -128.0, 127.0))");
    case ScalarKind::kS16:
      return absl::StrCat("((int16_t)anvil_f2i(", d, ", -32768.0, 32767.0))");
    case ScalarKind::kS32:
      return absl::StrCat("((int32_t)anvil_f2i(", d, ", -2147483648.0, 2147483647.0))");
    case ScalarKind::kU8:
      return absl::StrCat("((uint8_t)anvil_f2i(", d, ", 0.0, 255.0))");
    case ScalarKind::kU16:
      return absl::StrCat("((uint16_t)anvil_f2i(", d, ", 0.0, 65535.0))");
    case ScalarKind::kU32:
      return absl::StrCat("((uint32_t)anvil_f2i(", d, ", 0.0, 4294967295.0))");
    case ScalarKind::kU64:
      return absl::StrCat("anvil_f2u64(", d, ")");
    default:
      return absl::StrCat("((", *type, ")anvil_f2s64(", d, "))");
  }
}

std::string Emitter::Intrinsic(const tir::IntrinsicNode& n) {
  const DataType t = n.type();
  const DataType arg = n.args.empty() ? t : n.args[0].type();
  std::vector<std::string> a;
  for (const Expr& x : n.args) a.push_back(E(x));
  // f32 and f16/bf16 call the float overloads, f64 the double ones, as the evaluator does.
  const char* cast = arg.kind() == ScalarKind::kF64 ? "(double)" : "(float)";
  auto math = [&](const char* fn) {
    return Round(t, absl::StrCat("std::", fn, "(", cast, "(", a[0], "))"));
  };
  switch (n.op) {
    case IntrinsicOp::kAbs:
      if (arg.is_float()) return absl::StrCat("std::fabs(", a[0], ")");
      if (arg.is_unsigned_int() || arg.kind() == ScalarKind::kU64) return a[0];
      return absl::StrCat("anvil_iabs(", a[0], ")");
    case IntrinsicOp::kAcos:
      return math("acos");
    case IntrinsicOp::kAcosh:
      return math("acosh");
    case IntrinsicOp::kAsin:
      return math("asin");
    case IntrinsicOp::kAsinh:
      return math("asinh");
    case IntrinsicOp::kAtan:
      return math("atan");
    case IntrinsicOp::kAtanh:
      return math("atanh");
    case IntrinsicOp::kCeil:
      return math("ceil");
    case IntrinsicOp::kCos:
      return math("cos");
    case IntrinsicOp::kCosh:
      return math("cosh");
    case IntrinsicOp::kErf:
      return math("erf");
    case IntrinsicOp::kExp:
      return math("exp");
    case IntrinsicOp::kFloor:
      return math("floor");
    case IntrinsicOp::kLog:
      return math("log");
    case IntrinsicOp::kRound:
      return math("nearbyint");
    case IntrinsicOp::kSin:
      return math("sin");
    case IntrinsicOp::kSinh:
      return math("sinh");
    case IntrinsicOp::kSqrt:
      return math("sqrt");
    case IntrinsicOp::kTan:
      return math("tan");
    case IntrinsicOp::kTanh:
      return math("tanh");
    case IntrinsicOp::kIsInf:
      return absl::StrCat("std::isinf(", a[0], ")");
    case IntrinsicOp::kIsNaN:
      return absl::StrCat("std::isnan(", a[0], ")");
    case IntrinsicOp::kPow:
      return Round(t, absl::StrCat("std::pow(", cast, "(", a[0], "), ", cast, "(", a[1], "))"));
    case IntrinsicOp::kFma:
      return Round(t, absl::StrCat("std::fma(", cast, "(", a[0], "), ", cast, "(", a[1], "), ",
                                   cast, "(", a[2], "))"));
    case IntrinsicOp::kFmod: {
      if (arg.is_float()) {
        return Round(t, absl::StrCat("std::fmod(", cast, "(", a[0], "), ", cast, "(", a[1], "))"));
      }
      absl::StatusOr<std::string> type = ValueType(t);
      if (!type.ok()) {
        Fail(type.status());
        return "0";
      }
      const bool is_unsigned = t.is_unsigned_int() || t.kind() == ScalarKind::kU64;
      return absl::StrCat("((", *type, ")anvil_idiv(host, &err, (int64_t)(", a[0], "), (int64_t)(",
                          a[1], "), 3, ", is_unsigned ? "true" : "false", "))");
    }
    default:
      break;
  }
  Fail(absl::UnimplementedError(absl::StrCat(
      "emit_cc: intrinsic ", AsAbsl(tir::IntrinsicName(n.op)), " outside an evaluate statement")));
  return "0";
}

void Emitter::EmitEvaluate(const tir::EvaluateNode& n) {
  const auto* call = n.value.as<tir::IntrinsicNode>();
  if (call == nullptr || !tir::IsKernelIntrinsic(call->op)) {
    Line(absl::StrCat("(void)(", E(n.value), ");"));
    return;
  }
  if (call->op == IntrinsicOp::kGemm) {
    const auto& a = call->args;
    const bool f64 = a[6].type().element().kind() == ScalarKind::kF64 ||
                     (a[6].as<tir::TensorPtrNode>() &&
                      a[6].as<tir::TensorPtrNode>()->tensor.type().kind() == ScalarKind::kF64);
    Line(absl::StrCat("if (host->gemm(host->ctx, ", f64 ? 1 : 0, ", ", E(a[0]), ", ", E(a[1]), ", ",
                      E(a[2]), ", ", E(a[3]), ", ", E(a[4]), ", (double)(", E(a[5]), "), ", E(a[6]),
                      ", ", E(a[7]), ", ", E(a[8]), ", ", E(a[9]), ", (double)(", E(a[10]), "), ",
                      E(a[11]), ", ", E(a[12]), ")) return 1;"));
    return;
  }
  // kernel(id, operands...): each operand as a buffer; outputs without data come back filled.
  int64_t id = 0;
  tir::AsIntConstant(call->args[0], &id);
  const std::string ops = absl::StrCat("k", next_temp_++);
  Line("{");
  ++indent_;
  std::vector<std::string> names;
  for (size_t k = 1; k < call->args.size(); ++k) {
    const Expr& t = call->args[k];
    const auto* node = t.as<tir::TensorNode>();
    if (node == nullptr) {
      Fail(absl::InternalError("emit_cc: a kernel operand that is not a tensor"));
      return;
    }
    const std::string b = absl::StrCat(ops, "_", k);
    std::string dims;
    for (size_t d = 0; d < node->dims.size(); ++d) {
      absl::StrAppend(&dims, d ? ", " : "", dynamic_.contains(t.get()) ? "0" : Dim(t, d));
    }
    Line(absl::StrCat("AnvilBuffer ", b, " = {", dynamic_.contains(t.get()) ? "nullptr" : Data(t),
                      ", {", dims, "}, ", node->dims.size(), "};"));
    names.push_back(absl::StrCat("&", b));
  }
  std::string list;
  for (size_t k = 0; k < names.size(); ++k) absl::StrAppend(&list, k ? ", " : "", names[k]);
  Line(absl::StrCat("AnvilBuffer* const ", ops, "[] = {", list, "};"));
  Line(absl::StrCat("if (host->kernel(host->ctx, ", id, ", ", ops, ", ", names.size(),
                    ")) return 1;"));
  // Dynamic outputs: their data, dims and the dim variables the call binds.
  for (size_t k = 1; k < call->args.size(); ++k) {
    const Expr& t = call->args[k];
    if (!dynamic_.contains(t.get())) continue;
    const std::string b = absl::StrCat(ops, "_", k);
    Line(absl::StrCat(Data(t), " = ", b, ".data;"));
    const auto* node = t.as<tir::TensorNode>();
    for (size_t d = 0; d < node->dims.size(); ++d) {
      Line(absl::StrCat(Dim(t, d), " = ", b, ".dims[", d, "];"));
      if (node->dims[d].as<tir::VarNode>()) {
        Line(absl::StrCat(Name(node->dims[d]), " = ", b, ".dims[", d, "];"));
      }
    }
    dynamic_.erase(t.get());
  }
  --indent_;
  Line("}");
}

// Whether an expression reads any of `vars`.
class MentionsAny final : public tir::IRVisitor {
 public:
  explicit MentionsAny(const absl::flat_hash_set<const tir::ExprNode*>& vars) : vars_(vars) {}
  bool found = false;

 protected:
  void VisitVar(const tir::VarNode&, const Expr& e) override { found |= vars_.contains(e.get()); }

 private:
  const absl::flat_hash_set<const tir::ExprNode*>& vars_;
};

// The work of one trip: every statement counts 1, times the trip counts of the loops around it
// inside the parallel loop; a gemm call M * N * K / 16 (a multiply-add costs a fraction of an
// element-wise statement). A loop bound or gemm size that reads a variable bound inside the
// parallel loop cannot be counted before it starts; it counts as 64 (a guess that errs toward
// splitting).
std::string Emitter::WorkPerTrip(const tir::ForNode& n) {
  absl::flat_hash_set<const tir::ExprNode*> inner = {n.var.get()};
  return Work(n.body, inner);
}

std::string Emitter::Work(const Stmt& s, absl::flat_hash_set<const tir::ExprNode*>& inner) {
  switch (s.kind()) {
    case tir::StmtKind::kBlock: {
      std::string sum = "0";
      for (const Stmt& x : s.as<tir::BlockNode>()->stmts) {
        absl::StrAppend(&sum, " + ", Work(x, inner));
      }
      return absl::StrCat("(", sum, ")");
    }
    case tir::StmtKind::kFor: {
      const auto* f = s.as<tir::ForNode>();
      MentionsAny bound(inner);
      for (const Expr* e : {&f->begin, &f->end, &f->step}) bound.Visit(*e);
      const std::string trips = bound.found ? "64"
                                            : absl::StrCat("anvil_trips(", E(f->begin), ", ",
                                                           E(f->end), ", ", E(f->step), ")");
      inner.insert(f->var.get());
      return absl::StrCat(trips, " * ", Work(f->body, inner));
    }
    case tir::StmtKind::kIfElse: {
      const auto* n = s.as<tir::IfElseNode>();
      return absl::StrCat("(", Work(n->then_body, inner), " + ",
                          n->else_body.defined() ? Work(n->else_body, inner) : "0", ")");
    }
    case tir::StmtKind::kDefine:
      inner.insert(s.as<tir::DefineNode>()->target.get());
      return "1";
    case tir::StmtKind::kComment:
      return "0";
    case tir::StmtKind::kEvaluate: {
      const auto* call = s.as<tir::EvaluateNode>()->value.as<tir::IntrinsicNode>();
      if (call == nullptr || call->op != tir::IntrinsicOp::kGemm) return "1";
      std::string work = "1";
      for (int k : {2, 3, 4}) {  // M, N, K
        MentionsAny bound(inner);
        bound.Visit(call->args[k]);
        absl::StrAppend(&work, " * ",
                        bound.found ? "64" : absl::StrCat("(", E(call->args[k]), ")"));
      }
      return absl::StrCat("(", work, " / 16 + 1)");
    }
    default:
      return "1";
  }
}

void Emitter::S(const Stmt& s) {
  if (!s.defined() || !status_.ok()) return;
  switch (s.kind()) {
    case tir::StmtKind::kBlock:
      for (const Stmt& x : s.as<tir::BlockNode>()->stmts) S(x);
      return;
    case tir::StmtKind::kAssign: {
      const auto* n = s.as<tir::AssignNode>();
      Line(absl::StrCat(Name(n->var), " = ", E(n->value), ";"));
      return;
    }
    case tir::StmtKind::kStore: {
      const auto* n = s.as<tir::StoreNode>();
      const DataType elem = n->tensor.type();
      absl::StatusOr<std::string> storage = StorageType(elem);
      if (!storage.ok()) return Fail(storage.status());
      std::string v = E(n->value);
      if (elem.is_bool()) v = absl::StrCat("(uint8_t)(", v, ")");
      if (IsHalf(elem)) v = absl::StrCat("anvil_f2h(", v, ")");
      if (IsBf16(elem)) v = absl::StrCat("anvil_f2bf(", v, ")");
      Line(absl::StrCat("((", *storage, "*)", Data(n->tensor), ")[", Offset(n->tensor, n->indices),
                        "] = ", v, ";"));
      return;
    }
    case tir::StmtKind::kIfElse: {
      const auto* n = s.as<tir::IfElseNode>();
      Line(absl::StrCat("if (", E(n->cond), ") {"));
      ++indent_;
      S(n->then_body);
      --indent_;
      if (n->else_body.defined()) {
        Line("} else {");
        ++indent_;
        S(n->else_body);
        --indent_;
      }
      Line("}");
      return;
    }
    case tir::StmtKind::kFor: {
      const auto* n = s.as<tir::ForNode>();
      const std::string v = Name(n->var);
      std::string marks;
      if (n->attrs.parallel) marks += " parallel";
      if (n->attrs.vectorize) absl::StrAppend(&marks, " vectorize(", n->attrs.vectorize, ")");
      Line(absl::StrCat("{  // for ", v, marks));
      ++indent_;
      const bool parallel = n->attrs.parallel && options_.parallel;
      // A parallel loop's trips become a lambda over a range of them, handed to the host: inside
      // it, v__end is the chunk's end and the loop starts at the chunk's first trip.
      const std::string end = parallel ? absl::StrCat(v, "__all_end") : absl::StrCat(v, "__end");
      Line(absl::StrCat("const int64_t ", end, " = ", E(n->end), ", ", v, "__step = ", E(n->step),
                        ";"));
      Line(absl::StrCat("if (", v,
                        "__step <= 0) { host->fail(host->ctx, \"a loop step is not "
                        "positive\"); return 1; }"));
      std::string begin = E(n->begin);
      if (parallel) {
        Line(absl::StrCat("const int64_t ", v, "__begin = ", begin, ";"));
        Line(absl::StrCat("const int64_t ", v, "__trips = ", end, " > ", v, "__begin ? (", end,
                          " - ", v, "__begin + ", v, "__step - 1) / ", v, "__step : 0;"));
        Line(absl::StrCat("auto ", v, "__chunk = [&](int64_t ", v, "__lo, int64_t ", v,
                          "__hi) -> int32_t {"));
        ++indent_;
        Line(absl::StrCat("const int64_t ", v, "__end = ", v, "__hi == ", v, "__trips ? ", end,
                          " : ", v, "__begin + ", v, "__hi * ", v, "__step;"));
        begin = absl::StrCat(v, "__begin + ", v, "__lo * ", v, "__step");
      }
      std::optional<std::string> vector_body;
      std::optional<std::pair<std::string, std::string>> split_body;
      std::optional<std::string> reduction;
      int64_t row_trips = 0;
      const std::string row = absl::StrCat(v, "__row"), start = absl::StrCat(v, "__start");
      if (n->attrs.vectorize && options_.vectorize && tir::IsIntConstant(n->step, 1)) {
        if (const size_t split = FissionPoint(*n, &row_trips); split > 0) {
          split_body = SplitVectorBody(*n, split, row, start);
        }
        if (!split_body) vector_body = VectorBody(*n);
      } else if (options_.vectorize && tir::IsIntConstant(n->step, 1)) {
        reduction = VectorReduction(*n);
      }
      const std::vector<std::string> prefetches =
          vector_body || split_body ? NextTripPrefetches(*n, s) : std::vector<std::string>();
      if (reduction) {
        // A sum, max or min into an accumulator: vector partial results, one lane reduction,
        // then the scalar tail (the order of the additions changes: within float rounding).
        uses_highway_ = true;
        Line(absl::StrCat("int64_t ", v, " = ", begin, ";"));
        Line("{");
        Line("  namespace hn = hwy::HWY_NAMESPACE;");
        Line("  const hn::ScalableTag<float> anvil_d;");
        Line("  const int64_t anvil_lanes = (int64_t)hn::Lanes(anvil_d);");
        out_ += *reduction;
        Line("}");
        Line(absl::StrCat("for (; ", v, " < ", v, "__end; ", v, " += ", v, "__step) {"));
      } else if (vector_body || split_body) {
        // Whole vectors of Highway lanes first, then the scalar loop finishes the tail.
        uses_highway_ = true;
        Line(absl::StrCat("int64_t ", v, " = ", begin, ";"));
        Line("{");
        Line("  namespace hn = hwy::HWY_NAMESPACE;");
        Line("  const hn::ScalableTag<float> anvil_d;");
        Line("  const int64_t anvil_lanes = (int64_t)hn::Lanes(anvil_d);");
        // The hoisted invariants are read only when the loop runs at least one vector.
        Line(absl::StrCat("  if (", v, " + anvil_lanes <= ", v, "__end) {"));
        for (const std::string& h : hoisted_) Line(absl::StrCat("  ", h));
        hoisted_.clear();
        const std::string vector_loop = absl::StrCat("  for (; ", v, " + anvil_lanes <= ", v,
                                                     "__end; ", v, " += anvil_lanes) {");
        if (split_body) {
          // Loop fission: the local for the whole row into a stack row, then the rest. One loop
          // doing both kept the long chain of the exp or erf and the arithmetic before it in
          // flight together, and ran ~12% slower (the LayerNorm + GELU chain at [8, 128, 768]).
          Line(absl::StrCat("  alignas(64) float ", row, "[", row_trips, "];"));
          Line(absl::StrCat("  const int64_t ", start, " = ", v, ";"));
          Line(vector_loop);
          out_ += split_body->first;
          Line("  }");
          Line(absl::StrCat("  ", v, " = ", start, ";"));
        }
        Line(vector_loop);
        for (const std::string& p : prefetches) Line(absl::StrCat("    ", p));
        out_ += split_body ? split_body->second : *vector_body;
        Line("  }");
        Line("  }");
        Line("}");
        Line(absl::StrCat("for (; ", v, " < ", v, "__end; ", v, " += ", v, "__step) {"));
      } else {
        if (n->attrs.vectorize) Line("#pragma GCC ivdep");
        Line(absl::StrCat("for (int64_t ", v, " = ", begin, "; ", v, " < ", v, "__end; ", v,
                          " += ", v, "__step) {"));
      }
      ++indent_;
      loops_.push_back(n);
      S(n->body);
      loops_.pop_back();
      --indent_;
      Line("}");
      if (parallel) {
        Line("return 0;");
        --indent_;
        Line("};");
        Line(absl::StrCat("if (anvil_parallel(host, ", v, "__trips, ", WorkPerTrip(*n), ", ", v,
                          "__chunk) != 0) return 1;"));
      }
      --indent_;
      Line("}");
      return;
    }
    case tir::StmtKind::kEvaluate:
      return EmitEvaluate(*s.as<tir::EvaluateNode>());
    case tir::StmtKind::kReturn:
      // From a group function, 2 ends the entry (with success) without the later groups.
      Line(in_group_ ? "return 2;" : "return 0;");
      return;
    case tir::StmtKind::kAssert: {
      const auto* n = s.as<tir::AssertNode>();
      Line(absl::StrCat("if (!(", E(n->cond), ")) { host->fail(host->ctx, ", CString(n->message),
                        "); return 1; }"));
      return;
    }
    case tir::StmtKind::kComment:
      // MakeComment keeps the text to one line that cannot continue onto the next.
      Line(absl::StrCat("// ", s.as<tir::CommentNode>()->text));
      return;
    case tir::StmtKind::kDefine: {
      const auto* n = s.as<tir::DefineNode>();
      if (n->target.as<tir::VarNode>()) {
        absl::StatusOr<std::string> type = ValueType(n->target.type());
        if (!type.ok()) return Fail(type.status());
        Line(absl::StrCat(*type, " ", Name(n->target), " = ",
                          n->init.defined() ? E(n->init) : std::string("{}"), ";"));
        return;
      }
      const Expr& t = n->target;
      const auto* node = t.as<tir::TensorNode>();
      if (n->tensor.dynamic) {
        dynamic_.insert(t.get());
        Line(absl::StrCat("uint8_t* ", Data(t), " = nullptr;"));
        for (size_t k = 0; k < node->dims.size(); ++k) {
          Line(absl::StrCat("int64_t ", Dim(t, k), " = 0;"));
        }
        return;
      }
      if (n->tensor.view_of.defined()) return DeclareTensor(t, Data(n->tensor.view_of));
      // String elements are std::string objects, which only the host's Tensors construct: a
      // planned (workspace or local) string buffer cannot be emitted.
      if (t.type().kind() == ScalarKind::kString) {
        return Fail(absl::UnimplementedError(
            absl::StrCat("emit_cc: string tensor '", Name(t),
                         "' needs a buffer of its own; strings are not "
                         "compiled to native code (run the model with the interpreter)")));
      }
      if (n->tensor.offset.defined()) {
        if (in_group_) referenced_.insert("workspace");
        return DeclareTensor(t, absl::StrCat("workspace + (", E(n->tensor.offset), ")"));
      }
      // A local buffer: on the stack when small and of constant size, else from the host.
      int64_t bytes = StorageSize(t.type());
      bool constant = true;
      for (const Expr& d : node->dims) {
        int64_t c = 0;
        constant &= tir::AsIntConstant(d, &c) && c >= 0 && c < (int64_t{1} << 20);
        if (constant) bytes *= c;
      }
      if (constant && bytes <= 65536) {
        Line(absl::StrCat("alignas(64) uint8_t ", Name(t), "__s[", std::max<int64_t>(bytes, 1),
                          "];"));
        return DeclareTensor(t, absl::StrCat(Name(t), "__s"));
      }
      std::string dims;
      for (size_t k = 0; k < node->dims.size(); ++k) {
        absl::StrAppend(&dims, k ? ", " : "", E(node->dims[k]));
      }
      Line(absl::StrCat("const int64_t ", Name(t), "__shape[] = {", dims.empty() ? "0" : dims,
                        "};"));
      DeclareTensor(t, absl::StrCat("anvil_alloc(host, ", StorageSize(t.type()), ", ",
                                    node->dims.size(), ", ", Name(t), "__shape)"));
      Line(absl::StrCat("if (", Data(t), " == nullptr) return 1;"));
      return;
    }
  }
}

// ---- Vector code ----

bool Emitter::Invariant(const Expr& e) {
  class Reads final : public tir::IRVisitor {
   public:
    absl::flat_hash_set<const tir::ExprNode*> vars, tensors;

   protected:
    void VisitVar(const tir::VarNode&, const Expr& e) override { vars.insert(e.get()); }
    void VisitIndexing(const tir::IndexingNode& n, const Expr& e) override {
      tensors.insert(n.tensor.get());
      IRVisitor::VisitIndexing(n, e);
    }
  } reads;
  reads.Visit(e);
  if (reads.vars.contains(vector_var_)) return false;
  for (const tir::ExprNode* v : reads.vars) {
    if (vector_locals_.contains(v)) return false;
  }
  for (const tir::ExprNode* t : reads.tensors) {
    if (stored_.contains(t)) return false;
  }
  return true;
}

std::optional<std::string> Emitter::VE(const Expr& e) {
  const DataType t = e.type();
  if (t.lanes() != 1) return std::nullopt;
  if (t.kind() != ScalarKind::kF32 && !t.is_bool()) return std::nullopt;
  if (Invariant(e)) {
    const std::string scalar = E(e);
    std::string vector = t.is_bool() ? absl::StrCat("hn::Ne(hn::Set(anvil_d, (", scalar,
                                                    ") ? 1.0f : 0.0f), hn::Zero(anvil_d))")
                                     : absl::StrCat("hn::Set(anvil_d, ", scalar, ")");
    if (e.kind() == ExprKind::kVar || e.kind() == ExprKind::kConstant) return vector;
    const std::string name = absl::StrCat("anvil_inv", hoisted_.size());
    hoisted_.push_back(absl::StrCat("const auto ", name, " = ", vector, ";"));
    return name;
  }
  switch (e.kind()) {
    case ExprKind::kVar:
      if (vector_locals_.contains(e.get())) return Name(e);
      return std::nullopt;
    case ExprKind::kIndexing: {
      const auto* n = e.as<tir::IndexingNode>();
      if (t.kind() != ScalarKind::kF32 || n->indices.empty()) return std::nullopt;
      if (n->indices.back().get() != vector_var_) return std::nullopt;
      for (size_t k = 0; k + 1 < n->indices.size(); ++k) {
        if (!Invariant(n->indices[k])) return std::nullopt;
      }
      return absl::StrCat("hn::LoadU(anvil_d, (const float*)", Data(n->tensor), " + ",
                          Offset(n->tensor, n->indices), ")");
    }
    case ExprKind::kSelect: {
      const auto* n = e.as<tir::SelectNode>();
      auto c = VE(n->cond), a = VE(n->if_true), b = VE(n->if_false);
      if (!c || !a || !b || t.is_bool()) return std::nullopt;
      return absl::StrCat("hn::IfThenElse(", *c, ", ", *a, ", ", *b, ")");
    }
    case ExprKind::kNeg: {
      auto a = VE(e.as<tir::UnaryNode>()->a);
      if (!a || t.is_bool()) return std::nullopt;
      return absl::StrCat("hn::Neg(", *a, ")");
    }
    case ExprKind::kNot: {
      auto a = VE(e.as<tir::UnaryNode>()->a);
      if (!a) return std::nullopt;
      return absl::StrCat("hn::Not(", *a, ")");
    }
    case ExprKind::kIntrinsic: {
      const auto* n = e.as<tir::IntrinsicNode>();
      std::vector<std::string> a;
      for (const Expr& x : n->args) {
        if (x.type().kind() != ScalarKind::kF32) return std::nullopt;
        auto v = VE(x);
        if (!v) return std::nullopt;
        a.push_back(*v);
      }
      switch (n->op) {
        // The kernels' own vector ops (vector_math.inc): the interpreter's results.
        case IntrinsicOp::kAbs:
          return absl::StrCat("AbsOp()(anvil_d, ", a[0], ")");
        case IntrinsicOp::kSqrt:
          return absl::StrCat("SqrtOp()(anvil_d, ", a[0], ")");
        case IntrinsicOp::kExp:
          return absl::StrCat("ExpOp()(anvil_d, ", a[0], ")");
        case IntrinsicOp::kLog:
          return absl::StrCat("LogOp()(anvil_d, ", a[0], ")");
        case IntrinsicOp::kTanh:
          return absl::StrCat("TanhOp()(anvil_d, ", a[0], ")");
        case IntrinsicOp::kErf:
          return absl::StrCat("ErfOp()(anvil_d, ", a[0], ")");
        case IntrinsicOp::kFloor:
          return absl::StrCat("hn::Floor(", a[0], ")");
        case IntrinsicOp::kCeil:
          return absl::StrCat("hn::Ceil(", a[0], ")");
        case IntrinsicOp::kFma:
          return absl::StrCat("hn::MulAdd(", a[0], ", ", a[1], ", ", a[2], ")");
        case IntrinsicOp::kIsNaN:
          return absl::StrCat("hn::IsNaN(", a[0], ")");
        default:
          return std::nullopt;
      }
    }
    default:
      break;
  }
  const auto* b = e.as<tir::BinaryNode>();
  if (b == nullptr) return std::nullopt;
  const DataType operand = b->a.type();
  if (operand.kind() != ScalarKind::kF32 && !operand.is_bool()) return std::nullopt;
  if (b->kind() == ExprKind::kDiv && operand.kind() == ScalarKind::kF32 && Invariant(b->b)) {
    // A divisor fixed for the whole loop (a row's standard deviation or sum, a constant): one
    // reciprocal before the loop and a multiply per vector, since a vector divide issues a
    // sixth as often as a multiply. When 1 / d is a normal float, x * (1 / d) is within 1.5 ulp
    // of x / d and equal to it for x = +-0, +-inf and NaN (a quotient within an ulp of overflow
    // or underflow may round to inf or to the smallest subnormal instead); other divisors (0,
    // subnormal, huge, inf, NaN) keep the exact divide.
    auto x = VE(b->a);
    if (!x) return std::nullopt;
    const std::string name = absl::StrCat("anvil_inv", hoisted_.size());
    hoisted_.push_back(absl::StrCat("const float ", name, "_d = ", E(b->b), ";"));
    hoisted_.push_back(absl::StrCat("const bool ", name, "_r = std::fabs(", name,
                                    "_d) >= 0x1p-126f && std::fabs(", name, "_d) <= 0x1p126f;"));
    hoisted_.push_back(absl::StrCat("const auto ", name, " = hn::Set(anvil_d, ", name,
                                    "_r ? 1.0f / ", name, "_d : ", name, "_d);"));
    return absl::StrCat("anvil_vdiv(", *x, ", ", name, ", ", name, "_r)");
  }
  // a * b + c, c + a * b and the differences as one fused multiply-add: one rounding instead of
  // two (within an ulp of the two-step result) and one vector op instead of two.
  if ((b->kind() == ExprKind::kAdd || b->kind() == ExprKind::kSub) &&
      operand.kind() == ScalarKind::kF32) {
    auto product = [](const Expr& x) -> const tir::BinaryNode* {
      const auto* m = x.as<tir::BinaryNode>();
      return m != nullptr && m->kind() == ExprKind::kMul ? m : nullptr;
    };
    const tir::BinaryNode* left = product(b->a);
    const tir::BinaryNode* right = left == nullptr ? product(b->b) : nullptr;
    if (const tir::BinaryNode* m = left != nullptr ? left : right) {
      auto p = VE(m->a), q = VE(m->b), c = VE(left != nullptr ? b->b : b->a);
      if (!p || !q || !c) return std::nullopt;
      const bool add = b->kind() == ExprKind::kAdd;
      const char* fused = add ? "hn::MulAdd" : left != nullptr ? "hn::MulSub" : "hn::NegMulAdd";
      return absl::StrCat(fused, "(", *p, ", ", *q, ", ", *c, ")");
    }
  }
  auto x = VE(b->a), y = VE(b->b);
  if (!x || !y) return std::nullopt;
  const char* fn = nullptr;
  switch (b->kind()) {
    case ExprKind::kAdd:
      fn = "hn::Add";
      break;
    case ExprKind::kSub:
      fn = "hn::Sub";
      break;
    case ExprKind::kMul:
      fn = "hn::Mul";
      break;
    case ExprKind::kDiv:
      fn = "hn::Div";
      break;
    case ExprKind::kMin:
      return absl::StrCat("anvil_vmin(anvil_d, ", *x, ", ", *y, ")");
    case ExprKind::kMax:
      return absl::StrCat("anvil_vmax(anvil_d, ", *x, ", ", *y, ")");
    case ExprKind::kCmpEq:
      fn = "hn::Eq";
      break;
    case ExprKind::kCmpNe:
      fn = "hn::Ne";
      break;
    case ExprKind::kCmpLt:
      fn = "hn::Lt";
      break;
    case ExprKind::kCmpLe:
      fn = "hn::Le";
      break;
    case ExprKind::kCmpGt:
      fn = "hn::Gt";
      break;
    case ExprKind::kCmpGe:
      fn = "hn::Ge";
      break;
    case ExprKind::kAnd:
      fn = "hn::And";
      break;
    case ExprKind::kOr:
      fn = "hn::Or";
      break;
    default:
      return std::nullopt;
  }
  // Comparisons take f32 vectors; And/Or take masks.
  if (operand.is_bool() != (b->kind() == ExprKind::kAnd || b->kind() == ExprKind::kOr)) {
    return std::nullopt;
  }
  return absl::StrCat(fn, "(", *x, ", ", *y, ")");
}

bool Emitter::VectorStmt(const Stmt& s, std::string* out) {
  const std::string pad(static_cast<size_t>(indent_ + 2) * 2, ' ');
  switch (s.kind()) {
    case tir::StmtKind::kBlock:
      for (const Stmt& x : s.as<tir::BlockNode>()->stmts) {
        if (!VectorStmt(x, out)) return false;
      }
      return true;
    case tir::StmtKind::kDefine: {
      const auto* n = s.as<tir::DefineNode>();
      if (!n->target.as<tir::VarNode>() || n->target.type().kind() != ScalarKind::kF32) {
        return false;
      }
      std::string init = "hn::Zero(anvil_d)";
      if (n->init.defined()) {
        auto v = VE(n->init);
        if (!v) return false;
        init = *v;
      }
      vector_locals_.insert(n->target.get());
      absl::StrAppend(out, pad, "auto ", Name(n->target), " = ", init, ";\n");
      return true;
    }
    case tir::StmtKind::kAssign: {
      const auto* n = s.as<tir::AssignNode>();
      if (!vector_locals_.contains(n->var.get())) return false;
      auto v = VE(n->value);
      if (!v) return false;
      absl::StrAppend(out, pad, Name(n->var), " = ", *v, ";\n");
      return true;
    }
    case tir::StmtKind::kStore: {
      const auto* n = s.as<tir::StoreNode>();
      if (n->tensor.type().kind() != ScalarKind::kF32 || n->indices.empty() ||
          n->indices.back().get() != vector_var_) {
        return false;
      }
      for (size_t k = 0; k + 1 < n->indices.size(); ++k) {
        if (!Invariant(n->indices[k])) return false;
      }
      auto v = VE(n->value);
      if (!v) return false;
      absl::StrAppend(out, pad, "hn::StoreU(", *v, ", anvil_d, (float*)", Data(n->tensor), " + ",
                      Offset(n->tensor, n->indices), ");\n");
      return true;
    }
    default:
      return false;
  }
}

std::optional<std::string> Emitter::VectorReduction(const tir::ForNode& n) {
  const auto* block = n.body.as<tir::BlockNode>();
  const Stmt only = block != nullptr && block->stmts.size() == 1 ? block->stmts[0] : n.body;
  const auto* assign = only.as<tir::AssignNode>();
  if (assign == nullptr || assign->var.type().kind() != ScalarKind::kF32) return std::nullopt;
  const auto* op = assign->value.as<tir::BinaryNode>();
  if (op == nullptr || !op->a.same(assign->var)) return std::nullopt;
  const ExprKind kind = op->kind();
  if (kind != ExprKind::kAdd && kind != ExprKind::kMax && kind != ExprKind::kMin) {
    return std::nullopt;
  }
  vector_var_ = n.var.get();
  stored_.clear();
  vector_locals_.clear();
  hoisted_.clear();
  const absl::Status saved = status_;
  // The accumulator itself must not appear in the term.
  const absl::flat_hash_set<const tir::ExprNode*> accumulator = {assign->var.get()};
  MentionsAny uses(accumulator);
  uses.Visit(op->b);
  std::optional<std::string> term = uses.found ? std::nullopt : VE(op->b);
  status_ = saved;
  vector_var_ = nullptr;
  std::vector<std::string> hoisted = std::move(hoisted_);
  hoisted_.clear();
  if (!term) return std::nullopt;
  const std::string v = Name(n.var), acc = Name(assign->var);
  const std::string pad(static_cast<size_t>(indent_ + 1) * 2, ' ');
  std::string out;
  // Four partial vectors in turn (one vector add's latency would otherwise bound the loop),
  // then whole vectors into the first; the partials combine in a fixed order.
  const bool is_add = kind == ExprKind::kAdd;
  const std::string combine = is_add                   ? "hn::Add"
                              : kind == ExprKind::kMax ? "anvil_vmax"
                                                       : "anvil_vmin";
  const std::string with_d = is_add ? "" : "anvil_d, ";
  const std::string init =
      is_add ? "hn::Zero(anvil_d)" : absl::StrCat("hn::Set(anvil_d, ", acc, ")");
  absl::StrAppend(&out, pad, "hn::Vec<decltype(anvil_d)> anvil_acc = ", init,
                  ", anvil_acc1 = ", init, ", anvil_acc2 = ", init, ", anvil_acc3 = ", init, ";\n");
  // The hoisted invariants are read only when the loop runs at least one vector.
  absl::StrAppend(&out, pad, "if (", v, " + anvil_lanes <= ", v, "__end) {\n");
  for (const std::string& h : hoisted) absl::StrAppend(&out, pad, h, "\n");
  absl::StrAppend(&out, pad, "for (; ", v, " + 4 * anvil_lanes <= ", v, "__end;) {\n");
  for (const char* a : {"anvil_acc", "anvil_acc1", "anvil_acc2", "anvil_acc3"}) {
    absl::StrAppend(&out, pad, "  ", a, " = ", combine, "(", with_d, a, ", ", *term, ");\n");
    absl::StrAppend(&out, pad, "  ", v, " += anvil_lanes;\n");
  }
  absl::StrAppend(&out, pad, "}\n");
  absl::StrAppend(&out, pad, "for (; ", v, " + anvil_lanes <= ", v, "__end; ", v,
                  " += anvil_lanes) anvil_acc = ", combine, "(", with_d, "anvil_acc, ", *term,
                  ");\n");
  absl::StrAppend(&out, pad, "}\n");
  absl::StrAppend(&out, pad, "anvil_acc = ", combine, "(", with_d, combine, "(", with_d,
                  "anvil_acc, anvil_acc1), ", combine, "(", with_d, "anvil_acc2, anvil_acc3));\n");
  if (is_add) {
    absl::StrAppend(&out, pad, acc, " = ", acc,
                    " + hn::GetLane(hn::SumOfLanes(anvil_d, anvil_acc));\n");
    return out;
  }
  // A NaN in any lane is the result (the scalar max/min propagates it).
  absl::StrAppend(&out, pad, acc, " = hn::AllFalse(anvil_d, hn::IsNaN(anvil_acc)) ? hn::GetLane(",
                  kind == ExprKind::kMax ? "hn::MaxOfLanes" : "hn::MinOfLanes",
                  "(anvil_d, anvil_acc)) : std::numeric_limits<float>::quiet_NaN();\n");
  return out;
}

namespace {

// Whether an expression calls exp, erf, tanh or log: vector ops whose long dependence chains
// loop fission keeps apart from the arithmetic that feeds them.
class HasTranscendental final : public tir::IRVisitor {
 public:
  bool found = false;

 protected:
  void VisitIntrinsic(const tir::IntrinsicNode& n, const Expr& e) override {
    found |= n.op == IntrinsicOp::kExp || n.op == IntrinsicOp::kErf || n.op == IntrinsicOp::kTanh ||
             n.op == IntrinsicOp::kLog;
    IRVisitor::VisitIntrinsic(n, e);
  }
};

// Tensors a statement stores to, and the f32 loads it makes.
class Accesses final : public tir::IRVisitor {
 public:
  absl::flat_hash_set<const tir::ExprNode*> stored;
  std::vector<const tir::IndexingNode*> loads;

 protected:
  void VisitStore(const tir::StoreNode& n, const Stmt& s) override {
    stored.insert(n.tensor.get());
    IRVisitor::VisitStore(n, s);
  }
  void VisitIndexing(const tir::IndexingNode& n, const Expr& e) override {
    if (e.type().kind() == ScalarKind::kF32) loads.push_back(&n);
    IRVisitor::VisitIndexing(n, e);
  }
};

}  // namespace

bool Emitter::InVectorLoop(const tir::ForNode& n, const std::function<bool()>& emit) {
  // Tensors the body stores to: loads of them are never treated as loop-invariant.
  Accesses accesses;
  accesses.Visit(n.body);
  vector_var_ = n.var.get();
  stored_ = std::move(accesses.stored);
  vector_locals_.clear();
  hoisted_.clear();
  const absl::Status saved = status_;
  const bool ok = emit();
  status_ = saved;  // a scalar E() inside an abandoned attempt must not fail the emission
  vector_var_ = nullptr;
  vector_locals_.clear();
  stored_.clear();
  if (!ok) hoisted_.clear();
  return ok;
}

std::optional<std::string> Emitter::VectorBody(const tir::ForNode& n) {
  std::string out;
  if (!InVectorLoop(n, [&] { return VectorStmt(n.body, &out); })) return std::nullopt;
  return out;
}

size_t Emitter::FissionPoint(const tir::ForNode& n, int64_t* row_trips) {
  // A row of at least 64 trips (four vectors) and at most 4096 (16 KiB on the stack).
  int64_t begin = 0, end = 0;
  if (!tir::AsIntConstant(n.begin, &begin) || !tir::AsIntConstant(n.end, &end) ||
      end - begin < 64 || end - begin > 4096) {
    return 0;
  }
  // [var x, x = e1, rest...] or [var x = e1, rest...], e1 without an exp or the like, and one
  // in the rest.
  const auto* block = n.body.as<tir::BlockNode>();
  if (block == nullptr || block->stmts.size() < 2) return 0;
  const auto* define = block->stmts[0].as<tir::DefineNode>();
  if (define == nullptr || !define->target.as<tir::VarNode>() ||
      define->target.type() != DataType::F32()) {
    return 0;
  }
  Expr value = define->init;
  size_t split = 1;
  if (!value.defined()) {
    const auto* assign = block->stmts[1].as<tir::AssignNode>();
    if (assign == nullptr || !assign->var.same(define->target)) return 0;
    value = assign->value;
    split = 2;
  }
  if (split >= block->stmts.size()) return 0;
  HasTranscendental first, rest;
  first.Visit(value);
  for (size_t k = split; k < block->stmts.size(); ++k) rest.Visit(block->stmts[k]);
  if (first.found || !rest.found) return 0;
  // The rest must not assign the local again.
  for (size_t k = split; k < block->stmts.size(); ++k) {
    const auto* assign = block->stmts[k].as<tir::AssignNode>();
    if (assign != nullptr && assign->var.same(define->target)) return 0;
  }
  *row_trips = end - begin;
  return split;
}

std::optional<std::pair<std::string, std::string>> Emitter::SplitVectorBody(
    const tir::ForNode& n, size_t split, const std::string& row, const std::string& start) {
  const auto* block = n.body.as<tir::BlockNode>();
  const std::string pad(static_cast<size_t>(indent_ + 2) * 2, ' ');
  const std::string local = Name(block->stmts[0].as<tir::DefineNode>()->target);
  const std::string at = absl::StrCat(row, " + (", Name(n.var), " - ", start, ")");
  std::string first, second;
  const bool ok = InVectorLoop(n, [&] {
    for (size_t k = 0; k < split; ++k) {
      if (!VectorStmt(block->stmts[k], &first)) return false;
    }
    absl::StrAppend(&first, pad, "hn::Store(", local, ", anvil_d, ", at, ");\n");
    absl::StrAppend(&second, pad, "const auto ", local, " = hn::Load(anvil_d, ", at, ");\n");
    for (size_t k = split; k < block->stmts.size(); ++k) {
      if (!VectorStmt(block->stmts[k], &second)) return false;
    }
    return true;
  });
  if (!ok) return std::nullopt;
  return std::make_pair(std::move(first), std::move(second));
}

std::vector<std::string> Emitter::NextTripPrefetches(const tir::ForNode& n, const Stmt& s) {
  // Only the last loop in the body of the loop around it: a row read in several passes (a
  // layer norm's mean, variance, output) misses only in the first, so the hardware prefetcher,
  // which follows misses, stops between rows; the last pass fetches the next trip's lines, one
  // per vector (64 bytes: a cache line at 16 lanes).
  std::vector<std::string> lines;
  if (loops_.empty()) return lines;
  const tir::ForNode& outer = *loops_.back();
  const auto* block = outer.body.as<tir::BlockNode>();
  if (block == nullptr) return lines;
  size_t at = block->stmts.size();
  for (size_t k = 0; k < block->stmts.size(); ++k) {
    if (block->stmts[k].same(s)) at = k;
  }
  if (at == block->stmts.size()) return lines;
  for (size_t k = at + 1; k < block->stmts.size(); ++k) {
    if (ContainsLoop(block->stmts[k])) return lines;
  }
  int64_t begin = 0, end = 0;
  if (tir::AsIntConstant(n.begin, &begin) && tir::AsIntConstant(n.end, &end) && end - begin < 64) {
    return lines;  // a row of under four vectors: a line or two ahead is no help
  }
  absl::StatusOr<Expr> next = tir::MakeBinary(ExprKind::kAdd, outer.var, outer.step);
  if (!next.ok()) return lines;
  Accesses accesses;
  accesses.Visit(n.body);
  absl::flat_hash_set<const tir::ExprNode*> done;
  for (const tir::IndexingNode* load : accesses.loads) {
    if (load->indices.empty() || load->indices.back().get() != n.var.get() ||
        accesses.stored.contains(load->tensor.get()) || done.contains(load->tensor.get())) {
      continue;
    }
    std::vector<Expr> indices = load->indices;
    bool moves = false;
    for (size_t k = 0; k + 1 < indices.size(); ++k) {
      if (!Mentions(indices[k], outer.var.get())) continue;
      moves = true;
      indices[k] = tir::Substitute(indices[k], outer.var, *next);
    }
    if (!moves) continue;  // the same lines every trip (a LayerNorm's gamma): already cached
    done.insert(load->tensor.get());
    // (A prefetch past the tensor's end, on its last trip, is harmless: it never faults.)
    lines.push_back(absl::StrCat("__builtin_prefetch((const float*)", Data(load->tensor), " + ",
                                 Offset(load->tensor, indices), ");"));
    if (lines.size() == 2) break;
  }
  return lines;
}

void Emitter::AddDefineFields(const tir::DefineNode& n) {
  const Expr& t = n.target;
  if (t.as<tir::VarNode>()) {
    absl::StatusOr<std::string> type = ValueType(t.type());
    if (type.ok()) AddField(Name(t), Name(t), *type, true);
    return;
  }
  // A kernel call assigns a dynamic tensor's data and dims later.
  const bool is_mutable = n.tensor.dynamic;
  AddField(Name(t), Data(t), "uint8_t*", is_mutable);
  for (size_t k = 0; k < t.as<tir::TensorNode>()->dims.size(); ++k) {
    AddField(Name(t), Dim(t, k), "int64_t", is_mutable);
  }
}

std::vector<std::vector<Stmt>> Emitter::Groups(const std::vector<Stmt>& body) {
  std::vector<std::vector<Stmt>> groups(1);
  for (const Stmt& s : body) {
    groups.back().push_back(s);
    const bool work = s.as<tir::ForNode>() || s.as<tir::EvaluateNode>() ||
                      s.as<tir::IfElseNode>() || s.as<tir::BlockNode>() || s.as<tir::StoreNode>() ||
                      s.as<tir::AssignNode>() || s.as<tir::ReturnNode>();
    if (work) groups.emplace_back();
  }
  if (groups.back().empty()) groups.pop_back();
  return groups;
}

std::string Emitter::GroupName(const std::vector<Stmt>& group, int index) const {
  // The first output of the first node the group's comments name ("y = Relu(x)" gives "y").
  std::string label;
  for (const Stmt& s : group) {
    const auto* c = s.as<tir::CommentNode>();
    if (c == nullptr) continue;
    for (char ch : c->text) {
      if (ch == ' ' || ch == ',' || ch == '=') break;
      const char x = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      if (x == '_' && !label.empty() && label.back() == '_') continue;
      if (label.size() < 40) label.push_back(x);
    }
    break;
  }
  while (!label.empty() && label.back() == '_') label.pop_back();
  return absl::StrCat(options_.entry_symbol, "__g", index, label.empty() ? "" : "_", label);
}

absl::StatusOr<EmittedModule> Emitter::Run(const EmitOptions& options) {
  const tir::Function* entry = m_.FindFunction(m_.entry);
  if (entry == nullptr) return absl::InvalidArgumentError("emit_cc: the module has no entry");
  if (m_.functions.size() != 1) {
    return absl::UnimplementedError("emit_cc: modules of more than one function");
  }
  EmittedModule result;
  result.entry_symbol = options.entry_symbol;
  for (const char* reserved : {"host", "indices", "tensors", "workspace", "err"}) {
    used_.insert(reserved);
  }
  out_ =
      "// Generated by Anvil's C++ emitter (lower/emit/emit_cc.h) from a Tensor IR module.\n"
      "#include <cmath>\n#include <cstdint>\n#include <cstring>\n#include <limits>\n"
      "#include <type_traits>\n@HIGHWAY@\nextern \"C\" {\n";
  out_ += kAnvilCcAbi;
  out_ += "\n}\n";
  out_ += kPrelude;
  // The entry: its parameters as locals, copied into the state; then one call per group.
  std::string prefix = std::move(out_);
  out_ = absl::StrCat(
      "\nextern \"C\" int32_t ", options.entry_symbol,
      "(const AnvilHost* host, const int64_t* indices, AnvilBuffer* const* tensors, uint8_t* "
      "workspace) {\n");
  indent_ = 1;
  // (The parameters' dims may be expressions whose arithmetic raises the error flag.)
  Line("int32_t err = 0;");
  Line("(void)err;");
  const std::string state = absl::StrCat(options.entry_symbol, "__state");
  // Index parameters, then tensor slots: parameters, globals, offsets, dynamic outputs.
  std::vector<Expr> tensor_params;
  for (const Expr& p : entry->params) {
    if (p.as<tir::VarNode>()) {
      const std::string name = Name(p);
      Line(absl::StrCat("const int64_t ", name, " = indices[", result.num_indices++, "];"));
      AddField(name, name, "int64_t", false);
    } else {
      tensor_params.push_back(p);
    }
  }
  auto slot = [&](const Expr& t) {
    const int k = static_cast<int>(result.tensor_slots.size());
    result.tensor_slots.push_back(t);
    DeclareTensor(t, absl::StrCat("tensors[", k, "]->data"));
    AddField(Name(t), Data(t), "uint8_t*", false);
    for (size_t d = 0; d < t.as<tir::TensorNode>()->dims.size(); ++d) {
      AddField(Name(t), Dim(t, d), "int64_t", false);
    }
  };
  for (const Expr& p : tensor_params) slot(p);
  result.first_global = static_cast<int>(result.tensor_slots.size());
  for (const tir::Global& g : m_.globals) slot(g.tensor);
  if (m_.workspace.offsets.defined()) {
    result.offsets_slot = static_cast<int>(result.tensor_slots.size());
    slot(m_.workspace.offsets);
  }
  AddField("workspace", "workspace", "uint8_t*", false);
  Line(absl::StrCat(state, " st;"));
  for (const Field& f : fields_) Line(absl::StrCat("st.", f.name, " = ", f.name, ";"));
  result.first_dynamic_output = static_cast<int>(result.tensor_slots.size());
  std::vector<Expr> dynamic_outputs;
  for (const tir::EntryBinding::Tensor& o : m_.binding.outputs) {
    if (o.dynamic) dynamic_outputs.push_back(o.tensor);
  }
  std::string entry_text = std::move(out_);
  // The groups: each a function of the host and the state. An error flag raised inside an
  // expression ends the run after its statement.
  const auto* body = entry->body.as<tir::BlockNode>();
  const std::vector<std::vector<Stmt>> groups =
      Groups(body != nullptr ? body->stmts : std::vector<Stmt>{entry->body});
  std::string functions;
  // Whether field f belongs to a name the group being emitted used.
  std::vector<std::string> base_of;
  auto field_used = [&](size_t f) {
    if (base_of.size() < fields_.size()) {
      base_of.assign(fields_.size(), "");
      for (const auto& [base, list] : fields_of_) {
        for (int k : list) base_of[k] = base;
      }
    }
    return referenced_.contains(base_of[f]);
  };
  for (size_t g = 0; g < groups.size(); ++g) {
    const size_t earlier = fields_.size();
    referenced_.clear();
    in_group_ = true;
    out_.clear();
    indent_ = 1;
    for (const Stmt& s : groups[g]) {
      S(s);
      if (const auto* d = s.as<tir::DefineNode>()) AddDefineFields(*d);
      Line("if (err) return 1;");
    }
    in_group_ = false;
    const std::string name = GroupName(groups[g], static_cast<int>(g));
    absl::StrAppend(&functions, "\nstatic int32_t ", name, "(const AnvilHost* host, ", state,
                    "& st) {\n  int32_t err = 0;\n  (void)host;\n");
    std::vector<std::string> copy_out;
    for (size_t f = 0; f < fields_.size(); ++f) {
      const Field& field = fields_[f];
      if (f >= earlier) {
        copy_out.push_back(field.name);
        continue;
      }
      if (!field_used(f)) continue;
      absl::StrAppend(&functions, "  ", field.type, " ", field.name, " = st.", field.name,
                      "; (void)", field.name, ";\n");
      if (field.is_mutable) copy_out.push_back(field.name);
    }
    functions += out_;
    for (const std::string& f : copy_out) absl::StrAppend(&functions, "  st.", f, " = ", f, ";\n");
    functions += "  return 0;\n}\n";
    absl::StrAppend(&entry_text, "  if (const int32_t r = ", name,
                    "(host, st)) return r == 2 ? 0 : 1;\n");
  }
  out_ = std::move(entry_text);
  indent_ = 1;
  for (const Expr& t : dynamic_outputs) {
    const int k = static_cast<int>(result.tensor_slots.size());
    result.tensor_slots.push_back(t);
    const auto* node = t.as<tir::TensorNode>();
    Line(absl::StrCat("tensors[", k, "]->data = st.", Data(t), ";"));
    Line(absl::StrCat("tensors[", k, "]->rank = ", node->dims.size(), ";"));
    for (size_t d = 0; d < node->dims.size(); ++d) {
      Line(absl::StrCat("tensors[", k, "]->dims[", d, "] = st.", Dim(t, d), ";"));
    }
  }
  Line("return 0;");
  out_ += "}\n";
  // The state struct and the group functions come before the entry.
  entry_text = std::move(out_);
  out_ = std::move(prefix);
  absl::StrAppend(&out_, "\nnamespace {\n\nstruct ", state, " {\n");
  for (const Field& f : fields_) absl::StrAppend(&out_, "  ", f.type, " ", f.name, ";\n");
  absl::StrAppend(&out_, "};\n", functions, "\n}  // namespace\n", entry_text);
  // The workspace: a constant size, or the buffers' sizes for this run's indices (the host
  // places them with the MemoryPlanner and passes their offsets in the offsets slot).
  if (m_.workspace.bytes.defined()) {
    int64_t bytes = 0;
    if (!tir::AsIntConstant(m_.workspace.bytes, &bytes)) {
      return absl::UnimplementedError("emit_cc: a static workspace of non-constant size");
    }
    result.workspace_bytes = bytes;
  }
  if (!m_.workspace.buffers.empty()) {
    result.sizes_symbol = absl::StrCat(options.entry_symbol, "_buffer_sizes");
    out_ += absl::StrCat("\nextern \"C\" void ", result.sizes_symbol,
                         "(const int64_t* indices, int64_t* sizes) {\n");
    indent_ = 1;
    Line("const AnvilHost* host = &anvil_quiet_host;");
    Line("int32_t err = 0;");
    int k = 0;
    for (const Expr& p : entry->params) {
      if (p.as<tir::VarNode>())
        Line(absl::StrCat("const int64_t ", Name(p), " = indices[", k++, "];"));
    }
    // A size whose arithmetic wraps (dims too large for 64-bit bytes) is -1.
    size_arithmetic_ = true;
    for (size_t b = 0; b < m_.workspace.buffers.size(); ++b) {
      Line(absl::StrCat(
          "{ bool anvil_overflow = false; const int64_t s = ", E(m_.workspace.buffers[b].bytes),
          "; sizes[", b, "] = anvil_overflow || s < 0 ? -1 : s; }"));
      result.lifetimes.push_back({m_.workspace.buffers[b].first, m_.workspace.buffers[b].last});
    }
    size_arithmetic_ = false;
    out_ += "}\n";
  }
  // The dims of the caller-allocated outputs for a run's indices.
  result.output_dims_symbol = absl::StrCat(options.entry_symbol, "_output_dims");
  out_ += absl::StrCat("\nextern \"C\" void ", result.output_dims_symbol,
                       "(const int64_t* indices, int64_t* dims) {\n");
  indent_ = 1;
  Line("const AnvilHost* host = &anvil_quiet_host;");
  Line("int32_t err = 0;");
  Line("(void)host;");
  Line("(void)err;");
  {
    int k = 0;
    for (const Expr& p : entry->params) {
      if (p.as<tir::VarNode>())
        Line(absl::StrCat("const int64_t ", Name(p), " = indices[", k++, "];"));
    }
    Line("(void)indices;");
    int at = 0;
    for (const tir::EntryBinding::Tensor& o : m_.binding.outputs) {
      if (o.dynamic) continue;
      // A dim whose arithmetic wraps is -1.
      size_arithmetic_ = true;
      for (const Expr& d : o.tensor.as<tir::TensorNode>()->dims) {
        Line(absl::StrCat("{ bool anvil_overflow = false; const int64_t v = ", E(d), "; dims[",
                          at++, "] = anvil_overflow ? -1 : v; }"));
      }
      size_arithmetic_ = false;
    }
  }
  out_ += "}\n";
  if (!status_.ok()) return status_;
  const size_t at = out_.find("@HIGHWAY@");
  out_.replace(at, 9,
               uses_highway_
                   // Highway 1.0's detect_targets.h tests an undefined HWY_BASELINE where it
                   // means its baseline targets, so under a -march whose baseline is AVX3_DL
                   // (AVX-VNNI next to AVX-512 VBMI2 and friends: Zen 5, Sapphire Rapids) its
                   // own "best baseline" check fails unless AVX3_DL is asked for by name.
                   ? "#ifndef HWY_WANT_AVX3_DL\n#define HWY_WANT_AVX3_DL\n#endif\n"
                     "#include \"hwy/highway.h\"\n"
                     "#include \"hwy/contrib/math/math-inl.h\"\n"
                   : "");
  if (uses_highway_) {
    // Vector helpers with the scalar code's NaN and infinity behaviour.
    const size_t prelude_end = out_.find("\nnamespace {\n\nstruct ");
    out_.insert(prelude_end,
                absl::StrCat(kVectorPreludeHead, kVectorMath, "\n", kVectorPreludeTail));
  }
  result.source = std::move(out_);
  return result;
}

}  // namespace

absl::StatusOr<EmittedModule> EmitCc(const tir::Module& module, const EmitOptions& options) {
  Emitter emitter(module, options);
  return emitter.Run(options);
}

namespace {

class KernelOperandTypeVisitor final : public tir::IRVisitor {
 public:
  absl::flat_hash_map<int64_t, std::vector<tir::DataType>> types;

 protected:
  void VisitIntrinsic(const tir::IntrinsicNode& n, const tir::Expr& e) override {
    if (n.op == tir::IntrinsicOp::kKernel) {
      int64_t id = 0;
      tir::AsIntConstant(n.args[0], &id);
      std::vector<tir::DataType>& t = types[id];
      t.clear();
      for (size_t k = 1; k < n.args.size(); ++k) t.push_back(n.args[k].type());
    }
    IRVisitor::VisitIntrinsic(n, e);
  }
};

}  // namespace

namespace {

class GemmCallVisitor final : public tir::IRVisitor {
 public:
  explicit GemmCallVisitor(const tir::Module& module) : module_(module) {}
  std::vector<GemmWeightUse> uses;
  bool calls = false;

 protected:
  void VisitIntrinsic(const tir::IntrinsicNode& n, const tir::Expr& e) override {
    if (n.op == tir::IntrinsicOp::kGemm) {
      calls = true;
      if (n.args.size() == 13 && n.args[8].type().kind() == tir::ScalarKind::kF32) Record(n.args);
    }
    IRVisitor::VisitIntrinsic(n, e);
  }

 private:
  void Record(const std::vector<tir::Expr>& args) {
    const tir::TensorPtrNode* b = args[8].as<tir::TensorPtrNode>();
    if (b == nullptr) return;
    for (const tir::Expr& i : b->indices) {
      if (!tir::IsIntConstant(i, 0)) return;
    }
    GemmWeightUse use;
    int64_t tb = 0;
    if (!tir::AsIntConstant(args[1], &tb) || !tir::AsIntConstant(args[3], &use.n) ||
        !tir::AsIntConstant(args[4], &use.k) || !tir::AsIntConstant(args[9], &use.ldb)) {
      return;
    }
    use.trans_b = tb != 0;
    for (size_t g = 0; g < module_.globals.size(); ++g) {
      if (!module_.globals[g].tensor.same(b->tensor)) continue;
      use.global = g;
      for (const GemmWeightUse& u : uses) {
        if (u.global == g && u.trans_b == use.trans_b && u.k == use.k && u.n == use.n &&
            u.ldb == use.ldb) {
          return;
        }
      }
      uses.push_back(use);
      return;
    }
  }

  const tir::Module& module_;
};

GemmCallVisitor VisitGemmCalls(const tir::Module& module) {
  GemmCallVisitor visitor(module);
  if (const tir::Function* f = module.FindFunction(module.entry)) visitor.Visit(*f);
  return visitor;
}

}  // namespace

std::vector<GemmWeightUse> ConstantGemmWeights(const tir::Module& module) {
  return VisitGemmCalls(module).uses;
}

bool CallsGemm(const tir::Module& module) { return VisitGemmCalls(module).calls; }

absl::flat_hash_map<int64_t, std::vector<tir::DataType>> KernelOperandTypes(
    const tir::Module& module) {
  KernelOperandTypeVisitor visitor;
  if (const tir::Function* f = module.FindFunction(module.entry)) visitor.Visit(*f);
  return std::move(visitor.types);
}

}  // namespace anvil::lower
