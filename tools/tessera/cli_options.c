/* A command's options and positional arguments, parsed with getopt_long
 * (RETURN_IN_ORDER, so that options and positional arguments mix in any
 * order whatever POSIXLY_CORRECT says), with abbreviations refused and a
 * "did you mean" for a mistyped option. */
#include "cli_options.h"
#include "cli_errors.h"
#include "cli_suggest.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's value for options[i]; below it, a short option's own letter. */
#define LONG_VALUE_BASE 256
#define HELP_VALUE (LONG_VALUE_BASE + CLI_MAX_OPTIONS)
/* getopt_long returns this for a positional argument under RETURN_IN_ORDER ("-" first in optstring). */
#define POSITIONAL_VALUE 1

static const char *option_name(const cli_syntax *syntax, int value) {
  if (value == HELP_VALUE || value == 'h')
    return "--help";
  if (value >= LONG_VALUE_BASE && value < LONG_VALUE_BASE + syntax->option_count)
    return syntax->options[value - LONG_VALUE_BASE].name;
  for (int i = 0; i < syntax->option_count; i++)
    if (syntax->options[i].short_name == value)
      return syntax->options[i].name;
  return "?";
}

static int store_option_value(const char *command, cli_option *option, const char *value) {
  switch (option->kind) {
  case CLI_FLAG:
    return cli_usage_error(command, "option %s takes no value", option->name);
  case CLI_INT: {
    int64_t v;
    if (!cli_parse_integer(value, &v))
      return cli_usage_error(command, "invalid value '%s' for %s: expected an integer such as 4096, 1e6 or 2^20", value,
                             option->name);
    if (v < option->imin || v > option->imax)
      return cli_usage_error(command, "%s %s is out of range (%lld to %lld)", option->name, value,
                             (long long)option->imin, (long long)option->imax);
    *(int64_t *)option->target = v;
    return 0;
  }
  case CLI_REAL: {
    double v;
    if (!cli_parse_real(value, &v))
      return cli_usage_error(command, "invalid value '%s' for %s: expected a number such as 0.25 or 1e-3", value,
                             option->name);
    if (v < option->rmin || v > option->rmax)
      return cli_usage_error(command, "%s %s is out of range (%g to %g)", option->name, value, option->rmin,
                             option->rmax);
    *(double *)option->target = v;
    return 0;
  }
  case CLI_TEXT:
    if (!*value)
      return cli_usage_error(command, "option %s needs a non-empty value", option->name);
    *(const char **)option->target = value;
    return 0;
  case CLI_CHOICE: {
    for (int i = 0; option->choices[i]; i++) {
      if (strcmp(option->choices[i], value) == 0) {
        *(int *)option->target = i;
        return 0;
      }
    }
    char list[256] = "";
    for (int i = 0; option->choices[i]; i++) {
      if (i)
        strncat(list, ", ", sizeof list - strlen(list) - 1);
      strncat(list, option->choices[i], sizeof list - strlen(list) - 1);
    }
    return cli_usage_error(command, "invalid value '%s' for %s: expected one of %s", value, option->name, list);
  }
  }
  return cli_usage_error(command, "internal error: option %s has an unknown kind", option->name);
}

/* An unknown long option: say so, with the closest known name. */
static int unknown_long_option(const cli_syntax *syntax, const char *element) {
  char typed[128];
  size_t length = strcspn(element, "=");
  if (length >= sizeof typed)
    length = sizeof typed - 1;
  memcpy(typed, element, length);
  typed[length] = '\0';
  const char *names[CLI_MAX_OPTIONS + 1];
  int count = 0;
  for (int i = 0; i < syntax->option_count; i++)
    names[count++] = syntax->options[i].name;
  names[count++] = "--help";
  const char *closest = cli_suggest(typed, names, count);
  if (closest)
    return cli_usage_error(syntax->command, "unknown option '%s'; did you mean %s?", typed, closest);
  return cli_usage_error(syntax->command, "unknown option '%s'", typed);
}

/* The argv element that named the option getopt_long just returned: the
 * one before its value when the value was a separate argument. */
static const char *option_element(char **argv) {
  if (optarg && optind >= 2 && optarg == argv[optind - 1])
    return argv[optind - 2];
  return argv[optind - 1];
}

