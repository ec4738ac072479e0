/* tessera's SpMV schedules described as rounds from a matrix's statistics
 * alone, predicted, and ranked fastest first (docs/model.md, "SpMV"). The
 * descriptions follow the kernels on the load-balancing layer
 * (include/tessera/lb/tile_reduce.cuh): 256-thread blocks; thread-mapped
 * takes a row per thread, loaded whole when it has at most 8 atoms, else
 * four atoms at a time; warp- and block-mapped give a
 * row to a warp or a block; merge-path and work-oriented stage chunks of
 * 256 x V items in shared memory (V = 8 for 4-byte values, 6 for 8-byte),
 * search each thread's start there and combine by a segmented scan. */
#include "model/model_internal.h"
#include "model/model_tuning.h"

#include <math.h>
#include <string.h>

/* Threads of a block of every schedule described (lb::block_threads). */
#define BLOCK 256.0
/* Bytes of the memory sector a scattered access moves. */
#define SECTOR 32.0

typedef struct spmv_shape {
  double rows, cols, nnz, mean, max_row, warp_max, value_bytes;
  double matrix_bytes; /* values, indices, offsets */
  double y_bytes;
  double x_coalesced, x_scattered, x_l2; /* x traffic by kind */
} spmv_shape;

/* Expected longest of g rows: mean + stddev * sqrt(2 ln g) (the largest of
 * g normal samples), never beyond the longest row. */
static double longest_of(const ts_csr_stats *s, double g) {
  double v = s->mean_row + s->stddev_row * sqrt(2.0 * log(g));
  return fmin(v, (double)s->max_row);
}

static void shape_of(const ts_model_params *p, const ts_csr_stats *s, ts_dtype dtype, spmv_shape *out) {
  memset(out, 0, sizeof *out);
  out->rows = (double)s->rows;
  out->cols = (double)s->cols;
  out->nnz = (double)s->nnz;
  out->mean = s->mean_row;
  out->max_row = (double)s->max_row;
  out->warp_max = longest_of(s, 32.0);
  out->value_bytes = dtype == TS_FLOAT64 ? 8.0 : 4.0;
  out->matrix_bytes = out->nnz * (out->value_bytes + 4.0) + (out->rows + 1.0) * 4.0;
  out->y_bytes = out->rows * out->value_bytes;
  double x_bytes = out->cols * out->value_bytes;
  const double band = (double)s->bandwidth;
  const bool narrow = band * out->value_bytes <= TSI_MODEL_BANDED_X_BYTES;
  const bool stencil = band <= TSI_MODEL_BANDED_MAX_FRACTION * out->cols &&
                       (2.0 * band + 1.0) * out->value_bytes <= TSI_MODEL_BANDED_X_L2_SHARE * (double)p->l2_bytes;
  if (narrow || stencil || out->nnz <= out->cols) {
    out->x_coalesced = x_bytes;
  } else {
    /* Scattered x: one sector per access; the part of x that L2 holds
     * serves those sectors, the rest comes from DRAM. */
    double in_l2 = fmin(1.0, TSI_MODEL_SCATTERED_X_L2_SHARE * (double)p->l2_bytes / x_bytes);
    out->x_coalesced = x_bytes;
    out->x_l2 = out->nnz * SECTOR * in_l2;
    out->x_scattered = out->nnz * SECTOR * (1.0 - in_l2);
  }
}

static void memory_of(const spmv_shape *sh, ts_model_round *r) {
  r->coalesced_bytes = sh->matrix_bytes + sh->y_bytes + sh->x_coalesced;
  r->scattered_bytes = sh->x_scattered;
  r->l2_bytes = sh->x_l2;
}

