/**
 * @file tessera/io.h
 * @brief Matrix Market reading and writing (plain and .gz), and matrix
 *        generators.
 */
#ifndef TESSERA_IO_H
#define TESSERA_IO_H

#include "tessera/core.h"
#include "tessera/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Storage format named in a Matrix Market banner. */
typedef enum ts_mm_format {
  TS_MM_COORDINATE = 0, /**< Sparse: one "i j [value]" line per entry. */
  TS_MM_ARRAY = 1       /**< Dense, column-major. */
} ts_mm_format;

/** Value field named in a Matrix Market banner. */
typedef enum ts_mm_field {
  TS_MM_REAL = 0,    /**< Floating-point values. */
  TS_MM_INTEGER = 1, /**< Integer values (read as floating point). */
  TS_MM_PATTERN = 2, /**< No values; each stored entry reads as 1. */
  TS_MM_COMPLEX = 3  /**< Refused with TS_ERROR_UNSUPPORTED. */
} ts_mm_field;

/** What a Matrix Market header declared. */
typedef struct ts_mm_info {
  ts_mm_format format;  /**< Coordinate or array. */
  ts_mm_field field;    /**< Real, integer, pattern or complex. */
  ts_symmetry symmetry; /**< General, symmetric, skew-symmetric, hermitian. */
  int64_t rows;         /**< Declared rows. */
  int64_t cols;         /**< Declared columns. */
  int64_t entries;      /**< Declared stored entries (array: stored values). */
} ts_mm_info;

/**
 * Read a Matrix Market file (".gz" files are decompressed with zlib; the
 * gzip magic is detected whatever the name) into a COO matrix holding the
 * entries as stored (symmetric files keep one triangle: see
 * ts_coo_expand_symmetric()). Explicit zeros are kept. Array files give
 * every stored value as an entry. Values are converted to @p dtype.
 *
 * Malformed input returns TS_ERROR_PARSE (or TS_ERROR_OVERFLOW for sizes
 * past the index limits, TS_ERROR_UNSUPPORTED for complex) with the line
 * number in the message. Non-finite values (NaN, Inf) are refused.
 * @p info may be NULL.
 */
TS_API ts_status ts_mm_read(ts_context *ctx, const char *path, ts_dtype dtype, ts_coo **coo, ts_mm_info *info);

/** As ts_mm_read() on @p size bytes of text in memory (not gzip). */
TS_API ts_status ts_mm_read_memory(ts_context *ctx, const char *text, size_t size, ts_dtype dtype, ts_coo **coo,
                                   ts_mm_info *info);

/** Read only the banner and size line of a file. */
TS_API ts_status ts_mm_read_info(ts_context *ctx, const char *path, ts_mm_info *info);

/** What to write: the field; TS_MM_PATTERN drops values. */
typedef struct ts_mm_write_options {
  ts_mm_field field; /**< TS_MM_REAL (default), TS_MM_INTEGER or TS_MM_PATTERN. */
  int precision;     /**< Significant digits; 0 = shortest exact (17 or 9). */
} ts_mm_write_options;

/**
 * Write a COO matrix as Matrix Market coordinate text (gzip when @p path
 * ends in ".gz"). The banner's symmetry is the matrix's symmetry tag.
 * @p options may be NULL.
 */
TS_API ts_status ts_mm_write_coo(ts_context *ctx, const char *path, const ts_coo *coo,
                                 const ts_mm_write_options *options);

/** Write a CSR matrix as Matrix Market coordinate text (see ts_mm_write_coo()). */
TS_API ts_status ts_mm_write_csr(ts_context *ctx, const char *path, const ts_csr *csr,
                                 const ts_mm_write_options *options);

/**
 * Progress callback for long operations (reading, generating): @p done of
 * @p total units. Return non-zero to cancel (the call then fails with
 * TS_ERROR_CANCELLED).
 */
typedef int (*ts_progress_fn)(void *user, int64_t done, int64_t total);

/** Set a progress callback on a context (NULL removes it). */
TS_API ts_status ts_context_set_progress(ts_context *ctx, ts_progress_fn fn, void *user);

/*
 * Generators. Every generator is deterministic from its seed: the same
 * arguments give the same matrix, byte for byte, whatever the number of
 * threads (random numbers are hashes of (seed, row or edge, draw), not a
 * shared sequence). Results are CSR, general storage, sorted, without
 * duplicates. Bad arguments return TS_ERROR_INVALID_ARGUMENT, sizes past
 * TS_MAX_DIMENSION rows or columns TS_ERROR_OVERFLOW. Long runs report
 * progress through the context's callback (ts_context_set_progress()).
 */

/**
 * 2-D 5-point Laplacian on an nx-by-ny grid (nx, ny >= 1), natural ordering
 * (row x + nx*y): 4 on the diagonal, -1 to neighbours;
 * nnz = 5 nx ny - 2 nx - 2 ny.
 */
TS_API ts_status ts_gen_laplacian_2d(ts_context *ctx, int64_t nx, int64_t ny, ts_dtype dtype, ts_csr **csr);

/**
 * 3-D 7-point Laplacian on an nx-by-ny-by-nz grid, natural ordering
 * (row x + nx*(y + ny*z)): 6 on the diagonal, -1 to neighbours.
 */
