/*
 * Table-driven option parsing for the pp commands.
 *
 * A command describes its options in one table of cli_option: the option's
 * name, its kind, the field it sets (offsetof into the command's settings
 * struct) and its help text. cli_parse walks argv with that table;
 * cli_print_options prints the table as the options section of the help.
 */
#ifndef PP_CLI_H
#define PP_CLI_H

#include <stddef.h>

/* Exit status of every pp command. */
enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* cli_parse's answer when the command should go on (no help, no error). */
#define CLI_PROCEED (-1)

/* Values of CLI_INT options must lie in [0, CLI_INT_MAX] ("bad value"
 * otherwise) before the option's own range is checked. */
#define CLI_INT_MAX 100000

typedef enum cli_kind {
    CLI_HELP,   /* prints the command's help; the command stops with EXIT_OK */
    CLI_FLAG,   /* int field set to 1; takes no value */
    CLI_INT,    /* int field: decimal in [lo, hi] */
    CLI_DOUBLE, /* double field: in (lo, hi] */
    CLI_U64,    /* uint64_t field: strtoull base 0 (decimal, 0x hex, 0 octal) */
    CLI_SIZE,   /* size_t field: a size as cli_parse_size reads it, in [lo, hi] */
    CLI_STRING, /* const char * field: the value itself */
    CLI_CHOICE, /* item() reads the value into the settings */
    CLI_LIST,   /* item() reads each item of a comma separated list */
} cli_kind;

/* Reads one value (CLI_CHOICE) or list item (CLI_LIST) into the settings
 * struct; returns 0 if the text is not valid. */
typedef int (*cli_item_fn)(void *settings, const char *text);

typedef struct cli_option {
    const char *name;       /* "--backend" */
    const char *short_name; /* "-q": another spelling, shown in the help as "-q, --quiet" */
    const char *alias;      /* another spelling not shown in the help ("--types") */
    const char *metavar;    /* "B" of "--backend B"; NULL for options without a value */
    cli_kind kind;
    size_t offset;          /* the field set (CLI_FLAG .. CLI_STRING): offsetof(settings, field) */
    double lo, hi;          /* the range of CLI_INT, CLI_DOUBLE, CLI_SIZE */
    cli_item_fn item;       /* CLI_CHOICE, CLI_LIST */
    const char *what;       /* CLI_LIST: the item's name in messages; CLI_CHOICE: the message
                               for a bad value ("unknown backend"); CLI_SIZE: a note after
                               "bad value 'V' for --name" */
    const char *help;       /* lines separated by '\n'; NULL: not shown in the help */
    void (*help_tail)(void);/* prints the end of the help's last line (text known at run time) */
} cli_option;

typedef struct cli_command {
    const char *name;       /* "pp bench": the prefix of its messages */
    const cli_option *options;
    size_t count;
    void (*help)(void);     /* prints the whole help (CLI_HELP) */
    int inline_values;      /* 1: "--name=value" is read as "--name value" */
} cli_command;

/* Parses argv[0 .. argc-1] into settings. Returns CLI_PROCEED, EXIT_OK
 * (the help was printed) or EXIT_USAGE (a message was printed). */
int cli_parse(const cli_command *cmd, void *settings, int argc, char **argv);

/* Prints "<command>: <message> (see <command> --help)" to stderr; returns
 * EXIT_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints the options that have help, one block each: "  --name M" padded
 * to 19 columns, then the help, its further lines indented to column 19. */
void cli_print_options(const cli_command *cmd);

/* Reads a size: 1000, 16M, 64K, 1G (binary suffixes) or 2^24. Returns 1 if
 * valid, with the size in *out. */
int cli_parse_size(const char *s, size_t *out);

#endif