static ts_status predict_thread(ts_context *ctx, const ts_model_params *p, const spmv_shape *sh, double *t) {
  ts_model_round r = {0};
  memory_of(sh, &r);
  r.bytes_per_access = sh->value_bytes;
  /* Row offsets, then the column and x of each group of atoms loaded
   * together: a row of at most 8 in one group, a longer one four at a time.
   * The warp waits for its longest row, and runs both paths when its rows
   * fall on both sides of 8 (when the longest is past 8, the others
   * usually are not). */
  const double short_row = 8.0;
  r.independent_accesses = sh->warp_max <= short_row ? short_row : 4;
  r.dependent_accesses = 2.0 + 2.0 * (sh->warp_max <= short_row ? 1.0 : 1.0 + ceil(sh->warp_max / 4.0));
  /* One thread walking a long row reads consecutive lines: after the first,
   * its column loads and the gathered x hit L2. */
  r.critical_chain = 2.0 + 2.0 * (sh->max_row <= short_row ? 1.0 : ceil(sh->max_row / 4.0));
  r.critical_in_l2 = 1;
  r.fp32_ops = sh->nnz;
  ts_model_kernel k = {0};
  k.blocks = (int64_t)ceil(sh->rows / BLOCK);
  k.threads_per_block = (int)BLOCK;
  k.round_count = 1;
  k.rounds = &r;
  return ts_model_predict_ex(ctx, p, &k, t, NULL);
}

/* One row per group of g threads (a warp, or a block with barriers). */
static ts_status predict_row_group(ts_context *ctx, const ts_model_params *p, const spmv_shape *sh, double g,
                                   double *t) {
  ts_model_round r = {0};
  /* Partly used sectors of short rows are shared with the neighbouring
   * rows of other warps through L2: DRAM still moves the matrix once. */
  memory_of(sh, &r);
  r.bytes_per_access = sh->value_bytes;
  r.independent_accesses = 1;
  r.dependent_accesses = 2.0 + ceil(sh->mean / g);
  r.critical_chain = 2.0 * ceil(sh->max_row / g);
  r.critical_in_l2 = 1;
  r.shared_requests = g > 32 ? 4.0 : 0.0;
  r.barriers = g > 32 ? 2.0 : 0.0;
  r.fp32_ops = sh->rows * g * (ceil(sh->mean / g) + log2(g));
  ts_model_kernel k = {0};
  k.blocks = (int64_t)ceil(sh->rows * g / BLOCK);
  k.threads_per_block = (int)BLOCK;
  k.round_count = 1;
  k.rounds = &r;
  return ts_model_predict_ex(ctx, p, &k, t, NULL);
}

/* Chunks of 256 x V items (merge-path: rows + nnz; work-oriented: nnz). */
static ts_status predict_chunked(ts_context *ctx, const ts_model_params *p, const spmv_shape *sh, bool merge,
                                 double *t) {
  double v = sh->value_bytes == 8.0 ? 6.0 : 8.0;
  double chunk = BLOCK * v;
  double items = merge ? sh->rows + sh->nnz : sh->nnz;
  double chunks = fmax(1.0, ceil(items / chunk));
  double rows_per_chunk = fmax(1.0, chunk * sh->rows / fmax(items, 1.0));
  ts_model_round r[3];
  memset(r, 0, sizeof r);
  /* 1: chunk start and the tile ends staged (dependent on the start). */
  r[0].coalesced_bytes = sh->rows * 4.0 + chunks * 16.0;
  r[0].dependent_accesses = 2;
  r[0].independent_accesses = fmax(1.0, rows_per_chunk / BLOCK);
  r[0].barriers = 1;
  /* 2: the atoms: column, then x, V in flight per thread. */
  memory_of(sh, &r[1]);
  r[1].coalesced_bytes -= sh->rows * 4.0;
  r[1].bytes_per_access = sh->value_bytes;
  r[1].independent_accesses = v;
  r[1].dependent_accesses = 2;
  r[1].fp32_ops = sh->nnz;
  r[1].barriers = 1;
  /* 3: start search in shared memory, the walk, the segmented scan, the results. */
  r[2].shared_requests = log2(chunk) + 2.0 * v + 2.0 * log2(BLOCK);
  r[2].conflict_degree = 2;
  r[2].int_ops = chunks * BLOCK * (4.0 * log2(chunk) + 6.0 * v);
  r[2].barriers = 4;
  ts_model_kernel k = {0};
  k.blocks = (int64_t)chunks;
  k.threads_per_block = (int)BLOCK;
  k.shared_bytes_per_block = (int64_t)(chunk * (sh->value_bytes > 4.0 ? 16.0 : 8.0));
  k.round_count = 3;
  k.rounds = r;
  ts_status st = ts_model_predict_ex(ctx, p, &k, t, NULL);
  if (st != TS_SUCCESS)
    return st;
  /* The serial tail: the block that finishes last combines the two records
   * of every block (include/tessera/lb/tile_reduce.cuh), each of its threads
   * walking its share of them twice, one L2 load after the other, around a
   * segmented scan of the block; it starts after a fence and the arrival
   * count (one dependent DRAM round trip). Nothing overlaps it. */
  double per_thread = ceil(2.0 * chunks / BLOCK);
  *t += (2.0 * per_thread * p->l2_latency_ns + 2.0 * log2(BLOCK) * p->shared_latency_ns + p->dram_latency_ns) * 1e-9;
  return TS_SUCCESS;
}

