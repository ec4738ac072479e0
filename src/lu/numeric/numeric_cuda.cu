/* Numeric LU factorization on the GPU, the driver: M = P Dr A Dc Q = L U in
 * the symbolic pattern, level by level. The device cache is built at the
 * first factorization of an analysis (device_cache_cuda.cu); each
 * factorization then uploads A's values, scatters M into the factors
 * (numeric_scatter_cuda.cu), runs the left-looking levels
 * (numeric_left_cuda.cu) and the right-looking tail, dense
 * (numeric_dense_tail_cuda.cu) or sparse (numeric_sparse_tail_cuda.cu),
 * and reports the first bad pivot as the host's code does; or, where the
 * rule of frontal_rule.c takes them, the multifrontal kernels of
 * frontal_cuda.cu instead of the last three steps. The launches go
 * from the host without synchronising; the stream waits once, for the pivot
 * outcomes. */
#include "lu/numeric/numeric_cuda.cuh"

#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

/* |A|_inf and |A|_1 for the refinement's backward error of complex values
 * (host, as the CPU path keeps them). */
static ts_status compute_norms(ts_lu *lu) {
  tsi_lu_numeric_workspace *ws = tsi_lu_numeric_workspace_get(lu);
  if (!ws)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no memory for the numeric workspace");
  return tsi_lu_compute_norms(lu, ws);
}

/* The kernels' view of the device cache (ready and epoch set by the
 * dataflow levels). */
static factor_args kernel_args(const tsi_lu_device *dev) {
  factor_args args;
  args.n = dev->n;
  args.col_ptr = dev->col_ptr;
  args.row_idx = dev->row_idx;
  args.diag_pos = dev->diag_pos;
  args.cols = dev->left_cols;
  args.urow_ptr = dev->urow_ptr;
  args.urow_col = dev->urow_col;
  args.urow_pos = dev->urow_pos;
  args.lrow_ptr = dev->lrow_ptr;
  args.lrow_col = dev->lrow_col;
  args.lrow_pos = dev->lrow_pos;
  args.acc = dev->acc;
  args.scratch = dev->scratch;
  args.kind = dev->kind;
  args.rule = dev->rule;
  args.ready = nullptr;
  args.epoch = 0;
  return args;
}

