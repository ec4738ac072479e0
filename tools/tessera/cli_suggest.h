/* "Did you mean": the known name closest to a mistyped one. */
#ifndef TESSERA_CLI_SUGGEST_H
#define TESSERA_CLI_SUGGEST_H

/*
 * The name among @p candidates (@p count of them) closest to @p typed: one
 * that @p typed begins (an abbreviation), else one within a small edit
 * distance (insertions, deletions, substitutions and swaps of neighbours:
 * at most 1 for names of up to 4 characters, 2 up to 8, 3 beyond). NULL
 * when none is close, or when two are equally close.
 */
const char *cli_suggest(const char *typed, const char *const *candidates, int count);

#endif /* TESSERA_CLI_SUGGEST_H */
