/* Matrix Market file or memory -> COO: streams the text through the line
 * parser in large chunks (plain or gzip), reporting progress. */
#include "mm_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* Bytes read from a file at a time; a partial last line is carried over. */
#define READ_CHUNK ((size_t)16 << 20)
/* ts_mm_read_info reads only the header: start small. */
#define HEADER_CHUNK ((size_t)64 << 10)
/* Progress is reported (and cancellation checked) after about this much text. */
#define PROGRESS_STEP ((size_t)4 << 20)

static const char memory_name[] = "<memory>";

static ts_status check_arguments(ts_context *ctx, const char *op, const void *source, ts_dtype dtype, ts_coo **coo) {
  if (!coo)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: coo is NULL", op);
  *coo = NULL;
  if (!source)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", op, "input");
  if (ts_dtype_size(dtype) == 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "%s: unknown value type %d", op, (int)dtype);
  return TS_SUCCESS;
}

/* Last '\n' in [begin, end), or NULL. */
static const char *last_newline(const char *begin, const char *end) {
  for (const char *p = end; p > begin; p--)
    if (p[-1] == '\n')
      return p - 1;
  return NULL;
}

/* Parse complete lines in slices of about PROGRESS_STEP, reporting
 * progress (offset of the slice's end) after each one. */
typedef struct progress_state {
  int64_t base;  /* progress value at begin; -1: report `fixed` instead */
  int64_t fixed; /* for gzip: compressed bytes consumed */
  int64_t total;
} progress_state;

static ts_status parse_with_progress(tsi_mm_parser *ps, const char *begin, const char *end,
                                     const progress_state *progress) {
  const char *p = begin;
  while (p < end && ps->stage != TSI_MM_STAGE_STOPPED) {
    const char *slice_end = end;
    if ((size_t)(end - p) > PROGRESS_STEP) {
      slice_end = memchr(p + PROGRESS_STEP, '\n', (size_t)(end - p) - PROGRESS_STEP);
      slice_end = slice_end ? slice_end + 1 : end;
    }
    ts_status st = tsi_mm_parse_lines(ps, p, slice_end);
    if (st != TS_SUCCESS)
      return st;
    p = slice_end;
    int64_t done = progress->base >= 0 ? progress->base + (int64_t)(p - begin) : progress->fixed;
    if (progress->total >= 0 && done > progress->total)
      done = progress->total;
    st = tsi_progress(ps->ctx, done, progress->total);
    if (st != TS_SUCCESS)
      return st;
  }
  return TS_SUCCESS;
}

ts_status ts_mm_read_memory(ts_context *ctx, const char *text, size_t size, ts_dtype dtype, ts_coo **coo,
                            ts_mm_info *info) {
  const char *op = "ts_mm_read_memory";
  if (!text && size == 0)
    text = "";
  ts_status st = check_arguments(ctx, op, text, dtype, coo);
  if (st != TS_SUCCESS)
    return st;
  tsi_mm_parser ps;
  tsi_mm_parser_init(&ps, ctx, memory_name, dtype, false, (int64_t)size);
  char *tail_copy = NULL;
  const char *end = text + size;
  const char *newline = last_newline(text, end);
  const char *tail = newline ? newline + 1 : text;
  progress_state progress = {0, 0, (int64_t)size};
  if (newline) {
    st = parse_with_progress(&ps, text, tail, &progress);
    if (st != TS_SUCCESS)
      goto cleanup;
  }
  if (tail < end) {
    /* The text need not end with a newline (nor a NUL): copy the last line. */
    size_t length = (size_t)(end - tail);
    tail_copy = malloc(length + 1);
    if (!tail_copy) {
      st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot copy the last line (%zu bytes)", op, length);
      goto cleanup;
    }
    memcpy(tail_copy, tail, length);
    tail_copy[length] = '\n';
    progress.base = (int64_t)(tail - text);
    st = parse_with_progress(&ps, tail_copy, tail_copy + length + 1, &progress);
    if (st != TS_SUCCESS)
      goto cleanup;
  }
  st = tsi_mm_parser_finish(&ps);
  if (st != TS_SUCCESS)
    goto cleanup;
  if (info)
    *info = ps.info;
  *coo = ps.coo;
  ps.coo = NULL;
cleanup:
  free(tail_copy);
  tsi_mm_parser_release(&ps);
  return st;
}

