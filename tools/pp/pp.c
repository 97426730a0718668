/*
 * pp: the parprim command.
 *
 *   pp info    what this library contains and what the machine offers
 *   pp bench   check every primitive against the sequential reference, then
 *              time it and compare it with a plain device-to-device copy
 *
 * Byte model (the bytes a primitive must move at the least: every input
 * read once, every output written once), used for GB/s and for the copy
 * comparison; s = element size, n = elements, k = elements selected:
 *
 *   reduce             n*s
 *   scan               2*n*s                      read in, write out
 *   histogram          n*s + nbins*8              read samples, write counts
 *   select_if, unique  n*s + k*s
 *   select_flagged     n*s + n + k*s              plus one flag byte each
 *   partition_if       2*n*s                      every element is written
 *   sort (keys)        2*n*s                      one read and one write
 *   sort_pairs         2*n*s + 2*n*value_size
 *
 * "copy fraction" is t_copy / t_primitive, where t_copy is the time pp_copy
 * takes to copy bytes/2 from one buffer to another (so it also moves
 * `bytes`: one read and one write), measured in the same run with the same
 * timing method. 1.0 means the primitive is as fast as a copy of its data.
 */
#define _POSIX_C_SOURCE 200809L

#include "parprim.h"
#include "reference.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

#define ADAPTIVE_RUNS 10
#define MIN_REPEAT_ADAPTIVE 3
#define MAX_REPEAT_ADAPTIVE 200
#define HIST_EVEN_BINS 1024
#define HIST_RANGE_BINS 64
#define SORT_VALUE_SIZE 4

/* ======================================================================== */
/* Small utilities                                                          */
/* ======================================================================== */

static double now_seconds(void)
{
#if defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}

static void *xmalloc(size_t bytes)
{
    return malloc(bytes ? bytes : 1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* splitmix64: small, fast, and good enough for benchmark data. */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int type_is_float(pp_type t) { return t == PP_F32 || t == PP_F64; }
static int type_is_signed(pp_type t) { return t == PP_I8 || t == PP_I16 || t == PP_I32 || t == PP_I64; }
static unsigned type_bits(pp_type t) { return (unsigned)(8 * pp_type_size(t)); }

/* Stores the integer whose offset from the type's minimum is off (taken
 * modulo 2^bits): offset 0 is the smallest value, 2^bits - 1 the largest. */
static void put_offset(pp_type t, void *dst, uint64_t off)
{
    unsigned b = type_bits(t);
    if (type_is_signed(t)) off ^= (uint64_t)1 << (b - 1);
    switch (b) {
    case 8: { uint8_t v = (uint8_t)off; memcpy(dst, &v, 1); break; }
    case 16: { uint16_t v = (uint16_t)off; memcpy(dst, &v, 2); break; }
    case 32: { uint32_t v = (uint32_t)off; memcpy(dst, &v, 4); break; }
    default: memcpy(dst, &off, 8); break;
    }
}

static void put_float(pp_type t, void *dst, double x)
{
    if (t == PP_F32) {
        float f = (float)x;
        memcpy(dst, &f, sizeof f);
    } else {
        memcpy(dst, &x, sizeof x);
    }
}

/* Parses a size: 1000, 16M, 64K, 1G (binary suffixes) or 2^24. */
static int parse_size(const char *s, size_t *out)
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

/* Writes s as a JSON string literal. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double x)
{
    if (x != x || x < 0) fputs("null", f);
    else fprintf(f, "%.6g", x);
}

/* ======================================================================== */
/* pp info                                                                  */
/* ======================================================================== */

static void print_version(void)
{
    unsigned v = pp_version();
    printf("parprim %u.%u.%u (pp built against %d.%d.%d)\n", v / 10000, v / 100 % 100, v % 100,
           PP_VERSION_MAJOR, PP_VERSION_MINOR, PP_VERSION_PATCH);
}

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

static int cmd_info(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: pp info\n\n"
                   "Prints the library version, every backend with whether it is built\n"
                   "into this library and finds a device (for those that do: the device and\n"
                   "its threads and memory, and the algorithms pp_set_algorithm accepts), and which\n"
                   "backend PP_BACKEND_AUTO picks (PARPRIM_BACKEND=cpu|cuda|opencl overrides).\n");
            return EXIT_OK;
        }
        fprintf(stderr, "pp info: unknown argument '%s' (see pp info --help)\n", argv[i]);
        return EXIT_USAGE;
    }
    print_version();
    printf("backends:\n");
    static const pp_backend list[] = {PP_BACKEND_CPU, PP_BACKEND_CUDA, PP_BACKEND_OPENCL};
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
        pp_status st = pp_backend_status(list[i]);
        const char *built = st == PP_ERROR_UNSUPPORTED ? "not built" : "built";
        const char *present = st == PP_SUCCESS ? "present" : "not present";
        printf("  %-7s %-9s  %-11s  (%s)\n", pp_backend_name(list[i]), built, present, pp_status_string(st));
        if (st != PP_SUCCESS) continue;
        pp_options o = PP_OPTIONS_INIT;
        o.backend = list[i];
        pp_context *ctx = NULL;
        pp_status cs = pp_create(&ctx, &o);
        if (cs != PP_SUCCESS) {
            printf("      cannot create a context: %s: %s\n", pp_status_string(cs), pp_last_error(NULL));
            continue;
        }
        printf("      device: %s\n", pp_context_device_name(ctx));
        printf("      threads: %d\n", pp_context_threads(ctx));
        pp_memory_info mi;
        if (pp_context_memory(ctx, &mi) == PP_SUCCESS) {
            printf("      memory: %.2f GiB total, ", (double)mi.total_bytes / 1073741824.0);
            if (mi.available_bytes) printf("%.2f GiB available, ", (double)mi.available_bytes / 1073741824.0);
            else printf("available unknown, ");
            printf("largest allocation %.2f GiB\n", (double)mi.max_alloc_bytes / 1073741824.0);
        }
        print_algorithms(ctx);
        pp_destroy(ctx);
    }
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

/* ======================================================================== */
/* pp bench: configuration                                                  */
/* ======================================================================== */

typedef enum variant {
    V_REDUCE, V_SCAN_INCL, V_SCAN_EXCL, V_HIST_EVEN, V_HIST_RANGE, V_SELECT_IF,
    V_SELECT_FLAGGED, V_UNIQUE, V_PARTITION_IF, V_SORT_KEYS, V_SORT_PAIRS, V_COUNT
} variant;

static const struct {
    const char *name;
    pp_primitive prim;
    int uses_op;
} VARIANTS[V_COUNT] = {
    {"reduce", PP_PRIM_REDUCE, 1},
    {"scan_inclusive", PP_PRIM_SCAN, 1},
    {"scan_exclusive", PP_PRIM_SCAN, 1},
    {"histogram_even", PP_PRIM_HISTOGRAM, 0},
    {"histogram_range", PP_PRIM_HISTOGRAM, 0},
    {"select_if", PP_PRIM_SELECT, 0},
    {"select_flagged", PP_PRIM_SELECT, 0},
    {"unique", PP_PRIM_SELECT, 0},
    {"partition_if", PP_PRIM_SELECT, 0},
    {"sort_keys", PP_PRIM_SORT, 0},
    {"sort_pairs", PP_PRIM_SORT, 0},
};

/* Histogram data sets (--data), after the three of the course notes'
 * histogram measurements: random, increasing (sample i in bin i mod B),
 * constant (every sample in one bin: all atomics hit one counter). */
typedef enum dataset { D_RAND, D_INC, D_CONST, D_COUNT } dataset;
static const char *const DATASET_NAMES[D_COUNT] = {"rand", "inc", "const"};
#define MAX_BINS ((size_t)1 << 24)

