/* Table-driven option parsing (see cli.h). */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The help's option column: "  --name M" padded to this width. */
#define HELP_INDENT 19

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see %s --help)\n", cmd->name);
    va_end(ap);
    return EXIT_USAGE;
}

int cli_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)s[0])) return 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return 0;
    if (end[0] == '^') {
        if (v != 2) return 0;
        const char *p = end + 1;
        if (!isdigit((unsigned char)p[0])) return 0;
        unsigned long long e = strtoull(p, &end, 10);
        if (*end || e > 62) return 0;
        *out = (size_t)1 << e;
        return 1;
    }
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K') shift = 10, end++;
    else if (*end == 'm' || *end == 'M') shift = 20, end++;
    else if (*end == 'g' || *end == 'G') shift = 30, end++;
    if (*end) return 0;
    if (shift && v > (ULLONG_MAX >> shift)) return 0;
    v <<= shift;
    if (v > SIZE_MAX) return 0;
    *out = (size_t)v;
    return 1;
}

/* Reads a comma separated list, item by item. */
static int parse_list(const cli_command *cmd, const cli_option *o, const char *arg, void *settings)
{
    char buf[512];
    if (strlen(arg) >= sizeof buf) return cli_usage_error(cmd, "%s list too long", o->what);
    strcpy(buf, arg);
    char *item = buf;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma) *comma = '\0';
        if (!*item) return cli_usage_error(cmd, "empty item in %s list '%s'", o->what, arg);
        if (!o->item(settings, item)) return cli_usage_error(cmd, "bad %s: '%s'", o->what, item);
        if (!comma) break;
        item = comma + 1;
    }
    return CLI_PROCEED;
}

static int parse_int(const cli_command *cmd, const cli_option *o, const char *name, const char *val, int *field)
{
    char *end;
    errno = 0;
    long x = strtol(val, &end, 10);
    if (errno || *end || !*val || x < 0 || x > CLI_INT_MAX)
        return cli_usage_error(cmd, "bad value '%s' for %s", val, name);
    if (x < o->lo || x > o->hi)
        return cli_usage_error(cmd, "%s must be between %ld and %ld", name, (long)o->lo, (long)o->hi);
    *field = (int)x;
    return CLI_PROCEED;
}

/* Stores the value val of option o (spelt name) into settings. */
static int set_value(const cli_command *cmd, const cli_option *o, const char *name, const char *val,
                     void *settings)
{
    void *field = (char *)settings + o->offset;
    char *end;
    switch (o->kind) {
    case CLI_FLAG: *(int *)field = 1; return CLI_PROCEED;
    case CLI_INT: return parse_int(cmd, o, name, val, (int *)field);
    case CLI_DOUBLE: {
        double x = strtod(val, &end);
        if (*end || !*val || !(x > o->lo) || x > o->hi) return cli_usage_error(cmd, "bad value '%s' for %s", val, name);
        *(double *)field = x;
        return CLI_PROCEED;
    }
    case CLI_U64: {
        errno = 0;
        unsigned long long x = strtoull(val, &end, 0);
        if (errno || *end || !*val) return cli_usage_error(cmd, "bad value '%s' for %s", val, name);
        *(uint64_t *)field = x;
        return CLI_PROCEED;
    }
    case CLI_SIZE: {
        size_t x;
        if (!cli_parse_size(val, &x) || x < o->lo || x > o->hi)
            return cli_usage_error(cmd, "bad value '%s' for %s%s", val, name, o->what ? o->what : "");
        *(size_t *)field = x;
        return CLI_PROCEED;
    }
    case CLI_STRING: *(const char **)field = val; return CLI_PROCEED;
    case CLI_CHOICE:
        if (!o->item(settings, val)) return cli_usage_error(cmd, "%s '%s'", o->what, val);
        return CLI_PROCEED;
    case CLI_LIST: return parse_list(cmd, o, val, settings);
    default: return cli_usage_error(cmd, "option %s: bad table entry", name);
    }
}

static const cli_option *find_option(const cli_command *cmd, const char *name)
{
    for (size_t k = 0; k < cmd->count; k++) {
        const cli_option *o = &cmd->options[k];
        if (!strcmp(name, o->name) || (o->short_name && !strcmp(name, o->short_name)) ||
            (o->alias && !strcmp(name, o->alias)))
            return o;
    }
    return NULL;
}

int cli_parse(const cli_command *cmd, void *settings, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        char name[64];
        const char *eq = strchr(a, '=');
        if (cmd->inline_values && a[0] == '-' && a[1] == '-' && eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
            a = name;
        }
        const cli_option *o = find_option(cmd, a);
        if (!o || (o->kind == CLI_FLAG && val)) return cli_usage_error(cmd, "unknown argument '%s'", argv[i]);
        if (o->kind == CLI_HELP) {
            cmd->help();
            return EXIT_OK;
        }
        if (o->kind != CLI_FLAG && !val) {
            if (i + 1 >= argc) return cli_usage_error(cmd, "option %s needs a value", a);
            val = argv[++i];
        }
        int rc = set_value(cmd, o, a, val, settings);
        if (rc != CLI_PROCEED) return rc;
    }
    return CLI_PROCEED;
}

void cli_print_options(const cli_command *cmd)
{
    for (size_t k = 0; k < cmd->count; k++) {
        const cli_option *o = &cmd->options[k];
        if (!o->help) continue;
        char label[64];
        snprintf(label, sizeof label, "%s%s%s%s%s", o->short_name ? o->short_name : "", o->short_name ? ", " : "",
                 o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
        printf("  %-*s", HELP_INDENT - 2, label);
        for (const char *p = o->help; *p; p++) {
            putchar(*p);
            if (*p == '\n') printf("%*s", HELP_INDENT, "");
        }
        if (o->help_tail) o->help_tail();
        putchar('\n');
    }
}
