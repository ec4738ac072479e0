/* The reader's input: an open descriptor read to its end with read(2),
 * inflated on the fly when its first two bytes are the gzip magic 1f 8b.
 * The magic is looked at in the bytes already read, so the descriptor is
 * opened once and never rewound: pipes, FIFOs and terminals work as files do. */
#define _POSIX_C_SOURCE 200809L
#include "mm_internal.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Compressed bytes read from the descriptor at a time. */
#define RAW_CHUNK ((size_t)1 << 20)
/* Plain text is read straight into the caller's buffer; only the bytes read
 * while looking for the magic pass through this many bytes of raw buffer. */
#define SNIFF_CHUNK ((size_t)1 << 16)

struct tsi_mm_inflater {
  z_stream z;
};

static ts_status source_error(tsi_mm_source *s, ts_status status, int64_t line, const char *why) {
  return tsi_error(s->ctx, status, "%s:%lld: %s", s->name, (long long)line, why);
}

/* One read(2): retried on EINTR (after giving the progress callback the chance
 * to cancel) and, for a non-blocking descriptor, after waiting for data. */
static ts_status raw_read(tsi_mm_source *s, int64_t line, void *out, size_t want, size_t *got) {
  *got = 0;
  for (;;) {
    ssize_t n = read(s->fd, out, want);
    if (n >= 0) {
      *got = (size_t)n;
      s->raw_position += n;
      return TS_SUCCESS;
    }
    if (errno == EINTR) {
      ts_status st = tsi_progress(s->ctx, s->raw_position, s->size);
      if (st != TS_SUCCESS)
        return st;
      continue;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      struct pollfd wait_for = {s->fd, POLLIN, 0};
      (void)poll(&wait_for, 1, 1000);
      ts_status st = tsi_progress(s->ctx, s->raw_position, s->size);
      if (st != TS_SUCCESS)
        return st;
      continue;
    }
    return source_error(s, TS_ERROR_IO, line, strerror(errno));
  }
}

/* Move the unread raw bytes to the front and read more after them. */
static ts_status raw_refill(tsi_mm_source *s, int64_t line) {
  if (s->raw_start > 0) {
    memmove(s->raw, s->raw + s->raw_start, s->raw_length);
    s->raw_start = 0;
  }
  size_t got = 0;
  ts_status st = raw_read(s, line, s->raw + s->raw_length, s->raw_capacity - s->raw_length, &got);
  if (st != TS_SUCCESS)
    return st;
  if (got == 0)
    s->raw_end = true;
  s->raw_length += got;
  return TS_SUCCESS;
}

static bool starts_with_gzip_magic(const unsigned char *p) { return p[0] == 0x1f && p[1] == 0x8b; }

ts_status tsi_mm_source_open(tsi_mm_source *s, ts_context *ctx, int fd, const char *name) {
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
  s->fd = fd;
  s->name = name;
  s->size = -1;
  struct stat info;
  if (fstat(fd, &info) != 0)
    return tsi_error(ctx, TS_ERROR_IO, "%s: %s", name, strerror(errno));
  if (S_ISDIR(info.st_mode))
    return tsi_error(ctx, TS_ERROR_IO, "%s: %s", name, strerror(EISDIR));
  if (S_ISREG(info.st_mode))
    s->size = (int64_t)info.st_size;
  s->raw_capacity = SNIFF_CHUNK;
  s->raw = calloc(1, s->raw_capacity);
  if (!s->raw)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate a read buffer", name);
  /* A pipe may hand over one byte at a time: read until two are there. */
  while (s->raw_length < 2 && !s->raw_end) {
    ts_status st = raw_refill(s, 1);
    if (st != TS_SUCCESS)
      return st;
  }
  if (s->raw_length < 2 || !starts_with_gzip_magic(s->raw))
    return TS_SUCCESS;

  s->gzip = true;
  unsigned char *larger = realloc(s->raw, RAW_CHUNK);
  if (!larger)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate a read buffer", name);
  s->raw = larger;
  s->raw_capacity = RAW_CHUNK;
  s->inflater = calloc(1, sizeof *s->inflater);
  if (!s->inflater)
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot allocate the gzip state", name);
  /* 16 + MAX_WBITS: a gzip header and trailer around the deflate data. */
  if (inflateInit2(&s->inflater->z, 16 + MAX_WBITS) != Z_OK) {
    free(s->inflater);
    s->inflater = NULL;
    return tsi_error(ctx, TS_ERROR_OUT_OF_MEMORY, "%s: cannot start gzip decompression", name);
  }
  return TS_SUCCESS;
}