typedef struct config {
    pp_backend backend;
    int device;
    int threads;
    int variants[V_COUNT];
    int types[PP_TYPE_COUNT];
    int ops[PP_OP_COUNT];
    int algos[PP_ALGO_COUNT];
    int algo_all;      /* --algorithm all: skip those the backend lacks */
    size_t sizes[16];
    int nsizes;
    int sweep, sweep_large;
    int repeat;        /* 0: adaptive, see time_runs */
    int warmup;
    double budget;     /* seconds of timed runs per row when adaptive */
    uint64_t seed;
    const char *json;
    int quiet;
    size_t bins;       /* --bins: 0 = the defaults HIST_EVEN_BINS, HIST_RANGE_BINS */
    int datas[D_COUNT];/* --data: histogram data sets, in the order given */
    int ndatas;
    int load;          /* --load N: also time each row beside N busy processes */
} config;

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("pp bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see pp bench --help)\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

static void bench_help(void)
{
    char names[512] = "";
    size_t line = 28; /* "                   or names: " */
    for (int a = 1; a < PP_ALGO_COUNT; a++) {
        size_t len = strlen(names);
        const char *nm = pp_algorithm_name((pp_algorithm)a);
        int wrap = a > 1 && line + 2 + strlen(nm) > 79;
        snprintf(names + len, sizeof names - len, "%s%s%s", a > 1 ? "," : "", a == 1 ? "" : wrap ? "\n                   " : " ",
                 nm);
        line = wrap ? 19 + strlen(nm) : line + (a > 1 ? 2 : 0) + strlen(nm);
    }
    printf(
        "usage: pp bench [options]\n"
        "\n"
        "Checks each primitive against the sequential reference, then times it.\n"
        "With no options: every primitive variant for u32 and f32 at n = 2^24 on the\n"
        "auto backend.\n"
        "\n"
        "options (lists are comma separated; an option may be repeated):\n"
        "  --backend B      auto (default; PARPRIM_BACKEND decides if set), cpu, cuda, opencl\n"
        "  --device D       GPU index on cuda and opencl (default 0)\n"
        "  --threads T      cpu worker threads (default 0: all cores)\n"
        "  --primitive P    all (default), or groups reduce, scan, histogram, select, sort,\n"
        "                   or variants scan_inclusive, scan_exclusive, histogram_even,\n"
        "                   histogram_range, select_if, select_flagged, unique,\n"
        "                   partition_if, sort_keys, sort_pairs\n"
        "  --type T         u32,f32 (default), any of i8 u8 i16 u16 i32 u32 i64 u64 f32 f64,\n"
        "                   or all, ints, floats\n"
        "  --op O           operators of reduce and scan: sum (default), prod, min, max,\n"
        "                   and, or, xor, or all (bitwise ones are skipped on floats)\n"
        "  --n N            sizes: 1000, 64K, 16M, 2^24 (default 2^24)\n"
        "  --sweep          sizes 2^10, 2^14, 2^18, 2^22, 2^24\n"
        "  --sweep-large    the sweep plus 2^26\n"
        "  --algorithm A    auto (default); all: every algorithm the backend accepts for\n"
        "                   the primitive, one row each, with the ratio t / t(auto);\n"
        "                   or names: %s\n"
        "  --bins B         bins of histogram_even and histogram_range (default %d and %d;\n"
        "                   1 to 2^24)\n"
        "  --data D         histogram samples, a list of data sets (rows for each, labelled\n"
        "                   histogram_even[D]): rand (default): uniform as below;\n"
        "                   inc: sample i = i mod B, range [0, B) (histogram_range: edges\n"
        "                   0, 1, ..., B), so that sample i lands in bin i mod B - for\n"
        "                   floats too (the samples are the integers 0 .. B-1 as floats);\n"
        "                   skipped where B does not fit the type (i8: B <= 127);\n"
        "                   (histogram_range rand and const are skipped where B + 1\n"
        "                   distinct edges do not fit the type: 8-bit types B <= 255)\n"
        "                   const: every sample the midpoint of the rand range (0.0 for\n"
        "                   floats), bounds as rand, so all samples fall in one bin\n"
        "  --repeat R       exactly R timed runs (default: adaptive, within the budget S:\n"
        "                   stop at %d runs that took S/10, or %d that took S, or any\n"
        "                   number that took 3*S; %d at most)\n"
        "  --budget S       seconds of timed runs per row when adaptive (default 0.5)\n"
        "  --warmup W       untimed runs before timing (default 1; a check run that took\n"
        "                   over 0.2 s counts as the warm-up)\n"
        "  --load N         also time every row beside N busy processes (one spinning\n"
        "                   loop each, started before and killed after the row's loaded\n"
        "                   runs): columns 'loaded ms' and 'x idle' (loaded median / idle\n"
        "                   median); shows how a primitive shares the cores\n"
        "  --seed X         seed of the random input (default 1)\n"
        "  --json FILE      also write {\"header\": {...}, \"rows\": [...]} to FILE\n"
        "  -q, --quiet      print only the table\n"
        "\n"
        "Each row: one run is checked against the reference (tests/reference.h); then,\n"
        "after the warm-up, every timed run is a monotonic clock around the call and\n"
        "pp_synchronize. The median and the minimum are printed. Sorts copy the\n"
        "unsorted input from a pristine buffer (pp_copy) before each run, untimed.\n"
        "\n"
        "Input: integers uniform over all their bits; floats uniform in [-1, 1), except\n"
        "for float sum and prod, which get small integers (or +-1 for prod) so that any\n"
        "order of evaluation gives the exact result and the check can be bit-exact.\n"
        "histogram_even (rand): B bins over the type's range (floats: [-1, 1));\n"
        "histogram_range (rand): B bins with evenly spaced edges over the same range;\n"
        "select_if and partition_if: x < midpoint (about half selected); select_flagged:\n"
        "random 0/1 flags; unique: each element repeats its predecessor with\n"
        "probability 1/2; sort_pairs: u32 values.\n"
        "\n"
        "GB/s counts the bytes the primitive must move (s = element size, k = selected):\n"
        "  reduce n*s; scan 2*n*s; histogram n*s + nbins*8; select_if and unique\n"
        "  n*s + k*s; select_flagged n*s + n + k*s; partition_if 2*n*s;\n"
        "  sort 2*n*s (pairs: + 2*n*value_size): one read and one write.\n"
        "copy fraction = t_copy / t_primitive, t_copy being the time of pp_copy of\n"
        "bytes/2 (which moves the same bytes), timed the same way in the same run;\n"
        "1.0 = as fast as a copy.\n"
        "\n"
        "ops: operator applications of the textbook algorithm on one array of n, as the\n"
        "course notes count them (exact 64-bit integers; '-' and JSON null where the\n"
        "notes count none or the count passes 2^64). The GPU versions scan large n in\n"
        "blocks and levels, so their real count differs; this is the algorithm's count.\n"
        "  reduce, every algorithm:  n - 1 (a reduction tree or the sequential chain)\n"
        "  scan sequential:          n - 1\n"
        "  scan naive:               n(n-1)/2 (output i combines i+1 inputs)\n"
        "  scan hillis-steele-horn:  sum of n - d over steps d = 1, 2, 4, ... < n\n"
        "                            = n*L - (2^L - 1), L = ceil(log2 n); for n a power\n"
        "                            of two the notes' n log2 n - (n - 1)\n"
        "  scan blelloch(-padded):   the inclusive work-efficient scan of the notes:\n"
        "                            reduction phase sum floor(n/2s), s = 1, 2, ... < n,\n"
        "                            plus distribution phase sum floor((n-s)/2s),\n"
        "                            s = 2^(L-2) .. 1; for n a power of two\n"
        "                            (n-1) + (n-2 - (log2 n - 1)) = 2n - log2 n - 2, the\n"
        "                            sum of the notes' per-step counts (one of them\n"
        "                            closes with 2n - log2 n - 1, one too many); the\n"
        "                            exclusive sweep with swaps would do 2(n-1)\n"
        "  scan_exclusive rows: the same counts (the inclusive algorithm run on the input\n"
        "  shifted by one). Others (warp-shuffle, reduce-then-scan, decoupled-lookback,\n"
        "  auto scan; histogram, select, sort): '-'.\n"
        "\n"
        "Exit status: 0 all checks passed (a primitive the backend does not support is\n"
        "reported and skipped), 1 a check failed or a library call failed, 2 bad usage.\n",
        names, HIST_EVEN_BINS, HIST_RANGE_BINS, ADAPTIVE_RUNS, MIN_REPEAT_ADAPTIVE, MAX_REPEAT_ADAPTIVE);
}

static int parse_list(const char *arg, int (*one)(config *, const char *), config *cfg, const char *what)
{
    char buf[512];
    if (strlen(arg) >= sizeof buf) return usage_error("%s list too long", what);
    strcpy(buf, arg);
    char *save = buf;
    for (;;) {
        char *comma = strchr(save, ',');
        if (comma) *comma = '\0';
        if (!*save) return usage_error("empty item in %s list '%s'", what, arg);
        if (!one(cfg, save)) return usage_error("bad %s: '%s'", what, save);
        if (!comma) break;
        save = comma + 1;
    }
    return EXIT_OK;
}

static int one_primitive(config *c, const char *s)
{
    struct { const char *g; variant b, e; } groups[] = {
        {"all", V_REDUCE, V_SORT_PAIRS},      {"reduce", V_REDUCE, V_REDUCE},
        {"scan", V_SCAN_INCL, V_SCAN_EXCL},   {"histogram", V_HIST_EVEN, V_HIST_RANGE},
        {"select", V_SELECT_IF, V_PARTITION_IF}, {"sort", V_SORT_KEYS, V_SORT_PAIRS},
        {"partition", V_PARTITION_IF, V_PARTITION_IF},
    };
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (!strcmp(s, groups[i].g)) {
            for (int v = groups[i].b; v <= (int)groups[i].e; v++) c->variants[v] = 1;
            return 1;
        }
    for (int v = 0; v < V_COUNT; v++)
        if (!strcmp(s, VARIANTS[v].name)) {
            c->variants[v] = 1;
            return 1;
        }
    return 0;
}

static int one_type(config *c, const char *s)
{
    int any = 0;
    for (int t = 0; t < PP_TYPE_COUNT; t++) {
        int fl = type_is_float((pp_type)t);
        if (!strcmp(s, "all") || (!strcmp(s, "ints") && !fl) || (!strcmp(s, "floats") && fl) ||
            !strcmp(s, pp_type_name((pp_type)t)))
            c->types[t] = 1, any = 1;
    }
    return any;
}

static int one_op(config *c, const char *s)
{
    int any = 0;
    for (int o = 0; o < PP_OP_COUNT; o++)
        if (!strcmp(s, "all") || !strcmp(s, pp_op_name((pp_op)o))) c->ops[o] = 1, any = 1;
    return any;
}

static int one_algo(config *c, const char *s)
{
    int any = 0;
    if (!strcmp(s, "all")) c->algo_all = 1;
    for (int a = 0; a < PP_ALGO_COUNT; a++)
        if (!strcmp(s, "all") || !strcmp(s, pp_algorithm_name((pp_algorithm)a))) c->algos[a] = 1, any = 1;
    return any;
}

static int one_size(config *c, const char *s)
{
    size_t n;
    if (!parse_size(s, &n) || n == 0) return 0;
    if (c->nsizes >= (int)(sizeof c->sizes / sizeof c->sizes[0])) return 0;
    c->sizes[c->nsizes++] = n;
    return 1;
}

static int one_data(config *c, const char *s)
{
    for (int d = 0; d < D_COUNT; d++)
        if (!strcmp(s, DATASET_NAMES[d])) {
            for (int i = 0; i < c->ndatas; i++)
                if (c->datas[i] == d) return 1; /* listed twice: once is enough */
            c->datas[c->ndatas++] = d;
            return 1;
        }
    return 0;
}

/* ======================================================================== */
/* pp bench: operation counts                                               */
/* ======================================================================== */

/* ceil(log2 n) for n >= 1. */
static unsigned ceil_log2(uint64_t n)
{
    unsigned l = 0;
    while (l < 64 && ((uint64_t)1 << l) < n) l++;
    return l;
}

/* Operator applications of the textbook algorithm on one array of n, as
 * the course notes count them (docs/algorithms.md, pp bench --help).
 * Returns 0 where the notes count nothing for the algorithm or the count
 * does not fit 64 bits; else 1 with the count in *ops. Exact integers. */
static int algo_ops(variant v, pp_algorithm a, size_t n_, uint64_t *ops)
{
    uint64_t n = (uint64_t)n_;
    if (n == 0) return 0;
    if (v == V_REDUCE) {
        /* every reduction tree and the sequential loop: n - 1 (000) */
        *ops = n - 1;
        return 1;
    }
    if (v != V_SCAN_INCL && v != V_SCAN_EXCL) return 0;
    switch (a) {
    case PP_ALGO_SEQUENTIAL: /* y[i] = y[i-1] op x[i]: n - 1 (002) */
        *ops = n - 1;
        return 1;
    case PP_ALGO_NAIVE: { /* output i combines i + 1 inputs: i ops; sum n(n-1)/2 (000) */
        uint64_t x = n, y = n - 1;
        if (x % 2 == 0) x /= 2;
        else y /= 2;
        if (y && x > UINT64_MAX / y) return 0;
        *ops = x * y;
        return 1;
    }
    case PP_ALGO_HILLIS_STEELE: { /* steps d = 1, 2, 4, ... < n do n - d each (002) */
        unsigned l = ceil_log2(n);
        if (l >= 64 || (l && n > UINT64_MAX / l)) return 0;
        *ops = n * l - ((((uint64_t)1) << l) - 1); /* n*L - (2^L - 1), L = ceil(log2 n) */
        return 1;
    }
    case PP_ALGO_BLELLOCH:
    case PP_ALGO_BLELLOCH_PADDED: {
        /* Inclusive work-efficient scan of 000/002 run on one array of n
         * (bounds-checked): reduction phase, stride s = 1, 2, ... < n:
         * floor(n / 2s) ops; distribution phase, s = 2^(L-2) down to 1:
         * floor((n - s) / 2s) ops. n a power of two: (n - 1) + (n - 2 -
         * (log2 n - 1)) = 2n - log2 n - 2. */
        uint64_t up = 0, down = 0;
        for (uint64_t s = 1; s < n; s *= 2) up += n / (2 * s);
        unsigned l = ceil_log2(n);
        for (uint64_t s = l >= 2 ? (uint64_t)1 << (l - 2) : 0; s > 0; s /= 2) down += (n - s) / (2 * s);
        *ops = up + down;
        return 1;
    }
    default: return 0; /* warp-shuffle multiscan, reduce-then-scan, look-back, auto */
    }
}

/* ======================================================================== */
/* pp bench: one case (variant, type, op, n) and its buffers                */
/* ======================================================================== */

typedef struct bench_case {
    variant v;
    pp_type type;
    pp_op op;
    size_t n, esz;
    char label[48];
    dataset data;         /* histograms: the --data set */
    int skipped;          /* setup refused the case (not a failure): the message says why */

    /* host */
    void *h_in;
    uint8_t *h_flags;
    uint32_t *h_vals;
    unsigned char lower[8], upper[8], value[8];
    void *h_edges;
    size_t nbins;
    void *h_out;          /* downloads */
    uint32_t *h_out_vals;
    uint64_t h_count;

    /* reference results, computed on first use */
    int ref_ready;
    void *r_out;
    uint32_t *r_vals;
    uint64_t r_count;

    /* context memory */
    void *d_in, *d_out, *d_flags, *d_vals, *d_vals_work, *d_count;
} bench_case;

static void case_free(pp_context *ctx, bench_case *c)
{
    pp_free(ctx, c->d_in);
    pp_free(ctx, c->d_out);
    pp_free(ctx, c->d_flags);
    pp_free(ctx, c->d_vals);
    pp_free(ctx, c->d_vals_work);
    pp_free(ctx, c->d_count);
    free(c->h_in);
    free(c->h_flags);
    free(c->h_vals);
    free(c->h_edges);
    free(c->h_out);
    free(c->h_out_vals);
    free(c->r_out);
    free(c->r_vals);
    memset(c, 0, sizeof *c);
}

/* Bytes of the output array (and of its host copies). */
static size_t out_bytes(const bench_case *c)
{
    switch (c->v) {
    case V_REDUCE: return c->esz;
    case V_HIST_EVEN:
    case V_HIST_RANGE: return c->nbins * sizeof(uint64_t);
    default: return c->n * c->esz;
    }
}

static void fill_uniform(pp_type t, void *buf, size_t n)
{
    size_t esz = pp_type_size(t);
    char *p = (char *)buf;
    if (!type_is_float(t)) {
        size_t bytes = n * esz, i = 0;
        for (; i + 8 <= bytes; i += 8) {
            uint64_t r = rnd();
            memcpy(p + i, &r, 8);
        }
        if (i < bytes) {
            uint64_t r = rnd();
            memcpy(p + i, &r, bytes - i);
        }
        return;
    }
    if (t == PP_F32) {
        float *f = (float *)buf;
        for (size_t i = 0; i < n; i++) f[i] = (float)(rnd() >> 40) * 0x1p-23f - 1.0f;
    } else {
        double *d = (double *)buf;
        for (size_t i = 0; i < n; i++) d[i] = (double)(rnd() >> 11) * 0x1p-52 - 1.0;
    }
}

/* Float input for sum: integers in [-K, K] with n*K <= 2^(mantissa bits),
 * so that every partial sum, in any order, is exact and the check can be
 * bit-exact. (Beyond n = 2^24 f32 values are -1, 0, 1: a random walk whose
 * partial sums stay far below 2^24.) Prod: +-1. */
static void fill_exact(pp_type t, pp_op op, void *buf, size_t n)
{
    size_t esz = pp_type_size(t);
    char *p = (char *)buf;
    if (op == PP_PROD) {
        for (size_t i = 0; i < n; i++) put_float(t, p + i * esz, (rnd() & 1) ? 1.0 : -1.0);
        return;
    }
    uint64_t full = (uint64_t)1 << (t == PP_F32 ? 24 : 53);
    uint64_t k = full / n;
    if (k < 1) k = 1;
    if (k > ((uint64_t)1 << 20)) k = (uint64_t)1 << 20;
    for (size_t i = 0; i < n; i++) put_float(t, p + i * esz, (double)(int64_t)(rnd() % (2 * k + 1)) - (double)k);
}

/* The value at fraction num/den of the type's range (ints: of the offset
 * range [0, 2^bits - 1]; floats: of [-1, 1]). */
static void put_fraction(pp_type t, void *dst, uint64_t num, uint64_t den)
{
    if (type_is_float(t)) {
        put_float(t, dst, -1.0 + 2.0 * (double)num / (double)den);
        return;
    }
    unsigned b = type_bits(t);
    uint64_t off;
    if (b == 64) off = num == den ? UINT64_MAX : num * (UINT64_MAX / den);
    else off = num * (((uint64_t)1 << b) - 1) / den;
    put_offset(t, dst, off);
}

/* Stores the non-negative integer x (below the type's maximum) or, for
 * floats, (double)x. */
static void put_small(pp_type t, void *dst, uint64_t x)
{
    if (type_is_float(t)) {
        put_float(t, dst, (double)x);
        return;
    }
    switch (pp_type_size(t)) {
    case 1: { uint8_t v = (uint8_t)x; memcpy(dst, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)x; memcpy(dst, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)x; memcpy(dst, &v, 4); break; }
    default: memcpy(dst, &x, 8); break;
    }
}

/* Largest B for which 0 .. B are all exact values of the type. */
static uint64_t small_max(pp_type t)
{
    if (t == PP_F32) return (uint64_t)1 << 24;
    if (t == PP_F64) return (uint64_t)1 << 53;
    unsigned b = type_bits(t) - (type_is_signed(t) ? 1 : 0);
    return b >= 64 ? UINT64_MAX : ((uint64_t)1 << b) - 1;
}

static int show_data; /* --data given: histogram labels name their data set */

static const char *case_setup(pp_context *ctx, bench_case *c, variant v, pp_type t, pp_op op, size_t n,
                              dataset data, size_t bins, uint64_t seed, pp_status *st)
{
    memset(c, 0, sizeof *c);
    c->v = v;
    c->type = t;
    c->op = op;
    c->n = n;
    c->esz = pp_type_size(t);
    int hist = v == V_HIST_EVEN || v == V_HIST_RANGE;
    c->data = hist ? data : D_RAND;
    if (VARIANTS[v].uses_op) snprintf(c->label, sizeof c->label, "%s/%s", VARIANTS[v].name, pp_op_name(op));
    else if (hist && show_data)
        snprintf(c->label, sizeof c->label, "%s[%s]", VARIANTS[v].name, DATASET_NAMES[c->data]);
    else snprintf(c->label, sizeof c->label, "%s", VARIANTS[v].name);
    *st = PP_SUCCESS;

    /* The seed depends on the case, so that each row's input is the same
     * whatever else is benchmarked. */
    variant sv = v == V_SORT_PAIRS ? V_SORT_KEYS : v; /* both sorts sort the same keys */
    rng_state = seed ^ ((uint64_t)sv << 56) ^ ((uint64_t)t << 48) ^ ((uint64_t)op << 40) ^ (uint64_t)n;
    rnd();

    if (v == V_HIST_EVEN) c->nbins = bins ? bins : HIST_EVEN_BINS;
    if (v == V_HIST_RANGE) c->nbins = bins ? bins : HIST_RANGE_BINS;
    if (hist && c->data == D_INC && (uint64_t)c->nbins > small_max(t)) {
        c->skipped = 1;
        return "--data inc: the range [0, B) needs B representable in the type";
    }
    if (v == V_HIST_RANGE && c->data != D_INC && !type_is_float(t) && type_bits(t) < 64 &&
        (uint64_t)c->nbins > ((uint64_t)1 << type_bits(t)) - 1) {
        c->skipped = 1;
        return "B + 1 evenly spaced edges over the type's range would not be distinct";
    }
    size_t bytes = n * c->esz;
    c->h_in = xmalloc(bytes);
    c->h_out = xmalloc(out_bytes(c));
    if (!c->h_in || !c->h_out) return "out of host memory";

    switch (v) {
    case V_REDUCE:
    case V_SCAN_INCL:
    case V_SCAN_EXCL:
        if (type_is_float(t) && (op == PP_SUM || op == PP_PROD)) fill_exact(t, op, c->h_in, n);
        else fill_uniform(t, c->h_in, n);
        break;
    case V_UNIQUE: {
        fill_uniform(t, c->h_in, n);
        char *p = (char *)c->h_in;
        uint64_t bitsrc = 0;
        for (size_t i = 1; i < n; i++) {
            if (i % 64 == 1) bitsrc = rnd();
            if (bitsrc & 1) memcpy(p + i * c->esz, p + (i - 1) * c->esz, c->esz);
            bitsrc >>= 1;
        }
        break;
    }
    case V_HIST_EVEN:
    case V_HIST_RANGE:
        if (c->data == D_INC) { /* sample i = i mod B over [0, B): bin i mod B */
            for (size_t i = 0, k = 0; i < n; i++, k = k + 1 == c->nbins ? 0 : k + 1)
                put_small(t, (char *)c->h_in + i * c->esz, k);
        } else if (c->data == D_CONST) { /* the midpoint of the rand range, every sample */
            put_fraction(t, c->h_in, 1, 2);
            for (size_t i = 1; i < n; i++) memcpy((char *)c->h_in + i * c->esz, c->h_in, c->esz);
        } else {
            fill_uniform(t, c->h_in, n);
        }
        break;
    default:
        fill_uniform(t, c->h_in, n);
        break;
    }

    if (v == V_HIST_EVEN && c->data == D_INC) {
        put_small(t, c->lower, 0);
        put_small(t, c->upper, c->nbins);
    } else if (v == V_HIST_EVEN) {
        put_fraction(t, c->lower, 0, 1);
        put_fraction(t, c->upper, 1, 1);
    } else if (v == V_HIST_RANGE) {
        c->h_edges = xmalloc((c->nbins + 1) * c->esz);
        if (!c->h_edges) return "out of host memory";
        for (size_t i = 0; i <= c->nbins; i++) {
            if (c->data == D_INC) put_small(t, (char *)c->h_edges + i * c->esz, i);
            else put_fraction(t, (char *)c->h_edges + i * c->esz, i, c->nbins);
        }
    } else if (v == V_SELECT_IF || v == V_PARTITION_IF) {
        put_fraction(t, c->value, 1, 2); /* floats: 0.0 */
    } else if (v == V_SELECT_FLAGGED) {
        c->h_flags = (uint8_t *)xmalloc(n);
        if (!c->h_flags) return "out of host memory";
        for (size_t i = 0; i < n; i += 64) {
            uint64_t r = rnd();
            for (size_t j = i; j < n && j < i + 64; j++, r >>= 1) c->h_flags[j] = (uint8_t)(r & 1);
        }
    } else if (v == V_SORT_PAIRS) {
        c->h_vals = (uint32_t *)xmalloc(n * SORT_VALUE_SIZE);
        c->h_out_vals = (uint32_t *)xmalloc(n * SORT_VALUE_SIZE);
        if (!c->h_vals || !c->h_out_vals) return "out of host memory";
        for (size_t i = 0; i < n; i++) c->h_vals[i] = (uint32_t)i;
    }

    /* Context memory. */
#define ALLOC(p, b)                                                             \
    do {                                                                        \
        *st = pp_malloc(ctx, &(p), (b));                                        \
        if (*st != PP_SUCCESS) return pp_last_error(ctx);                       \
    } while (0)
#define UPLOAD(d, h, b)                                                         \
    do {                                                                        \
        *st = pp_upload(ctx, (d), (h), (b));                                    \
        if (*st != PP_SUCCESS) return pp_last_error(ctx);                       \
    } while (0)
    ALLOC(c->d_in, bytes);
    UPLOAD(c->d_in, c->h_in, bytes);
    ALLOC(c->d_out, out_bytes(c));
    if (v >= V_SELECT_IF && v <= V_PARTITION_IF) ALLOC(c->d_count, sizeof(uint64_t));
    if (v == V_SELECT_FLAGGED) {
        ALLOC(c->d_flags, n);
        UPLOAD(c->d_flags, c->h_flags, n);
    }
    if (v == V_SORT_PAIRS) {
        ALLOC(c->d_vals, n * SORT_VALUE_SIZE);
        ALLOC(c->d_vals_work, n * SORT_VALUE_SIZE);
        UPLOAD(c->d_vals, c->h_vals, n * SORT_VALUE_SIZE);
    }
#undef ALLOC
#undef UPLOAD
    return NULL;
}

/* The reference sort is by far the slowest reference. sort_keys and
 * sort_pairs of one type and size sort the same keys and run one after the
 * other, so when both are benchmarked, sort_keys computes the reference with
 * values and keeps it for sort_pairs. */
static struct {
    int valid, has_vals;
    pp_type type;
    size_t n;
    uint64_t seed;
    void *keys;
    uint32_t *vals;
} sort_ref;
static int sort_ref_want_vals;
static uint64_t current_seed;

static void sort_ref_clear(void)
{
    free(sort_ref.keys);
    free(sort_ref.vals);
    memset(&sort_ref, 0, sizeof sort_ref);
}

static const char *case_reference_sort(bench_case *c)
{
    size_t n = c->n, kb = n * c->esz, vb = n * SORT_VALUE_SIZE;
    int need_vals = c->v == V_SORT_PAIRS;
    if (need_vals) {
        c->r_vals = (uint32_t *)xmalloc(vb);
        if (!c->r_vals) return "out of host memory";
    }
    if (sort_ref.valid && sort_ref.type == c->type && sort_ref.n == n && sort_ref.seed == current_seed &&
        (sort_ref.has_vals || !need_vals)) {
        memcpy(c->r_out, sort_ref.keys, kb);
        if (need_vals) memcpy(c->r_vals, sort_ref.vals, vb);
        return NULL;
    }
    sort_ref_clear();
    int keep = c->v == V_SORT_KEYS && sort_ref_want_vals;
    int with_vals = need_vals || keep;
    uint32_t *vals = need_vals ? c->r_vals : with_vals ? (uint32_t *)xmalloc(vb) : NULL;
    if (with_vals && !vals) return "out of host memory";
    memcpy(c->r_out, c->h_in, kb);
    if (with_vals)
        for (size_t i = 0; i < n; i++) vals[i] = (uint32_t)i; /* = h_vals */
    ref_sort_pairs(c->type, c->r_out, vals, with_vals ? SORT_VALUE_SIZE : 0, n, PP_ASCENDING);
    if (!keep) return NULL;
    /* Keep a copy for sort_pairs, if memory allows (vals is ours here). */
    sort_ref.keys = malloc(kb);
    sort_ref.vals = vals;
    vals = NULL;
    if (sort_ref.keys) {
        memcpy(sort_ref.keys, c->r_out, kb);
        sort_ref.valid = 1;
        sort_ref.has_vals = 1;
        sort_ref.type = c->type;
        sort_ref.n = n;
        sort_ref.seed = current_seed;
    } else {
        sort_ref_clear();
    }
    if (vals != c->r_vals) free(vals);
    return NULL;
}

/* Computes the expected result with the sequential reference. */
static const char *case_reference(bench_case *c)
{
    if (c->ref_ready) return NULL;
    size_t n = c->n;
    c->r_out = xmalloc(out_bytes(c));
    if (!c->r_out) return "out of host memory";
    switch (c->v) {
    case V_REDUCE: ref_reduce(c->type, c->op, c->h_in, n, c->r_out); break;
    case V_SCAN_INCL: ref_scan(c->type, c->op, PP_INCLUSIVE, c->h_in, c->r_out, n); break;
    case V_SCAN_EXCL: ref_scan(c->type, c->op, PP_EXCLUSIVE, c->h_in, c->r_out, n); break;
    case V_HIST_EVEN:
        ref_histogram_even(c->type, c->h_in, n, c->lower, c->upper, c->nbins, (uint64_t *)c->r_out);
        break;
    case V_HIST_RANGE: ref_histogram_range(c->type, c->h_in, n, c->h_edges, c->nbins, (uint64_t *)c->r_out); break;
    case V_SELECT_IF: c->r_count = ref_select_if(c->type, c->h_in, n, PP_LT, c->value, c->r_out); break;
    case V_SELECT_FLAGGED: c->r_count = ref_select_flagged(c->type, c->h_in, c->h_flags, n, c->r_out); break;
    case V_UNIQUE: c->r_count = ref_unique(c->type, c->h_in, n, c->r_out); break;
    case V_PARTITION_IF: c->r_count = ref_partition_if(c->type, c->h_in, n, PP_LT, c->value, c->r_out); break;
    case V_SORT_KEYS:
    case V_SORT_PAIRS: {
        const char *err = case_reference_sort(c);
        if (err) return err;
        break;
    }
    default: break;
    }
    c->ref_ready = 1;
    return NULL;
}

/* Untimed preparation before each run: sorts work in place, so they get a
 * fresh copy of the unsorted input. */
static pp_status case_prepare(pp_context *ctx, bench_case *c)
{
    pp_status st = PP_SUCCESS;
    if (c->v == V_SORT_KEYS || c->v == V_SORT_PAIRS) {
        st = pp_copy(ctx, c->d_out, c->d_in, c->n * c->esz);
        if (st == PP_SUCCESS && c->v == V_SORT_PAIRS)
            st = pp_copy(ctx, c->d_vals_work, c->d_vals, c->n * SORT_VALUE_SIZE);
        if (st == PP_SUCCESS) st = pp_synchronize(ctx);
    }
    return st;
}

/* The timed call. */
static pp_status case_call(pp_context *ctx, bench_case *c)
{
    switch (c->v) {
    case V_REDUCE: return pp_reduce(ctx, c->type, c->op, c->d_in, c->n, c->d_out);
    case V_SCAN_INCL: return pp_scan(ctx, c->type, c->op, PP_INCLUSIVE, c->d_in, c->d_out, c->n);
    case V_SCAN_EXCL: return pp_scan(ctx, c->type, c->op, PP_EXCLUSIVE, c->d_in, c->d_out, c->n);
    case V_HIST_EVEN:
        return pp_histogram_even(ctx, c->type, c->d_in, c->n, c->lower, c->upper, c->nbins, (uint64_t *)c->d_out);
    case V_HIST_RANGE:
        return pp_histogram_range(ctx, c->type, c->d_in, c->n, c->h_edges, c->nbins, (uint64_t *)c->d_out);
    case V_SELECT_IF:
        return pp_select_if(ctx, c->type, c->d_in, c->n, PP_LT, c->value, c->d_out, (uint64_t *)c->d_count);
    case V_SELECT_FLAGGED:
        return pp_select_flagged(ctx, c->type, c->d_in, (const uint8_t *)c->d_flags, c->n, c->d_out,
                                 (uint64_t *)c->d_count);
    case V_UNIQUE: return pp_unique(ctx, c->type, c->d_in, c->n, c->d_out, (uint64_t *)c->d_count);
    case V_PARTITION_IF:
        return pp_partition_if(ctx, c->type, c->d_in, c->n, PP_LT, c->value, c->d_out, (uint64_t *)c->d_count);
    case V_SORT_KEYS: return pp_sort(ctx, c->type, c->d_out, c->n, PP_ASCENDING);
    case V_SORT_PAIRS:
        return pp_sort_pairs(ctx, c->type, c->d_out, c->d_vals_work, SORT_VALUE_SIZE, c->n, PP_ASCENDING);
    default: return PP_ERROR_INTERNAL;
    }
}

/* Prepares, runs and waits for one call; *sec is the time of the call and
 * pp_synchronize only. */
static pp_status case_run(pp_context *ctx, bench_case *c, double *sec)
{
    pp_status st = case_prepare(ctx, c);
    if (st != PP_SUCCESS) return st;
    double t0 = now_seconds();
    st = case_call(ctx, c);
    if (st == PP_SUCCESS) st = pp_synchronize(ctx);
    *sec = now_seconds() - t0;
    return st;
}

/* Bytes the primitive must move (see the byte model at the top). */
static double case_bytes(const bench_case *c)
{
    double n = (double)c->n, s = (double)c->esz, k = (double)c->r_count;
    switch (c->v) {
    case V_REDUCE: return n * s;
    case V_SCAN_INCL:
    case V_SCAN_EXCL: return 2 * n * s;
    case V_HIST_EVEN:
    case V_HIST_RANGE: return n * s + (double)c->nbins * 8;
    case V_SELECT_IF:
    case V_UNIQUE: return n * s + k * s;
    case V_SELECT_FLAGGED: return n * s + n + k * s;
    case V_PARTITION_IF: return 2 * n * s;
    case V_SORT_KEYS: return 2 * n * s;
    case V_SORT_PAIRS: return 2 * n * s + 2 * n * SORT_VALUE_SIZE;
    default: return 0;
    }
}

/* Downloads the result of the last run and compares it with the reference.
 * Returns 1 if equal; else 0 with a description in msg. */
static int case_check(pp_context *ctx, bench_case *c, char *msg, size_t cap, pp_status *st)
{
    size_t where = 0;
    char g[64], e[64];
    *st = PP_SUCCESS;
    const char *err = case_reference(c);
    if (err) {
        snprintf(msg, cap, "reference: %s", err);
        return 0;
    }
    uint64_t count = c->n;
    if (c->d_count) {
        *st = pp_download(ctx, &c->h_count, c->d_count, sizeof(uint64_t));
        if (*st != PP_SUCCESS) {
            snprintf(msg, cap, "pp_download: %s", pp_last_error(ctx));
            return 0;
        }
        if (c->h_count != c->r_count) {
            snprintf(msg, cap, "count is %" PRIu64 ", expected %" PRIu64, c->h_count, c->r_count);
            return 0;
        }
        count = c->v == V_PARTITION_IF ? c->n : c->r_count;
    }
    if (c->v == V_REDUCE) count = 1;
    size_t bytes = c->v == V_HIST_EVEN || c->v == V_HIST_RANGE ? out_bytes(c) : (size_t)count * c->esz;
    *st = pp_download(ctx, c->h_out, c->d_out, bytes);
    if (*st != PP_SUCCESS) {
        snprintf(msg, cap, "pp_download: %s", pp_last_error(ctx));
        return 0;
    }
    if (c->v == V_HIST_EVEN || c->v == V_HIST_RANGE) {
        if (!ref_equal(PP_U64, c->h_out, c->r_out, c->nbins, &where)) {
            snprintf(msg, cap, "counts[%zu] is %s, expected %s", where, ref_format(PP_U64, c->h_out, where, g, sizeof g),
                     ref_format(PP_U64, c->r_out, where, e, sizeof e));
            return 0;
        }
        return 1;
    }
    if (!ref_equal(c->type, c->h_out, c->r_out, (size_t)count, &where)) {
        snprintf(msg, cap, "%s[%zu] is %s, expected %s", c->v == V_REDUCE ? "out" : "element", where,
                 ref_format(c->type, c->h_out, where, g, sizeof g), ref_format(c->type, c->r_out, where, e, sizeof e));
        return 0;
    }
    if (c->v == V_SORT_PAIRS) {
        *st = pp_download(ctx, c->h_out_vals, c->d_vals_work, c->n * SORT_VALUE_SIZE);
        if (*st != PP_SUCCESS) {
            snprintf(msg, cap, "pp_download: %s", pp_last_error(ctx));
            return 0;
        }
        if (!ref_equal(PP_U32, c->h_out_vals, c->r_vals, c->n, &where)) {
            snprintf(msg, cap, "values[%zu] is %s, expected %s", where,
                     ref_format(PP_U32, c->h_out_vals, where, g, sizeof g),
                     ref_format(PP_U32, c->r_vals, where, e, sizeof e));
            return 0;
        }
    }
    return 1;
}

/* ======================================================================== */
/* pp bench: timing                                                         */
/* ======================================================================== */

typedef pp_status (*run_fn)(pp_context *ctx, void *arg, double *sec);

typedef struct timing {
    double median, min;
    int repeats;
} timing;

/* Warm-up, then timed runs: exactly cfg->repeat; or, adaptive (the
 * default), as many as fit the budget B: stop once there are
 * ADAPTIVE_RUNS runs that took B/10 together, or MIN_REPEAT_ADAPTIVE
 * runs that took B, or any number that took 3B; never more than
 * MAX_REPEAT_ADAPTIVE. Short calls thus get many samples, long ones few. */
static pp_status time_runs(pp_context *ctx, const config *cfg, run_fn fn, void *arg, int warmups, timing *t)
{
    double sec, total = 0, v[MAX_REPEAT_ADAPTIVE > 256 ? MAX_REPEAT_ADAPTIVE : 256];
    pp_status st;
    for (int i = 0; i < warmups; i++)
        if ((st = fn(ctx, arg, &sec)) != PP_SUCCESS) return st;
    int max = cfg->repeat ? cfg->repeat : MAX_REPEAT_ADAPTIVE;
    int k = 0;
    while (k < max) {
        if ((st = fn(ctx, arg, &sec)) != PP_SUCCESS) return st;
        v[k++] = sec;
        total += sec;
        if (!cfg->repeat && ((k >= ADAPTIVE_RUNS && total >= 0.1 * cfg->budget) ||
                             (k >= MIN_REPEAT_ADAPTIVE && total >= cfg->budget) || total >= 3 * cfg->budget))
            break;
    }
    t->min = v[0];
    for (int i = 1; i < k; i++)
        if (v[i] < t->min) t->min = v[i];
    t->median = median_of(v, k);
    t->repeats = k;
    return PP_SUCCESS;
}

/* --load: busy processes (one spinning loop each) that share the cores
 * with the timed runs, started before and killed after each loaded timing. */
#define LOAD_MAX 64
static pid_t load_pids[LOAD_MAX];
static int load_running;

static void load_stop(void)
{
    for (int i = 0; i < load_running; i++) kill(load_pids[i], SIGKILL);
    for (int i = 0; i < load_running; i++) waitpid(load_pids[i], NULL, 0);
    load_running = 0;
}

static int load_start(int n)
{
    fflush(NULL);
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p < 0) {
            load_stop();
            return -1;
        }
        if (p == 0) {
            volatile uint64_t x = 0;
            for (;;) x = x * 6364136223846793005ull + 1;
        }
        load_pids[load_running++] = p;
    }
    struct timespec ts = {0, 50 * 1000 * 1000}; /* let the scheduler spread them */
    nanosleep(&ts, NULL);
    return 0;
}

