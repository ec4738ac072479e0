/* The benchmark harness shared by every tessera benchmark: clocks, CUDA-event
 * timing of a callback, the device's copy bandwidth, run metadata, tables
 * written as CSV and printed as Markdown. Plain C; usable from .c and .cu. */
#ifndef TESSERA_BENCH_TSB_H
#define TESSERA_BENCH_TSB_H

#include "tessera.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- command line ----------------------------------------------------------- */

/**
 * A benchmark's argument that is not one of its options: -1 when it is a
 * path (does not start with '-'); else the usage line is printed (with
 * @p program's name in it) and the exit status returned: 0 for -h and
 * --help (on stdout), 2 for an unknown option (on stderr, with the option).
 * So that a mistyped option never becomes an output file's name.
 */
int tsb_option_or_path(const char *program, const char *arg, const char *usage);

/**
 * Whether @p name is selected by an --only argument: a comma-separated list
 * of names, each matching itself or, ending in '*', every name that begins
 * with the rest ("kron21,rmat*"); every name when @p only is NULL.
 */
bool tsb_name_selected(const char *only, const char *name);

/* ---- host clock and statistics -------------------------------------------- */

/** Monotonic host wall clock in seconds. */
double tsb_wall_seconds(void);

/** Summary of repeated measurements (milliseconds unless said otherwise). */
typedef struct tsb_stats {
  int samples;
  double median;
  double min;
  double mean;
  double max;
} tsb_stats;

/**
 * Normwise backward error |b - A x|_inf / (|A|_inf |x|_inf + |b|_inf) in
 * double for a double CSR matrix (|b - A x|_inf when the denominator is 0).
 */
double tsb_backward_error(const ts_csr *a, const double *x, const double *b);

/** Median, min, mean and max of @p n samples (the input is not changed). */
tsb_stats tsb_stats_of(const double *samples, int n);

/** Geometric mean of the positive entries of @p values (0 when none). */
double tsb_geomean(const double *values, int n);

/** @p gbps as a fraction of the measured @p ceiling_gbps (0 when unknown). */
double tsb_fraction_of(double gbps, double ceiling_gbps);

/** GB/s (10^9 bytes per second) of @p bytes moved in @p ms milliseconds. */
double tsb_gbps(double bytes, double ms);

/* ---- CUDA timing (CUDA builds only) ---------------------------------------- */

/**
 * Work to time: queue it on @p stream (a cudaStream_t) and return 0, or
 * print why and return non-zero. It must not synchronise the device.
 */
typedef int (*tsb_work_fn)(void *user, void *stream);

/**
 * Time @p fn with CUDA events on @p stream: @p warmup untimed calls, then
 * @p repeat calls, each between its own pair of events (all queued before one
 * synchronisation, so host launch gaps are hidden while the GPU is busy).
 * Fills @p out in milliseconds per call. Returns 0, or non-zero after printing
 * the failing CUDA call or the callback's failure.
 */
int tsb_time_events(void *stream, int warmup, int repeat, tsb_work_fn fn, void *user, tsb_stats *out);

/** Per-call cost of a burst of calls ending in one synchronisation. */
typedef struct tsb_burst {
  int calls;                 /**< Calls per burst. */
  int bursts;                /**< Bursts measured (medians are over these). */
  double device_us_per_call; /**< Events around the burst / calls (median). */
  double host_us_per_call;   /**< Host wall time of the burst incl. its sync / calls (median). */
} tsb_burst;

/**
 * Time @p bursts bursts of @p calls calls of @p fn (after @p warmup calls):
 * device time from events around each burst, and host wall time from before
 * the first launch to the end of the closing synchronisation, both per call.
 */
int tsb_time_burst(void *stream, int warmup, int calls, int bursts, tsb_work_fn fn, void *user, tsb_burst *out);

/** The device's copy bandwidth measured in this run. */
typedef struct tsb_copy_bandwidth {
  size_t bytes;       /**< Bytes of each buffer (one copy reads and writes this many). */
  int samples;        /**< Copies timed per method. */
  double memcpy_gbps; /**< cudaMemcpyAsync device-to-device, median, read + write bytes. */
  double kernel_gbps; /**< 16-byte vectorised copy kernel, median, read + write bytes. */
  double best_gbps;   /**< The better of the two: the ceiling to quote. */
} tsb_copy_bandwidth;

