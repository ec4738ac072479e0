/* Matrix helpers of the CLI: read a Matrix Market file into general CSR
 * (ts_mm_read_csr), print ::ts_csr_stats, and the AMD fill estimate. */
#include "cli_common.h"

#include <stdio.h>
#include <string.h>

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