/* Plain text: the bytes read while looking for the magic, then read(2)
 * straight into out. */
static ts_status read_plain(tsi_mm_source *s, int64_t line, char *out, size_t want, size_t *got) {
  if (s->raw_length > 0) {
    size_t n = s->raw_length < want ? s->raw_length : want;
    memcpy(out, s->raw + s->raw_start, n);
    s->raw_start += n;
    s->raw_length -= n;
    *got = n;
    return TS_SUCCESS;
  }
  if (s->raw_end) {
    *got = 0;
    return TS_SUCCESS;
  }
  return raw_read(s, line, out, want, got);
}

/* Record a failure; it is returned once the text decompressed before it
 * has been handed over and parsed, so that the message names the right line. */
static void hold_failure(tsi_mm_source *s, ts_status status, const char *why) {
  s->deferred_status = status;
  snprintf(s->deferred_reason, sizeof s->deferred_reason, "%s", why);
}

static ts_status read_gzip(tsi_mm_source *s, int64_t line, char *out, size_t want, size_t *got) {
  z_stream *z = &s->inflater->z;
  *got = 0;
  while (*got < want && !s->finished && s->deferred_status == TS_SUCCESS) {
    if (s->member_end) {
      /* Another gzip member may follow (concatenated files, as gzip -d reads them). */
      while (s->raw_length < 2 && !s->raw_end) {
        ts_status st = raw_refill(s, line);
        if (st != TS_SUCCESS)
          return st;
      }
      if (s->raw_length == 0) {
        s->finished = true;
      } else if (s->raw_length < 2 || !starts_with_gzip_magic(s->raw + s->raw_start)) {
        hold_failure(s, TS_ERROR_IO, "gzip: data after the end of the compressed stream");
      } else if (inflateReset(z) != Z_OK) {
        hold_failure(s, TS_ERROR_INTERNAL, "gzip: cannot restart decompression");
      } else {
        s->member_end = false;
      }
      continue;
    }
    if (s->raw_length == 0) {
      if (s->raw_end) {
        hold_failure(s, TS_ERROR_IO, "gzip: unexpected end of the compressed data (truncated or corrupt file)");
        continue;
      }
      if (*got > 0)
        break; /* hand over what there is rather than wait for a slow writer */
      ts_status st = raw_refill(s, line);
      if (st != TS_SUCCESS)
        return st;
      continue;
    }
    size_t room = want - *got;
    z->next_in = s->raw + s->raw_start;
    z->avail_in = s->raw_length > UINT_MAX ? UINT_MAX : (unsigned)s->raw_length;
    z->next_out = (unsigned char *)out + *got;
    z->avail_out = room > UINT_MAX ? UINT_MAX : (unsigned)room;
    unsigned in_before = z->avail_in, out_before = z->avail_out;
    int code = inflate(z, Z_NO_FLUSH);
    size_t consumed = in_before - z->avail_in, produced = out_before - z->avail_out;
    s->raw_start += consumed;
    s->raw_length -= consumed;
    *got += produced;
    if (code == Z_STREAM_END) {
      s->member_end = true;
    } else if (code == Z_MEM_ERROR) {
      return source_error(s, TS_ERROR_OUT_OF_MEMORY, line, "gzip: out of memory");
    } else if (code == Z_DATA_ERROR || code == Z_NEED_DICT || code == Z_STREAM_ERROR) {
      char why[160];
      snprintf(why, sizeof why, "gzip: %s (corrupt file)", z->msg ? z->msg : "invalid compressed data");
      hold_failure(s, TS_ERROR_IO, why);
    }
  }
  if (*got == 0 && s->deferred_status != TS_SUCCESS)
    return source_error(s, s->deferred_status, line, s->deferred_reason);
  return TS_SUCCESS;
}

ts_status tsi_mm_source_read(tsi_mm_source *s, int64_t line, char *out, size_t want, size_t *got) {
  *got = 0;
  if (s->deferred_status != TS_SUCCESS)
    return source_error(s, s->deferred_status, line, s->deferred_reason);
  if (want == 0)
    return TS_SUCCESS;
  return s->gzip ? read_gzip(s, line, out, want, got) : read_plain(s, line, out, want, got);
}

int64_t tsi_mm_source_position(const tsi_mm_source *s) { return s->raw_position - (int64_t)s->raw_length; }

void tsi_mm_source_close(tsi_mm_source *s) {
  if (s->inflater) {
    inflateEnd(&s->inflater->z);
    free(s->inflater);
  }
  free(s->raw);
  s->inflater = NULL;
  s->raw = NULL;
}
