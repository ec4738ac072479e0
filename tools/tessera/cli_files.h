/* Files of the CLI: "-" for standard input and output, outputs checked
 * against inputs before anything is written, and Matrix Market reads and
 * writes through them. */
#ifndef TESSERA_CLI_FILES_H
#define TESSERA_CLI_FILES_H

#include "tessera.h"

#include <stdbool.h>

/* Whether @p path is "-": standard input where a file is read, standard
 * output where one is written. */
bool cli_is_stdio(const char *path);

/* @p path for a text report: "standard input" or "standard output" for "-". */
const char *cli_path_label(const char *path, bool output);

/*
 * Refuse (one line on stderr, CLI_EXIT_USAGE) a command line on which an
 * output names one of the inputs (the same file, by device and inode,
 * through symbolic and hard links), standard input is read twice, standard
 * output is written twice, or standard output is written with --json
 * (@p json). NULL entries are skipped. Returns 0 when the paths are fine.
 */
int cli_check_paths(const char *command, const char *const *inputs, int input_count, const char *const *outputs,
                    int output_count, bool json);

/* ts_mm_read() / ts_mm_read_csr() of @p path, or of standard input for "-". */
ts_status cli_mm_read(ts_context *ctx, const char *path, ts_dtype dtype, ts_coo **coo, ts_mm_info *info);
ts_status cli_mm_read_csr(ts_context *ctx, const char *path, ts_dtype dtype, ts_csr **csr, ts_mm_info *info);

/* ts_mm_write_coo() / ts_mm_write_csr() to @p path (through the library's
 * temporary file and rename), or to standard output for "-" (plain text). */
ts_status cli_mm_write_coo(ts_context *ctx, const char *path, const ts_coo *coo, const ts_mm_write_options *options);
ts_status cli_mm_write_csr(ts_context *ctx, const char *path, const ts_csr *csr, const ts_mm_write_options *options);

/* A library writer that takes a path. */
typedef ts_status (*cli_path_writer)(ts_context *ctx, const char *path, const void *object);

/*
 * Write @p object with @p writer so that a failure never harms @p target:
 * into a temporary file beside it (beside the file a symbolic link points
 * to), renamed onto it when complete and removed otherwise; for "-", into a
 * temporary file in TMPDIR that is then copied to standard output. A target
 * that exists and is not a regular file (a device, a pipe) is written in
 * place: there is nothing to replace. For writers that do not do this
 * themselves (the model's parameter file).
 */
ts_status cli_write_through_temporary(ts_context *ctx, const char *target, cli_path_writer writer, const void *object);

#endif /* TESSERA_CLI_FILES_H */
