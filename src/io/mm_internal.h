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
 * tsi_mm_parse_int64); the result equals strtod's (correctly rounded). */
tsi_mm_number_error tsi_mm_parse_double(const char **pos, double *value);

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
  int64_t line; /* lines handed over so far (the last one's number) */
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

/* Parse the banner (stage BANNER) or the size line (stage SIZE): one line
 * in [begin, end) with end[-1] == '\n'. */
ts_status tsi_mm_parse_banner(tsi_mm_parser *ps, const char *begin, const char *end);
ts_status tsi_mm_parse_size_line(tsi_mm_parser *ps, const char *begin, const char *end);

/* Copy a token for a message: printable characters only, at most 24, up to
 * a delimiter or a NUL (a token in the text always has a '\n' after it). */
void tsi_mm_describe_token(char *out, size_t out_size, const char *token);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_MM_INTERNAL_H */
