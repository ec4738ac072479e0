/* Result tables: cells filled row by row, written as CSV (RFC 4180 quoting)
 * and printed as Markdown. */
#define _POSIX_C_SOURCE 200809L
#include "tsb.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct tsb_table {
  int ncolumns;
  char **columns;
  char **cells; /* row-major, rows * ncolumns, plus the row being filled */
  int filled;   /* cells appended so far */
  int capacity;
};

static char *copy_text(const char *text) {
  size_t n = strlen(text) + 1;
  char *out = malloc(n);
  if (out)
    memcpy(out, text, n);
  return out;
}

tsb_table *tsb_table_create(int ncolumns, const char *const *columns) {
  if (ncolumns <= 0 || !columns)
    return NULL;
  tsb_table *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->ncolumns = ncolumns;
  t->columns = calloc((size_t)ncolumns, sizeof *t->columns);
  if (!t->columns) {
    free(t);
    return NULL;
  }
  for (int c = 0; c < ncolumns; c++) {
    t->columns[c] = copy_text(columns[c] ? columns[c] : "");
    if (!t->columns[c]) {
      tsb_table_destroy(t);
      return NULL;
    }
  }
  return t;
}

void tsb_table_destroy(tsb_table *table) {
  if (!table)
    return;
  for (int c = 0; c < table->ncolumns; c++)
    free(table->columns ? table->columns[c] : NULL);
  for (int i = 0; i < table->filled; i++)
    free(table->cells[i]);
  free(table->columns);
  free(table->cells);
  free(table);
}

int tsb_table_cell(tsb_table *table, const char *format, ...) {
  if (!table || !format)
    return 1;
  if (table->filled == table->capacity) {
    int grown = table->capacity ? 2 * table->capacity : 64;
    char **cells = realloc(table->cells, (size_t)grown * sizeof *cells);
    if (!cells) {
      fprintf(stderr, "tsb_table_cell: out of memory\n");
      return 1;
    }
    table->cells = cells;
    table->capacity = grown;
  }
  va_list args;
  va_start(args, format);
  int n = vsnprintf(NULL, 0, format, args);
  va_end(args);
  if (n < 0)
    return 1;
  char *text = malloc((size_t)n + 1);
  if (!text)
    return 1;
  va_start(args, format);
  vsnprintf(text, (size_t)n + 1, format, args);
  va_end(args);
  table->cells[table->filled++] = text;
  return 0;
}

int tsb_table_rows(const tsb_table *table) { return table ? table->filled / table->ncolumns : 0; }

char *tsb_csv_escape(const char *field, char *out, size_t size) {
  if (!out || size == 0)
    return out;
  out[0] = '\0';
  if (!field)
    return out;
  size_t len = strlen(field);
  int quote = len > 0 && (field[0] == ' ' || field[len - 1] == ' ' || field[0] == '#');
  for (const char *p = field; *p && !quote; p++)
    quote = *p == ',' || *p == '"' || *p == '\n' || *p == '\r';
  size_t o = 0;
  if (quote && o + 1 < size)
    out[o++] = '"';
  for (const char *p = field; *p && o + 1 < size; p++) {
    if (*p == '"') {
      if (o + 2 >= size)
        break;
      out[o++] = '"';
    }
    out[o++] = *p;
  }
  if (quote && o + 1 < size)
    out[o++] = '"';
  out[o] = '\0';
  return out;
}

int tsb_make_parent_dirs(const char *path) {
  char dir[4096];
  if (!path || strlen(path) >= sizeof dir)
    return 1;
  strcpy(dir, path);
  char *slash = strrchr(dir, '/');
  if (!slash || slash == dir)
    return 0;
  *slash = '\0';
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
      return 1;
    *p = '/';
  }
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return 1;
  return 0;
}

static void write_csv_row(FILE *f, char *const *cells, int n) {
  char escaped[4096];
  for (int c = 0; c < n; c++) {
    fputs(tsb_csv_escape(cells[c], escaped, sizeof escaped), f);
    fputc(c + 1 < n ? ',' : '\n', f);
  }
}

int tsb_table_write_csv(const tsb_table *table, const tsb_metadata *meta, const char *path) {
  if (!table || !path)
    return 1;
  if (tsb_make_parent_dirs(path) != 0) {
    fprintf(stderr, "error: cannot create the folder of %s: %s\n", path, strerror(errno));
    return 1;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "error: cannot write %s: %s\n", path, strerror(errno));
    return 1;
  }
  if (meta)
    tsb_metadata_print(meta, f, "# ");
  write_csv_row(f, table->columns, table->ncolumns);
  int rows = tsb_table_rows(table);
  for (int r = 0; r < rows; r++)
    write_csv_row(f, table->cells + (size_t)r * table->ncolumns, table->ncolumns);
  int failed = ferror(f);
  if (fclose(f) != 0)
    failed = 1;
  if (failed)
    fprintf(stderr, "error: writing %s failed\n", path);
  return failed;
}

/* Markdown cells cannot hold '|' or line breaks. */
static void print_markdown_cell(FILE *f, const char *text) {
  fputc(' ', f);
  for (const char *p = text; *p; p++) {
    if (*p == '|')
      fputs("\\|", f);
    else if (*p == '\n' || *p == '\r')
      fputc(' ', f);
    else
      fputc(*p, f);
  }
  fputs(" |", f);
}

void tsb_table_print_markdown(const tsb_table *table, const tsb_metadata *meta, FILE *file) {
  if (!table || !file)
    return;
  if (meta) {
    tsb_metadata_print(meta, file, "- ");
    fputc('\n', file);
  }
  fputc('|', file);
  for (int c = 0; c < table->ncolumns; c++)
    print_markdown_cell(file, table->columns[c]);
  fputs("\n|", file);
  for (int c = 0; c < table->ncolumns; c++)
    fputs("---|", file);
  fputc('\n', file);
  int rows = tsb_table_rows(table);
  for (int r = 0; r < rows; r++) {
    fputc('|', file);
    for (int c = 0; c < table->ncolumns; c++)
      print_markdown_cell(file, table->cells[(size_t)r * table->ncolumns + c]);
    fputc('\n', file);
  }
  fflush(file);
}
