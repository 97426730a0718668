/* pp info (see info.h). */
#include "info.h"

#include "cli.h"
#include "parprim.h"

#include <stdio.h>
#include <stdlib.h>

void print_version(void)
{
    unsigned v = pp_version();
    printf("parprim %u.%u.%u (pp built against %d.%d.%d)\n", v / 10000, v / 100 % 100, v % 100,
           PP_VERSION_MAJOR, PP_VERSION_MINOR, PP_VERSION_PATCH);
}

static void info_help(void)
{
    printf("usage: pp info\n\n"
           "Prints the library version, every backend with whether it is built\n"
           "into this library and finds a device (for those that do: the device and\n"
           "its threads and memory, and the algorithms pp_set_algorithm accepts), and which\n"
           "backend PP_BACKEND_AUTO picks (PARPRIM_BACKEND=cpu|cuda|opencl overrides).\n");
}

/* pp info has no options but its help. */
static const cli_option INFO_OPTIONS[] = {
    {.name = "--help", .short_name = "-h", .kind = CLI_HELP},
};

/* No inline values: "--help=x" is an unknown argument. */
static const cli_command INFO_COMMAND = {.name = "pp info", .options = INFO_OPTIONS,
    .count = sizeof INFO_OPTIONS / sizeof INFO_OPTIONS[0], .help = info_help, .inline_values = 0};

static void print_algorithms(pp_context *ctx)
{
    printf("      algorithms:");
    for (int p = 0; p < PP_PRIM_COUNT; p++) {
        printf("%s %s:", p ? ";" : "", pp_primitive_name((pp_primitive)p));
        for (int a = 0; a < PP_ALGO_COUNT; a++)
            if (pp_set_algorithm(ctx, (pp_primitive)p, (pp_algorithm)a) == PP_SUCCESS)
                printf(" %s", pp_algorithm_name((pp_algorithm)a));
        pp_set_algorithm(ctx, (pp_primitive)p, PP_ALGO_AUTO);
    }
    printf("\n");
}

static void print_memory(pp_context *ctx)
{
    pp_memory_info mi;
    if (pp_context_memory(ctx, &mi) != PP_SUCCESS) return;
    printf("      memory: %.2f GiB total, ", (double)mi.total_bytes / 1073741824.0);
    if (mi.available_bytes) printf("%.2f GiB available, ", (double)mi.available_bytes / 1073741824.0);
    else printf("available unknown, ");
    printf("largest allocation %.2f GiB\n", (double)mi.max_alloc_bytes / 1073741824.0);
}

/* One line for the backend; for one that finds a device, its details. */
static void print_backend(pp_backend b)
{
    pp_status st = pp_backend_status(b);
    const char *built = st == PP_ERROR_UNSUPPORTED ? "not built" : "built";
    const char *present = st == PP_SUCCESS ? "present" : "not present";
    printf("  %-7s %-9s  %-11s  (%s)\n", pp_backend_name(b), built, present, pp_status_string(st));
    if (st != PP_SUCCESS) return;
    pp_options o = PP_OPTIONS_INIT;
    o.backend = b;
    pp_context *ctx = NULL;
    pp_status cs = pp_create(&ctx, &o);
    if (cs != PP_SUCCESS) {
        printf("      cannot create a context: %s: %s\n", pp_status_string(cs), pp_last_error(NULL));
        return;
    }
    printf("      device: %s\n", pp_context_device_name(ctx));
    printf("      threads: %d\n", pp_context_threads(ctx));
    print_memory(ctx);
    print_algorithms(ctx);
    pp_destroy(ctx);
}

/* What PP_BACKEND_AUTO picks, and why. */
static int print_auto(void)
{
    const char *env = getenv("PARPRIM_BACKEND");
    pp_context *ctx = NULL;
    pp_status cs = pp_create(&ctx, NULL);
    char why[96];
    if (env && *env) snprintf(why, sizeof why, "PARPRIM_BACKEND=%.60s", env);
    else snprintf(why, sizeof why, "PARPRIM_BACKEND not set");
    if (cs != PP_SUCCESS) {
        printf("auto: fails (%s): %s: %s\n", why, pp_status_string(cs), pp_last_error(NULL));
        return EXIT_FAILED;
    }
    printf("auto: %s (%s): %s\n", pp_backend_name(pp_context_backend(ctx)), why, pp_context_device_name(ctx));
    pp_destroy(ctx);
    return EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
    int rc = cli_parse(&INFO_COMMAND, NULL, argc, argv);
    if (rc != CLI_PROCEED) return rc;
    print_version();
    printf("backends:\n");
    static const pp_backend list[] = {PP_BACKEND_CPU, PP_BACKEND_CUDA, PP_BACKEND_OPENCL};
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) print_backend(list[i]);
    return print_auto();
}
