// Row-tile fusion: a gemm call and the loop nests next to it that work row by row over the same
// rows (a layer norm before a linear layer, the bias, activation and residual after it, the next
// linear layer) become one loop over tiles of rows. Each tile runs every statement of the run on
// its rows, so what one statement writes for the tile is still in cache when the next reads it,
// and the intermediates only the run uses shrink to one tile each. This is what a compiler can
// do and a node-at-a-time interpreter cannot: the interpreter's GEMM finishes all rows before the
// next node starts.
//
// On the entry function's top-level statements (after `fuse`, before buffer planning). A run is
// a maximal sequence of adjacent statements (Defines without a value and Asserts on dims alone
// may sit between them; they move before the loop) that are each row-wise over one row space
// P = [D0, ..., Dm-1], with at least one gemm and at least two statements:
//  - a gemm call C = alpha A op(B) + beta C with A and C row-major tensors [P..., K] and
//    [P..., N] addressed at their first element (lda, ldc their last dims, M their rows
//    D0 * ... * Dm-1), A not transposed, and B a module global of f32 with constant N, K and ldb
//    (a weight every host packs: gemm then computes each row as in one call over all rows, so
//    tiling changes no bit), the weights of the run together at most `weight_bytes`;
//  - a perfect nest of loops over P, from 0 by 1, whose body reads and writes row-indexed
//    tensors (first m dims P, first m subscripts the loop variables) and only reads others at
//    subscripts free of those variables (weights, biases); no kernel call, no Assert, scalars
//    assigned in a row defined in it.
// Across the run, no statement writes a tensor another reads without row subscripts, and no
// tensor written has views. Row r of every statement then depends only on row r of what earlier
// statements wrote, so running the statements tile by tile computes the same values.
//
// The run becomes `for r0 in (0, R, T) parallel { ... }` over R = D0 * ... * Dm-1 rows in tiles
// of T: gemm calls take the tile's rows, nests loop over them (row subscripts recomputed from the
// flat row index). An intermediate defined at the top level whose every access is a row access
// inside the run (and whose tile fits the emitter's stack buffers) is defined inside the tile
// loop with T rows instead of R.
#ifndef ANVIL_LOWER_PASSES_ROW_TILES_H_
#define ANVIL_LOWER_PASSES_ROW_TILES_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "lower/ir/module.h"
#include "lower/passes/tir_pass.h"

namespace anvil::lower {

struct RowTileOptions {
  // Bytes of the rows one tile writes (every row-indexed tensor of the run, summed): T is that
  // many rows, rounded down to a multiple of 8 (the GEMM micro-kernel's height), at least 8.
  int64_t tile_bytes = 96 * 1024;
  // The weights of a run's gemm calls, together: each tile reads all of them, so they must stay
  // in the core's L2 cache from one tile to the next (a quarter of a 1 MiB L2). A gemm whose
  // weight alone is larger is left as it is: untiled, it streams its weight once per column
  // block, tiled once per tile.
  int64_t weight_bytes = 256 * 1024;
};

struct RowTileStats {
  int64_t runs = 0;        // tile loops made
  int64_t gemms = 0;       // gemm calls moved into them
  int64_t nests = 0;       // loop nests moved into them
  int64_t contracted = 0;  // intermediates shrunk to one tile
};

tir::Module FuseRowTiles(tir::Module module, const RowTileOptions& options = {},
                         RowTileStats* stats = nullptr);

// Pass `tile-rows`: FuseRowTiles() on the module. Options tile-bytes and weight-bytes
// (RowTileOptions). Statistics: tile-loops, gemms, nests, contracted-intermediates.
class TileRowsPass : public tir::Pass {
 public:
  std::string_view name() const override { return "tile-rows"; }
  std::string_view description() const override {
    return "run gemm calls and their row-wise neighbours tile by tile (row_tiles.h)";
  }
  absl::StatusOr<bool> Run(tir::Module& module, PassContext& ctx) override;

  // The RowTileOptions the options say.
  RowTileOptions options() const;
  PassOption<int64_t>& tile_bytes() { return tile_bytes_; }
  PassOption<int64_t>& weight_bytes() { return weight_bytes_; }

  // What this instance's runs did, summed.
  const RowTileStats& stats() const { return stats_; }

 private:
  PassOption<int64_t> tile_bytes_{this, "tile-bytes", RowTileOptions().tile_bytes,
                                  "bytes of rows one tile writes", 1};
  PassOption<int64_t> weight_bytes_{this, "weight-bytes", RowTileOptions().weight_bytes,
                                    "bytes of gemm weights one tile loop may read", 0};
  RowTileStats stats_;
};

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_PASSES_ROW_TILES_H_