static pp_status case_run_fn(pp_context *ctx, void *arg, double *sec)
{
    return case_run(ctx, (bench_case *)arg, sec);
}

typedef struct copy_job {
    void *dst, *src;
    size_t bytes;
} copy_job;

static pp_status copy_run_fn(pp_context *ctx, void *arg, double *sec)
{
    copy_job *j = (copy_job *)arg;
    double t0 = now_seconds();
    pp_status st = pp_copy(ctx, j->dst, j->src, j->bytes);
    if (st == PP_SUCCESS) st = pp_synchronize(ctx);
    *sec = now_seconds() - t0;
    return st;
}

/* Median time of a pp_copy of `bytes` bytes, measured anew for every row
 * (right after the primitive, so that both see the same machine) between two
 * buffers that are kept and grown as needed. */
static copy_job copy_buf;
static size_t copy_cap;

static void copy_buffers_free(pp_context *ctx)
{
    pp_free(ctx, copy_buf.src);
    pp_free(ctx, copy_buf.dst);
    memset(&copy_buf, 0, sizeof copy_buf);
    copy_cap = 0;
}

static pp_status copy_time(pp_context *ctx, const config *cfg, size_t bytes, double *sec)
{
    pp_status st = PP_SUCCESS;
    if (bytes > copy_cap) {
        copy_buffers_free(ctx);
        st = pp_malloc(ctx, &copy_buf.src, bytes);
        if (st == PP_SUCCESS) st = pp_malloc(ctx, &copy_buf.dst, bytes);
        if (st == PP_SUCCESS) {
            /* The content does not matter for a copy, but the pages must exist. */
            unsigned char *h = (unsigned char *)calloc(1, bytes);
            st = h ? pp_upload(ctx, copy_buf.src, h, bytes) : PP_ERROR_OUT_OF_MEMORY;
            if (st == PP_SUCCESS) st = pp_upload(ctx, copy_buf.dst, h, bytes);
            free(h);
        }
        if (st != PP_SUCCESS) {
            copy_buffers_free(ctx);
            return st;
        }
        copy_cap = bytes;
    }
    copy_buf.bytes = bytes;
    timing t = {0, 0, 0};
    st = time_runs(ctx, cfg, copy_run_fn, &copy_buf, 1, &t);
    if (st == PP_SUCCESS) *sec = t.median;
    return st;
}

