/* Sort internals shared by the plan (sort_plan.c), the CPU backend
 * (sort_cpu.c) and the CUDA backend (sort_cuda.cu): the plan's fields and the
 * maps from keys to ordered unsigned integers. Both backends sort the mapped
 * integers ascending and stably, so that one order (the total float order,
 * descending as a reversed comparator) holds on both. */
#ifndef TESSERA_SORT_INTERNAL_H
#define TESSERA_SORT_INTERNAL_H

#include "core/internal.h"
#include "sort/sort_tuning.h"
#include "tessera/sort.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDACC__)
#define TSI_HOST_DEVICE __host__ __device__
#else
#define TSI_HOST_DEVICE
#endif

struct ts_sort_plan {
  ts_context *ctx;
  ts_sort_options options;
  size_t key_size, value_size; /* value_size: 4 for TS_SORT_VALUE_INDEX */
  size_t workspace_bytes;
  /* Runs merged per global pass on the CUDA backend: 2 (pairwise merge
   * path), 4 or 8 (K-way). TSI_SORT_MERGE_WAYS by default; the environment
   * variable TESSERA_SORT_MERGE ("pairwise", "4" or "8"), read at plan
   * creation, overrides it so that a benchmark can compare the passes. */
  int merge_ways;
};

/* Workspace layout for max_n keys: alternate keys, alternate values, then
 * the backend's own scratch; each part starts on a 256-byte boundary. */
#define TSI_SORT_ALIGN 256u
static inline size_t tsi_sort_align(size_t bytes) {
  return (bytes + TSI_SORT_ALIGN - 1) / TSI_SORT_ALIGN * TSI_SORT_ALIGN;
}

/* Key maps: an order-preserving bijection from each key type onto unsigned
 * integers of its width, so that the kernels compare integers.
 * Floats (the ordering of IEEE 754 totalOrder, except that NaNs of either sign
 * go last): with u the bit pattern, negative non-NaN numbers map to
 * NEG_INF - u (-inf -> 0, -0 -> INF), non-negative numbers and positive
 * NaNs to u + INF + 1 (+0 -> INF + 1, +inf -> TOP), and negative NaNs,
 * which are the patterns above NEG_INF, to themselves: everything non-NaN
 * fills [0, 2*(INF+1)), positive NaNs come next, negative NaNs last.
 * Descending reverses the non-NaN range (and complements integers); NaNs keep
 * their ascending place at the end. */
#define TSI_F32_SIGN 0x80000000u
#define TSI_F32_INF 0x7F800000u
#define TSI_F32_NEG_INF 0xFF800000u
#define TSI_F32_TOP 0xFF000001u /* the map of +inf: the last non-NaN */
#define TSI_F64_SIGN 0x8000000000000000ull
#define TSI_F64_INF 0x7FF0000000000000ull
#define TSI_F64_NEG_INF 0xFFF0000000000000ull
#define TSI_F64_TOP 0xFFE0000000000001ull

static inline TSI_HOST_DEVICE uint32_t tsi_sort_f32_to_ordered(uint32_t u) {
  if (u > TSI_F32_NEG_INF)
    return u;
  if (u & TSI_F32_SIGN)
    return TSI_F32_NEG_INF - u;
  return u + (TSI_F32_INF + 1u);
}
static inline TSI_HOST_DEVICE uint32_t tsi_sort_f32_from_ordered(uint32_t o) {
  if (o > TSI_F32_NEG_INF)
    return o;
  if (o <= TSI_F32_INF)
    return TSI_F32_NEG_INF - o;
  return o - (TSI_F32_INF + 1u);
}
static inline TSI_HOST_DEVICE uint64_t tsi_sort_f64_to_ordered(uint64_t u) {
  if (u > TSI_F64_NEG_INF)
    return u;
  if (u & TSI_F64_SIGN)
    return TSI_F64_NEG_INF - u;
  return u + (TSI_F64_INF + 1u);
}
static inline TSI_HOST_DEVICE uint64_t tsi_sort_f64_from_ordered(uint64_t o) {
  if (o > TSI_F64_NEG_INF)
    return o;
  if (o <= TSI_F64_INF)
    return TSI_F64_NEG_INF - o;
  return o - (TSI_F64_INF + 1u);
}

/* Keys of 4 bytes: to the ordered integer (to_ordered true) or back. The
 * descending step is its own inverse, so it is applied after the forward map
 * and before the backward one. */
static inline TSI_HOST_DEVICE uint32_t tsi_sort_map32(uint32_t u, ts_sort_key key, bool descending, bool to_ordered) {
  if (!to_ordered && descending)
    u = key == TS_SORT_KEY_FLOAT32 ? (u > TSI_F32_TOP ? u : TSI_F32_TOP - u) : ~u;
  if (key == TS_SORT_KEY_INT32)
    u ^= TSI_F32_SIGN;
  else if (key == TS_SORT_KEY_FLOAT32)
    u = to_ordered ? tsi_sort_f32_to_ordered(u) : tsi_sort_f32_from_ordered(u);
  if (to_ordered && descending)
    u = key == TS_SORT_KEY_FLOAT32 ? (u > TSI_F32_TOP ? u : TSI_F32_TOP - u) : ~u;
  return u;
}
static inline TSI_HOST_DEVICE uint64_t tsi_sort_map64(uint64_t u, ts_sort_key key, bool descending, bool to_ordered) {
  if (!to_ordered && descending)
    u = key == TS_SORT_KEY_FLOAT64 ? (u > TSI_F64_TOP ? u : TSI_F64_TOP - u) : ~u;
  if (key == TS_SORT_KEY_FLOAT64)
    u = to_ordered ? tsi_sort_f64_to_ordered(u) : tsi_sort_f64_from_ordered(u);
  if (to_ordered && descending)
    u = key == TS_SORT_KEY_FLOAT64 ? (u > TSI_F64_TOP ? u : TSI_F64_TOP - u) : ~u;
  return u;
}

/* Whether keys of this type and order need a map at all (uint ascending does not). */
static inline bool tsi_sort_needs_map(ts_sort_key key, ts_sort_order order) {
  return order == TS_SORT_DESCENDING || (key != TS_SORT_KEY_UINT32 && key != TS_SORT_KEY_UINT64);
}

/* The backends. keys/values/workspace are backend memory; values NULL for
 * keys alone. Both sort n keys in place; the CUDA one queues its work on the
 * context's stream, asks the device nothing and allocates nothing: what the
 * kernels need of the device is set once, by tsi_sort_cuda_prepare() at plan
 * creation. */
size_t tsi_sort_cuda_scratch_bytes(int64_t max_n, size_t key_size, size_t value_size);
ts_status tsi_sort_cuda_prepare(const ts_sort_plan *plan);
ts_status tsi_sort_cpu(const ts_sort_plan *plan, int64_t n, void *keys, void *values, void *workspace);
ts_status tsi_sort_cuda(const ts_sort_plan *plan, int64_t n, void *keys, void *values, void *workspace);

#ifdef __cplusplus
}
#endif

#endif
