/* The symbolic phase on the host: the rows of L + U by the row merge with
 * symmetric pruning (symbolic_row_merge_cpu.c), or by the per-row fill-path
 * traversal (symbolic_fill_path_cpu.c) when the switches ask for it, then
 * the steps both backends share (symbolic.c). */
#include "lu/symbolic/symbolic_internal.h"

ts_status tsi_lu_symbolic_cpu(ts_lu *lu, const ts_csr *a) {
  return tsi_lu_symbolic_with(
      lu, a, lu->switches.symbolic_fill_path ? tsi_lu_symbolic_fill_path_rows : tsi_lu_symbolic_row_merge_rows);
}
