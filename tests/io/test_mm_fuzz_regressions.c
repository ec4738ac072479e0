/* Replays the inputs that once broke the Matrix Market reader under the
 * fuzzer (tests/data/fuzz-regressions) and the fuzzer's seed corpus
 * (fuzz/corpus): each read returns a status, and a successful read gives a
 * COO that passes ts_coo_check and holds the declared entry count. */
#include "test_common.h"

#include <dirent.h>
#include <stdbool.h>

static char *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t capacity = 1 << 16, length = 0, got;
  char *data = malloc(capacity);
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

/* Feed every file of a folder (but README.md); returns how many were read
 * successfully, -1 when the folder is missing. */
static int replay_folder(ts_context *ctx, const char *folder, int *files) {
  DIR *dir = opendir(folder);
  if (!dir)
    return -1;
  int accepted = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.' || strcmp(entry->d_name, "README.md") == 0)
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", folder, entry->d_name);
    size_t size = 0;
    char *text = slurp(path, &size);
    CHECK_MSG(text != NULL, "cannot read %s", path);
    if (!text)
      continue;
    (*files)++;
    for (int d = 0; d < 2; d++) {
      ts_coo *coo = NULL;
      ts_mm_info info;
      ts_status st = ts_mm_read_memory(ctx, text, size, d ? TS_FLOAT32 : TS_FLOAT64, &coo, &info);
      CHECK_MSG(st >= TS_SUCCESS && st <= TS_ERROR_INTERNAL && st != TS_ERROR_INTERNAL, "%s: status %d", path, (int)st);
      if (st == TS_SUCCESS) {
        CHECK_MSG(coo != NULL && coo->nnz == info.entries, "%s: entry count", path);
        CHECK_MSG(coo && ts_coo_check(ctx, coo) == TS_SUCCESS, "%s: %s", path, ts_last_error(ctx));
        accepted += d == 0;
      } else {
        CHECK_MSG(coo == NULL, "%s: a failed read returned a matrix", path);
        CHECK_MSG(strstr(ts_last_error(ctx), "<memory>:") == ts_last_error(ctx), "%s: message '%s'", path,
                  ts_last_error(ctx));
      }
      ts_coo_destroy(coo);
    }
    free(text);
  }
  closedir(dir);
  return accepted;
}

int main(void) {
  const char *data = getenv("TESSERA_TEST_DATA");
  if (!data || !*data)
    return test_skip("TESSERA_TEST_DATA is not set");
  ts_context_options options = {0};
  options.backend = TS_BACKEND_CPU;
  ts_context *ctx = NULL;
  CHECK_OK(NULL, ts_context_create(&ctx, &options));
  char folder[4096];
  int regressions = 0, seeds = 0;
  snprintf(folder, sizeof folder, "%s/fuzz-regressions", data);
  int accepted_regressions = replay_folder(ctx, folder, &regressions);
  CHECK_MSG(accepted_regressions >= 0, "missing folder %s", folder);
  /* The seed corpus sits at fuzz/corpus, two levels above tests/data. */
  snprintf(folder, sizeof folder, "%s/../../fuzz/corpus", data);
  int accepted_seeds = replay_folder(ctx, folder, &seeds);
  CHECK_MSG(accepted_seeds >= 0, "missing folder %s", folder);
  /* The corpus holds both valid and invalid seeds. */
  CHECK(seeds > 0 && accepted_seeds > 0 && accepted_seeds < seeds);
  printf("%d regression inputs, %d seeds (%d accepted)\n", regressions, seeds, accepted_seeds);
  ts_context_destroy(ctx);
  return test_finish();
}