TS_API ts_status ts_gen_laplacian_3d(ts_context *ctx, int64_t nx, int64_t ny, int64_t nz, ts_dtype dtype, ts_csr **csr);

/**
 * n-by-n banded matrix with @p lower sub- and @p upper super-diagonals, all
 * stored (widths >= 0, clipped to n - 1); random values in [-1, 1) off the
 * diagonal, A(i,i) = 1 + sum_j |A(i,j)| (strictly diagonally dominant).
 */
TS_API ts_status ts_gen_banded(ts_context *ctx, int64_t n, int64_t lower, int64_t upper, uint64_t seed, ts_dtype dtype,
                               ts_csr **csr);

/**
 * rows-by-cols matrix, each row with @p per_row (0 to cols) distinct
 * uniformly random columns; values uniform in [-1, 1).
 */
TS_API ts_status ts_gen_random_uniform(ts_context *ctx, int64_t rows, int64_t cols, int64_t per_row, uint64_t seed,
                                       ts_dtype dtype, ts_csr **csr);

/**
 * Power-law row lengths: the row of rank r (ranks 1..rows given by a seeded
 * random permutation of the rows) has min(cols, max(1, round(C / r^exponent)))
 * distinct uniformly random columns, C found by bisection so that the total
 * is as close as possible to @p nnz (rows <= nnz <= rows * cols,
 * exponent > 0). The longest row is about C. Values uniform in [-1, 1).
 * Example: rows = cols = 2^22, nnz = 68.7 M, exponent 0.9 gives C = 1.88 M.
 */
TS_API ts_status ts_gen_power_law(ts_context *ctx, int64_t rows, int64_t cols, int64_t nnz, double exponent,
                                  uint64_t seed, ts_dtype dtype, ts_csr **csr);

/** R-MAT / Kronecker parameters; ts_rmat_graph500() gives Graph500's. */
typedef struct ts_rmat_params {
  int scale;       /**< 2^scale vertices. */
  int edge_factor; /**< edge_factor * 2^scale edges generated. */
  /** Quadrant probabilities (d = 1 - a - b - c). */
  /**@{*/
  double a, b, c;
  /**@}*/
  int symmetric; /**< Non-zero: add each edge's mirror (undirected). */
  int scramble;  /**< Non-zero: permute vertex numbers (Graph500). */
} ts_rmat_params;

/** Graph500 parameters: a = 0.57, b = c = 0.19, scrambled, undirected. */
TS_API ts_rmat_params ts_rmat_graph500(int scale, int edge_factor);

/**
 * R-MAT graph (Chakrabarti et al. 2004) as a 2^scale square matrix
 * (scale 0 to 30, edge_factor >= 1, a, b, c >= 0, a + b + c <= 1):
 * edge_factor * 2^scale edges drawn, symmetric adds each edge's mirror,
 * duplicates merged (so nnz <= 2 * edges), self-loops kept, values random
 * in (0, 1] (equal for both directions of an undirected edge).
 */
TS_API ts_status ts_gen_rmat(ts_context *ctx, const ts_rmat_params *params, uint64_t seed, ts_dtype dtype,
                             ts_csr **csr);

/** Circuit-like generator parameters; ts_circuit_defaults() fills them. */
typedef struct ts_circuit_params {
  int64_t n;             /**< Rows = columns. */
  double avg_degree;     /**< Mean off-diagonal entries per row (default 4). */
  double locality;       /**< Share of nodes on the 2-D grid: 0 = hierarchical netlist (little fill under AMD: L+U
                            about 1.2-1.4x A, the dense nets included); 1 = laid out on a grid (fills like a mesh: about 30x A
                            at 10^5 rows); values between mix the two. */
  int dense_nets;        /**< Very dense rows/columns, like supply nets (default 3). */
  double dense_fraction; /**< Fraction of rows each dense net touches (default 0.05). */
  double asymmetry;      /**< Fraction of off-diagonal entries without a mirror (default 0.05). */
  int mesh_radius; /**< Grid part: each node wires to random nodes at most this many grid steps away, 1 to 16 (default
                      3; 3 gives about 30x fill at locality 1, 10^5 rows). */
} ts_circuit_params;

/**
 * Default circuit parameters for @p n rows: avg_degree 4, locality 0,
 * 3 dense nets (none below 100 rows) touching 5% of the rows each,
 * asymmetry 0.05, mesh_radius 3.
 */
TS_API ts_circuit_params ts_circuit_defaults(int64_t n);

/**
 * Circuit-like unsymmetric matrix: strictly diagonally dominant (negative
 * off-diagonal values, independent for A(i,j) and A(j,i)), nearly
 * symmetric pattern. Nodes 0 .. dense_nets-1 are the dense nets; a share
 * @c locality of the others lies on a 2-D grid, wired within mesh_radius
 * steps; the rest form small fully connected cells, each hanging from one
 * earlier node (a tree of cells, which AMD orders with almost no fill).
 * avg_degree counts the grid and cell wiring of a node in A + A^T, not the
 * dense nets (0 to 1000).
 */
TS_API ts_status ts_gen_circuit(ts_context *ctx, const ts_circuit_params *params, uint64_t seed, ts_dtype dtype,
                                ts_csr **csr);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_IO_H */