/**
 * Measure device-to-device copy bandwidth on @p stream with two buffers of
 * @p bytes each (0: the smaller of 4 GiB and a quarter of the free memory),
 * counting bytes read plus bytes written; @p samples copies per method after
 * a warm-up. The kernel's copy is checked against the source pattern.
 */
int tsb_measure_copy_bandwidth(void *stream, size_t bytes, int samples, tsb_copy_bandwidth *out);

/* ---- matrices ------------------------------------------------------------------ */

/**
 * Corpus matrix dir/name.mtx (or .mtx.gz) as a general CSR in double
 * (ts_mm_read_csr(): symmetric storage expanded, duplicates summed).
 */
ts_status tsb_read_corpus(ts_context *ctx, const char *dir, const char *name, ts_csr **a);

/** A copy of @p a in value type @p dtype (same pattern, values rounded). */
ts_status tsb_csr_convert(ts_context *ctx, const ts_csr *a, ts_dtype dtype, ts_csr **out);

/** Up to @p max names listed by dir/MANIFEST.tsv (its header skipped); 0 when it is absent. */
int tsb_corpus_names(const char *dir, char (*names)[128], int max);

/**
 * A's arrays in GPU memory with int32 row offsets and column indices, as
 * cuSPARSE's anchors take them (CUDA builds only). Returns 0, or non-zero
 * after printing why (nothing is left allocated then).
 */
int tsb_upload_csr32(const ts_csr *a, void **row_ptr, void **col_idx, void **values);

/** Free what tsb_upload_csr32() allocated (NULL pointers are skipped). */
void tsb_free_csr32(void *row_ptr, void *col_idx, void *values);

/* ---- run metadata ----------------------------------------------------------- */

#define TSB_META_MAX 32

/** Key/value lines describing a run: date, commit, device, command line... */
typedef struct tsb_metadata {
  int count;
  char key[TSB_META_MAX][48];
  char value[TSB_META_MAX][512];
} tsb_metadata;

/**
 * Collect date (UTC), commit (env TESSERA_COMMIT, else the commit the build
 * was configured from, else "unknown"), host, device name, driver and runtime
 * versions (from @p ctx; NULL: "none") and the command line.
 */
void tsb_metadata_collect(tsb_metadata *meta, ts_context *ctx, int argc, char **argv);

/** Add or replace one entry (printf-style value). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void tsb_metadata_set(tsb_metadata *meta, const char *key, const char *format, ...);

/** Value of @p key or NULL. */
const char *tsb_metadata_get(const tsb_metadata *meta, const char *key);

/** Print one "<prefix>key: value" line per entry (prefix "# " in CSV files). */
void tsb_metadata_print(const tsb_metadata *meta, FILE *file, const char *prefix);

/* ---- result tables: CSV and Markdown ---------------------------------------- */

/** A table of text cells, filled row by row. */
typedef struct tsb_table tsb_table;

/** New table with @p ncolumns named columns. NULL on out of memory. */
tsb_table *tsb_table_create(int ncolumns, const char *const *columns);
void tsb_table_destroy(tsb_table *table);

/** Append one cell to the current row (printf-style); a full row ends itself. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int tsb_table_cell(tsb_table *table, const char *format, ...);

/** Rows completed so far. */
int tsb_table_rows(const tsb_table *table);

/** Write @p path as CSV: metadata as "# key: value" lines, the header, the
 * rows (cells with commas, quotes, line breaks or edge spaces are quoted, quotes
 * doubled). Creates missing parent folders. Returns 0 or non-zero after
 * printing why. */
int tsb_table_write_csv(const tsb_table *table, const tsb_metadata *meta, const char *path);

/** Print as a Markdown table (metadata as a bullet list first when non-NULL). */
void tsb_table_print_markdown(const tsb_table *table, const tsb_metadata *meta, FILE *file);

/** The Markdown file beside a CSV: @p csv_path with its extension replaced by ".md". */
void tsb_markdown_path(const char *csv_path, char *out, size_t size);

/** printf to stdout and, when @p file is not NULL, the same to @p file. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void tsb_tee(FILE *file, const char *format, ...);

/** Quote one CSV field into @p out (size @p size); returns @p out. */
char *tsb_csv_escape(const char *field, char *out, size_t size);

/** mkdir -p of the folder holding @p path; returns 0 on success. */
int tsb_make_parent_dirs(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_BENCH_TSB_H */