/* ======================================================================== */
/* pp bench: rows, table, JSON                                              */
/* ======================================================================== */

typedef struct row {
    char label[48];
    variant v;
    int has_op;
    pp_op op;
    pp_type type;
    size_t n;
    pp_algorithm algo;
    dataset data;       /* histograms only */
    size_t nbins;       /* histograms only */
    int has_ops;
    uint64_t ops;       /* operator applications (algo_ops), where has_ops */
    const char *status; /* ok, FAILED, unsupported, skipped, error */
    double median_ms, min_ms, bytes, gbps, copy_ms, copy_fraction, vs_auto;
    double loaded_ms, loaded_ratio; /* --load: median beside the busy processes, and / median_ms */
    int repeats;
    char message[400];
} row;

static row *rows;
static size_t nrows, caprows;

static row *new_row(void)
{
    if (nrows == caprows) {
        size_t cap = caprows ? 2 * caprows : 64;
        row *r = (row *)realloc(rows, cap * sizeof *r);
        if (!r) return NULL;
        rows = r;
        caprows = cap;
    }
    row *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    r->median_ms = r->min_ms = r->gbps = r->copy_ms = r->copy_fraction = r->vs_auto = -1;
    r->loaded_ms = r->loaded_ratio = -1;
    return r;
}

