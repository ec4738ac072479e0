/**
 * @file tessera/io.h
 * @brief Matrix Market reading and writing (files, descriptors, memory;
 *        plain and gzip), and matrix generators.
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
  TS_MM_COMPLEX = 3  /**< Complex values, "re im" on a line; read into TS_COMPLEX64 or TS_COMPLEX128 only. */
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
 * @name Reading
 * The readers take Matrix Market text, plain or gzip-compressed: gzip is
 * recognised by its first two bytes (1f 8b) in the data itself, never by a
 * name, and concatenated gzip members are read as one text. Input is read
 * once, front to back, so pipes, FIFOs and terminals work as files do.
 *
 * Malformed input returns TS_ERROR_PARSE (TS_ERROR_OVERFLOW for sizes past
 * the index limits, TS_ERROR_IO for a failed read or corrupt gzip data),
 * with the file name and the line
 * number in the message ("A.mtx:12: ..."). A line longer than 16 MiB, or a
 * NUL byte in a line that is read (a comment may hold anything), is refused
 * as not being Matrix Market text, at once: /dev/zero or a gzip bomb of NUL
 * bytes ends the read on its first line. Memory grows with the entries
 * actually read, never with what the header declares.
 *
 * Values, one rule for both fields: a value is read as the nearest double
 * (correctly rounded, as strtod does; integers of any length included, so
 * 2^63 - 1 reads as 2^63); a value no double holds is refused at both ends
 * alike, beyond the largest double (1e400) or not zero but rounding to zero
 * (1e-400), with TS_ERROR_PARSE naming the line. Non-finite values (NaN,
 * Inf) are refused. In single precision the double is then rounded to the
 * nearest float: a value below the smallest float becomes a signed zero, one
 * beyond the largest float (it would be infinite) is refused. What is read
 * can be written back and reads the same, bit for bit (see the writers).
 *
 * Complex files (field complex: two numbers, the real and the imaginary
 * part, each under the rule above) are read into TS_COMPLEX64 or
 * TS_COMPLEX128; read into a real type they give TS_ERROR_UNSUPPORTED (at
 * the banner's line). Real, integer and pattern files read into a complex
 * type get imaginary parts 0. A hermitian file stores its lower triangle,
 * A(j,i) = conj(A(i,j)), and its diagonal must be real (an imaginary part
 * there is TS_ERROR_PARSE); a skew-symmetric complex file stores its strict
 * lower triangle, A(j,i) = -A(i,j).
 */
/**@{*/

/**
 * Read a Matrix Market file into a COO matrix holding the entries as stored
 * (symmetric files keep one triangle: see ts_coo_expand_symmetric(), or
 * ts_mm_read_csr() for the expanded matrix). Explicit zeros and duplicate
 * entries are kept. Array files give every stored value as an entry. Values
 * are converted to @p dtype.
 * @param ctx   Context for messages and progress (may be NULL).
 * @param path  File to read; opened once (a FIFO works).
 * @param dtype Value type of the result.
 * @param coo   Receives the matrix (NULL on failure); free with ts_coo_destroy().
 * @param info  Receives the header (may be NULL).
 * @return TS_SUCCESS, or an error as described above.
 */
TS_API ts_status ts_mm_read(ts_context *ctx, const char *path, ts_dtype dtype, ts_coo **coo, ts_mm_info *info);

/**
 * As ts_mm_read() on an open descriptor, read to its end: a regular file,
 * a pipe, a FIFO or a terminal (standard input is descriptor 0).
 * The descriptor remains the caller's: tessera neither closes it nor seeks
 * it; on return it has been read up to the end (or to the failure).
 * @param ctx   Context for messages and progress (may be NULL).
 * @param fd    Open descriptor, readable.
 * @param name  Name used in messages, e.g. "<stdin>"; NULL gives "<stdin>"
 *              for descriptor 0 and "<descriptor N>" otherwise.
 * @param dtype Value type of the result.
 * @param coo   Receives the matrix (NULL on failure).
 * @param info  Receives the header (may be NULL).
 * @return As ts_mm_read(); TS_ERROR_INVALID_ARGUMENT for a negative @p fd.
 */
TS_API ts_status ts_mm_read_fd(ts_context *ctx, int fd, const char *name, ts_dtype dtype, ts_coo **coo,
                               ts_mm_info *info);

/**
 * As ts_mm_read() on @p size bytes of text in memory (not gzip). The text
 * need not end with a newline or a NUL.
 * @param ctx   Context for messages and progress (may be NULL).
 * @param text  The text (may be NULL when @p size is 0); messages name it "<memory>".
 * @param size  Bytes of text.
 * @param dtype Value type of the result.
 * @param coo   Receives the matrix (NULL on failure).
 * @param info  Receives the header (may be NULL).
 * @return As ts_mm_read().
 */
TS_API ts_status ts_mm_read_memory(ts_context *ctx, const char *text, size_t size, ts_dtype dtype, ts_coo **coo,
                                   ts_mm_info *info);

/**
 * Read a Matrix Market file into a general CSR matrix, the form most
 * operations take: symmetric, skew-symmetric and hermitian storage is
 * expanded to both triangles, duplicate entries are summed in file order,
 * and the result is validated (ts_csr_check()). Duplicates whose sum is not
 * finite in @p dtype are refused with TS_ERROR_INVALID_MATRIX, the message
 * naming the file, the place (one-based, as in the file) and the entries.
 * The result's symmetry tag is TS_GENERAL.
 * @param ctx   Context for messages and progress (may be NULL).
 * @param path  File to read (plain or gzip).
 * @param dtype Value type of the result.
 * @param csr   Receives the matrix (NULL on failure); free with ts_csr_destroy().
 * @param info  Receives the header as the file declares it (may be NULL).
 * @return As ts_mm_read(), or TS_ERROR_INVALID_MATRIX as above.
 */
TS_API ts_status ts_mm_read_csr(ts_context *ctx, const char *path, ts_dtype dtype, ts_csr **csr, ts_mm_info *info);

/**
 * As ts_mm_read_csr() on an open descriptor (see ts_mm_read_fd(): the
 * descriptor remains the caller's).
 * @param ctx   Context for messages and progress (may be NULL).
 * @param fd    Open descriptor, readable.
 * @param name  Name used in messages (NULL: as ts_mm_read_fd()).
 * @param dtype Value type of the result.
 * @param csr   Receives the matrix (NULL on failure).
 * @param info  Receives the header (may be NULL).
 * @return As ts_mm_read_csr().
 */
TS_API ts_status ts_mm_read_csr_fd(ts_context *ctx, int fd, const char *name, ts_dtype dtype, ts_csr **csr,
                                   ts_mm_info *info);

/**
 * Read only the banner and size line of a file (plain or gzip).
 * @param ctx  Context for messages (may be NULL).
 * @param path File to read.
 * @param info Receives the header.
 * @return As ts_mm_read(); complex headers are accepted here.
 */
TS_API ts_status ts_mm_read_info(ts_context *ctx, const char *path, ts_mm_info *info);

/**@}*/

/** What to write: the field; TS_MM_PATTERN drops values. */
typedef struct ts_mm_write_options {
  /** TS_MM_REAL (default: the values' own field, real or complex), TS_MM_INTEGER (real values), TS_MM_COMPLEX
   * (complex values) or TS_MM_PATTERN. */
  ts_mm_field field;
  int precision; /**< Significant digits; 0 = shortest exact (17 or 9). */
} ts_mm_write_options;

/**
 * @name Writing
 * The writers print Matrix Market coordinate text, gzip-compressed when the
 * path (or the name given with a descriptor) ends in ".gz". The banner's
 * symmetry is the matrix's symmetry tag; symmetric storage is written as
 * its lower triangle (an upper entry mirrored: negated for skew-symmetric,
 * conjugated for hermitian). Real values, and each part of a complex value,
 * are printed so that they read back bit-identical (with precision 0); the
 * integer field takes any integral real value and prints its exact digits
 * (2^63 as 9223372036854775808, -0 as -0); non-finite values are refused,
 * and so is a hermitian matrix whose diagonal is not real.
 *
 * A path is never left half-written and nothing tessera did not create is
 * removed: when the path names a regular file, or nothing yet, the text is
 * written to a new temporary file in the same folder, flushed to disk, and
 * renamed over the path only once everything succeeded; on any failure only
 * the temporary file is removed and the path keeps what it held. A path
 * naming something else (a character device such as /dev/null or /dev/full,
 * a FIFO) is written in place and never removed. A symbolic link is
 * followed: the file it leads to is replaced and the link stays. A file
 * that is replaced keeps its permission bits (and owner, where allowed); a
 * new one gets 0666 less the umask; a file the caller may not write is
 * refused (TS_ERROR_IO), not replaced. Other hard links to a replaced file
 * keep the old content. Writing to a closed pipe fails with TS_ERROR_IO ("Broken pipe")
 * instead of raising SIGPIPE. The writers report progress by entries and stop
 * with TS_ERROR_CANCELLED when the context's callback asks to; a cancelled
 * write to a path leaves it as it was.
 */
/**@{*/

/**
 * Write a COO matrix as Matrix Market coordinate text.
 * @param ctx     Context for messages (may be NULL).
 * @param path    File to write (see above).
 * @param coo     The matrix; entries are written in storage order.
 * @param options Field and precision (may be NULL: real, shortest exact).
 * @return TS_SUCCESS; TS_ERROR_INVALID_MATRIX for an entry out of range or
 *         a non-finite value; TS_ERROR_INVALID_ARGUMENT for bad options or a
 *         fraction in the integer field; TS_ERROR_IO when writing fails.
 */
TS_API ts_status ts_mm_write_coo(ts_context *ctx, const char *path, const ts_coo *coo,
                                 const ts_mm_write_options *options);

/**
 * Write a CSR matrix as Matrix Market coordinate text, row by row (see
 * ts_mm_write_coo()).
 * @param ctx     Context for messages (may be NULL).
 * @param path    File to write.
 * @param csr     The matrix.
 * @param options Field and precision (may be NULL).
 * @return As ts_mm_write_coo().
 */
TS_API ts_status ts_mm_write_csr(ts_context *ctx, const char *path, const ts_csr *csr,
                                 const ts_mm_write_options *options);

/**
 * As ts_mm_write_coo() onto an open descriptor (standard output is
 * descriptor 1). The descriptor remains the caller's: tessera writes at its
 * current position and neither closes nor syncs it. On failure part of the
 * text may have been written.
 * @param ctx     Context for messages (may be NULL).
 * @param fd      Open descriptor, writable.
 * @param name    Name used in messages, e.g. "<stdout>"; the text is
 *                gzip-compressed when it ends in ".gz". NULL gives
 *                "<stdout>" for descriptor 1 and "<descriptor N>" otherwise.
 * @param coo     The matrix.
 * @param options Field and precision (may be NULL).
 * @return As ts_mm_write_coo(); TS_ERROR_INVALID_ARGUMENT for a negative @p fd.
 */
TS_API ts_status ts_mm_write_coo_fd(ts_context *ctx, int fd, const char *name, const ts_coo *coo,
                                    const ts_mm_write_options *options);

/**
 * As ts_mm_write_csr() onto an open descriptor (see ts_mm_write_coo_fd()).
 * @param ctx     Context for messages (may be NULL).
 * @param fd      Open descriptor, writable.
 * @param name    Name used in messages (NULL: as ts_mm_write_coo_fd()).
 * @param csr     The matrix.
 * @param options Field and precision (may be NULL).
 * @return As ts_mm_write_csr().
 */
TS_API ts_status ts_mm_write_csr_fd(ts_context *ctx, int fd, const char *name, const ts_csr *csr,
                                    const ts_mm_write_options *options);

/**@}*/

/**
 * Progress callback for long operations (reading, ts_mm_read_csr's
 * conversion, generating): @p done of @p total units (bytes of input, rows,
 * edges); @p total is -1 when unknown (reading a pipe). Within one call of
 * the library @p done never decreases; steps without figures of their own (a
 * sort, a search for a scale) call it again with the last figures. It is
 * called at least every second or so (blocks of a few million steps) and
 * runs on the calling thread. Return non-zero to cancel: the call then
 * stops within about a second, frees what it made, and fails with
 * TS_ERROR_CANCELLED.
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
 * exponent > 0 and finite). The longest row is about C. Values uniform in
 * [-1, 1). Example: rows = cols = 2^22, nnz = 68.7 M, exponent 0.9 gives
 * C = 1.88 M. With a large exponent r^-exponent underflows to 0 for most
 * ranks, whose rows then keep one entry whatever C: an @p nnz beyond the
 * most any C gives is refused with TS_ERROR_INVALID_ARGUMENT naming that
 * most. The search for C takes a bounded number of passes over the rows
 * (about 80 at most) for any exponent.
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

/**
 * Road-like graph (high diameter, degrees at most 4): the vertices of an
 * nx-by-ny grid (vertex x + nx*y), each joined to its right and upper
 * neighbours unless that edge is dropped, with probability @p drop in
 * [0, 1), as on a road map with missing links (drop > 0 can disconnect
 * parts). Every kept edge is stored in both directions with one weight,
 * uniform in (0, 1]; rows are sorted. nx, ny >= 1 and nx * ny at most
 * TS_MAX_DIMENSION (else TS_ERROR_OVERFLOW). Same seed, same graph, whatever
 * the thread count.
 */
TS_API ts_status ts_gen_grid_graph(ts_context *ctx, int64_t nx, int64_t ny, double drop, uint64_t seed, ts_dtype dtype,
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
