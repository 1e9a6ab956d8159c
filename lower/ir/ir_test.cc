// Tensor IR nodes: factories refuse ill-typed nodes; the printer's text parses back to a
// structurally equal module; structural equality maps variables; the verifier checks scopes.
#include <string>

#include "gtest/gtest.h"
#include "lower/ir/equal.h"
#include "lower/ir/expr.h"
#include "lower/ir/functor.h"
#include "lower/ir/module.h"
#include "lower/ir/parser.h"
#include "lower/ir/printer.h"
#include "lower/ir/stmt.h"

namespace anvil::tir {
namespace {

Expr V(const std::string& name, DataType t = DataType::Index()) { return *MakeVar(name, t); }
Expr F32(double v) { return *MakeFloatConstant(DataType::F32(), v); }
Expr Bin(ExprKind k, Expr a, Expr b) { return *MakeBinary(k, std::move(a), std::move(b)); }

// The factory's error message, or "" when it succeeded.
template <typename T>
std::string Refusal(const absl::StatusOr<T>& made) {
  return made.ok() ? "" : std::string(made.status().message());
}

TEST(TypeTest, PrintsAndParses) {
  for (const char* text : {"f32", "f32x16", "f32*", "index", "bool", "void", "s64", "u8x64",
                           "bf16", "f16x8", "c64", "string"}) {
    std::optional<DataType> t = ParseDataType(text);
    ASSERT_TRUE(t.has_value()) << text;
    EXPECT_EQ(t->ToString(), text);
  }
  for (const char* bad : {"", "f31", "f32x1", "f32x65", "f32x016", "x16", "float"}) {
    EXPECT_FALSE(ParseDataType(bad).has_value()) << bad;
  }
  EXPECT_TRUE(DataType::F32(16).is_float());
  EXPECT_FALSE(DataType::F32().pointer_to().is_float());
  EXPECT_TRUE(DataType::Index().is_int());
  EXPECT_FALSE(DataType::Index().is_tensor_element());
}

TEST(FactoryTest, RefusesIllTypedExpressions) {
  const Expr i = V("i"), x = V("x", DataType::F32()), b = V("b", DataType::Bool());
  const Expr v = V("v", DataType::F32(16));
  EXPECT_NE(Refusal(MakeBinary(ExprKind::kAdd, i, x)), "");
  EXPECT_NE(Refusal(MakeBinary(ExprKind::kAdd, i, x)).find("index and f32"), std::string::npos);
  EXPECT_NE(Refusal(MakeBinary(ExprKind::kAdd, x, v)), "");           // scalar + vector
  EXPECT_NE(Refusal(MakeBinary(ExprKind::kAdd, b, b)), "");           // bool arithmetic
  EXPECT_NE(Refusal(MakeBinary(ExprKind::kFloorDiv, x, x)), "");      // floats have no floordiv
  EXPECT_NE(Refusal(MakeBinary(ExprKind::kMod, x, x)), "");
  EXPECT_NE(Refusal(MakeBinary(ExprKind::kAnd, i, i)), "");           // logic on ints
  EXPECT_NE(Refusal(MakeBinary(ExprKind::kNeg, i, i)), "");           // not a binary kind
  EXPECT_NE(Refusal(MakeUnary(ExprKind::kNot, i)), "");
  EXPECT_NE(Refusal(MakeUnary(ExprKind::kNeg, b)), "");
  EXPECT_NE(Refusal(MakeSelect(i, x, x)), "");                        // condition not bool
  EXPECT_NE(Refusal(MakeSelect(b, x, i)), "");                        // branches differ
  EXPECT_NE(Refusal(MakeSelect(V("c", DataType::Bool(8)), v, v)), "");  // lanes differ
  EXPECT_EQ(Refusal(MakeSelect(V("c", DataType::Bool(16)), v, v)), "");
  EXPECT_NE(Refusal(MakeCast(DataType::F32(16), x)), "");             // cast changes lanes
  EXPECT_NE(Refusal(MakeBroadcast(v, 16)), "");                       // already a vector
  EXPECT_NE(Refusal(MakeBroadcast(x, 1)), "");
  EXPECT_NE(Refusal(MakeIntConstant(DataType::F32(), 1)), "");
  EXPECT_NE(Refusal(MakeFloatConstant(DataType::Index(), 1)), "");
  EXPECT_NE(Refusal(MakeVar("", DataType::F32())), "");
  EXPECT_NE(Refusal(MakeVar("q", DataType::Void())), "");
  Expr binary_op = Expr();
  EXPECT_NE(Refusal(MakeBinary(ExprKind::kAdd, binary_op, x)), "");   // null operand
}

TEST(FactoryTest, RefusesBadTensorsAndSubscripts) {
  const Expr n = V("N");
  EXPECT_NE(Refusal(MakeTensor("T", DataType::Index(), {n})), "");    // index elements
  EXPECT_NE(Refusal(MakeTensor("T", DataType::F32(16), {n})), "");    // vector elements
  EXPECT_NE(Refusal(MakeTensor("T", DataType::F32(), {V("d", DataType::S64())})), "");
  EXPECT_NE(Refusal(MakeTensor("", DataType::F32(), {n})), "");
  const Expr t = *MakeTensor("T", DataType::F32(), {n, IndexConst(16)});
  EXPECT_NE(Refusal(MakeIndexing(t, {n})), "");                       // rank 2, one subscript
  EXPECT_NE(Refusal(MakeIndexing(t, {n, V("f", DataType::F32())})), "");
  EXPECT_NE(Refusal(MakeIndexing(V("x", DataType::F32()), {})), "");  // not a tensor
  EXPECT_NE(Refusal(MakeIndexing(t, {n, n}, 65)), "");
  EXPECT_EQ(*MakeIndexing(t, {n, n}, 16).value().type().ToString().data(), 'f');
  EXPECT_EQ(MakeIndexing(t, {n, n}, 16)->type(), DataType::F32(16));
  EXPECT_EQ(MakeTensorPtr(t, {n, n})->type(), DataType::F32().pointer_to());
  const Expr s = *MakeTensor("S", DataType(ScalarKind::kString), {n});
  EXPECT_NE(Refusal(MakeIndexing(s, {n})), "");  // strings move only through kernels
  EXPECT_NE(Refusal(MakeStore(t, {n, n}, V("x", DataType::F64()))), "");
  EXPECT_NE(Refusal(MakeStore(t, {n}, F32(1))), "");
  EXPECT_EQ(Refusal(MakeStore(t, {n, n}, V("v", DataType::F32(16)))), "");
}

TEST(FactoryTest, RefusesBadIntrinsicsAndStatements) {
  const Expr x = V("x", DataType::F32()), i = V("i");
  EXPECT_NE(Refusal(MakeIntrinsic(IntrinsicOp::kExp, {i})), "");      // exp of an integer
  EXPECT_NE(Refusal(MakeIntrinsic(IntrinsicOp::kExp, {x, x})), "");   // arity
  EXPECT_NE(Refusal(MakeIntrinsic(IntrinsicOp::kPow, {x, V("d", DataType::F64())})), "");
  EXPECT_EQ(MakeIntrinsic(IntrinsicOp::kIsNaN, {x})->type(), DataType::Bool());
  EXPECT_NE(Refusal(MakeIntrinsic(IntrinsicOp::kReduceAdd, {x})), "");
  EXPECT_EQ(MakeIntrinsic(IntrinsicOp::kReduceAdd, {V("v", DataType::F32(8))})->type(),
            DataType::F32());
  EXPECT_NE(Refusal(MakeIntrinsic(IntrinsicOp::kKernel, {x})), "");   // id is an index constant
  EXPECT_NE(Refusal(MakeIntrinsic(IntrinsicOp::kKernel, {IndexConst(0), x})), "");
  EXPECT_NE(Refusal(MakeAssign(i, x)), "");
  EXPECT_NE(Refusal(MakeAssign(IndexConst(1), IndexConst(2))), "");
  EXPECT_NE(Refusal(MakeFor(x, IndexConst(0), i, IndexConst(1), MakeBlock({}))), "");
  EXPECT_NE(Refusal(MakeFor(i, IndexConst(0), i, IndexConst(0), MakeBlock({}))), "");  // step 0
  EXPECT_NE(Refusal(MakeFor(i, IndexConst(0), x, IndexConst(1), MakeBlock({}))), "");
  EXPECT_NE(Refusal(MakeIfElse(i, MakeBlock({}))), "");
  EXPECT_NE(Refusal(MakeDefine(x, IndexConst(0))), "");
  EXPECT_NE(Refusal(MakeAssert(i, "no")), "");
  const Expr t = *MakeTensor("T", DataType::F32(), {i});
  const Expr u = *MakeTensor("U", DataType::S64(), {i});
  EXPECT_NE(Refusal(MakeDefine(t, F32(0))), "");                      // tensors have no init
  EXPECT_NE(Refusal(MakeDefine(t, Expr(), {.view_of = u})), "");      // view of another type
  EXPECT_NE(Refusal(MakeDefine(t, Expr(), {.offset = IndexConst(0), .dynamic = true})), "");
  const Expr d = *MakeTensor("D", DataType::F32(), {Bin(ExprKind::kAdd, i, IndexConst(1))});
  EXPECT_NE(Refusal(MakeDefine(d, Expr(), {.dynamic = true})), "");   // dims must be variables
}

TEST(FactoryTest, ConstantsRoundToTheirType) {
  EXPECT_EQ(MakeIntConstant(DataType(ScalarKind::kU8), 300)->as<ConstantNode>()->int_value, 44);
  EXPECT_EQ(MakeIntConstant(DataType(ScalarKind::kS8), 200)->as<ConstantNode>()->int_value, -56);
  EXPECT_EQ(MakeFloatConstant(DataType::F32(), 0.1)->as<ConstantNode>()->float_value,
            static_cast<double>(0.1f));
  EXPECT_EQ(MakeFloatConstant(DataType(ScalarKind::kF16), 65520.0)->as<ConstantNode>()->float_value,
            std::numeric_limits<double>::infinity());
}

// A module exercising every node kind; printing it and parsing the text gives an equal module,
// and printing that gives the same text.
constexpr char kEveryKind[] = R"(module {
  kernel 0 = Conv "conv 1" opset 11 intrinsic slots(0, 1, -1)
  kernel 1 = com.example.Custom "" opset 1 fallback slots(0, -1) captures("outer")
  global W: [f32 x 4, 4] = "weights/w"
  entry main {
    dim N = input 0 axis 0
    dim M = input 0 axis 1
    input "x:0" = X
    output "y" = Y
    output "dyn" = D dynamic
  }
  func helper(a: f32, b: f32) -> f32 {
    return fma(a, b, 1.5f)
  }
  func main(N: index, M: index, X: [f32 x N, M], Y: [f32 x N, M], Z: [f64]) -> void attrs(origin = "Relu_1, Add_2") {
    var acc: f32 = 0.0f
    var flag: bool
    tensor T: [f32 x N * M] at 64
    tensor R: [f32 x M, N] view T
    var q0: index
    tensor D: [s64 x q0, 2] dynamic
    evaluate kernel(1, X, D, X)
    for i in (0, N, 1) parallel {
      for j in (0, M - M % 16, 16) vectorize(16) unroll(2) {
        Y[i, j] = max(X[i, j:16], broadcast(0.0f, 16)) + broadcast(W[0, 1], 16) * broadcast(-2.5f, 16)
      }
      if (i < 3 && !(i == 1) || i >= N - 1) {
        acc = acc + select(X[i, 0] > 0.0f, X[i, 0], -X[i, 0])
      } else {
        acc = min(acc, -(1.0f))
        flag = isnan(acc)
      }
      T[i * M] = cast<f32>(floordiv(i, 2) + i % 3 - i / 2)
      {
        assert(i != 7, "i is \"seven\"")
      }
    }
    Z[] = cast<f64>(call<f32> helper(acc, exp(erf(acc))))
    evaluate gemm(false, true, N, M, M, 1.0f, &X[0, 0], M, &W[0, 0], 4, 0.0f, &Y[0, 0], M)
    evaluate kernel(0, X, W, Y)
    Z[] = -inf:f64 + nan:f64 + cast<f64>(7:s32 * 2:s32) + 0.5:f64
    return
  }
}
)";