static int show_vs_auto;
static int show_load;

static void print_header(void)
{
    printf("%-22s %-4s %10s %-7s %-21s %10s %10s %8s %6s", "primitive", "type", "n", "backend", "algorithm",
           "median ms", "min ms", "GB/s", "copy");
    if (show_vs_auto) printf(" %8s", "t/t_auto");
    if (show_load) printf(" %10s %7s", "loaded ms", "x idle");
    printf(" %16s", "ops");
    printf("  %s\n", "check");
}

static void print_num(double x, int width, int prec)
{
    if (x < 0) printf(" %*s", width, "-");
    else printf(" %*.*f", width, prec, x);
}

/* Milliseconds with at least four significant digits (down to 1 ns). */
static void print_ms(double x, int width)
{
    print_num(x, width, x < 0 ? 0 : x >= 100 ? 2 : x >= 1 ? 3 : x >= 0.1 ? 4 : x >= 0.01 ? 5 : 6);
}

static void print_row(const row *r, const char *backend)
{
    printf("%-22s %-4s %10zu %-7s %-21s", r->label, pp_type_name(r->type), r->n, backend, pp_algorithm_name(r->algo));
    print_ms(r->median_ms, 10);
    print_ms(r->min_ms, 10);
    print_num(r->gbps, 8, 2);
    print_num(r->copy_fraction, 6, 2);
    if (show_vs_auto) print_num(r->vs_auto, 8, 2);
    if (show_load) {
        print_ms(r->loaded_ms, 10);
        print_num(r->loaded_ratio, 7, 2);
    }
    if (r->has_ops) printf(" %16" PRIu64, r->ops);
    else printf(" %16s", "-");
    printf("  %s", r->status);
    if (r->message[0] && strcmp(r->status, "FAILED")) printf(" (%s)", r->message);
    printf("\n");
    fflush(stdout);
}

