/* The closest known name to a mistyped one, by the optimal string alignment
 * distance (Levenshtein's edit distance with swaps of neighbouring
 * characters: Damerau, CACM 7(3), 1964; restricted so that no substring is
 * edited twice). */
#include "cli_suggest.h"

#include <stdbool.h>
#include <string.h>

/* Names longer than this are never close to anything. */
#define SUGGEST_MAX_LENGTH 63

static int minimum(int a, int b) { return a < b ? a : b; }

/* Optimal string alignment distance of a and b (both at most SUGGEST_MAX_LENGTH). */
static int edit_distance(const char *a, int la, const char *b, int lb) {
  static int d[SUGGEST_MAX_LENGTH + 1][SUGGEST_MAX_LENGTH + 1];
  for (int i = 0; i <= la; i++)
    d[i][0] = i;
  for (int j = 0; j <= lb; j++)
    d[0][j] = j;
  for (int i = 1; i <= la; i++) {
    for (int j = 1; j <= lb; j++) {
      int cost = a[i - 1] != b[j - 1];
      int best = minimum(minimum(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        best = minimum(best, d[i - 2][j - 2] + 1);
      d[i][j] = best;
    }
  }
  return d[la][lb];
}

static int allowed_distance(int length) { return length <= 4 ? 1 : (length <= 8 ? 2 : 3); }

const char *cli_suggest(const char *typed, const char *const *candidates, int count) {
  int typed_length = (int)strlen(typed);
  if (typed_length == 0 || typed_length > SUGGEST_MAX_LENGTH)
    return NULL;
  /* An abbreviation of exactly one name. */
  const char *prefixed = NULL;
  int prefix_matches = 0;
  for (int k = 0; k < count; k++) {
    if (strncmp(candidates[k], typed, (size_t)typed_length) == 0) {
      prefixed = candidates[k];
      prefix_matches++;
    }
  }
  if (prefix_matches == 1)
    return prefixed;
  const char *best = NULL;
  int best_distance = allowed_distance(typed_length) + 1;
  bool tie = false;
  for (int k = 0; k < count; k++) {
    int length = (int)strlen(candidates[k]);
    if (length > SUGGEST_MAX_LENGTH)
      continue;
    int distance = edit_distance(typed, typed_length, candidates[k], length);
    if (distance < best_distance) {
      best = candidates[k];
      best_distance = distance;
      tie = false;
    } else if (distance == best_distance && best) {
      tie = true;
    }
  }
  return tie ? NULL : best;
}
