/* Private helpers shared by the files of the LU analysis. */
#ifndef TESSERA_LU_ANALYSIS_H
#define TESSERA_LU_ANALYSIS_H

#include "lu/lu_internal.h"

/* Free the analysis's arrays and reset their fields (options kept). */
void tsi_lu_analysis_release(ts_lu *lu);

/* Largest matching of the stored entries of a square CSR pattern (Duff's
 * depth-first augmenting paths); entries with skip[k] != 0 are left out when
 * skip is not NULL. Returns its size in *rank, and the row matched to each
 * column in col_match (-1 where none) when col_match is not NULL. */
ts_status tsi_lu_structural_rank(ts_context *ctx, int64_t n, const int64_t *row_ptr, const int32_t *col_idx,
                                 const unsigned char *skip, int32_t *col_match, int64_t *rank);

/* Ask for transparent huge pages on a large array written or read at
 * random (advice only; lu_huge_pages.c). */
void tsi_lu_advise_huge_pages(void *memory, size_t bytes);

#endif