static int write_json(FILE *f, const char *path, pp_context *ctx, const config *cfg)
{
    char date[32];
    time_t tt = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
    unsigned ver = pp_version();
    char vs[32];
    snprintf(vs, sizeof vs, "%u.%u.%u", ver / 10000, ver / 100 % 100, ver % 100);
    const char *backend = pp_backend_name(pp_context_backend(ctx));
    fprintf(f, "{\n  \"header\": {\"version\": ");
    json_string(f, vs);
    fprintf(f, ", \"backend\": ");
    json_string(f, backend);
    fprintf(f, ", \"device\": ");
    json_string(f, pp_context_device_name(ctx));
    fprintf(f, ", \"threads\": %d, \"date\": ", pp_context_threads(ctx));
    json_string(f, date);
    fprintf(f, ", \"seed\": %" PRIu64 ", \"repeat\": ", cfg->seed);
    if (cfg->repeat) fprintf(f, "%d", cfg->repeat);
    else fputs("\"adaptive\"", f);
    fprintf(f, ", \"budget_s\": %g,\n    \"byte_model\": ", cfg->budget);
    json_string(f, "reduce n*s; scan 2*n*s; histogram n*s+nbins*8; select_if,unique n*s+k*s; "
                   "select_flagged n*s+n+k*s; partition_if 2*n*s; sort 2*n*s (+2*n*value_size); "
                   "copy_fraction = t(pp_copy of bytes/2) / t(primitive)");
    fprintf(f, ",\n    \"ops_model\": ");
    json_string(f, "operator applications of the textbook algorithm on one array of n, as the course notes "
                   "count them: reduce n-1; scan sequential n-1, naive n(n-1)/2, hillis-steele-horn "
                   "n*L-(2^L-1) with L=ceil(log2 n), blelloch(-padded) up-sweep plus down-sweep of the "
                   "inclusive work-efficient scan (2n-log2(n)-2 for n a power of two); null elsewhere");
    fprintf(f, "},\n  \"rows\": [");
    for (size_t i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        fprintf(f, "%s\n    {\"primitive\": ", i ? "," : "");
        json_string(f, VARIANTS[r->v].name);
        fprintf(f, ", \"op\": ");
        if (r->has_op) json_string(f, pp_op_name(r->op));
        else fputs("null", f);
        fprintf(f, ", \"type\": ");
        json_string(f, pp_type_name(r->type));
        fprintf(f, ", \"n\": %zu, \"backend\": ", r->n);
        json_string(f, backend);
        fprintf(f, ", \"algorithm\": ");
        json_string(f, pp_algorithm_name(r->algo));
        fprintf(f, ", \"data\": ");
        if (r->v == V_HIST_EVEN || r->v == V_HIST_RANGE) json_string(f, DATASET_NAMES[r->data]);
        else fputs("null", f);
        fprintf(f, ", \"bins\": ");
        if (r->v == V_HIST_EVEN || r->v == V_HIST_RANGE) fprintf(f, "%zu", r->nbins);
        else fputs("null", f);
        fprintf(f, ", \"ops\": ");
        if (r->has_ops) fprintf(f, "%" PRIu64, r->ops);
        else fputs("null", f);
        fprintf(f, ", \"status\": ");
        json_string(f, r->status);
        fprintf(f, ", \"median_ms\": ");
        json_number(f, r->median_ms);
        fprintf(f, ", \"min_ms\": ");
        json_number(f, r->min_ms);
        fprintf(f, ", \"repeats\": %d, \"bytes\": ", r->repeats);
        if (r->bytes > 0) fprintf(f, "%.0f", r->bytes);
        else fputs("null", f);
        fprintf(f, ", \"gbps\": ");
        json_number(f, r->gbps);
        fprintf(f, ", \"copy_ms\": ");
        json_number(f, r->copy_ms);
        fprintf(f, ", \"copy_fraction\": ");
        json_number(f, r->copy_fraction);
        fprintf(f, ", \"loaded_ms\": ");
        json_number(f, r->loaded_ms);
        fprintf(f, ", \"loaded_over_idle\": ");
        json_number(f, r->loaded_ratio);
        fprintf(f, ", \"ratio_to_auto\": ");
        json_number(f, r->vs_auto);
        fprintf(f, ", \"message\": ");
        json_string(f, r->message);
        fputc('}', f);
    }
    fprintf(f, "\n  ]\n}\n");
    int ok = !ferror(f);
    if (fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "pp bench: error writing '%s'\n", path);
    return ok;
}

