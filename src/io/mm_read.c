/* Matrix Market text -> COO from memory, a path or an open descriptor: the
 * text streams through the line parser in large chunks (plain or gzip, see
 * mm_source.c), with progress reported and cancellation checked between
 * slices of a few megabytes. */
#define _POSIX_C_SOURCE 200809L
#include "mm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes read at a time from a regular file; a partial last line is carried
 * over. Other inputs (pipes, devices, gzip) start with a smaller buffer,
 * which grows only while one line does not fit (up to TSI_MM_MAX_LINE). */
#define READ_CHUNK ((size_t)16 << 20)
#define STREAM_CHUNK ((size_t)1 << 20)
/* ts_mm_read_info reads only the header: start small. */
#define HEADER_CHUNK ((size_t)64 << 10)
/* The smallest buffer (a regular file may report a size of 0, as /proc does). */
#define SMALLEST_CHUNK ((size_t)4 << 10)
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

static ts_status nul_byte_error(tsi_mm_parser *ps, int64_t line) {
  return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: NUL byte: binary data, not Matrix Market text", ps->name,
                   (long long)line);
}

/* After a failure on the line that starts at ps->line_begin (inside
 * [begin, end)): a NUL byte in it is the real cause, and said so. Looking
 * only at the failed line keeps the check off the hot path; a NUL in a
 * comment is as harmless as any other character there. */
static ts_status name_nul_byte(tsi_mm_parser *ps, ts_status st, const char *begin, const char *end) {
  const char *line = ps->line_begin;
  if (st != TS_ERROR_PARSE || !line || line < begin || line >= end)
    return st;
  const char *line_end = memchr(line, '\n', (size_t)(end - line));
  if (memchr(line, '\0', (size_t)((line_end ? line_end : end) - line)))
    return nul_byte_error(ps, ps->line);
  return st;
}

/* What progress reports: `base` + text parsed, or (gzip) a fixed count of
 * compressed bytes; total -1 when unknown (a pipe). */
typedef struct progress_state {
  int64_t base;  /* progress value at begin; -1: report `fixed` instead */
  int64_t fixed; /* for gzip: compressed bytes consumed */
  int64_t total;
} progress_state;

/* Parse complete lines in slices of about PROGRESS_STEP, reporting progress
 * after each one. */
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
      return name_nul_byte(ps, st, p, slice_end);
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

/* Hand the parsed matrix over on success; free it otherwise. */
static ts_status hand_over(tsi_mm_parser *ps, ts_status st, ts_coo **coo, ts_mm_info *info) {
  if (st == TS_SUCCESS) {
    if (info)
      *info = ps->info;
    if (coo) {
      *coo = ps->coo;
      ps->coo = NULL;
    }
  }
  tsi_mm_parser_release(ps);
  return st;
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
  if (newline)
    st = parse_with_progress(&ps, text, tail, &progress);
  if (st == TS_SUCCESS && tail < end && ps.stage != TSI_MM_STAGE_STOPPED) {
    /* The text need not end with a newline (nor a NUL): copy the last line. */
    size_t length = (size_t)(end - tail);
    tail_copy = malloc(length + 1);
    if (!tail_copy) {
      st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot copy the last line (%zu bytes)", op, length);
    } else {
      memcpy(tail_copy, tail, length);
      tail_copy[length] = '\n';
      progress.base = (int64_t)(tail - text);
      st = parse_with_progress(&ps, tail_copy, tail_copy + length + 1, &progress);
    }
  }
  if (st == TS_SUCCESS)
    st = tsi_mm_parser_finish(&ps);
  free(tail_copy);
  return hand_over(&ps, st, coo, info);
}

/* The line being read is longer than any the reader takes. */
static ts_status long_line_error(tsi_mm_parser *ps, const char *buffer, size_t length) {
  if (memchr(buffer, '\0', length))
    return nul_byte_error(ps, ps->line + 1);
  return tsi_error(ps->ctx, TS_ERROR_PARSE, "%s:%lld: line longer than %zu MiB (no line break): not Matrix Market text",
                   ps->name, (long long)ps->line + 1, TSI_MM_MAX_LINE >> 20);
}

/* Stream a descriptor through the parser. The buffer holds the carried-over
 * part of a line plus fresh text; it grows (up to TSI_MM_MAX_LINE) only when
 * one line fills it. */
