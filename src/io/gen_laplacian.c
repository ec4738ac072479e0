/* 2-D 5-point and 3-D 7-point Laplacians on regular grids, natural
 * (x fastest, then y, then z) ordering: A(i,i) = 2d, A(i,j) = -1 for grid
 * neighbours. */
#include "gen_internal.h"

/* Grid Laplacian of nx * ny * nz points in d = (nz > 1 or 3-D asked) dims. */
static ts_status grid_laplacian(ts_context *ctx, const char *op, int64_t nx, int64_t ny, int64_t nz, double diagonal,
                                ts_dtype dtype, ts_csr **csr) {
  ts_status st = tsi_gen_check_output(ctx, op, dtype, csr);
  if (st != TS_SUCCESS)
    return st;
  if (nx < 1 || ny < 1 || nz < 1)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: grid sizes must be at least 1 (got %lld x %lld x %lld)", op,
                     (long long)nx, (long long)ny, (long long)nz);
  int64_t plane, n;
  if (tsi_mul_overflows(nx, ny, &plane) || tsi_mul_overflows(plane, nz, &n) || n > TS_MAX_DIMENSION)
    return tsi_error(ctx, TS_ERROR_OVERFLOW, "%s: a %lld x %lld x %lld grid has more than %d points", op, (long long)nx,
                     (long long)ny, (long long)nz, TS_MAX_DIMENSION);
  /* Interior rows have 7 entries in 3-D (5 in 2-D): nnz < 7n fits int64. */
  int64_t nnz = n + 2 * ((nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1));
  st = tsi_progress(ctx, 0, n);
  if (st != TS_SUCCESS)
    return st;
  ts_csr *out = NULL;
  st = ts_csr_create(ctx, n, n, nnz, dtype, &out);
  if (st != TS_SUCCESS)
    return st;

  for (int64_t start = 0, end; start < n && st == TS_SUCCESS; start = end) {
    end = tsi_block_end(start, n);
#pragma omp parallel for schedule(static)
    for (int64_t r = start; r < end; r++) {
      int64_t x = r % nx, y = (r / nx) % ny, z = r / plane;
      out->row_ptr[r + 1] = 1 + (x > 0) + (x < nx - 1) + (y > 0) + (y < ny - 1) + (z > 0) + (z < nz - 1);
    }
    st = tsi_check_cancel(ctx);
  }
  if (st == TS_SUCCESS)
    st = tsi_gen_prefix_sum(ctx, out->row_ptr, n);
  if (st != TS_SUCCESS) {
    ts_csr_destroy(out);
    return st;
  }

  for (int64_t start = 0; start < n; start += TSI_GEN_CHUNK) {
    int64_t end = start + TSI_GEN_CHUNK < n ? start + TSI_GEN_CHUNK : n;
#pragma omp parallel for schedule(static)
    for (int64_t r = start; r < end; r++) {
      int64_t x = r % nx, y = (r / nx) % ny, z = r / plane, k = out->row_ptr[r];
      /* Neighbours in increasing column order. */
      const int64_t offsets[7] = {-plane, -nx, -1, 0, 1, nx, plane};
      const bool present[7] = {z > 0, y > 0, x > 0, true, x < nx - 1, y < ny - 1, z < nz - 1};
      for (int s = 0; s < 7; s++) {
        if (!present[s])
          continue;
        out->col_idx[k] = (int32_t)(r + offsets[s]);
        tsi_store_value(out->values, dtype, k, offsets[s] == 0 ? diagonal : -1.0);
        k++;
      }
    }
    st = tsi_progress(ctx, end, n);
    if (st != TS_SUCCESS) {
      ts_csr_destroy(out);
      return st;
    }
  }
  out->symmetry = TS_GENERAL;
  *csr = out;
  return TS_SUCCESS;
}

ts_status ts_gen_laplacian_2d(ts_context *ctx, int64_t nx, int64_t ny, ts_dtype dtype, ts_csr **csr) {
  return grid_laplacian(ctx, "ts_gen_laplacian_2d", nx, ny, 1, 4.0, dtype, csr);
}

ts_status ts_gen_laplacian_3d(ts_context *ctx, int64_t nx, int64_t ny, int64_t nz, ts_dtype dtype, ts_csr **csr) {
  return grid_laplacian(ctx, "ts_gen_laplacian_3d", nx, ny, nz, 6.0, dtype, csr);
}