/* A file opened for reading, plain or gzip. */
typedef struct mm_file {
  const char *path;
  FILE *plain;
  gzFile gz;
  int64_t size; /* bytes on disk, -1 unknown */
} mm_file;

static ts_status file_open(ts_context *ctx, const char *path, mm_file *file, char *buffer, size_t capacity,
                           size_t *length) {
  memset(file, 0, sizeof *file);
  file->path = path;
  file->size = -1;
  *length = 0;
  file->plain = fopen(path, "rb");
  if (!file->plain)
    return tsi_error(ctx, TS_ERROR_IO, "%s: %s", path, strerror(errno));
  struct stat info;
  if (fstat(fileno(file->plain), &info) == 0) {
    if (S_ISDIR(info.st_mode))
      return tsi_error(ctx, TS_ERROR_IO, "%s: %s", path, strerror(EISDIR));
    if (S_ISREG(info.st_mode))
      file->size = (int64_t)info.st_size;
  }
  /* Look at the first bytes: the gzip magic 1f 8b whatever the file's name. */
  size_t got = fread(buffer, 1, capacity, file->plain);
  if (got < capacity && ferror(file->plain))
    return tsi_error(ctx, TS_ERROR_IO, "%s: %s", path, strerror(errno));
  if (got >= 2 && (unsigned char)buffer[0] == 0x1f && (unsigned char)buffer[1] == 0x8b) {
    fclose(file->plain);
    file->plain = NULL;
    file->gz = gzopen(path, "rb");
    if (!file->gz)
      return tsi_error(ctx, TS_ERROR_IO, "%s: %s", path, errno ? strerror(errno) : "cannot open gzip");
    gzbuffer(file->gz, 1u << 20);
    return TS_SUCCESS;
  }
  *length = got;
  return TS_SUCCESS;
}

/* zlib's reason for a gzip failure, without the "path: " it starts with. */
static const char *gzip_reason(const mm_file *file) {
  int code = Z_OK;
  const char *why = gzerror(file->gz, &code);
  if (code == Z_ERRNO)
    return strerror(errno);
  if (!why || !*why)
    return "read error";
  size_t path_length = strlen(file->path);
  if (strncmp(why, file->path, path_length) == 0 && strncmp(why + path_length, ": ", 2) == 0)
    why += path_length + 2;
  return why;
}

/* Read up to `want` bytes; 0 at the end of the file. Errors name `line`,
 * the line being read. */
static ts_status file_read(ts_context *ctx, mm_file *file, int64_t line, char *out, size_t want, size_t *got) {
  *got = 0;
  if (file->gz) {
    while (want > 0) {
      unsigned part = want > (1u << 30) ? (1u << 30) : (unsigned)want;
      int n = gzread(file->gz, out + *got, part);
      if (n < 0)
        return tsi_error(ctx, TS_ERROR_IO, "%s:%lld: gzip: %s", file->path, (long long)line, gzip_reason(file));
      if (n == 0) {
        /* zlib reports a stream cut short only through gzerror. What came
         * before is handed over first; the error stays for the next call,
         * once the lines before it have been parsed and counted. */
        int code = Z_OK;
        gzerror(file->gz, &code);
        if (code != Z_OK && *got == 0)
          return tsi_error(ctx, TS_ERROR_IO, "%s:%lld: gzip: %s (truncated or corrupt file)", file->path,
                           (long long)line, gzip_reason(file));
        break;
      }
      *got += (size_t)n;
      want -= (size_t)n;
    }
    return TS_SUCCESS;
  }
  *got = fread(out, 1, want, file->plain);
  if (*got < want && ferror(file->plain))
    return tsi_error(ctx, TS_ERROR_IO, "%s:%lld: %s", file->path, (long long)line, strerror(errno));
  return TS_SUCCESS;
}

