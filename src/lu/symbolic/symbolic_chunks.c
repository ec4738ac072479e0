/* The symbolic phase's memory budget and the rows per chunk it allows, for
 * every way of finding the rows of L + U (the paper's chunks: Xia, Jiang,
 * Agrawal and Ramnath, PPoPP 2023, section 3.2). */
#include "lu/symbolic/symbolic_internal.h"

int64_t tsi_lu_symbolic_budget(const ts_lu *lu, int64_t largest_slot_words, int threads) {
  int64_t budget = lu->options.symbolic_memory_budget;
  if (budget > 0)
    return budget;
  if (tsi_mul_overflows((int64_t)TSI_LU_SYMBOLIC_ROWS_PER_THREAD * threads,
                        largest_slot_words * (int64_t)sizeof(int32_t), &budget) ||
      budget > TSI_LU_SYMBOLIC_DEFAULT_CAP)
    budget = TSI_LU_SYMBOLIC_DEFAULT_CAP;
  return budget;
}

int64_t tsi_lu_symbolic_chunk_rows(int64_t budget, int64_t words, int64_t rows) {
  int64_t bytes_per_row = words * (int64_t)sizeof(int32_t);
  int64_t chunk = bytes_per_row > 0 ? budget / bytes_per_row : 1;
  if (chunk < 1)
    chunk = 1;
  if (chunk > rows)
    chunk = rows > 0 ? rows : 1;
  return chunk;
}