TEST(PrinterTest, RoundTripsThroughStructuralEquality) {
  absl::StatusOr<Module> m = ParseModule(kEveryKind);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
  const std::string printed = PrintModule(*m);
  absl::StatusOr<Module> again = ParseModule(printed);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_EQ(FirstDifference(*m, *again), "") << printed;
  EXPECT_EQ(PrintModule(*again), printed);
}

TEST(PrinterTest, ReadsLikeTheSeed) {
  const char* text = R"(func add(N: index, A: [f32 x N, 16], B: [f32 x N, 16]) -> void {
  for i in (0, N, 1) {
    for j in (0, 16, 1) {
      B[i, j] = A[i, j] + 1.0f
    }
  }
}
)";
  absl::StatusOr<Function> f = ParseFunction(text);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(PrintFunction(*f), text);
}

TEST(PrinterTest, RenamesApartAndQuotes) {
  // Two variables named i, a tensor whose name is not an identifier, a variable named like a
  // keyword.
  const Expr i1 = V("i"), i2 = V("i"), n = V("N");
  const Expr t = *MakeTensor("x/y:0", DataType::F32(), {n});
  const Expr kw = V("for", DataType::F32());
  Stmt inner = *MakeStore(t, {i2}, kw);
  Stmt loop2 = *MakeFor(i2, IndexConst(0), n, IndexConst(1), inner);
  Stmt loop1 = *MakeFor(i1, IndexConst(0), n, IndexConst(1), MakeBlock({loop2}));
  Function f{"f", {n, t, kw}, DataType::Void(), MakeBlock({loop1})};
  const std::string printed = PrintFunction(f);
  EXPECT_NE(printed.find("for i.1 in"), std::string::npos) << printed;
  EXPECT_NE(printed.find("`x/y:0`[i.1] = `for`"), std::string::npos) << printed;
  absl::StatusOr<Function> parsed = ParseFunction(printed);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << printed;
  EXPECT_TRUE(StructurallyEqual(f, *parsed));
}

