#include "lower/passes/row_tiles.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "graph/element_type.h"
#include "lower/ir/builder.h"
#include "lower/ir/functor.h"
#include "lower/ir/simplify.h"
#include "lower/passes/access.h"
#include "lower/passes/entry_rewrite.h"

namespace anvil::lower {
namespace {

using tir::Expr;
using tir::ExprNode;
using tir::Stmt;

using TensorSet = absl::flat_hash_set<const ExprNode*>;

// Gemm operands (intrinsics.inc): the ones this pass reads or rewrites.
constexpr int kTransA = 0, kRows = 2, kN = 3, kK = 4, kA = 6, kLda = 7, kB = 8, kLdb = 9, kC = 11,
              kLdc = 12;

// Tile buffers larger than this would not be stack arrays in emitted code (emit_cc.cc puts local
// buffers of constant size up to 64 KiB on the stack, larger ones on the heap each trip).
constexpr int64_t kMaxTileBufferBytes = 64 * 1024;
// A row of unknown width counts as this many bytes when sizing tiles.
constexpr int64_t kUnknownRowBytes = 4096;
constexpr int64_t kTileRowMultiple = 8;
// Nests before a gemm considered for its run (keeps the scan linear).
constexpr int kLookBack = 8;

bool SameSpace(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (!SameIndex(a[k], b[k])) return false;
  }
  return true;
}

bool AllZero(const std::vector<Expr>& indices) {
  for (const Expr& i : indices) {
    if (!tir::IsIntConstant(i, 0)) return false;
  }
  return true;
}

// Whether the tensor's first dims are the row space.
bool RowShaped(const ExprNode* tensor, const std::vector<Expr>& space) {
  const auto* t = static_cast<const tir::TensorNode*>(tensor);
  if (t->dims.size() < space.size()) return false;
  return SameSpace({t->dims.begin(), t->dims.begin() + space.size()}, space);
}

// Bytes of one row of a row-shaped tensor (its dims after the row space), or -1 when a dim is
// not a constant.
int64_t RowBytes(const ExprNode* tensor, size_t m) {
  const auto* t = static_cast<const tir::TensorNode*>(tensor);
  int64_t bytes = static_cast<int64_t>(ElementSize(tir::ElementTypeOf(t->type().kind())));
  for (size_t k = m; k < t->dims.size(); ++k) {
    int64_t d = 0;
    if (!tir::AsIntConstant(t->dims[k], &d) || d < 0 || d > (int64_t{1} << 30)) return -1;
    bytes *= d;
    if (bytes > (int64_t{1} << 40)) return -1;
  }
  return bytes;
}

// What one statement of a run reads and writes: tensors accessed by row, and tensors read at
// subscripts that do not depend on the row.
struct RowAccesses {
  TensorSet row_reads, row_writes, invariant_reads;
};

struct Member {
  int index = 0;  // top-level statement position
  bool gemm = false;
  int64_t weight_bytes = 0;  // gemm: its B
  // Nests: the loop variables over the row space and the body of the innermost of them.
  std::vector<Expr> vars;
  Stmt row_body;
  RowAccesses accesses;
};

struct GemmRows {
  std::vector<Expr> space;
  RowAccesses accesses;
  int64_t weight_bytes = 0;
};

// A gemm call that is row-wise (see row_tiles.h): its row space, accesses and weight bytes.
std::optional<GemmRows> MatchGemm(const Stmt& s, const TensorSet& globals,
                                  const TensorSet& aliased) {
  const auto* ev = s.as<tir::EvaluateNode>();
  const auto* call = ev == nullptr ? nullptr : ev->value.as<tir::IntrinsicNode>();
  if (call == nullptr || call->op != tir::IntrinsicOp::kGemm) return std::nullopt;
  const std::vector<Expr>& args = call->args;
  int64_t constant = 0;
  if (!tir::AsIntConstant(args[kTransA], &constant) || constant != 0) return std::nullopt;
  for (int k : {kN, kK, kLdb}) {
    if (!tir::AsIntConstant(args[k], &constant)) return std::nullopt;
  }
  const auto* a = args[kA].as<tir::TensorPtrNode>();
  const auto* b = args[kB].as<tir::TensorPtrNode>();
  const auto* c = args[kC].as<tir::TensorPtrNode>();
  if (a == nullptr || b == nullptr || c == nullptr || !AllZero(a->indices) ||
      !AllZero(b->indices) || !AllZero(c->indices)) {
    return std::nullopt;
  }
  if (a->tensor.type().kind() != tir::ScalarKind::kF32 || !globals.contains(b->tensor.get()) ||
      a->tensor.same(c->tensor) || aliased.contains(c->tensor.get())) {
    return std::nullopt;
  }
  const auto* ta = a->tensor.as<tir::TensorNode>();
  const auto* tc = c->tensor.as<tir::TensorNode>();
  if (ta->dims.size() < 2 || tc->dims.size() < 2 || !SameIndex(args[kLda], ta->dims.back()) ||
      !SameIndex(args[kLdc], tc->dims.back())) {
    return std::nullopt;
  }
  std::vector<Expr> space(ta->dims.begin(), ta->dims.end() - 1);
  if (!SameSpace(space, {tc->dims.begin(), tc->dims.end() - 1})) return std::nullopt;
  tir::Builder builder;
  Expr rows = space[0];
  for (size_t k = 1; k < space.size(); ++k) rows = builder.Mul(rows, space[k]);
  if (!builder.ok() || !SameIndex(args[kRows], rows)) return std::nullopt;
  GemmRows gemm;
  gemm.weight_bytes = RowBytes(b->tensor.get(), 0);
  if (gemm.weight_bytes < 0) return std::nullopt;
  gemm.space = std::move(space);
  gemm.accesses.row_reads.insert(a->tensor.get());
  gemm.accesses.row_writes.insert(c->tensor.get());
  gemm.accesses.invariant_reads.insert(b->tensor.get());
  return gemm;
}

// A nest that is row-wise over `space` (see row_tiles.h).
std::optional<Member> MatchNest(const Stmt& s, const std::vector<Expr>& space,
                                const TensorSet& aliased) {
  Member member;
  Stmt cur = SingleStatement(s);
  for (size_t j = 0; j < space.size(); ++j) {
    const auto* f = cur.defined() ? cur.as<tir::ForNode>() : nullptr;
    if (f == nullptr || !tir::IsIntConstant(f->begin, 0) || !tir::IsIntConstant(f->step, 1) ||
        !SameIndex(f->end, space[j])) {
      return std::nullopt;
    }
    member.vars.push_back(f->var);
    member.row_body = f->body;
    cur = SingleStatement(f->body);
  }
  const AccessSummary summary = SummarizeAccesses(member.row_body);
  if (summary.has_effects || summary.has_assert || !summary.views.empty()) return std::nullopt;
  for (const ExprNode* v : summary.assigned) {
    if (!summary.defined.contains(v)) return std::nullopt;
  }
  const size_t m = space.size();
  for (const Access& a : summary.accesses) {
    if (summary.defined_tensors.contains(a.tensor)) continue;
    if (a.kind == Access::Kind::kOpaque) return std::nullopt;
    bool row = a.indices.size() >= m;
    for (size_t j = 0; row && j < m; ++j) row = a.indices[j].get() == member.vars[j].get();
    absl::flat_hash_set<const ExprNode*> free;
    for (size_t j = row ? m : 0; j < a.indices.size(); ++j) FreeVars(a.indices[j], &free);
    for (const Expr& v : member.vars) {
      if (free.contains(v.get())) return std::nullopt;
    }
    const bool store = a.kind == Access::Kind::kStore;
    if (row) {
      if (!RowShaped(a.tensor, space) || (store && aliased.contains(a.tensor))) {
        return std::nullopt;
      }
      (store ? member.accesses.row_writes : member.accesses.row_reads).insert(a.tensor);
    } else {
      // The same element written for every row is not row-wise.
      if (store) return std::nullopt;
      member.accesses.invariant_reads.insert(a.tensor);
    }
  }
  return member;
}

struct RowRun {
  std::vector<Expr> space;
  std::vector<Member> members;
  TensorSet writes, invariant_reads;
  int gemms = 0;
  int64_t weight_budget = 0;  // what the weights of further gemm calls may take

