/* The model's parameter reader and its numbers: a file cut anywhere (inside
 * a number above all, where strtod once ran past the end of the text) is
 * refused with the line named, numbers follow JSON's grammar (strtod's hex,
 * "inf" and "1." are not JSON), and valid numbers read as strtod gives them.
 * Run under valgrind (reads of the unset bytes past the text) and ASan. */
#include "test_common.h"

#include <stdbool.h>

static char tmp_path[4096];
static const char *temp_file(const char *name) {
  const char *dir = getenv("TESSERA_TEST_TMP");
  snprintf(tmp_path, sizeof tmp_path, "%s/%s", dir && *dir ? dir : ".", name);
  return tmp_path;
}

static bool write_file(const char *path, const char *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return false;
  bool ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

/* The valid parameter file of the seed corpus, in memory. */
static char *read_seed(size_t *size) {
  const char *data = getenv("TESSERA_TEST_DATA");
  char path[4096];
  snprintf(path, sizeof path, "%s/../../fuzz/corpus-model/h200.json", data && *data ? data : "tests/data");
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *text = malloc(1 << 20);
  *size = text ? fread(text, 1, 1 << 20, f) : 0;
  fclose(f);
  return text;
}

static int line_of(const char *text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset; i++)
    line += text[i] == '\n';
  return line;
}

static bool is_number_byte(char c) { return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == 'e' || c == 'E'; }

/* Every cut of the file is refused; cuts inside numbers name their line. */
static void test_truncations(const char *text, size_t size) {
  const char *path = temp_file("test_model_json_cut.json");
  ts_model_params params;
  int inside_numbers = 0;
  size_t end = size;
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' '))
    end--; /* the closing brace */
  for (size_t cut = 0; cut < end; cut++) {
    CHECK(write_file(path, text, cut));
    ts_status st = ts_model_params_read_json(NULL, path, &params);
    CHECK_MSG(st == TS_ERROR_PARSE, "cut at %zu of %zu: %s (%s)", cut, size, ts_status_string(st), ts_last_error(NULL));
    if (cut > 0 && is_number_byte(text[cut - 1]) && is_number_byte(text[cut])) {
      inside_numbers++;
      char line_tag[64];
      snprintf(line_tag, sizeof line_tag, ":%d: ", line_of(text, cut));
      CHECK_MSG(strstr(ts_last_error(NULL), path) && strstr(ts_last_error(NULL), line_tag), "cut at %zu: '%s'", cut,
                ts_last_error(NULL));
    }
  }
  CHECK(inside_numbers > 100);
  CHECK(write_file(path, text, size));
  CHECK_OK(NULL, ts_model_params_read_json(NULL, path, &params));
  printf("%zu cuts refused (%d inside numbers)\n", end, inside_numbers);
  remove(path);
}

/* The file with clock_ghz's value replaced by `number`. */
static ts_status read_with_clock(const char *text, const char *number, double *clock_ghz) {
  const char *key = strstr(text, "\"clock_ghz\": ");
  const char *value = key + strlen("\"clock_ghz\": ");
  const char *after = strchr(value, ',');
  size_t size = (size_t)(value - text) + strlen(number) + strlen(after) + 1;
  char *edited = malloc(size);
  if (!edited)
    return TS_ERROR_OUT_OF_MEMORY;
  snprintf(edited, size, "%.*s%s%s", (int)(value - text), text, number, after);
  const char *path = temp_file("test_model_json_number.json");
  CHECK(write_file(path, edited, strlen(edited)));
  free(edited);
  ts_model_params params;
  ts_status st = ts_model_params_read_json(NULL, path, &params);
  *clock_ghz = params.clock_ghz;
  remove(path);
  return st;
}

static void test_grammar(char *text) {
  const char *valid[] = {"1.98", "-0.5e-3", "2E+2", "0", "1e2", "123456789012345678901234567890", "0.000001"};
  for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
    double got = 0;
    CHECK_OK(NULL, read_with_clock(text, valid[i], &got));
    CHECK_MSG(got == strtod(valid[i], NULL), "%s read as %.17g", valid[i], got);
  }
  const char *invalid[] = {"0x10", "1.", ".5", "+1", "inf", "nan", "1e", "1e+", "--1", "-", "01", "1.5.2", "1e999"};
  for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
    double got = 0;
    ts_status st = read_with_clock(text, invalid[i], &got);
    CHECK_MSG(st == TS_ERROR_PARSE && strstr(ts_last_error(NULL), ":20: "), "'%s': %s (%s)", invalid[i],
              ts_status_string(st), ts_last_error(NULL));
  }
}

int main(void) {
  size_t size = 0;
  char *text = read_seed(&size);
  if (!text || size == 0) {
    free(text);
    return test_skip("fuzz/corpus-model/h200.json not found (TESSERA_TEST_DATA unset?)");
  }
  text[size] = '\0';
  CHECK(strstr(text, "\"clock_ghz\": ") != NULL && line_of(text, (size_t)(strstr(text, "\"clock_ghz\"") - text)) == 20);
  test_truncations(text, size);
  test_grammar(text);
  free(text);
  return test_finish();
}