// Names with the quote character, a backslash or a newline in them (ONNX dim names can hold
// anything; the model fuzzer met `2`N+1`) print escaped and parse back.
TEST(PrinterTest, EscapesQuotesInNames) {
  const Expr n = V("2`N+1"), m = V("a\\b\nc");
  const Expr t = *MakeTensor("x`\"y", DataType::F32(), {n, m});
  const Expr i = V("i"), j = V("j");
  Stmt store = *MakeStore(t, {i, j}, F32(1.0));
  Stmt inner = *MakeFor(j, IndexConst(0), m, IndexConst(1), store);
  Stmt loop = *MakeFor(i, IndexConst(0), n, IndexConst(1), MakeBlock({inner}));
  Function f{"f", {n, m, t}, DataType::Void(), MakeBlock({loop})};
  const std::string printed = PrintFunction(f);
  EXPECT_NE(printed.find("`2\\`N+1`"), std::string::npos) << printed;
  absl::StatusOr<Function> parsed = ParseFunction(printed);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << printed;
  EXPECT_TRUE(StructurallyEqual(f, *parsed)) << printed;
  EXPECT_EQ(PrintFunction(*parsed), printed);
}

TEST(PrinterTest, Precedence) {
  const Expr a = V("a"), b = V("b"), c = V("c");
  EXPECT_EQ(PrintExpr(Bin(ExprKind::kMul, Bin(ExprKind::kAdd, a, b), c)), "(a + b) * c");
  EXPECT_EQ(PrintExpr(Bin(ExprKind::kAdd, a, Bin(ExprKind::kMul, b, c))), "a + b * c");
  EXPECT_EQ(PrintExpr(Bin(ExprKind::kSub, a, Bin(ExprKind::kSub, b, c))), "a - (b - c)");
  EXPECT_EQ(PrintExpr(Bin(ExprKind::kSub, Bin(ExprKind::kSub, a, b), c)), "a - b - c");
  EXPECT_EQ(PrintExpr(Bin(ExprKind::kSub, a, IndexConst(-3))), "a - -3");
  EXPECT_EQ(PrintExpr(*MakeUnary(ExprKind::kNeg, IndexConst(3))), "-(3)");
  EXPECT_EQ(PrintExpr(F32(0.1)), "0.100000001f");
  EXPECT_EQ(PrintExpr(*MakeFloatConstant(DataType::F64(), 0.1)), "0.10000000000000001:f64");
}