  // Adds the member when the run stays row-wise (nothing it writes is read without row
  // subscripts by the run, and nothing it reads so is written by the run) and its weights fit.
  bool Add(Member member) {
    if (member.weight_bytes > weight_budget) return false;
    for (const ExprNode* t : member.accesses.row_writes) {
      if (invariant_reads.contains(t) || member.accesses.invariant_reads.contains(t)) {
        return false;
      }
    }
    for (const ExprNode* t : member.accesses.invariant_reads) {
      if (writes.contains(t)) return false;
    }
    weight_budget -= member.weight_bytes;
    writes.insert(member.accesses.row_writes.begin(), member.accesses.row_writes.end());
    invariant_reads.insert(member.accesses.invariant_reads.begin(),
                           member.accesses.invariant_reads.end());
    gemms += member.gemm ? 1 : 0;
    members.push_back(std::move(member));
    return true;
  }
};

// Rewrites the accesses of a nest body for a tile: row accesses of contracted tensors become
// accesses of their tile buffers at row `local`.
class TileRewriter final : public tir::IRMutator {
 public:
  TileRewriter(const std::vector<Expr>& vars,
               const absl::flat_hash_map<const ExprNode*, Expr>& tiles, Expr local)
      : vars_(vars), tiles_(tiles), local_(std::move(local)) {}

