/* libFuzzer target: arbitrary bytes as a model parameter file ->
 * ts_model_params_read_json. Whatever is accepted must go through
 * ts_model_params_check without harm, write back, and read back. */
#include "tessera.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reader takes a path: each input goes through a file of this process. */
static const char *scratch_path(const char *suffix, char *path, size_t size) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, size, "%s/tessera-fuzz-model-%ld%s", dir && *dir ? dir : "/tmp", (long)getpid(), suffix);
  return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char in_path[512], out_path[512];
  scratch_path(".json", in_path, sizeof in_path);
  scratch_path("-back.json", out_path, sizeof out_path);
  FILE *f = fopen(in_path, "wb");
  if (!f)
    return 0;
  size_t written = fwrite(data, 1, size, f);
  fclose(f);
  if (written != size)
    return 0;
  ts_model_params params, again;
  if (ts_model_params_read_json(NULL, in_path, &params) == TS_SUCCESS) {
    (void)ts_model_params_check(NULL, &params); /* may refuse values the syntax allows */
    if (ts_model_params_write_json(NULL, &params, out_path) != TS_SUCCESS)
      abort();
    if (ts_model_params_read_json(NULL, out_path, &again) != TS_SUCCESS)
      abort();
    remove(out_path);
  }
  remove(in_path);
  return 0;
}