/* getopt_long takes "--rep" for "--repeat" when no other option starts so;
 * refuse that, so that a later option cannot change an old command line. */
static int refuse_abbreviation(const cli_syntax *syntax, const char *element, const char *name) {
  if (strncmp(element, "--", 2) != 0)
    return 0; /* a short option */
  size_t typed = strcspn(element, "=");
  if (typed == strlen(name))
    return 0;
  return cli_usage_error(syntax->command, "option '%.*s' is not written in full; did you mean %s?", (int)typed, element,
                         name);
}

int cli_parse(const cli_syntax *syntax, int argc, char **argv, const char **positional, int *positional_count) {
  const char *command = syntax->command;
  if (syntax->option_count > CLI_MAX_OPTIONS)
    return cli_usage_error(command, "internal error: more than %d options", CLI_MAX_OPTIONS);
  struct option long_options[CLI_MAX_OPTIONS + 2];
  /* "-": positional arguments in order; ":": a missing value returns ':'. */
  char short_options[3 * CLI_MAX_OPTIONS + 8] = "-:h";
  size_t short_length = strlen(short_options);
  for (int i = 0; i < syntax->option_count; i++) {
    const cli_option *option = &syntax->options[i];
    bool takes_value = option->kind != CLI_FLAG;
    long_options[i] =
        (struct option){option->name + 2, takes_value ? required_argument : no_argument, NULL, LONG_VALUE_BASE + i};
    if (option->short_name) {
      short_options[short_length++] = option->short_name;
      if (takes_value)
        short_options[short_length++] = ':';
    }
  }
  short_options[short_length] = '\0';
  long_options[syntax->option_count] = (struct option){"help", no_argument, NULL, HELP_VALUE};
  long_options[syntax->option_count + 1] = (struct option){NULL, 0, NULL, 0};

  int count = 0;
  optind = 0; /* glibc: start afresh (a command may parse twice: model's subcommands) */
  opterr = 0;
  for (;;) {
    int value = getopt_long(argc, argv, short_options, long_options, NULL);
    if (value == -1)
      break;
    if (value == POSITIONAL_VALUE) {
      if (count >= syntax->max_positional)
        return cli_usage_error(command, "unexpected argument '%s'", optarg);
      positional[count++] = optarg;
      continue;
    }
    if (value == ':')
      return cli_usage_error(command, "option %s needs a value", option_name(syntax, optopt));
    if (value == '?') {
      if (optopt >= LONG_VALUE_BASE)
        return cli_usage_error(command, "option %s takes no value", option_name(syntax, optopt));
      if (optopt == 0)
        return unknown_long_option(syntax, argv[optind - 1]);
      return cli_usage_error(command, "unknown option '-%c'", optopt);
    }
    const char *name = option_name(syntax, value);
    int rc = refuse_abbreviation(syntax, option_element(argv), name);
    if (rc != 0)
      return rc;
    if (value == HELP_VALUE || value == 'h') {
      fputs(syntax->help, stdout);
      return CLI_HELP_SHOWN;
    }
    cli_option *option = NULL;
    if (value >= LONG_VALUE_BASE) {
      option = &syntax->options[value - LONG_VALUE_BASE];
    } else {
      for (int i = 0; i < syntax->option_count && !option; i++)
        if (syntax->options[i].short_name == value)
          option = &syntax->options[i];
    }
    if (!option)
      return cli_usage_error(command, "unknown option '-%c'", value);
    if (option->kind == CLI_FLAG) {
      *(bool *)option->target = true;
    } else {
      rc = store_option_value(command, option, optarg);
      if (rc != 0)
        return rc;
    }
    option->seen = true;
  }
  /* After "--", getopt_long leaves the rest for us. */
  for (int i = optind; i < argc; i++) {
    if (count >= syntax->max_positional)
      return cli_usage_error(command, "unexpected argument '%s'", argv[i]);
    positional[count++] = argv[i];
  }
  if (count < syntax->min_positional)
    return cli_usage_error(command, "missing %s",
                           syntax->positional_names ? syntax->positional_names[count] : "argument");
  if (positional_count)
    *positional_count = count;
  return 0;
}

bool cli_option_seen(const cli_option *options, int option_count, const char *name) {
  for (int i = 0; i < option_count; i++)
    if (strcmp(options[i].name, name) == 0)
      return options[i].seen;
  return false;
}
