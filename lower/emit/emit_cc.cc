// Module assembly of the C++ emitter (emit_cc.h): the unit's head (includes, the ABI, the
// preludes), the entry function over the ABI (index parameters, tensor slots, the workspace),
// one function per group of top-level statements sharing a state struct, the dynamic outputs,
// and the functions giving the workspace's buffer sizes and the output dims for a run's
// indices. The statements themselves are the scalar and vector emitters' (scalar_emitter.h,
// vector_emitter.h).
#include "lower/emit/emit_cc.h"

#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lower/emit/prelude_text.h"
#include "lower/emit/scalar_emitter.h"
#include "lower/emit/vector_emitter.h"
#include "lower/ir/functor.h"

namespace anvil::lower {

#define ANVIL_CC_ABI(...) #__VA_ARGS__
const char kAnvilCcAbi[] =
#include "lower/emit/abi.inc"
    ;
#undef ANVIL_CC_ABI

namespace {

using tir::Expr;
using tir::Stmt;

class ModuleEmitter {
 public:
  ModuleEmitter(const tir::Module& m, EmitOptions options)
      : options_(options), m_(m), code_(std::move(options)) {}

  absl::StatusOr<EmittedModule> Run();

 private:
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
  std::string GroupName(const EmittedModule::Group& group, int index) const;
  // Opens `extern "C" void <symbol>(const int64_t* indices, int64_t* <out_param>)`, a function of
  // a run's indices: the entry's index params bound from `indices` in order, and the quiet host
  // and error code its size arithmetic refers to. `maybe_unused` casts those to void, for a body
  // that may not read them.
  void OpenIndexFunction(const tir::Function& entry, const std::string& symbol,
                         const char* out_param, bool maybe_unused);