static ts_status read_stream(ts_context *ctx, int fd, tsi_mm_parser *ps, size_t chunk) {
  tsi_mm_source source;
  char *buffer = NULL;
  ts_status st = tsi_mm_source_open(&source, ctx, fd, ps->name);
  if (st != TS_SUCCESS)
    goto cleanup;
  size_t capacity = chunk < STREAM_CHUNK || (!source.gzip && source.size >= 0) ? chunk : STREAM_CHUNK;
  if (!source.gzip && source.size >= 0) {
    ps->input_bytes = source.size;
    /* A small file needs a buffer of its size, not a whole chunk. */
    if ((uint64_t)source.size < capacity)
      capacity = (size_t)source.size < SMALLEST_CHUNK ? SMALLEST_CHUNK : (size_t)source.size + 1;
  }
  buffer = malloc(capacity + 1); /* + 1: room for a final '\n' */
  if (!buffer) {
    st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate a %zu-byte read buffer", ps->name, capacity);
    goto cleanup;
  }
  size_t length = 0;  /* bytes in buffer: a partial line carried over */
  int64_t offset = 0; /* text bytes before buffer[0] */
  bool at_end = false;
  while (!at_end && ps->stage != TSI_MM_STAGE_STOPPED) {
    if (length == capacity) {
      if (capacity >= TSI_MM_MAX_LINE) {
        st = long_line_error(ps, buffer, length);
        goto cleanup;
      }
      size_t larger = capacity * 2 < TSI_MM_MAX_LINE ? capacity * 2 : TSI_MM_MAX_LINE;
      char *grown = realloc(buffer, larger + 1);
      if (!grown) {
        st = tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s:%lld: cannot allocate %zu bytes for one line", ps->name,
                       (long long)ps->line + 1, larger);
        goto cleanup;
      }
      buffer = grown;
      capacity = larger;
    }
    size_t got = 0;
    st = tsi_mm_source_read(&source, ps->line + 1, buffer + length, capacity - length, &got);
    if (st != TS_SUCCESS)
      goto cleanup;
    at_end = got == 0;
    length += got;
    const char *newline = last_newline(buffer, buffer + length);
    size_t complete = newline ? (size_t)(newline + 1 - buffer) : 0;
    if (at_end && complete < length) {
      buffer[length++] = '\n'; /* the last line had no newline */
      complete = length;
    }
    if (complete == 0 && memchr(buffer, '\0', length)) {
      st = nul_byte_error(ps, ps->line + 1); /* binary data: said at once, not after 16 MiB */
      goto cleanup;
    }
    progress_state progress = {source.gzip ? -1 : offset, tsi_mm_source_position(&source), source.size};
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
  tsi_mm_source_close(&source);
  free(buffer);
  return st;
}

/* Open a path for reading, once (a FIFO can be opened only once). */
static ts_status open_path(ts_context *ctx, const char *path, int *fd) {
  *fd = open(path, O_RDONLY | O_CLOEXEC);
  if (*fd < 0)
    return tsi_error(ctx, TS_ERROR_IO, "%s: %s", path, strerror(errno));
  return TS_SUCCESS;
}

const char *tsi_mm_descriptor_name(int fd, const char *name, char *scratch, size_t scratch_size) {
  if (name && *name)
    return name;
  if (fd == 0)
    return "<stdin>";
  if (fd == 1)
    return "<stdout>";
  snprintf(scratch, scratch_size, "<descriptor %d>", fd);
  return scratch;
}

ts_status tsi_mm_read_descriptor(ts_context *ctx, int fd, const char *name, ts_dtype dtype, ts_coo **coo,
                                 ts_mm_info *info) {
  tsi_mm_parser ps;
  tsi_mm_parser_init(&ps, ctx, name, dtype, false, -1);
  ts_status st = read_stream(ctx, fd, &ps, READ_CHUNK);
  return hand_over(&ps, st, coo, info);
}

ts_status ts_mm_read(ts_context *ctx, const char *path, ts_dtype dtype, ts_coo **coo, ts_mm_info *info) {
  ts_status st = check_arguments(ctx, "ts_mm_read", path, dtype, coo);
  if (st != TS_SUCCESS)
    return st;
  int fd = -1;
  st = open_path(ctx, path, &fd);
  if (st != TS_SUCCESS)
    return st;
  st = tsi_mm_read_descriptor(ctx, fd, path, dtype, coo, info);
  close(fd);
  return st;
}

ts_status ts_mm_read_fd(ts_context *ctx, int fd, const char *name, ts_dtype dtype, ts_coo **coo, ts_mm_info *info) {
  ts_status st = check_arguments(ctx, "ts_mm_read_fd", "", dtype, coo);
  if (st != TS_SUCCESS)
    return st;
  if (fd < 0)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_mm_read_fd: descriptor %d is negative", fd);
  char scratch[32];
  return tsi_mm_read_descriptor(ctx, fd, tsi_mm_descriptor_name(fd, name, scratch, sizeof scratch), dtype, coo, info);
}

ts_status ts_mm_read_info(ts_context *ctx, const char *path, ts_mm_info *info) {
  if (!path || !info)
    return tsi_error(ctx, TS_ERROR_INVALID_ARGUMENT, "ts_mm_read_info: NULL argument");
  int fd = -1;
  ts_status st = open_path(ctx, path, &fd);
  if (st != TS_SUCCESS)
    return st;
  tsi_mm_parser ps;
  tsi_mm_parser_init(&ps, ctx, path, TS_FLOAT64, true, -1);
  st = read_stream(ctx, fd, &ps, HEADER_CHUNK);
  close(fd);
  return hand_over(&ps, st, NULL, info);
}