/* ======================================================================== */
/* pp bench: driver                                                         */
/* ======================================================================== */

static int failures;

static void report_failure(const row *r, const char *backend, const char *what)
{
    fprintf(stderr,
            "\n*** CHECK FAILED: %s %s n=%zu backend=%s algorithm=%s\n"
            "***   %s\n\n",
            r->label, pp_type_name(r->type), r->n, backend, pp_algorithm_name(r->algo), what);
    fflush(stderr);
    failures++;
}

/* Benchmarks one case with every chosen algorithm. */
static void bench_case_all_algos(pp_context *ctx, const config *cfg, bench_case *c)
{
    const char *backend = pp_backend_name(pp_context_backend(ctx));
    pp_primitive prim = VARIANTS[c->v].prim;
    double t_auto = -1;
    for (int a = 0; a < PP_ALGO_COUNT; a++) {
        if (!cfg->algos[a]) continue;
        pp_status st = pp_set_algorithm(ctx, prim, (pp_algorithm)a);
        if (st == PP_ERROR_UNSUPPORTED && cfg->algo_all) continue;
        row *r = new_row();
        if (!r) {
            fprintf(stderr, "pp bench: out of host memory\n");
            failures++;
            return;
        }
        snprintf(r->label, sizeof r->label, "%s", c->label);
        r->v = c->v;
        r->has_op = VARIANTS[c->v].uses_op;
        r->op = c->op;
        r->type = c->type;
        r->n = c->n;
        r->algo = (pp_algorithm)a;
        r->data = c->data;
        r->nbins = c->nbins;
        r->has_ops = algo_ops(c->v, r->algo, c->n, &r->ops);
        if (st != PP_SUCCESS) {
            r->status = st == PP_ERROR_UNSUPPORTED ? "unsupported" : "error";
            snprintf(r->message, sizeof r->message, "%s", pp_last_error(ctx));
            if (st != PP_ERROR_UNSUPPORTED) report_failure(r, backend, r->message);
            if (!cfg->quiet || st != PP_ERROR_UNSUPPORTED) print_row(r, backend);
            continue;
        }
        /* One run, checked. */
        double first = 0;
        st = case_run(ctx, c, &first);
        if (st != PP_SUCCESS) {
            r->status = st == PP_ERROR_UNSUPPORTED ? "unsupported" : "error";
            snprintf(r->message, sizeof r->message, "%s: %s", pp_status_string(st), pp_last_error(ctx));
            if (st != PP_ERROR_UNSUPPORTED) report_failure(r, backend, r->message);
            print_row(r, backend);
            continue;
        }
        if (!case_check(ctx, c, r->message, sizeof r->message, &st)) {
            r->status = st == PP_SUCCESS ? "FAILED" : "error";
            report_failure(r, backend, r->message);
            print_row(r, backend);
            continue;
        }
        /* Timed runs. A check run that took long has warmed up enough. */
        timing t;
        int warm = first > 0.2 ? 0 : cfg->warmup;
        st = time_runs(ctx, cfg, case_run_fn, c, warm, &t);
        if (st == PP_SUCCESS && t.repeats >= 3 && t.median > 1.3 * t.min)
            snprintf(r->message, sizeof r->message, "noisy: median/min = %.2f", t.median / t.min);
        if (st != PP_SUCCESS) {
            r->status = "error";
            snprintf(r->message, sizeof r->message, "%s: %s", pp_status_string(st), pp_last_error(ctx));
            report_failure(r, backend, r->message);
            print_row(r, backend);
            continue;
        }
        r->status = "ok";
        r->median_ms = 1e3 * t.median;
        r->min_ms = 1e3 * t.min;
        r->repeats = t.repeats;
        r->bytes = case_bytes(c);
        r->gbps = t.median > 0 ? r->bytes / t.median * 1e-9 : -1;
        double tc;
        size_t half = (size_t)(r->bytes / 2);
        st = half ? copy_time(ctx, cfg, half, &tc) : PP_SUCCESS;
        if (st != PP_SUCCESS) {
            snprintf(r->message, sizeof r->message, "copy: %s: %s", pp_status_string(st), pp_last_error(ctx));
            report_failure(r, backend, r->message);
        } else if (half) {
            r->copy_ms = 1e3 * tc;
            r->copy_fraction = t.median > 0 ? tc / t.median : -1;
        }
        if (cfg->load > 0) {
            timing tl;
            if (load_start(cfg->load) != 0) {
                snprintf(r->message, sizeof r->message, "--load: cannot start the busy processes");
                report_failure(r, backend, r->message);
            } else {
                st = time_runs(ctx, cfg, case_run_fn, c, cfg->warmup, &tl);
                load_stop();
                if (st != PP_SUCCESS) {
                    snprintf(r->message, sizeof r->message, "loaded: %s: %s", pp_status_string(st),
                             pp_last_error(ctx));
                    report_failure(r, backend, r->message);
                } else {
                    r->loaded_ms = 1e3 * tl.median;
                    r->loaded_ratio = t.median > 0 ? tl.median / t.median : -1;
                }
            }
        }
        if (a == PP_ALGO_AUTO) t_auto = t.median;
        if (a != PP_ALGO_AUTO && t_auto > 0) r->vs_auto = t.median / t_auto;
        if (a == PP_ALGO_AUTO && show_vs_auto) r->vs_auto = 1.0;
        print_row(r, backend);
    }
    pp_set_algorithm(ctx, prim, PP_ALGO_AUTO);
}

/* Sets up one case, benchmarks it with every chosen algorithm, frees it. */
static void bench_one(pp_context *ctx, const config *cfg, variant v, pp_type t, pp_op op, size_t n, dataset data)
{
    const char *backend = pp_backend_name(pp_context_backend(ctx));
    bench_case c;
    pp_status st;
    const char *err = case_setup(ctx, &c, v, t, op, n, data, cfg->bins, cfg->seed, &st);
    if (err) {
        row *r = new_row();
        if (r) {
            snprintf(r->label, sizeof r->label, "%s", c.label);
            r->v = v;
            r->has_op = VARIANTS[v].uses_op;
            r->op = op;
            r->type = t;
            r->n = n;
            r->data = c.data;
            r->nbins = c.nbins;
            r->status = c.skipped ? "skipped" : "error";
            snprintf(r->message, sizeof r->message, "%s%s", c.skipped ? "" : "setup: ", err);
            if (!c.skipped) report_failure(r, backend, r->message);
            print_row(r, backend);
        } else {
            failures++;
        }
    } else {
        bench_case_all_algos(ctx, cfg, &c);
    }
    case_free(ctx, &c);
}

