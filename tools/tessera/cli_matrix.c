/* Matrix helpers of the CLI: read a Matrix Market file into general CSR
 * (ts_mm_read_csr), print ::ts_csr_stats, and the AMD fill estimate. */
#include "cli_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *cli_mm_format_name(ts_mm_format format) {
  switch (format) {
  case TS_MM_COORDINATE:
    return "coordinate";
  case TS_MM_ARRAY:
    return "array";
  }
  return "unknown";
}

const char *cli_mm_field_name(ts_mm_field field) {
  switch (field) {
  case TS_MM_REAL:
    return "real";
  case TS_MM_INTEGER:
    return "integer";
  case TS_MM_PATTERN:
    return "pattern";
  case TS_MM_COMPLEX:
    return "complex";
  }
  return "unknown";
}

ts_status cli_matrix_read(ts_context *ctx, cli_progress *progress, const char *path, ts_dtype dtype,
                          cli_matrix *matrix) {
  memset(matrix, 0, sizeof *matrix);
  double start = cli_now();
  cli_progress_begin(progress, "reading");
  ts_status status = cli_mm_read_csr(ctx, path, dtype, &matrix->csr, &matrix->header);
  status = cli_progress_end(progress, status);
  matrix->stored = matrix->header.entries;
  matrix->read_seconds = cli_now() - start;
  return status;
}

ts_status cli_csr_convert_values(ts_context *ctx, ts_csr **csr, ts_dtype dtype) {
  const ts_csr *src = *csr;
  if (src->dtype == dtype)
    return TS_SUCCESS;
  const bool complex_src = src->dtype == TS_COMPLEX128, complex_dst = dtype == TS_COMPLEX128;
  if ((src->dtype != TS_FLOAT64 && !complex_src) || (dtype != TS_FLOAT64 && !complex_dst)) {
    cli_set_error("internal: conversion of values between double and complex double only");
    return TS_ERROR_INVALID_ARGUMENT;
  }
  ts_csr *converted = NULL;
  ts_status status = ts_csr_create(ctx, src->rows, src->cols, src->nnz, dtype, &converted);
  if (status != TS_SUCCESS)
    return status;
  memcpy(converted->row_ptr, src->row_ptr, (size_t)(src->rows + 1) * sizeof *src->row_ptr);
  memcpy(converted->col_idx, src->col_idx, (size_t)src->nnz * sizeof *src->col_idx);
  const double *from = (const double *)src->values;
  double *to = (double *)converted->values;
  for (int64_t k = 0; k < src->nnz; k++) {
    if (complex_dst) {
      to[2 * k] = from[k];
      to[2 * k + 1] = 0.0;
    } else {
      to[k] = from[2 * k];
    }
  }
  converted->symmetry = src->symmetry;
  ts_csr_destroy(*csr);
  *csr = converted;
  return TS_SUCCESS;
}

ts_status cli_matrix_read_numeric(ts_context *ctx, cli_progress *progress, const char *path, cli_matrix *matrix) {
  /* A regular file's header says the field, and a real file is then read
   * as real: reading it as complex and narrowing costs a quarter more time
   * and memory. Standard input or a FIFO can be read only once: complex,
   * then narrowed when the file holds real values (imaginary parts 0). */
  struct stat file;
  if (!cli_is_stdio(path) && stat(path, &file) == 0 && S_ISREG(file.st_mode)) {
    ts_mm_info header;
    ts_status status = ts_mm_read_info(ctx, path, &header);
    if (status != TS_SUCCESS)
      return status;
    return cli_matrix_read(ctx, progress, path, header.field == TS_MM_COMPLEX ? TS_COMPLEX128 : TS_FLOAT64, matrix);
  }
  ts_status status = cli_matrix_read(ctx, progress, path, TS_COMPLEX128, matrix);
  if (status != TS_SUCCESS || matrix->header.field == TS_MM_COMPLEX)
    return status;
  double start = cli_now();
  status = cli_csr_convert_values(ctx, &matrix->csr, TS_FLOAT64);
  matrix->read_seconds += cli_now() - start;
  return status;
}