 protected:
  Expr MutateIndexing(const tir::IndexingNode& n, const Expr& e) override {
    Expr rebuilt = IRMutator::MutateIndexing(n, e);
    const auto* load = rebuilt.as<tir::IndexingNode>();
    const Expr* tile = load == nullptr ? nullptr : Find(load->tensor, load->indices);
    if (tile == nullptr) return rebuilt;
    return Take(tir::MakeIndexing(*tile, Local(load->indices), load->type().lanes()), rebuilt);
  }
  Stmt MutateStore(const tir::StoreNode& n, const Stmt& s) override {
    Stmt rebuilt = IRMutator::MutateStore(n, s);
    const auto* store = rebuilt.as<tir::StoreNode>();
    const Expr* tile = store == nullptr ? nullptr : Find(store->tensor, store->indices);
    if (tile == nullptr) return rebuilt;
    return Take(tir::MakeStore(*tile, Local(store->indices), store->value), rebuilt);
  }

 private:
  const Expr* Find(const Expr& tensor, const std::vector<Expr>& indices) const {
    auto it = tiles_.find(tensor.get());
    if (it == tiles_.end() || indices.size() < vars_.size()) return nullptr;
    for (size_t j = 0; j < vars_.size(); ++j) {
      if (!indices[j].same(vars_[j])) return nullptr;
    }
    return &it->second;
  }
  std::vector<Expr> Local(const std::vector<Expr>& indices) const {
    std::vector<Expr> local = {local_};
    local.insert(local.end(), indices.begin() + vars_.size(), indices.end());
    return local;
  }

  const std::vector<Expr>& vars_;
  const absl::flat_hash_map<const ExprNode*, Expr>& tiles_;
  Expr local_;
};

class RowTiler {
 public:
  RowTiler(const tir::Module& module, const RowTileOptions& options, RowTileStats* stats)
      : options_(options), stats_(stats) {
    for (const tir::Global& g : module.globals) globals_.insert(g.tensor.get());
  }

  Stmt Apply(const Stmt& body) {
    stmts_ = Statements(body);
    for (const auto& [view, base] : SummarizeAccesses(body).views) {
      aliased_.insert(view);
      aliased_.insert(base);
    }
    FindRuns();
    if (runs_.empty()) return body;
    CountTouches();
    return Rebuild();
  }

 private:
  // What a run may step over: what fusion steps over (MovableOver), except tensor Defines that
  // view another tensor or are sized at run time.
  bool Movable(const Stmt& s) const {
    const auto* d = s.as<tir::DefineNode>();
    if (d != nullptr && d->target.as<tir::TensorNode>() &&
        (d->tensor.view_of.defined() || d->tensor.dynamic)) {
      return false;
    }
    return MovableOver(s);
  }

  void Close(std::optional<RowRun>& run) {
    if (run && run->gemms > 0 && run->members.size() >= 2) runs_.push_back(std::move(*run));
    run.reset();
  }