ts_status tsi_lu_numeric_cuda(ts_lu *lu, const char *caller) {
  ts_context *ctx = lu->ctx;
  if (!ctx || ctx->backend != TS_BACKEND_CUDA)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT,
                     "%s: the GPU backend was asked for (ts_lu_options.backend) on a %s context", caller,
                     ctx ? ts_backend_name(ctx->backend) : "NULL");
  const int64_t n = lu->n;
  if (n > 0 && (!lu->lu_col_ptr || !lu->lu_row_idx || !lu->diag_pos || !lu->level_ptr || !lu->level_cols ||
                lu->levels < 1 || lu->level_ptr[lu->levels] != n))
    return tsi_error(ctx, TS_ERROR_INTERNAL, "LU numeric phase: the analysis left its arrays incomplete");
  if (n > INT32_MAX)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "LU on the GPU: order %lld exceeds 32-bit row indices", (long long)n);
  ts_status st = tsi_cuda_activate(ctx);
  if (st != TS_SUCCESS)
    return st;
  lu->factors_on_device = 0;
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  if (!dev) {
    st = tsi_lu_device_build(lu, &dev);
    if (st != TS_SUCCESS) {
      tsi_lu_cuda_release(lu);
      return st;
    }
  }
  const int single = lu->options.float_factors != 0;
  st = tsi_lu_device_reserve_values(lu, dev, single);
  /* Real values' norms were taken with their copy (factor.c). */
  if (st == TS_SUCCESS && lu->complex_values)
    st = compute_norms(lu);
  if (st == TS_SUCCESS)
    st = tsi_progress(ctx, 0, n);
  if (st != TS_SUCCESS)
    return st;
  lu->stats.peak_device_bytes = dev->peak;
  lu->stats.flops = dev->flops;
  if (n == 0) {
    lu->factors_on_device = 1;
    return TS_SUCCESS;
  }
  /* The fronts where the rule (or the switch) takes them. */
  dev->used_fronts = tsi_lu_frontal_cuda_chosen(lu, dev);
  if (dev->used_fronts)
    return tsi_lu_frontal_cuda(lu, dev, caller);

  cudaStream_t stream = (cudaStream_t)ctx->stream;
  const size_t parts = (size_t)dev->parts;
  const size_t value_bytes = (size_t)dev->lu_nnz * parts * (single ? sizeof(float) : sizeof(double));
  st = tsi_cuda_memcpy_to_device(ctx, dev->a_values, lu->a_values, (size_t)lu->nnz_a * parts * sizeof(double));
  if (st == TS_SUCCESS)
    st = tsi_cuda_memset(ctx, dev->values, 0, value_bytes);
  if (st == TS_SUCCESS && single)
    st = tsi_cuda_memset(ctx, dev->acc, 0, (size_t)dev->lu_nnz * parts * sizeof(double));
  if (st == TS_SUCCESS)
    st = tsi_cuda_memset(ctx, dev->max_bits, 0, sizeof(unsigned long long));
  if (st != TS_SUCCESS)
    return st;

  const double threshold = tsi_lu_pivot_threshold(lu);
  const double root_eps = sqrt(single ? (double)FLT_EPSILON : DBL_EPSILON);
  tsi_lu_scatter_cuda(lu, dev, threshold, root_eps, stream);
  factor_args args = kernel_args(dev);
  st = tsi_lu_left_looking_cuda(lu, dev, &args, stream);
  if (st == TS_SUCCESS && dev->tail_start < n)
    st = dev->tail_dense ? tsi_lu_dense_tail(ctx, dev, args, dev->values, stream)
                         : tsi_lu_sparse_tail_cuda(lu, dev, args, stream);
  if (st == TS_SUCCESS)
    st = tsi_cuda_check_launch(ctx, "LU factorization on the GPU");
  if (st == TS_SUCCESS)
    st = tsi_cuda_memcpy_to_host(ctx, dev->kind_host, dev->kind, (size_t)n);
  if (st != TS_SUCCESS)
    return st;

  /* The first bad pivot in schedule order (level, then column; the tail
   * after every level, by column), as the host code reports it: a later
   * one can be the first's consequence (with perturbation off, a dense
   * tail carries on past a zero pivot). Perturbed pivots counted. */
  int64_t perturbed = 0, bad_column = -1, bad_level = INT64_MAX;
  int bad_kind = PIVOT_OK;
  lu->first_perturbed = -1;
  for (int64_t k = 0; k < n; k++) {
    int kind = dev->kind_host[k];
    if (kind == PIVOT_PERTURBED) {
      if (perturbed++ == 0)
        lu->first_perturbed = k;
    } else if (kind != PIVOT_OK) {
      int64_t level = k < dev->tail_start ? dev->level_of_host[k] : lu->levels + (k - dev->tail_start);
      if (level < bad_level || (level == bad_level && k < bad_column)) {
        bad_level = level;
        bad_column = k;
        bad_kind = kind;
      }
    }
  }
  lu->stats.perturbed_pivots = perturbed;
  lu->stats.singular_column = -1;
  if (bad_kind != PIVOT_OK) {
    int64_t user_column = lu->col_perm[bad_column];
    lu->stats.singular_column = user_column;
    if (bad_kind == PIVOT_NOT_FINITE)
      return tsi_error(ctx, TS_ERROR_NUMERICALLY_SINGULAR,
                       "%s: the pivot of column %lld (from 0) is not finite: the elimination "
                       "overflowed (pivot %lld of %lld)",
                       caller, (long long)user_column, (long long)bad_column, (long long)n);
    return tsi_lu_tiny_pivot_error(ctx, caller, user_column, bad_column, n, -1.0, threshold);
  }
  lu->factors_on_device = 1;
  return perturbed > 0 ? TS_WARNING_PERTURBED_PIVOTS : TS_SUCCESS;
}

ts_status tsi_lu_cuda_download_factors(ts_lu *lu) {
  tsi_lu_device *dev = (tsi_lu_device *)lu->numeric_device;
  if (!dev || !lu->factors_on_device)
    return tsi_error(lu->ctx, TS_ERROR_NOT_FACTORED, "LU on the GPU: no factors on the device");
  const int64_t count = (lu->lu_nnz > 0 ? lu->lu_nnz : 1) * dev->parts;
  void *host;
  if (dev->single) {
    if (!lu->lu_values_f32)
      lu->lu_values_f32 = (float *)tsi_malloc_array(count, sizeof(float));
    host = lu->lu_values_f32;
  } else {
    if (!lu->lu_values)
      lu->lu_values = (double *)tsi_malloc_array(count, sizeof(double));
    host = lu->lu_values;
  }
  if (!host)
    return tsi_error(lu->ctx, TS_ERROR_OUT_OF_MEMORY, "LU on the GPU: no host memory for %lld factor entries",
                     (long long)lu->lu_nnz);
  if (lu->lu_nnz == 0)
    return TS_SUCCESS;
  return tsi_cuda_memcpy_to_host(lu->ctx, host, dev->values,
                                 (size_t)(lu->lu_nnz * dev->parts) * (dev->single ? sizeof(float) : sizeof(double)));
}
