/* Matrices in the CLI: a Matrix Market file read into general CSR, the
 * names of its header fields, its statistics and the AMD fill estimate, as
 * text lines or JSON members. */
#ifndef TESSERA_CLI_MATRIX_H
#define TESSERA_CLI_MATRIX_H

#include "cli_json.h"
#include "cli_progress.h"
#include "tessera.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A matrix read from a Matrix Market file and expanded to general storage. */
typedef struct cli_matrix {
  ts_csr *csr;         /* general storage, sorted, duplicates summed */
  ts_mm_info header;   /* what the file declared */
  int64_t stored;      /* entries as stored in the file */
  double read_seconds; /* time to read, expand and convert */
} cli_matrix;

/* Read @p path ("-": standard input) as @p dtype into general CSR with
 * ts_mm_read_csr(): symmetric storage expanded, duplicates summed. */
ts_status cli_matrix_read(ts_context *ctx, cli_progress *progress, const char *path, ts_dtype dtype,
                          cli_matrix *matrix);
void cli_matrix_release(cli_matrix *matrix);

/* As cli_matrix_read(), the values as the file declares them: TS_COMPLEX128
 * for a complex file, TS_FLOAT64 for the others. */
ts_status cli_matrix_read_numeric(ts_context *ctx, cli_progress *progress, const char *path, cli_matrix *matrix);

/* Replace *csr by a copy whose values are @p dtype, TS_FLOAT64 or
 * TS_COMPLEX128 (from either): real values get imaginary parts 0, complex
 * ones keep their real parts (for values known to be real). */
ts_status cli_csr_convert_values(ts_context *ctx, ts_csr **csr, ts_dtype dtype);

/* Names for the header fields. */
const char *cli_mm_format_name(ts_mm_format format);
const char *cli_mm_field_name(ts_mm_field field);

/* Key-value lines and JSON members for ::ts_csr_stats. */
void cli_stats_print(FILE *out, const ts_csr_stats *stats);
void cli_stats_json(cli_json *json, const ts_csr_stats *stats);

/* AMD fill estimate: on success *available is true and the counts are set;
 * TS_ERROR_UNSUPPORTED (a build without SuiteSparse) gives success with
 * available false and the reason copied into reason. */
typedef struct cli_fill {
  bool available;
  int64_t lu_nnz; /* nnz(L+U) */
  int64_t l_nnz;  /* nnz(L) */
  double ratio;   /* nnz(L+U) / nnz(A) */
  char reason[256];
} cli_fill;
ts_status cli_fill_compute(ts_context *ctx, const ts_csr *a, cli_fill *fill);
void cli_fill_print(FILE *out, const cli_fill *fill);
void cli_fill_json(cli_json *json, const cli_fill *fill);

#endif /* TESSERA_CLI_MATRIX_H */