  // One pass over the statements: each is matched against at most the open run's space and the
  // space of the next gemm (with a bounded look back), so the scan is linear.
  void FindRuns() {
    std::optional<RowRun> run;
    std::vector<int> pending;  // nests since the last break, not in a run
    for (int k = 0; k < static_cast<int>(stmts_.size()); ++k) {
      const Stmt& s = stmts_[k];
      if (Movable(s)) continue;
      std::optional<GemmRows> gemm = MatchGemm(s, globals_, aliased_);
      if (gemm && gemm->weight_bytes <= options_.weight_bytes) {
        Member member;
        member.index = k;
        member.gemm = true;
        member.weight_bytes = gemm->weight_bytes;
        member.accesses = std::move(gemm->accesses);
        if (run && SameSpace(run->space, gemm->space) && run->Add(member)) continue;
        Close(run);
        run = StartRun(gemm->space, pending, std::move(member));
        pending.clear();
        continue;
      }
      if (s.as<tir::ForNode>()) {
        if (run) {
          if (std::optional<Member> nest = MatchNest(s, run->space, aliased_)) {
            nest->index = k;
            if (run->Add(std::move(*nest))) continue;
          }
          Close(run);
        }
        pending.push_back(k);
        continue;
      }
      Close(run);
      pending.clear();
    }
    Close(run);
  }

  // A run from a gemm and the row-wise nests right before it (at most kLookBack of them): the
  // longest such suffix of `pending` that the gemm can join.
  RowRun StartRun(const std::vector<Expr>& space, const std::vector<int>& pending, Member gemm) {
    std::vector<Member> before;
    for (int p = static_cast<int>(pending.size()) - 1;
         p >= 0 && static_cast<int>(before.size()) < kLookBack; --p) {
      std::optional<Member> nest = MatchNest(stmts_[pending[p]], space, aliased_);
      if (!nest) break;
      nest->index = pending[p];
      before.push_back(std::move(*nest));
    }
    std::reverse(before.begin(), before.end());
    for (size_t first = 0;; ++first) {
      RowRun run;
      run.space = space;
      run.weight_budget = options_.weight_bytes;
      bool ok = true;
      for (size_t j = first; ok && j < before.size(); ++j) ok = run.Add(before[j]);
      if (ok && run.Add(gemm)) return run;
      if (first == before.size()) return run;  // the gemm alone (Add cannot fail on an empty run)
    }
  }

  // For each tensor, the top-level statements touching it (its Define excluded), and the plain
  // top-level Define of each local tensor.
  void CountTouches() {
    for (int k = 0; k < static_cast<int>(stmts_.size()); ++k) {
      if (const auto* d = stmts_[k].as<tir::DefineNode>()) {
        if (d->target.as<tir::TensorNode>() && Movable(stmts_[k])) defines_[d->target.get()] = k;
        continue;
      }
      for (const Access& a : SummarizeAccesses(stmts_[k]).accesses) touched_[a.tensor].insert(k);
    }
  }

  // Rows per tile for a run.
  int64_t TileRows(const RowRun& run) const {
    int64_t row_bytes = 0;
    for (const ExprNode* t : run.writes) {
      const int64_t bytes = RowBytes(t, run.space.size());
      row_bytes += bytes < 0 ? kUnknownRowBytes : bytes;
    }
    const int64_t rows = options_.tile_bytes / std::max<int64_t>(row_bytes, 1);
    return std::max(kTileRowMultiple, rows / kTileRowMultiple * kTileRowMultiple);
  }

  // Tensors of the run that can live in one tile: plain top-level intermediates whose every
  // access is a row access by the run's statements.
  std::vector<const tir::DefineNode*> Contractible(const RowRun& run, int64_t tile_rows) const {
    absl::flat_hash_set<int> members;
    TensorSet row_tensors;
    for (const Member& m : run.members) {
      members.insert(m.index);
      row_tensors.insert(m.accesses.row_reads.begin(), m.accesses.row_reads.end());
      row_tensors.insert(m.accesses.row_writes.begin(), m.accesses.row_writes.end());
    }
    // Candidates in the order of their Defines, so the tile loop's Defines (and the emitted
    // source the JIT caches by) do not depend on hashing.
    std::vector<int> candidates;
    for (const ExprNode* t : row_tensors) {
      auto define = defines_.find(t);
      auto touches = touched_.find(t);
      if (define == defines_.end() || touches == touched_.end() || aliased_.contains(t) ||
          touches->second.size() > members.size()) {
        continue;
      }
      bool inside = true;
      for (int k : touches->second) inside &= members.contains(k);
      // Every access by the run's nests is a row access (MatchNest refuses others); gemm calls
      // address A and C at their first row.
      const int64_t bytes = RowBytes(t, run.space.size());
      if (inside && bytes >= 0 && bytes * tile_rows <= kMaxTileBufferBytes) {
        candidates.push_back(define->second);
      }
    }
    std::sort(candidates.begin(), candidates.end());
    std::vector<const tir::DefineNode*> out;
    for (int k : candidates) out.push_back(stmts_[k].as<tir::DefineNode>());
    return out;
  }

