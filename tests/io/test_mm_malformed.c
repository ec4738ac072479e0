/* Malformed Matrix Market files: each file of tests/data/malformed gives the
 * status and line listed in EXPECTED.tsv, from a file and from memory, in
 * both value types, and nothing is returned (or leaked: CI runs this under
 * LeakSanitizer). */
#include "test_common.h"

#include <dirent.h>
#include <stdbool.h>

static const char *status_names[] = {"TS_SUCCESS",
                                     "TS_ERROR_INVALID_ARGUMENT",
                                     "TS_ERROR_INVALID_MATRIX",
                                     "TS_ERROR_OUT_OF_MEMORY",
                                     "TS_ERROR_OVERFLOW",
                                     "TS_ERROR_IO",
                                     "TS_ERROR_PARSE",
                                     "TS_ERROR_UNSUPPORTED",
                                     "TS_ERROR_NO_DEVICE",
                                     "TS_ERROR_CUDA",
                                     "TS_ERROR_INTERNAL"};

static int status_from_name(const char *name) {
  for (int s = 0; s < (int)(sizeof status_names / sizeof status_names[0]); s++)
    if (strcmp(status_names[s], name) == 0)
      return s;
  return -1;
}

static const char *status_name(ts_status status) {
  return (unsigned)status < sizeof status_names / sizeof status_names[0] ? status_names[status] : "?";
}

/* The whole file in memory (NULL on failure); *size its length. */
static char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t capacity = 1 << 16, length = 0;
  char *data = malloc(capacity);
  size_t got;
  while (data && (got = fread(data + length, 1, capacity - length, f)) > 0) {
    length += got;
    if (length == capacity) {
      char *larger = realloc(data, capacity *= 2);
      if (!larger)
        free(data);
      data = larger;
    }
  }
  fclose(f);
  *size = length;
  return data;
}

static bool listed(char names[][256], int count, const char *name) {
  for (int i = 0; i < count; i++)
    if (strcmp(names[i], name) == 0)
      return true;
  return false;
}

int main(void) {
  const char *data = getenv("TESSERA_TEST_DATA");
  if (!data || !*data)
    return test_skip("TESSERA_TEST_DATA is not set");
  char folder[4096], table_path[4200];
  snprintf(folder, sizeof folder, "%s/malformed", data);
  snprintf(table_path, sizeof table_path, "%s/EXPECTED.tsv", folder);
  FILE *table = fopen(table_path, "r");
  CHECK_MSG(table != NULL, "cannot open %s", table_path);
  if (!table)
    return test_finish();

  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));

  static char names[512][256];
  int cases = 0;
  char row[1024];
  while (fgets(row, sizeof row, table)) {
    if (row[0] == '#' || row[0] == '\n' || strncmp(row, "file\t", 5) == 0)
      continue;
    char name[256], status_text[64];
    long long line = 0;
    if (sscanf(row, "%255[^\t]\t%63[^\t]\t%lld", name, status_text, &line) != 3) {
      CHECK_MSG(false, "bad row in EXPECTED.tsv: %s", row);
      continue;
    }
    int expected = status_from_name(status_text);
    CHECK_MSG(expected > 0, "%s: unknown status %s", name, status_text);
    if (cases < 512)
      snprintf(names[cases], sizeof names[cases], "%s", name);
    cases++;
    char path[4500], line_tag[64];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    snprintf(line_tag, sizeof line_tag, ":%lld: ", line);

    for (int d = 0; d < 2; d++) {
      ts_dtype dtype = d ? TS_FLOAT32 : TS_FLOAT64;
      ts_coo *coo = (ts_coo *)&coo; /* must come back NULL */
      ts_mm_info info;
      ts_status got = ts_mm_read(ctx, path, dtype, &coo, &info);
      const char *message = ts_last_error(ctx);
      CHECK_MSG((int)got == expected, "%s: got %s, want %s (%s)", name, status_name(got), status_text, message);
      CHECK_MSG(strstr(message, line_tag) != NULL && strstr(message, path) != NULL,
                "%s: message '%s' does not name %s line %lld", name, message, path, line);
      CHECK_MSG(coo == NULL, "%s: a matrix was returned", name);
      if (got == TS_SUCCESS)
        ts_coo_destroy(coo);

      /* The same text from memory (gzip is for files only). */
      if (strstr(name, ".gz"))
        continue;
      size_t size = 0;
      char *text = slurp(path, &size);
      CHECK_MSG(text != NULL, "cannot read %s", path);
      if (!text)
        continue;
      coo = (ts_coo *)&coo;
      got = ts_mm_read_memory(ctx, text, size, dtype, &coo, NULL);
      message = ts_last_error(ctx);
      CHECK_MSG((int)got == expected, "%s from memory: got %s, want %s (%s)", name, status_name(got), status_text,
                message);
      CHECK_MSG(strncmp(message, "<memory>", 8) == 0 && strstr(message, line_tag) != NULL,
                "%s from memory: message '%s' does not name line %lld", name, message, line);
      CHECK(coo == NULL);
      if (got == TS_SUCCESS)
        ts_coo_destroy(coo);
      free(text);
    }
  }
  fclose(table);
  CHECK_MSG(cases >= 25, "only %d malformed cases", cases);

  /* Every file of the folder is in the table. */
  DIR *dir = opendir(folder);
  CHECK(dir != NULL);
  struct dirent *entry;
  while (dir && (entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.' || strcmp(entry->d_name, "EXPECTED.tsv") == 0)
      continue;
    CHECK_MSG(listed(names, cases < 512 ? cases : 512, entry->d_name), "%s is not listed in EXPECTED.tsv",
              entry->d_name);
  }
  if (dir)
    closedir(dir);
  printf("%d malformed files checked\n", cases);
  ts_context_destroy(ctx);
  return test_finish();
}