ts_status ts_model_spmv_rank(ts_context *ctx, const ts_model_params *params, const ts_csr_stats *stats, ts_dtype dtype,
                             ts_model_spmv_estimate *estimates, int *count) {
  if (!params || !stats || !estimates || !count)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_spmv_rank: NULL argument");
  if (TS_DTYPE_IS_COMPLEX(dtype))
    return tsi_require_real(ctx, "ts_model_spmv_rank", "the value type", dtype);
  if (dtype != TS_FLOAT32 && dtype != TS_FLOAT64)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_spmv_rank: unknown value type %d", (int)dtype);
  if (stats->rows < 0 || stats->cols < 0 || stats->nnz < 0 || stats->max_row < 0 || !(stats->mean_row >= 0) ||
      !(stats->stddev_row >= 0))
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_model_spmv_rank: statistics with negative counts");
  ts_status st = ts_model_params_check(ctx, params);
  if (st != TS_SUCCESS)
    return st;
  *count = 0;
  static const ts_schedule order[TS_MODEL_SPMV_SCHEDULES] = {TS_SCHEDULE_THREAD_MAPPED, TS_SCHEDULE_WARP_MAPPED,
                                                             TS_SCHEDULE_BLOCK_MAPPED, TS_SCHEDULE_MERGE_PATH,
                                                             TS_SCHEDULE_WORK_ORIENTED};
  ts_model_spmv_estimate e[TS_MODEL_SPMV_SCHEDULES];
  if (stats->rows == 0) {
    for (int i = 0; i < TS_MODEL_SPMV_SCHEDULES; i++)
      e[i] = (ts_model_spmv_estimate){order[i], 0.0};
  } else {
    spmv_shape sh;
    shape_of(params, stats, dtype, &sh);
    for (int i = 0; i < TS_MODEL_SPMV_SCHEDULES && st == TS_SUCCESS; i++) {
      e[i].schedule = order[i];
      switch (order[i]) {
      case TS_SCHEDULE_THREAD_MAPPED:
        st = predict_thread(ctx, params, &sh, &e[i].seconds);
        break;
      case TS_SCHEDULE_WARP_MAPPED:
        st = predict_row_group(ctx, params, &sh, 32.0, &e[i].seconds);
        break;
      case TS_SCHEDULE_BLOCK_MAPPED:
        st = predict_row_group(ctx, params, &sh, BLOCK, &e[i].seconds);
        break;
      default:
        st = predict_chunked(ctx, params, &sh, order[i] == TS_SCHEDULE_MERGE_PATH, &e[i].seconds);
      }
    }
    if (st != TS_SUCCESS)
      return st;
  }
  /* Insertion sort, fastest first; ties keep the order above. */
  for (int i = 1; i < TS_MODEL_SPMV_SCHEDULES; i++) {
    ts_model_spmv_estimate x = e[i];
    int j = i - 1;
    while (j >= 0 && e[j].seconds > x.seconds) {
      e[j + 1] = e[j];
      j--;
    }
    e[j + 1] = x;
  }
  memcpy(estimates, e, sizeof e);
  *count = TS_MODEL_SPMV_SCHEDULES;
  return TS_SUCCESS;
}