TEST(ParserTest, ErrorsNameTheLineAndColumn) {
  auto error = [](const char* text) {
    absl::StatusOr<Function> f = ParseFunction(text);
    return f.ok() ? std::string("ok") : std::string(f.status().message());
  };
  EXPECT_EQ(error("func f(N: index) -> void {\n  for i in (0, N, 1 {\n  }\n}"),
            "tir:2:21: expected ')'");
  EXPECT_EQ(error("func f() -> void {\n  x = 1\n}"), "tir:2:3: unknown name x");
  EXPECT_NE(error("func f(a: f32) -> void {\n  a = a + 1\n}").find("f32 and index"),
            std::string::npos);
  EXPECT_EQ(error("func f() -> void {\n  var a: float\n}"), "tir:2:10: unknown type float");
}

TEST(EqualTest, MapsVariablesOneToOne) {
  auto parse = [](const char* text) { return *ParseFunction(text); };
  const Function a = parse(R"(func f(N: index, X: [f32 x N], Y: [f32 x N]) -> void {
    for i in (0, N, 1) { Y[i] = X[i] + X[i] } })");
  const Function renamed = parse(R"(func f(M: index, A: [f32 x M], B: [f32 x M]) -> void {
    for k in (0, M, 1) { B[k] = A[k] + A[k] } })");
  const Function mixed = parse(R"(func f(N: index, X: [f32 x N], Y: [f32 x N]) -> void {
    for i in (0, N, 1) { Y[i] = X[i] + Y[i] } })");
  const Function other_bound = parse(R"(func f(N: index, X: [f32 x N], Y: [f32 x N]) -> void {
    for i in (0, N + 1, 1) { Y[i] = X[i] + X[i] } })");
  EXPECT_TRUE(StructurallyEqual(a, renamed));
  EXPECT_FALSE(StructurallyEqual(a, mixed));
  EXPECT_FALSE(StructurallyEqual(a, other_bound));
  // Expressions alone: free variables correspond on first sight.
  const Expr x = V("x"), y = V("y");
  EXPECT_TRUE(StructurallyEqual(Bin(ExprKind::kAdd, x, x), Bin(ExprKind::kAdd, y, y)));
  EXPECT_FALSE(StructurallyEqual(Bin(ExprKind::kAdd, x, x), Bin(ExprKind::kAdd, x, y)));
  EXPECT_FALSE(StructurallyEqual(Bin(ExprKind::kAdd, x, y), Bin(ExprKind::kAdd, x, x)));
}