void cli_matrix_release(cli_matrix *matrix) {
  ts_csr_destroy(matrix->csr);
  matrix->csr = NULL;
}

void cli_stats_print(FILE *out, const ts_csr_stats *stats) {
  cli_line(out, "row length", "min %lld, mean %.3f, max %lld, stddev %.3f", (long long)stats->min_row, stats->mean_row,
           (long long)stats->max_row, stats->stddev_row);
  cli_line(out, "empty rows", "%lld", (long long)stats->empty_rows);
  cli_line(out, "empty cols", "%lld", (long long)stats->empty_cols);
  cli_line(out, "longest column", "%lld", (long long)stats->max_col);
  cli_line(out, "diagonal entries", "%lld", (long long)stats->diagonal);
  cli_line(out, "bandwidth", "%lld", (long long)stats->bandwidth);
  if (stats->rows == stats->cols) {
    cli_line(out, "pattern symmetry", "%.6f", stats->pattern_symmetry);
    cli_line(out, "value symmetry", "%.6f", stats->value_symmetry);
  } else {
    cli_line(out, "pattern symmetry", "n/a (not square)");
    cli_line(out, "value symmetry", "n/a (not square)");
  }
}

void cli_stats_json(cli_json *json, const ts_csr_stats *stats) {
  cli_json_object(json, "stats");
  cli_json_int(json, "rows", stats->rows);
  cli_json_int(json, "cols", stats->cols);
  cli_json_int(json, "nnz", stats->nnz);
  cli_json_int(json, "min_row", stats->min_row);
  cli_json_real(json, "mean_row", stats->mean_row);
  cli_json_int(json, "max_row", stats->max_row);
  cli_json_real(json, "stddev_row", stats->stddev_row);
  cli_json_int(json, "empty_rows", stats->empty_rows);
  cli_json_int(json, "empty_cols", stats->empty_cols);
  cli_json_int(json, "max_col", stats->max_col);
  cli_json_int(json, "diagonal", stats->diagonal);
  cli_json_int(json, "bandwidth", stats->bandwidth);
  if (stats->rows == stats->cols) {
    cli_json_real(json, "pattern_symmetry", stats->pattern_symmetry);
    cli_json_real(json, "value_symmetry", stats->value_symmetry);
  } else {
    cli_json_null(json, "pattern_symmetry");
    cli_json_null(json, "value_symmetry");
  }
  cli_json_close(json);
}

ts_status cli_fill_compute(ts_context *ctx, const ts_csr *a, cli_fill *fill) {
  memset(fill, 0, sizeof *fill);
  if (a->rows != a->cols) {
    snprintf(fill->reason, sizeof fill->reason, "the matrix is not square");
    return TS_SUCCESS;
  }
  ts_status status = ts_csr_fill_estimate(ctx, a, &fill->lu_nnz, &fill->l_nnz);
  if (status == TS_ERROR_UNSUPPORTED) {
    snprintf(fill->reason, sizeof fill->reason, "%s", ts_last_error(ctx));
    return TS_SUCCESS;
  }
  if (status != TS_SUCCESS)
    return status;
  fill->available = true;
  fill->ratio = a->nnz > 0 ? (double)fill->lu_nnz / (double)a->nnz : 0.0;
  return TS_SUCCESS;
}

void cli_fill_print(FILE *out, const cli_fill *fill) {
  if (!fill->available) {
    cli_line(out, "fill (AMD)", "not available: %s", fill->reason[0] ? fill->reason : "unsupported");
    return;
  }
  cli_line(out, "fill (AMD)", "nnz(L+U) %lld, nnz(L) %lld, %.3fx nnz(A)", (long long)fill->lu_nnz,
           (long long)fill->l_nnz, fill->ratio);
}

void cli_fill_json(cli_json *json, const cli_fill *fill) {
  cli_json_object(json, "fill");
  cli_json_bool(json, "available", fill->available);
  if (fill->available) {
    cli_json_int(json, "lu_nnz", fill->lu_nnz);
    cli_json_int(json, "l_nnz", fill->l_nnz);
    cli_json_real(json, "ratio", fill->ratio);
  } else {
    cli_json_text(json, "reason", fill->reason);
  }
  cli_json_close(json);
}