  const EmitOptions options_;
  const tir::Module& m_;
  VectorEmitter code_;  // the statements' code, and the names of the unit
  std::vector<Field> fields_;
  absl::flat_hash_map<std::string, std::vector<int>> fields_of_;  // base name -> fields
};

void ModuleEmitter::AddDefineFields(const tir::DefineNode& n) {
  const Expr& t = n.target;
  if (t.as<tir::VarNode>()) {
    absl::StatusOr<std::string> type = ValueType(t.type());
    if (type.ok()) AddField(code_.Name(t), code_.Name(t), *type, true);
    return;
  }
  // A kernel call assigns a dynamic tensor's data and dims later.
  const bool is_mutable = n.tensor.dynamic;
  AddField(code_.Name(t), code_.Data(t), "uint8_t*", is_mutable);
  for (size_t k = 0; k < t.as<tir::TensorNode>()->dims.size(); ++k) {
    AddField(code_.Name(t), code_.Dim(t, k), "int64_t", is_mutable);
  }
}

std::vector<std::vector<Stmt>> ModuleEmitter::Groups(const std::vector<Stmt>& body) {
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

// The first output named by a node comment ("y, z = Split(x)  [node 's']" gives "y"), or "".
std::string CommentedNode(const std::string& text) {
  const size_t equals = text.find(" = ");
  if (equals == std::string::npos) return "";
  for (absl::string_view name : absl::StrSplit(text.substr(0, equals), ", ")) {
    if (!name.empty()) return std::string(name);
  }
  return "";
}

EmittedModule::Group DescribeGroup(const std::vector<Stmt>& group, std::string symbol) {
  EmittedModule::Group result;
  result.symbol = std::move(symbol);
  for (const Stmt& s : group) {
    if (const auto* c = s.as<tir::CommentNode>()) {
      std::string node = CommentedNode(c->text);
      if (!node.empty()) result.nodes.push_back(std::move(node));
      continue;
    }
    if (s.as<tir::DefineNode>() || s.as<tir::AssertNode>()) continue;
    // A kernel call alone is the runtime's kernel; anything else is emitted code.
    const auto* evaluate = s.as<tir::EvaluateNode>();
    const auto* call = evaluate != nullptr ? evaluate->value.as<tir::IntrinsicNode>() : nullptr;
    if (call == nullptr || call->op != tir::IntrinsicOp::kKernel) result.emitted_work = true;
  }
  return result;
}

std::string ModuleEmitter::GroupName(const EmittedModule::Group& group, int index) const {
  // The first output of the group's first node ("y = Relu(x)" gives "y"), as an identifier.
  std::string label;
  for (char ch : group.nodes.empty() ? std::string() : group.nodes.front()) {
    const char x = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    if (x == '_' && !label.empty() && label.back() == '_') continue;
    if (label.size() < 40) label.push_back(x);
  }
  while (!label.empty() && label.back() == '_') label.pop_back();
  return absl::StrCat(options_.entry_symbol, "__g", index, label.empty() ? "" : "_", label);
}

void ModuleEmitter::OpenIndexFunction(const tir::Function& entry, const std::string& symbol,
                                      const char* out_param, bool maybe_unused) {
  code_.out() += absl::StrCat("\nextern \"C\" void ", symbol, "(const int64_t* indices, int64_t* ",
                              out_param, ") {\n");
  code_.set_indent(1);
  code_.Line("const AnvilHost* host = &anvil_quiet_host;");
  code_.Line("int32_t err = 0;");
  if (maybe_unused) {
    code_.Line("(void)host;");
    code_.Line("(void)err;");
  }
  int k = 0;
  for (const Expr& p : entry.params) {
    if (p.as<tir::VarNode>())
      code_.Line(absl::StrCat("const int64_t ", code_.Name(p), " = indices[", k++, "];"));
  }
  if (maybe_unused) code_.Line("(void)indices;");
}

absl::StatusOr<EmittedModule> ModuleEmitter::Run() {
  const EmitOptions& options = options_;
  std::string& out = code_.out();
  const tir::Function* entry = m_.FindFunction(m_.entry);
  if (entry == nullptr) return absl::InvalidArgumentError("emit_cc: the module has no entry");
  if (m_.functions.size() != 1) {
    return absl::UnimplementedError("emit_cc: modules of more than one function");
  }
  EmittedModule result;
  result.entry_symbol = options.entry_symbol;
  for (const char* reserved : {"host", "indices", "tensors", "workspace", "err"}) {
    code_.Reserve(reserved);
  }
  out =
      "// Generated by Anvil's C++ emitter (lower/emit/emit_cc.h) from a Tensor IR module.\n"
      "#include <cmath>\n#include <cstdint>\n#include <cstring>\n#include <limits>\n"
      "#include <type_traits>\n@HIGHWAY@\nextern \"C\" {\n";
  out += kAnvilCcAbi;
  out += "\n}\n";
  out += kCcPrelude;
  // The entry: its parameters as locals, copied into the state; then one call per group.
  std::string prefix = std::move(out);
  out = absl::StrCat(
      "\nextern \"C\" int32_t ", options.entry_symbol,
      "(const AnvilHost* host, const int64_t* indices, AnvilBuffer* const* tensors, uint8_t* "
      "workspace) {\n");
  code_.set_indent(1);
  // (The parameters' dims may be expressions whose arithmetic raises the error flag.)
  code_.Line("int32_t err = 0;");
  code_.Line("(void)err;");
  const std::string state = absl::StrCat(options.entry_symbol, "__state");
  // Index parameters, then tensor slots: parameters, globals, offsets, dynamic outputs.
  std::vector<Expr> tensor_params;
  for (const Expr& p : entry->params) {
    if (p.as<tir::VarNode>()) {
      const std::string name = code_.Name(p);
      code_.Line(absl::StrCat("const int64_t ", name, " = indices[", result.num_indices++, "];"));
      AddField(name, name, "int64_t", false);
    } else {
      tensor_params.push_back(p);
    }
  }
  auto slot = [&](const Expr& t) {
    const int k = static_cast<int>(result.tensor_slots.size());
    result.tensor_slots.push_back(t);
    code_.DeclareTensor(t, absl::StrCat("tensors[", k, "]->data"));
    AddField(code_.Name(t), code_.Data(t), "uint8_t*", false);
    for (size_t d = 0; d < t.as<tir::TensorNode>()->dims.size(); ++d) {
      AddField(code_.Name(t), code_.Dim(t, d), "int64_t", false);
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
  code_.Line(absl::StrCat(state, " st;"));
  for (const Field& f : fields_) code_.Line(absl::StrCat("st.", f.name, " = ", f.name, ";"));
  result.first_dynamic_output = static_cast<int>(result.tensor_slots.size());
  std::vector<Expr> dynamic_outputs;
  for (const tir::EntryBinding::Tensor& o : m_.binding.outputs) {
    if (o.dynamic) dynamic_outputs.push_back(o.tensor);
  }
  std::string entry_text = std::move(out);
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
    return code_.Referenced(base_of[f]);
  };
  for (size_t g = 0; g < groups.size(); ++g) {
    const size_t earlier = fields_.size();
    code_.BeginGroup();
    out.clear();
    code_.set_indent(1);
    for (const Stmt& s : groups[g]) {
      code_.S(s);
      if (const auto* d = s.as<tir::DefineNode>()) AddDefineFields(*d);
      code_.Line("if (err) return 1;");
    }
    code_.EndGroup();
    EmittedModule::Group described = DescribeGroup(groups[g], "");
    const std::string name = GroupName(described, static_cast<int>(g));
    described.symbol = name;
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
    functions += out;
    for (const std::string& f : copy_out) absl::StrAppend(&functions, "  st.", f, " = ", f, ";\n");
    functions += "  return 0;\n}\n";
    absl::StrAppend(&entry_text, "  if (const int32_t r = ", name,
                    "(host, st)) return r == 2 ? 0 : 1;\n",
                    "  if (host->group_done) host->group_done(host->ctx, ", g, ");\n");
    result.groups.push_back(std::move(described));
  }
  out = std::move(entry_text);
  code_.set_indent(1);
  for (const Expr& t : dynamic_outputs) {
    const int k = static_cast<int>(result.tensor_slots.size());
    result.tensor_slots.push_back(t);
    const auto* node = t.as<tir::TensorNode>();
    code_.Line(absl::StrCat("tensors[", k, "]->data = st.", code_.Data(t), ";"));
    code_.Line(absl::StrCat("tensors[", k, "]->rank = ", node->dims.size(), ";"));
    for (size_t d = 0; d < node->dims.size(); ++d) {
      code_.Line(absl::StrCat("tensors[", k, "]->dims[", d, "] = st.", code_.Dim(t, d), ";"));
    }
  }
  code_.Line("return 0;");
  out += "}\n";
  // The state struct and the group functions come before the entry.
  entry_text = std::move(out);
  out = std::move(prefix);
  absl::StrAppend(&out, "\nnamespace {\n\nstruct ", state, " {\n");
  for (const Field& f : fields_) absl::StrAppend(&out, "  ", f.type, " ", f.name, ";\n");
  absl::StrAppend(&out, "};\n", functions, "\n}  // namespace\n", entry_text);
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
    OpenIndexFunction(*entry, result.sizes_symbol, "sizes", /*maybe_unused=*/false);
    // A size whose arithmetic wraps (dims too large for 64-bit bytes) is -1.
    code_.set_size_arithmetic(true);
    for (size_t b = 0; b < m_.workspace.buffers.size(); ++b) {
      code_.Line(absl::StrCat("{ bool anvil_overflow = false; const int64_t s = ",
                              code_.E(m_.workspace.buffers[b].bytes), "; sizes[", b,
                              "] = anvil_overflow || s < 0 ? -1 : s; }"));
      result.lifetimes.push_back({m_.workspace.buffers[b].first, m_.workspace.buffers[b].last});
    }
    code_.set_size_arithmetic(false);
    out += "}\n";
  }
  // The dims of the caller-allocated outputs for a run's indices.
  result.output_dims_symbol = absl::StrCat(options.entry_symbol, "_output_dims");
  OpenIndexFunction(*entry, result.output_dims_symbol, "dims", /*maybe_unused=*/true);
  {
    int at = 0;
    for (const tir::EntryBinding::Tensor& o : m_.binding.outputs) {
      if (o.dynamic) continue;
      // A dim whose arithmetic wraps is -1.
      code_.set_size_arithmetic(true);
      for (const Expr& d : o.tensor.as<tir::TensorNode>()->dims) {
        code_.Line(absl::StrCat("{ bool anvil_overflow = false; const int64_t v = ", code_.E(d),
                                "; dims[", at++, "] = anvil_overflow ? -1 : v; }"));
      }
      code_.set_size_arithmetic(false);
    }
  }
  out += "}\n";
  if (!code_.status().ok()) return code_.status();
  const size_t at = out.find("@HIGHWAY@");
  out.replace(at, 9,
              code_.uses_highway()
                  // Highway 1.0's detect_targets.h tests an undefined HWY_BASELINE where it
                  // means its baseline targets, so under a -march whose baseline is AVX3_DL
                  // (AVX-VNNI next to AVX-512 VBMI2 and friends: Zen 5, Sapphire Rapids) its
                  // own "best baseline" check fails unless AVX3_DL is asked for by name.
                  ? "#ifndef HWY_WANT_AVX3_DL\n#define HWY_WANT_AVX3_DL\n#endif\n"
                    "#include \"hwy/highway.h\"\n"
                    "#include \"hwy/contrib/math/math-inl.h\"\n"
                  : "");
  if (code_.uses_highway()) {
    // Vector helpers with the scalar code's NaN and infinity behaviour.
    const size_t prelude_end = out.find("\nnamespace {\n\nstruct ");
    out.insert(prelude_end, kCcVectorPrelude);
  }
  result.source = std::move(out);
  return result;
}

}  // namespace

absl::StatusOr<EmittedModule> EmitCc(const tir::Module& module, const EmitOptions& options) {
  return ModuleEmitter(module, options).Run();
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