TEST(VerifierTest, ChecksScopesAndCalls) {
  auto verify = [](const char* text) {
    absl::StatusOr<Module> m = ParseModule(text);
    if (!m.ok()) return std::string(m.status().message());
    absl::Status s = VerifyModule(*m);
    return s.ok() ? std::string("ok") : std::string(s.message());
  };
  EXPECT_EQ(verify("module { func main() -> void { return } }"), "ok");
  // A loop variable used after its loop: the parser already refuses the name...
  EXPECT_NE(verify("module { func main(N: index) -> void { for i in (0, N, 1) { } var j: index = i } }"),
            "ok");
  // ... and the verifier refuses IR built by hand that does it.
  const Expr i = V("i"), n = V("N");
  Stmt loop = *MakeFor(i, IndexConst(0), n, IndexConst(1), MakeBlock({}));
  Stmt after = *MakeDefine(V("j"), i);
  Module m;
  m.functions.push_back({"main", {n}, DataType::Void(), MakeBlock({loop, after})});
  EXPECT_NE(std::string(VerifyModule(m).message()).find("variable i used outside its scope"),
            std::string::npos);
  Stmt assign_loop_var = *MakeFor(i, IndexConst(0), n, IndexConst(1),
                                  *MakeAssign(i, IndexConst(0)));
  m.functions[0].body = MakeBlock({assign_loop_var});
  EXPECT_NE(std::string(VerifyModule(m).message()).find("assignment to a loop variable"),
            std::string::npos);
  EXPECT_NE(verify("module { func main() -> f32 { return } }"), "ok");
  EXPECT_NE(verify("module { func main() -> void { evaluate call<f32> nope() } }"), "ok");
  EXPECT_NE(verify("module { func g(a: f32) -> f32 { return a }\n"
                   "func main() -> void { evaluate call<f32> g(1) } }"),
            "ok");
  EXPECT_NE(verify("module { func main(X: [f32 x 2]) -> void { evaluate kernel(0, X) } }")
                .find("kernel 0 is not in the module's table"),
            std::string::npos);
  EXPECT_NE(verify("module { func main(X: [f32 x 2]) -> void { X[0] = cast<f32>(kernel(0, X)) } }"),
            "ok");
}

// The mutator is copy-on-write: nothing changed gives the very same nodes back.
class RenameTensor final : public IRMutator {
 public:
  RenameTensor(Expr from, Expr to) : from_(std::move(from)), to_(std::move(to)) {}

 protected:
  Expr MutateTensor(const TensorNode&, const Expr& e) override {
    return e.same(from_) ? to_ : e;
  }

 private:
  Expr from_, to_;
};

TEST(MutatorTest, CopyOnWrite) {
  absl::StatusOr<Module> m = ParseModule(kEveryKind);
  ASSERT_TRUE(m.ok()) << m.status();
  const Function& main = *m->FindFunction("main");
  IRMutator identity;
  Function same = identity.Mutate(main);
  EXPECT_TRUE(same.body.same(main.body));
  // Swapping X for Y rebuilds exactly the statements that read X.
  RenameTensor swap(main.params[2], main.params[3]);
  Function changed = swap.Mutate(main);
  ASSERT_TRUE(swap.status().ok()) << swap.status();
  EXPECT_FALSE(changed.body.same(main.body));
  const auto& before = main.body.as<BlockNode>()->stmts;
  const auto& after = changed.body.as<BlockNode>()->stmts;
  ASSERT_EQ(before.size(), after.size());
  EXPECT_TRUE(before[0].same(after[0]));   // var acc
  EXPECT_FALSE(before[6].same(after[6]));  // kernel(1, X, D)
}

}  // namespace
}  // namespace anvil::tir
