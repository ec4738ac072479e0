/* Internal declarations of the Matrix Market reader and writer: number
 * parsing and printing, and the line-by-line parser state. */
#ifndef TESSERA_MM_INTERNAL_H
#define TESSERA_MM_INTERNAL_H

#include "internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Why a number could not be read. */
typedef enum tsi_mm_number_error {
  TSI_MM_NUMBER_OK = 0,
  TSI_MM_NUMBER_MISSING,   /* the line ended where a number was expected */
  TSI_MM_NUMBER_SYNTAX,    /* not a number, or followed by other characters */
  TSI_MM_NUMBER_RANGE,     /* beyond int64 or beyond the largest double */
  TSI_MM_NUMBER_UNDERFLOW, /* not zero, but below the smallest subnormal double */
  TSI_MM_NUMBER_NONFINITE, /* "nan", "inf", "infinity" */
  TSI_MM_NUMBER_MEMORY     /* a very long token could not be copied */
} tsi_mm_number_error;

/* True for the characters that separate fields within a line. */
static inline bool tsi_mm_is_blank(char c) { return c == ' ' || c == '\t'; }

/* True for a character that may end a number: a blank or the end of line.
 * Every line handed to the parser ends with '\n', so scanning stops there. */
static inline bool tsi_mm_is_delimiter(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Read a decimal integer ([+-]digits) at *pos, which must be followed by a
 * delimiter; advances *pos past it. The text must contain a '\n' after *pos. */
tsi_mm_number_error tsi_mm_parse_int64(const char **pos, int64_t *value);

/* Read a decimal floating-point number at *pos (same rules as
 * tsi_mm_parse_int64); the result equals strtod's (correctly rounded). A
 * value beyond the largest double is TSI_MM_NUMBER_RANGE, a non-zero value
 * that rounds to zero TSI_MM_NUMBER_UNDERFLOW. */
tsi_mm_number_error tsi_mm_parse_double(const char **pos, double *value);

/* Read an integer value ([+-]digits, any length) as the nearest double, as
 * tsi_mm_parse_double() does: integers are values like any other, rounded
 * only when the type cannot hold them (beyond 2^53), refused beyond the
 * largest double. */
tsi_mm_number_error tsi_mm_parse_integer_value(const char **pos, double *value);

/* Print a finite value into out (at least 32 bytes) so that it reads back
 * bit-identical in @p dtype, with @p precision significant digits or, for 0,
 * the fewest of a few candidate lengths that round-trip. Returns the length. */
int tsi_mm_format_value(char *out, double value, ts_dtype dtype, int precision);

/* Print a non-negative integer (no NUL); returns the length (at most 20). */
int tsi_mm_format_uint64(char *out, uint64_t value);

/* Where the parser is in a file. */
typedef enum tsi_mm_stage {
  TSI_MM_STAGE_BANNER = 0, /* expecting the %%MatrixMarket line */
  TSI_MM_STAGE_SIZE,       /* expecting the size line (comments allowed) */
  TSI_MM_STAGE_ENTRIES,    /* reading entries */
  TSI_MM_STAGE_TRAILER,    /* all entries read: only comments or blanks may follow */
  TSI_MM_STAGE_STOPPED     /* header read for ts_mm_read_info: nothing more wanted */
} tsi_mm_stage;

/* The state of one read. Text is handed over as runs of complete lines. */
typedef struct tsi_mm_parser {
  ts_context *ctx;
  const char *name; /* the path, or "<memory>", for messages */
  ts_dtype dtype;
  bool header_only;    /* stop after the size line */
  int64_t input_bytes; /* size of the whole text, -1 unknown (bounds the first allocation) */
  tsi_mm_stage stage;
  int64_t line;           /* lines handed over so far (the last one's number) */
  const char *line_begin; /* where that line starts (valid while its text is) */
  ts_mm_info info;
  int64_t entries_read;
  int64_t array_row, array_col; /* array format: where the next value goes */
  ts_coo *coo;
} tsi_mm_parser;

/* Start a parse. */
void tsi_mm_parser_init(tsi_mm_parser *ps, ts_context *ctx, const char *name, ts_dtype dtype, bool header_only,
                        int64_t input_bytes);

/* Parse the complete lines in [begin, end): end[-1] must be '\n'. */
ts_status tsi_mm_parse_lines(tsi_mm_parser *ps, const char *begin, const char *end);

/* The input ended: check that it held everything it declared. */
ts_status tsi_mm_parser_finish(tsi_mm_parser *ps);

/* Free what the parser still owns (the COO when not handed over). */
void tsi_mm_parser_release(tsi_mm_parser *ps);

/* The longest line the streaming readers accept: a longer one (or a stream
 * without line breaks, such as /dev/zero) is refused rather than buffered. */
#define TSI_MM_MAX_LINE ((size_t)16 << 20)

/* A descriptor read to its end, gzip detected by its first bytes and
 * inflated on the fly (mm_source.c). The descriptor stays the caller's. */
typedef struct tsi_mm_inflater tsi_mm_inflater;
typedef struct tsi_mm_source {
  ts_context *ctx;
  const char *name; /* for messages */
  int fd;
  int64_t size;         /* bytes of a regular file, -1 otherwise */
  int64_t raw_position; /* bytes read from fd so far */
  bool gzip;
  bool raw_end;       /* read(2) reported the end */
  bool member_end;    /* a gzip member ended: another may follow */
  bool finished;      /* all text handed over */
  unsigned char *raw; /* bytes read but not yet used */
  size_t raw_capacity, raw_start, raw_length;
  tsi_mm_inflater *inflater;
  ts_status deferred_status; /* a failure held back until the text before it was parsed */
  char deferred_reason[192];
} tsi_mm_source;

/* Look at the first bytes of fd (a directory is refused). */
ts_status tsi_mm_source_open(tsi_mm_source *s, ts_context *ctx, int fd, const char *name);

/* Up to `want` bytes of text into out; *got = 0 at the end. `line` is the
 * line being read, for messages. */
ts_status tsi_mm_source_read(tsi_mm_source *s, int64_t line, char *out, size_t want, size_t *got);

/* Bytes of the descriptor used so far (compressed bytes for gzip): progress. */
int64_t tsi_mm_source_position(const tsi_mm_source *s);

/* Free the buffers; the descriptor is left open. */
void tsi_mm_source_close(tsi_mm_source *s);

/* Parse the banner (stage BANNER) or the size line (stage SIZE): one line
 * in [begin, end) with end[-1] == '\n'. */
ts_status tsi_mm_parse_banner(tsi_mm_parser *ps, const char *begin, const char *end);
ts_status tsi_mm_parse_size_line(tsi_mm_parser *ps, const char *begin, const char *end);

/* Read fd to its end as Matrix Market text (name for messages). */
ts_status tsi_mm_read_descriptor(ts_context *ctx, int fd, const char *name, ts_dtype dtype, ts_coo **coo,
                                 ts_mm_info *info);

/* name, or "<stdin>", "<stdout>", "<descriptor N>" (in scratch) when NULL. */
const char *tsi_mm_descriptor_name(int fd, const char *name, char *scratch, size_t scratch_size);

/* A stored COO (as read from `name`) as a general CSR: expanded, duplicates
 * summed, checked; a non-finite sum names the file's entries. */
ts_status tsi_mm_general_csr(ts_context *ctx, const char *name, const ts_coo *stored, ts_csr **csr);

/* Where the writer's bytes go (mm_output.c): a path (a temporary file beside
 * a regular target, renamed over it on success; other targets written in
 * place; links followed) or a caller's descriptor (left open). */
typedef struct tsi_mm_output {
  ts_context *ctx;
  const char *name; /* the path as given, or the descriptor's name */
  int fd;
  bool owns_fd;
  char *temporary;     /* temporary file beside the target, NULL when writing in place */
  char *target;        /* the path once links are followed */
  struct gzFile_s *gz; /* compressing, or NULL */
} tsi_mm_output;

ts_status tsi_mm_output_open_path(tsi_mm_output *out, ts_context *ctx, const char *path, bool gzip);
ts_status tsi_mm_output_open_fd(tsi_mm_output *out, ts_context *ctx, int fd, const char *name, bool gzip);
ts_status tsi_mm_output_write(tsi_mm_output *out, const char *data, size_t size);

/* Finish: with st == TS_SUCCESS flush, sync and rename into place; with a
 * failure (or when finishing fails) remove only the temporary file. Returns
 * the final status. Call it after any open attempt. */
ts_status tsi_mm_output_close(tsi_mm_output *out, ts_status st);

/* Copy a token for a message: printable characters only, at most 24, up to
 * a delimiter or a NUL (a token in the text always has a '\n' after it). */
void tsi_mm_describe_token(char *out, size_t out_size, const char *token);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_MM_INTERNAL_H */
