/* Run metadata: when, which commit, which host and device, which command, so
 * that every CSV and Markdown result says how to reproduce it. */
#define _POSIX_C_SOURCE 200809L
#include "tsb.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef TSB_HAVE_COMMIT_HEADER
#include "tsb_commit.h" /* written at build time (cmake/bench_commit.cmake) */
#endif
#ifndef TSB_GIT_COMMIT
#define TSB_GIT_COMMIT "unknown"
#endif

/* The value of key's entry (added when absent), or NULL when the table is full. */
static char *value_slot(tsb_metadata *meta, const char *key) {
  for (int i = 0; i < meta->count; i++)
    if (strcmp(meta->key[i], key) == 0)
      return meta->value[i];
  if (meta->count == TSB_META_MAX)
    return NULL;
  int slot = meta->count++;
  snprintf(meta->key[slot], sizeof meta->key[slot], "%s", key);
  return meta->value[slot];
}

/* One line per entry, whatever the value held. */
static void flatten_line(char *value) {
  for (char *p = value; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' ';
}

void tsb_metadata_set(tsb_metadata *meta, const char *key, const char *format, ...) {
  if (!meta || !key || !format)
    return;
  char *value = value_slot(meta, key);
  if (!value)
    return;
  va_list args;
  va_start(args, format);
  vsnprintf(value, sizeof meta->value[0], format, args);
  va_end(args);
  flatten_line(value);
}

/* tsb_metadata_set for a plain string. */
static void set_text(tsb_metadata *meta, const char *key, const char *text) {
  char *value = value_slot(meta, key);
  if (!value)
    return;
  snprintf(value, sizeof meta->value[0], "%s", text);
  flatten_line(value);
}

const char *tsb_metadata_get(const tsb_metadata *meta, const char *key) {
  if (!meta || !key)
    return NULL;
  for (int i = 0; i < meta->count; i++)
    if (strcmp(meta->key[i], key) == 0)
      return meta->value[i];
  return NULL;
}

static void format_cuda_version(char *out, size_t size, int version) {
  if (version <= 0)
    snprintf(out, size, "none");
  else
    snprintf(out, size, "%d.%d", version / 1000, (version % 1000) / 10);
}

void tsb_metadata_collect(tsb_metadata *meta, ts_context *ctx, int argc, char **argv) {
  if (!meta)
    return;
  memset(meta, 0, sizeof *meta);
  time_t now = time(NULL);
  struct tm utc;
  char date[64] = "unknown";
  if (gmtime_r(&now, &utc))
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  set_text(meta, "date_utc", date);

  const char *commit = getenv("TESSERA_COMMIT");
  set_text(meta, "commit", commit && *commit ? commit : TSB_GIT_COMMIT);
  char host[256] = "unknown";
  if (gethostname(host, sizeof host) != 0)
    snprintf(host, sizeof host, "unknown");
  host[sizeof host - 1] = '\0';
  set_text(meta, "host", host);
  tsb_metadata_set(meta, "tessera_version", "%d", ts_version());

  ts_device_info info;
  if (ctx && ts_context_device_info(ctx, &info) == TS_SUCCESS) {
    char driver[32], runtime[32];
    format_cuda_version(driver, sizeof driver, info.driver_version);
    format_cuda_version(runtime, sizeof runtime, info.runtime_version);
    set_text(meta, "backend", ts_backend_name(ts_context_backend(ctx)));
    set_text(meta, "device", info.name);
    if (info.compute_major > 0)
      tsb_metadata_set(meta, "compute_capability", "%d.%d", info.compute_major, info.compute_minor);
    set_text(meta, "cuda_driver", driver);
    set_text(meta, "cuda_runtime", runtime);
  } else {
    set_text(meta, "device", "none");
  }

  /* The command line, each argument quoted when it holds a space. */
  char command[512] = "";
  size_t used = 0;
  for (int i = 0; i < argc && argv && argv[i]; i++) {
    int quote = strchr(argv[i], ' ') != NULL;
    int n = snprintf(command + used, sizeof command - used, "%s%s%s%s", i ? " " : "", quote ? "'" : "", argv[i],
                     quote ? "'" : "");
    if (n < 0 || (size_t)n >= sizeof command - used)
      break;
    used += (size_t)n;
  }
  set_text(meta, "command", command);
}

void tsb_metadata_print(const tsb_metadata *meta, FILE *file, const char *prefix) {
  if (!meta || !file)
    return;
  for (int i = 0; i < meta->count; i++)
    fprintf(file, "%s%s: %s\n", prefix ? prefix : "", meta->key[i], meta->value[i]);
}