  // The row subscripts of flat row `r` over the space.
  static std::vector<Expr> RowIndex(tir::Builder& b, const std::vector<Expr>& space, Expr r) {
    std::vector<Expr> index(space.size());
    for (size_t j = space.size(); j-- > 0;) {
      index[j] = j == 0 ? r : b.Mod(r, space[j]);
      if (j > 0) r = b.FloorDiv(r, space[j]);
    }
    return index;
  }

  std::optional<Stmt> Tile(const RowRun& run) {
    tir::Builder b;
    const size_t m = run.space.size();
    Expr rows = run.space[0];
    for (size_t j = 1; j < m; ++j) rows = b.Mul(rows, run.space[j]);
    const int64_t tile_rows = TileRows(run);
    const Expr tile = b.Index(tile_rows);
    const Expr r0 = b.Var("r0", tir::DataType::Index());
    std::vector<Stmt> body;
    absl::flat_hash_map<const ExprNode*, Expr> tiles;
    std::vector<const tir::DefineNode*> contracted;
    for (const tir::DefineNode* d : Contractible(run, tile_rows)) {
      const auto* t = d->target.as<tir::TensorNode>();
      std::vector<Expr> dims = {tile};
      dims.insert(dims.end(), t->dims.begin() + m, t->dims.end());
      Expr local = b.Tensor(t->name, t->type(), std::move(dims));
      tiles[d->target.get()] = local;
      body.push_back(b.Define(local));
      contracted.push_back(d);
    }
    const std::vector<Expr> first_row = RowIndex(b, run.space, r0);
    auto row_pointer = [&](const Expr& ptr) {
      const Expr& t = ptr.as<tir::TensorPtrNode>()->tensor;
      const auto* node = t.as<tir::TensorNode>();
      auto it = tiles.find(t.get());
      if (it != tiles.end()) {
        return b.Ptr(it->second, std::vector<Expr>(node->dims.size() - m + 1, b.Index(0)));
      }
      std::vector<Expr> index = first_row;
      index.resize(node->dims.size(), b.Index(0));
      return b.Ptr(t, std::move(index));
    };
    for (const Member& member : run.members) {
      if (member.gemm) {
        const auto* call =
            stmts_[member.index].as<tir::EvaluateNode>()->value.as<tir::IntrinsicNode>();
        std::vector<Expr> args = call->args;
        args[kRows] = b.Min(tile, b.Sub(rows, r0));
        args[kA] = row_pointer(call->args[kA]);
        args[kC] = row_pointer(call->args[kC]);
        body.push_back(b.Evaluate(b.Call(tir::IntrinsicOp::kGemm, std::move(args))));
        continue;
      }
      const Expr r = b.Var("r", tir::DataType::Index());
      TileRewriter rewriter(member.vars, tiles, b.Sub(r, r0));
      Stmt row_body = rewriter.Mutate(member.row_body);
      if (!rewriter.status().ok()) return std::nullopt;
      std::vector<Stmt> row;
      const std::vector<Expr> index = RowIndex(b, run.space, r);
      for (size_t j = 0; j < m; ++j) {
        if (!MentionsVar(row_body, member.vars[j].get())) continue;
        const auto* v = member.vars[j].as<tir::VarNode>();
        Expr var = b.Var(v->name, tir::DataType::Index());
        row.push_back(b.Define(var, index[j]));
        row_body = tir::Substitute(row_body, member.vars[j], var);
      }
      for (const Stmt& s : Statements(row_body)) row.push_back(s);
      body.push_back(b.For(r, r0, b.Min(b.Add(r0, tile), rows), tir::MakeBlock(std::move(row))));
    }
    tir::ForAttrs attrs;
    attrs.parallel = true;
    absl::StatusOr<Stmt> loop =
        tir::MakeFor(r0, b.Index(0), rows, tile, tir::MakeBlock(std::move(body)), attrs);
    if (!b.ok() || !loop.ok()) return std::nullopt;
    contracted_.insert(contracted.begin(), contracted.end());
    if (stats_) {
      ++stats_->runs;
      stats_->gemms += run.gemms;
      stats_->nests += static_cast<int64_t>(run.members.size()) - run.gemms;
      stats_->contracted += static_cast<int64_t>(contracted.size());
    }
    return *loop;
  }