static void file_close(mm_file *file) {
  if (file->plain)
    fclose(file->plain);
  if (file->gz)
    gzclose(file->gz);
  file->plain = NULL;
  file->gz = NULL;
}

/* Stream a file through the parser. The buffer holds the carried-over part
 * of a line plus a fresh chunk; it doubles when one line fills it. */
static ts_status read_file(ts_context *ctx, const char *path, tsi_mm_parser *ps, size_t chunk) {
  mm_file file;
  memset(&file, 0, sizeof file);
  size_t capacity = chunk;
  char *buffer = malloc(capacity + 1); /* + 1: room for a final '\n' */
  size_t length = 0;
  ts_status st;
  if (!buffer) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate a %zu-byte read buffer", path, capacity);
    goto cleanup;
  }
  st = file_open(ctx, path, &file, buffer, capacity, &length);
  if (st != TS_SUCCESS)
    goto cleanup;
  bool gzip = file.gz != NULL;
  if (!gzip && file.size >= 0)
    ps->input_bytes = file.size;
  int64_t offset = 0; /* text bytes before buffer[0] */
  bool at_end = false;
  bool first = !gzip;
  while (!at_end && ps->stage != TSI_MM_STAGE_STOPPED) {
    size_t got = 0;
    if (first) {
      got = length; /* file_open already read the first chunk */
      length = 0;
      first = false;
      at_end = got < capacity;
    } else {
      if (length == capacity) {
        /* One line longer than the buffer: double it. */
        size_t larger = capacity * 2;
        char *grown = realloc(buffer, larger + 1);
        if (!grown) {
          st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s:%lld: line too long for memory", path,
                         (long long)ps->line + 1);
          goto cleanup;
        }
        buffer = grown;
        capacity = larger;
      }
      st = file_read(ctx, &file, ps->line + 1, buffer + length, capacity - length, &got);
      if (st != TS_SUCCESS)
        goto cleanup;
      at_end = got == 0;
    }
    length += got;
    const char *newline = last_newline(buffer, buffer + length);
    size_t complete = newline ? (size_t)(newline + 1 - buffer) : 0;
    if (at_end && complete < length) {
      buffer[length++] = '\n'; /* the last line had no newline */
      complete = length;
    }
    progress_state progress = {gzip ? -1 : offset, gzip ? (int64_t)gzoffset(file.gz) : 0, file.size};
    if (complete > 0) {
      st = parse_with_progress(ps, buffer, buffer + complete, &progress);
      if (st != TS_SUCCESS)
        goto cleanup;
    }
    memmove(buffer, buffer + complete, length - complete);
    length -= complete;
    offset += (int64_t)complete;
  }
  if (ps->stage != TSI_MM_STAGE_STOPPED)
    st = tsi_mm_parser_finish(ps);
cleanup:
  file_close(&file);
  free(buffer);
  return st;
}

ts_status ts_mm_read(ts_context *ctx, const char *path, ts_dtype dtype, ts_coo **coo, ts_mm_info *info) {
  ts_status st = check_arguments(ctx, "ts_mm_read", path, dtype, coo);
  if (st != TS_SUCCESS)
    return st;
  tsi_mm_parser ps;
  tsi_mm_parser_init(&ps, ctx, path, dtype, false, -1);
  st = read_file(ctx, path, &ps, READ_CHUNK);
  if (st == TS_SUCCESS) {
    if (info)
      *info = ps.info;
    *coo = ps.coo;
    ps.coo = NULL;
  }
  tsi_mm_parser_release(&ps);
  return st;
}

ts_status ts_mm_read_info(ts_context *ctx, const char *path, ts_mm_info *info) {
  if (!path || !info)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_mm_read_info: NULL argument");
  tsi_mm_parser ps;
  tsi_mm_parser_init(&ps, ctx, path, TS_FLOAT64, true, -1);
  ts_status st = read_file(ctx, path, &ps, HEADER_CHUNK);
  if (st == TS_SUCCESS)
    *info = ps.info;
  tsi_mm_parser_release(&ps);
  return st;
}