static int cmd_bench(int argc, char **argv)
{
    config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.backend = PP_BACKEND_AUTO;
    cfg.warmup = 1;
    cfg.budget = 0.5;
    cfg.seed = 1;
    int any_var = 0, any_type = 0, any_op = 0, any_algo = 0;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        char name[64];
        const char *eq = strchr(a, '=');
        if (a[0] == '-' && a[1] == '-' && eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
            a = name;
        }
#define NEEDS_VALUE()                                                         \
    do {                                                                      \
        if (!val) {                                                           \
            if (i + 1 >= argc) return usage_error("option %s needs a value", a); \
            val = argv[++i];                                                  \
        }                                                                     \
    } while (0)
        int rc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            bench_help();
            return EXIT_OK;
        } else if (!strcmp(a, "--backend")) {
            NEEDS_VALUE();
            int found = 0;
            for (int b = PP_BACKEND_AUTO; b <= PP_BACKEND_OPENCL; b++)
                if (!strcmp(val, pp_backend_name((pp_backend)b))) cfg.backend = (pp_backend)b, found = 1;
            if (!found) return usage_error("unknown backend '%s'", val);
        } else if (!strcmp(a, "--device") || !strcmp(a, "--threads") || !strcmp(a, "--repeat") ||
                   !strcmp(a, "--warmup") || !strcmp(a, "--load")) {
            NEEDS_VALUE();
            char *end;
            errno = 0;
            long x = strtol(val, &end, 10);
            if (errno || *end || !*val || x < 0 || x > 100000) return usage_error("bad value '%s' for %s", val, a);
            if (!strcmp(a, "--device")) cfg.device = (int)x;
            else if (!strcmp(a, "--load")) {
                if (x > LOAD_MAX) return usage_error("--load must be between 0 and %d", LOAD_MAX);
                cfg.load = (int)x;
            }
            else if (!strcmp(a, "--threads")) cfg.threads = (int)x;
            else if (!strcmp(a, "--warmup")) cfg.warmup = (int)x;
            else {
                if (x < 1 || x > 256) return usage_error("--repeat must be between 1 and 256");
                cfg.repeat = (int)x;
            }
        } else if (!strcmp(a, "--budget")) {
            NEEDS_VALUE();
            char *end;
            double x = strtod(val, &end);
            if (*end || !*val || !(x > 0) || x > 3600) return usage_error("bad value '%s' for --budget", val);
            cfg.budget = x;
        } else if (!strcmp(a, "--seed")) {
            NEEDS_VALUE();
            char *end;
            errno = 0;
            unsigned long long x = strtoull(val, &end, 0);
            if (errno || *end || !*val) return usage_error("bad value '%s' for --seed", val);
            cfg.seed = x;
        } else if (!strcmp(a, "--primitive") || !strcmp(a, "--primitives")) {
            NEEDS_VALUE();
            if ((rc = parse_list(val, one_primitive, &cfg, "primitive"))) return rc;
            any_var = 1;
        } else if (!strcmp(a, "--type") || !strcmp(a, "--types")) {
            NEEDS_VALUE();
            if ((rc = parse_list(val, one_type, &cfg, "type"))) return rc;
            any_type = 1;
        } else if (!strcmp(a, "--op") || !strcmp(a, "--ops")) {
            NEEDS_VALUE();
            if ((rc = parse_list(val, one_op, &cfg, "operator"))) return rc;
            any_op = 1;
        } else if (!strcmp(a, "--algorithm") || !strcmp(a, "--algorithms")) {
            NEEDS_VALUE();
            if ((rc = parse_list(val, one_algo, &cfg, "algorithm"))) return rc;
            any_algo = 1;
        } else if (!strcmp(a, "--n")) {
            NEEDS_VALUE();
            if ((rc = parse_list(val, one_size, &cfg, "size (sizes are >= 1, like 1000, 64K, 16M, 2^24; 16 at most)")))
                return rc;
        } else if (!strcmp(a, "--sweep") && !val) {
            cfg.sweep = 1;
        } else if (!strcmp(a, "--sweep-large") && !val) {
            cfg.sweep = cfg.sweep_large = 1;
        } else if (!strcmp(a, "--bins")) {
            NEEDS_VALUE();
            size_t b;
            if (!parse_size(val, &b) || b < 1 || b > MAX_BINS)
                return usage_error("bad value '%s' for --bins (1 to 2^24)", val);
            cfg.bins = b;
        } else if (!strcmp(a, "--data")) {
            NEEDS_VALUE();
            if ((rc = parse_list(val, one_data, &cfg, "data set (rand, inc, const)"))) return rc;
            show_data = 1;
        } else if (!strcmp(a, "--json")) {
            NEEDS_VALUE();
            cfg.json = val;
        } else if ((!strcmp(a, "-q") || !strcmp(a, "--quiet")) && !val) {
            cfg.quiet = 1;
        } else {
            return usage_error("unknown argument '%s'", argv[i]);
        }
#undef NEEDS_VALUE
    }
    if (cfg.sweep && cfg.nsizes) return usage_error("--n and --sweep exclude each other");
    if (cfg.sweep) {
        static const unsigned exps[] = {10, 14, 18, 22, 24, 26};
        int count = cfg.sweep_large ? 6 : 5;
        for (int i = 0; i < count; i++) cfg.sizes[cfg.nsizes++] = (size_t)1 << exps[i];
    }
    if (!cfg.nsizes) cfg.sizes[cfg.nsizes++] = (size_t)1 << 24;
    if (!any_var)
        for (int v = 0; v < V_COUNT; v++) cfg.variants[v] = 1;
    if (!any_type) cfg.types[PP_U32] = cfg.types[PP_F32] = 1;
    if (!any_op) cfg.ops[PP_SUM] = 1;
    if (!any_algo) cfg.algos[PP_ALGO_AUTO] = 1;
    if (!cfg.ndatas) cfg.datas[cfg.ndatas++] = D_RAND;
    int nalgos = 0;
    for (int a = 0; a < PP_ALGO_COUNT; a++) nalgos += cfg.algos[a];
    show_vs_auto = nalgos > 1 && cfg.algos[PP_ALGO_AUTO];
    show_load = cfg.load > 0;

    /* Opened before the work starts, so that a bad path fails at once. */
    FILE *json = NULL;
    if (cfg.json && !(json = fopen(cfg.json, "w"))) {
        fprintf(stderr, "pp bench: cannot write '%s': %s\n", cfg.json, strerror(errno));
        return EXIT_FAILED;
    }

    pp_options o = PP_OPTIONS_INIT;
    o.backend = cfg.backend;
    o.device = cfg.device;
    o.threads = cfg.threads;
    pp_context *ctx = NULL;
    pp_status st = pp_create(&ctx, &o);
    if (st != PP_SUCCESS) {
        fprintf(stderr, "pp bench: cannot create a context (backend %s): %s: %s\n", pp_backend_name(cfg.backend),
                pp_status_string(st), pp_last_error(NULL));
        if (json) {
            fclose(json);
            remove(cfg.json);
        }
        return EXIT_FAILED;
    }
    const char *backend = pp_backend_name(pp_context_backend(ctx));
    if (!cfg.quiet) {
        print_version();
        printf("backend %s: %s; threads %d\n", backend, pp_context_device_name(ctx), pp_context_threads(ctx));
        printf("GB/s: bytes the primitive must move / median time; copy: t(pp_copy of the same bytes) / t"
               " (1.0 = copy speed)\n\n");
    }
    print_header();

    sort_ref_want_vals = cfg.variants[V_SORT_PAIRS];
    current_seed = cfg.seed;
    double t_start = now_seconds();
    for (int si = 0; si < cfg.nsizes; si++) {
        size_t n = cfg.sizes[si];
        if (n > SIZE_MAX / 64) {
            fprintf(stderr, "pp bench: n = %zu is too large\n", n);
            failures++;
            continue;
        }
        /* Primitive by primitive, type by type; but the two sorts of one type
         * run next to each other, so that they can share the reference. */
        for (int v = 0; v < V_SORT_KEYS; v++) {
            if (!cfg.variants[v]) continue;
            for (int t = 0; t < PP_TYPE_COUNT; t++) {
                if (!cfg.types[t]) continue;
                for (int op = 0; op < PP_OP_COUNT; op++) {
                    if (VARIANTS[v].uses_op) {
                        if (!cfg.ops[op]) continue;
                        if (type_is_float((pp_type)t) && op >= PP_AND) continue;
                    } else if (op != 0) {
                        break;
                    }
                    if (v == V_HIST_EVEN || v == V_HIST_RANGE)
                        for (int d = 0; d < cfg.ndatas; d++)
                            bench_one(ctx, &cfg, (variant)v, (pp_type)t, (pp_op)op, n, (dataset)cfg.datas[d]);
                    else
                        bench_one(ctx, &cfg, (variant)v, (pp_type)t, (pp_op)op, n, D_RAND);
                }
            }
        }
        for (int t = 0; t < PP_TYPE_COUNT; t++) {
            if (!cfg.types[t]) continue;
            for (int v = V_SORT_KEYS; v < V_COUNT; v++)
                if (cfg.variants[v]) bench_one(ctx, &cfg, (variant)v, (pp_type)t, PP_SUM, n, D_RAND);
        }
        sort_ref_clear();
    }
    double elapsed = now_seconds() - t_start;

    int ok_json = 1;
    if (json) ok_json = write_json(json, cfg.json, ctx, &cfg);
    copy_buffers_free(ctx);
    pp_destroy(ctx);
    size_t unsupported = 0;
    size_t skipped = 0;
    for (size_t i = 0; i < nrows; i++) unsupported += !strcmp(rows[i].status, "unsupported");
    for (size_t i = 0; i < nrows; i++) skipped += !strcmp(rows[i].status, "skipped");
    if (!cfg.quiet) {
        printf("\n%zu row%s in %.1f s", nrows, nrows == 1 ? "" : "s", elapsed);
        if (unsupported) printf(", %zu unsupported by this backend", unsupported);
        if (skipped) printf(", %zu skipped (data set or bins do not fit the type)", skipped);
        if (failures) printf(", %d FAILED", failures);
        printf("\n");
    }
    if (failures) fprintf(stderr, "pp bench: %d check%s or call%s FAILED\n", failures, failures == 1 ? "" : "s",
                          failures == 1 ? "" : "s");
    free(rows);
    return failures || !ok_json ? EXIT_FAILED : EXIT_OK;
}

/* ======================================================================== */
/* main                                                                     */
/* ======================================================================== */

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
