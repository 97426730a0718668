/*
 * pp: the parprim command.
 *
 *   pp info    what this library contains and what the machine offers
 *              (info.c)
 *   pp bench   check every primitive against the sequential reference, then
 *              time it and compare it with a plain device-to-device copy
 *              (bench.h: bench.c and the files it names)
 *
 * Options are read by cli.c from one table per command. The program keeps
 * no mutable global state: a command's settings and the state of its run
 * are structs passed from function to function.
 */
#include "bench.h"
#include "cli.h"
#include "info.h"

#include <stdio.h>
#include <string.h>

static void main_help(void)
{
    printf("usage: pp <command> [options]\n"
           "\n"
           "commands:\n"
           "  info     library version, backends (built, present, device, threads),\n"
           "           and what the auto backend picks\n"
           "  bench    check and time the primitives (pp bench --help)\n"
           "\n"
           "  pp --help, pp --version\n"
           "\n"
           "The environment variable PARPRIM_BACKEND (cpu, cuda, opencl) chooses the\n"
           "backend wherever auto is asked for.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        main_help();
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        main_help();
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        print_version();
        return EXIT_OK;
    }
    if (!strcmp(cmd, "info")) return cmd_info(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 2, argv + 2);
    fprintf(stderr, "pp: unknown command '%s' (see pp --help)\n", cmd);
    return EXIT_USAGE;
}