  Stmt Rebuild() {
    // Statement position -> the run it starts, and every member's run.
    absl::flat_hash_map<int, int> starts, member_of;
    for (int r = 0; r < static_cast<int>(runs_.size()); ++r) {
      starts[runs_[r].members.front().index] = r;
      for (const Member& m : runs_[r].members) member_of[m.index] = r;
    }
    std::vector<std::optional<Stmt>> tiled(runs_.size());
    for (size_t r = 0; r < runs_.size(); ++r) tiled[r] = Tile(runs_[r]);
    std::vector<Stmt> out;
    for (int k = 0; k < static_cast<int>(stmts_.size()); ++k) {
      auto start = starts.find(k);
      if (start != starts.end() && tiled[start->second]) {
        const RowRun& run = runs_[start->second];
        // The Defines, dim Asserts and Comments between the run's statements go before its
        // loop.
        for (int j = k + 1; j < run.members.back().index; ++j) {
          if (!member_of.contains(j) && !Dropped(stmts_[j])) out.push_back(stmts_[j]);
        }
        out.push_back(*tiled[start->second]);
        k = run.members.back().index;
        continue;
      }
      auto member = member_of.find(k);
      if (member != member_of.end() && tiled[member->second]) continue;
      if (!Dropped(stmts_[k])) out.push_back(stmts_[k]);
    }
    return tir::MakeBlock(std::move(out));
  }

  bool Dropped(const Stmt& s) const {
    const auto* d = s.as<tir::DefineNode>();
    return d != nullptr && contracted_.contains(d);
  }

  const RowTileOptions& options_;
  RowTileStats* stats_;
  TensorSet globals_, aliased_;
  std::vector<Stmt> stmts_;
  std::vector<RowRun> runs_;
  absl::flat_hash_map<const ExprNode*, absl::flat_hash_set<int>> touched_;
  absl::flat_hash_map<const ExprNode*, int> defines_;
  absl::flat_hash_set<const tir::DefineNode*> contracted_;
};

}  // namespace

tir::Module FuseRowTiles(tir::Module module, const RowTileOptions& options, RowTileStats* stats) {
  tir::Function* entry = module.FindFunction(module.entry);
  if (entry == nullptr) return module;
  RowTiler tiler(module, options, stats);
  Stmt body = tiler.Apply(entry->body);
  if (!body.same(entry->body)) {
    entry->body = body;
    *entry = tir::Simplify(*entry);
  }
  return module;
}

RowTileOptions TileRowsPass::options() const {
  RowTileOptions options;
  options.tile_bytes = *tile_bytes_;
  options.weight_bytes = *weight_bytes_;
  return options;
}

absl::StatusOr<bool> TileRowsPass::Run(tir::Module& module, PassContext& ctx) {
  const tir::Function* entry = module.FindFunction(module.entry);
  if (entry == nullptr) return false;
  const tir::Function before = *entry;
  RowTileStats s;
  module = FuseRowTiles(std::move(module), options(), &s);
  ReportCounts(ctx, {{"tile-loops", s.runs, &stats_.runs},
                     {"gemms", s.gemms, &stats_.gemms},
                     {"nests", s.nests, &stats_.nests},
                     {"contracted-intermediates", s.contracted, &stats_.contracted}});
  return s.runs > 0 || EntryChanged(module, before);
}

ANVIL_REGISTER_TIR_PASS(TileRowsPass);

}  // namespace anvil::lower
