/* The reference of `tessera sort --check`: a stable sort of the same input
 * on the host, written from the order that tessera/sort.h documents and
 * independent of either backend. */
#ifndef TESSERA_CLI_SORT_REFERENCE_H
#define TESSERA_CLI_SORT_REFERENCE_H

#include "cli_progress.h"
#include "tessera.h"
#include "tessera/sort.h"

/* What the check says it compared with. */
#define CLI_SORT_REFERENCE_NAME "a stable qsort of the same input on the host"

/*
 * Sort the @p n keys of type @p key at @p keys (host memory) in the order of
 * tessera/sort.h (descending when @p descending), stably, into @p sorted_keys;
 * with a value kind, write into @p sorted_values the values that sort moves
 * with them, given that the input values are the input positions i (as
 * uint32 i, uint64 i << 20, or the int32 permutation for
 * TS_SORT_VALUE_INDEX). qsort sorts runs of up to 2^20 keys (its ties broken
 * by input position, so that it is stable) and a merge joins them, Ctrl-C
 * being checked between runs and merges. Returns TS_ERROR_OUT_OF_MEMORY or
 * TS_ERROR_CANCELLED, else TS_SUCCESS.
 */
ts_status cli_sort_reference(ts_sort_key key, bool descending, ts_sort_value value, const void *keys, int64_t n,
                             void *sorted_keys, void *sorted_values, cli_progress *progress);

#endif /* TESSERA_CLI_SORT_REFERENCE_H */
