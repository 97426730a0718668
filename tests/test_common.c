/* The run: its seed, the backends and contexts to test, the configurations
 * of each primitive, and the sizes to test (test_common.h). */
#define _POSIX_C_SOURCE 200809L
#include "test_common_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- sizes to test ------------------------------------------------------------------------------------ */
const size_t tc_sizes[] = {
    0,     1,     2,     3,     5,     7,      15,     16,     17,     31,     32,     33,    47,    48,    49,    63,
    64,    65,    127,   128,   129,   255,    256,    257,    1009,   1023,   1024,   1025,  4095,
    4096,  4097,  8191,  8192,  8193,  13823,  13825,  16383,  16384,  16385,  32767,  32768,  32769,  49151, 49152,
    49153, 65535, 65536, 65537, 98303, 98305,  100003, 131071, 131072, 131073,
};
size_t tc_nsizes = sizeof tc_sizes / sizeof tc_sizes[0];
static const size_t big_sizes[] = {1048575, 1048577, 1097729};
/* PARPRIM_TEST_QUICK=1 (for slow runs such as compute-sanitizer): sizes up
 * to 16385 only, and these instead of the big ones. */
static const size_t quick_big_sizes[] = {20011, 24577, 40961};
const size_t *tc_big_sizes = big_sizes;
int tc_quick = 0;
const size_t tc_nbig = sizeof big_sizes / sizeof big_sizes[0];

/* ---- seed ------------------------------------------------------------------------------------------ */
static uint64_t g_seed;
static const char *g_program = "test";

uint64_t tc_seed(void) { return g_seed; }

const char *tc_program(void) { return g_program; }

/* ---- backends and configurations ----------------------------------------------------------- */
#define MAX_CTX 8
#define MAX_CFG 64

static pp_context *g_ctx[MAX_CTX];
static pp_backend g_ctx_backend[MAX_CTX];
static int g_ctx_threads[MAX_CTX];
static size_t g_nctx;
static pp_context *g_main_ctx[MAX_CTX]; /* one per backend */
static size_t g_nmain;
static tc_config g_cfg[PP_PRIM_COUNT][MAX_CFG];
static size_t g_ncfg[PP_PRIM_COUNT];
static int g_cfg_done[PP_PRIM_COUNT];

static int backend_wanted(pp_backend b)
{
    const char *env = getenv("PARPRIM_TEST_BACKENDS");
    if (!env || !*env) return 1;
    const char *name = pp_backend_name(b);
    size_t len = strlen(name);
    for (const char *p = env; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        while (l && (*p == ' ')) p++, l--;
        while (l && p[l - 1] == ' ') l--;
        if (l == len && strncmp(p, name, len) == 0) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

static void add_context(pp_backend b, int threads)
{
    pp_options o = PP_OPTIONS_INIT;
    o.backend = b;
    o.threads = threads;
    const char *dev = getenv("PARPRIM_TEST_OPENCL_DEVICE");
    if (b == PP_BACKEND_OPENCL && dev && *dev) o.device = atoi(dev);
    pp_context *ctx = NULL;
    pp_status st = pp_create(&ctx, &o);
    if (st != PP_SUCCESS) {
        fprintf(stderr, "%s: cannot create a %s context (threads %d): %s: %s\n", g_program, pp_backend_name(b),
                threads, pp_status_string(st), pp_last_error(NULL));
        exit(1);
    }
    g_ctx[g_nctx] = ctx;
    g_ctx_backend[g_nctx] = b;
    g_ctx_threads[g_nctx] = threads;
    g_nctx++;
}

void tc_init(const char *program)
{
    g_program = program;
    const char *env = getenv("PARPRIM_TEST_SEED");
    if (env && *env) {
        g_seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        tc_rng r = {(uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec};
        g_seed = tc_next(&r) % 1000000000000ull;
    }
    printf("%s: seed %llu (set PARPRIM_TEST_SEED=%llu to reproduce)\n", program, (unsigned long long)g_seed,
           (unsigned long long)g_seed);
    const char *quick = getenv("PARPRIM_TEST_QUICK");
    if (quick && *quick && strcmp(quick, "0")) {
        while (tc_nsizes > 0 && tc_sizes[tc_nsizes - 1] > 16385) tc_nsizes--;
        tc_big_sizes = quick_big_sizes;
        tc_quick = 1;
        printf("%s: quick mode (PARPRIM_TEST_QUICK): sizes up to %zu\n", program, tc_sizes[tc_nsizes - 1]);
    }
    const char *filter = getenv("PARPRIM_TEST_FILTER");
    if (filter && *filter) {
        cmocka_set_test_filter(filter);
        printf("%s: only the tests matching '%s' (PARPRIM_TEST_FILTER)\n", program, filter);
    }

    static const pp_backend all[] = {PP_BACKEND_CPU, PP_BACKEND_CUDA, PP_BACKEND_OPENCL};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        pp_backend b = all[i];
        if (pp_backend_status(b) != PP_SUCCESS || !backend_wanted(b)) continue;
        size_t first = g_nctx;
        if (b == PP_BACKEND_CPU) {
            /* PARPRIM_TEST_CPU_THREADS: the thread counts (default 1,2,3);
             * the main context: the one of 2 threads, else the most */
            const char *list = getenv("PARPRIM_TEST_CPU_THREADS");
            if (!list || !*list) list = "1,2,3";
            for (const char *q = list; *q;) {
                char *end;
                long t = strtol(q, &end, 10);
                if (end == q || t < 1 || t > 64 || g_nctx >= MAX_CTX - 2) { /* room for cuda and opencl */
                    fprintf(stderr, "%s: PARPRIM_TEST_CPU_THREADS=%s: not a list of at most 6 thread counts 1-64\n",
                            program, list);
                    exit(1);
                }
                add_context(b, (int)t);
                q = *end == ',' ? end + 1 : end;
            }
            size_t main_i = first;
            for (size_t j = first; j < g_nctx; j++)
                if (g_ctx_threads[j] == 2 || (g_ctx_threads[main_i] != 2 && g_ctx_threads[j] > g_ctx_threads[main_i]))
                    main_i = j;
            g_main_ctx[g_nmain++] = g_ctx[main_i];
        } else {
            add_context(b, 0);
            g_main_ctx[g_nmain++] = g_ctx[first];
        }
    }
    if (g_nctx == 0) {
        fprintf(stderr, "%s: no backend to test (PARPRIM_TEST_BACKENDS=%s)\n", program,
                getenv("PARPRIM_TEST_BACKENDS") ? getenv("PARPRIM_TEST_BACKENDS") : "");
        exit(1);
    }
    printf("%s: backends:", program);
    for (size_t i = 0; i < g_nmain; i++) printf(" %s (%s)", pp_backend_name(pp_context_backend(g_main_ctx[i])),
                                                pp_context_device_name(g_main_ctx[i]));
    printf("\n");
    /* what the skips of tc_need go by */
    printf("%s: memory: host %.2f GiB available", program, (double)tc_host_available() / (1 << 30));
    for (size_t i = 0; i < g_nmain; i++) {
        pp_memory_info mi;
        memset(&mi, 0, sizeof mi);
        pp_status st = pp_context_memory(g_main_ctx[i], &mi);
        const char *name = pp_backend_name(pp_context_backend(g_main_ctx[i]));
        if (st != PP_SUCCESS) printf("; %s: pp_context_memory returned %s", name, pp_status_string(st));
        else if (mi.available_bytes)
            printf("; %s %.2f GiB, %.2f GiB free, largest buffer %.2f GiB", name, (double)mi.total_bytes / (1 << 30),
                   (double)mi.available_bytes / (1 << 30), (double)mi.max_alloc_bytes / (1 << 30));
        else
            printf("; %s %.2f GiB (free: the backend cannot tell), largest buffer %.2f GiB", name,
                   (double)mi.total_bytes / (1 << 30), (double)mi.max_alloc_bytes / (1 << 30));
    }
    printf("\n");
    fflush(stdout);
}

void tc_finish(void)
{
    tc_print_skips();
    for (size_t i = 0; i < g_nctx; i++) pp_destroy(g_ctx[i]);
    g_nctx = g_nmain = 0;
    tc_forget_f64();
}

static int is_main(const pp_context *ctx)
{
    for (size_t i = 0; i < g_nmain; i++)
        if (g_main_ctx[i] == ctx) return 1;
    return 0;
}

size_t tc_configs(pp_primitive prim, const tc_config **list)
{
    if (!g_cfg_done[prim]) {
        size_t k = 0;
        for (size_t i = 0; i < g_nctx; i++) {
            for (int a = 0; a < PP_ALGO_COUNT; a++) {
                pp_algorithm algo = (pp_algorithm)a;
                if (algo != PP_ALGO_AUTO && pp_set_algorithm(g_ctx[i], prim, algo) != PP_SUCCESS) continue;
                /* the sequential algorithm is one thread whatever the count:
                 * on the main cpu context alone */
                if (algo == PP_ALGO_SEQUENTIAL && g_ctx_backend[i] == PP_BACKEND_CPU && !is_main(g_ctx[i])) continue;
                if (k < MAX_CFG) {
                    tc_config c = {g_ctx[i], g_ctx_backend[i], g_ctx_threads[i], algo};
                    g_cfg[prim][k++] = c;
                }
            }
            pp_set_algorithm(g_ctx[i], prim, PP_ALGO_AUTO);
        }
        g_ncfg[prim] = k;
        g_cfg_done[prim] = 1;
    }
    *list = g_cfg[prim];
    return g_ncfg[prim];
}

size_t tc_contexts(pp_context *const **list)
{
    *list = g_main_ctx;
    return g_nmain;
}

pp_context *tc_context_all_cores(pp_context *ctx)
{
    if (pp_context_backend(ctx) != PP_BACKEND_CPU) return ctx;
    pp_options o = PP_OPTIONS_INIT;
    o.backend = PP_BACKEND_CPU;
    TC_OK(pp_create(&ctx, &o));
    return ctx;
}

void tc_use(const tc_config *c, pp_primitive prim)
{
    pp_status st = pp_set_algorithm(c->ctx, prim, c->algo);
    if (st != PP_SUCCESS)
        TC_FAIL("pp_set_algorithm(%s, %s) returned %s: %s", pp_primitive_name(prim), pp_algorithm_name(c->algo),
                pp_status_string(st), pp_last_error(c->ctx));
    if (pp_get_algorithm(c->ctx, prim) != c->algo)
        TC_FAIL("pp_get_algorithm(%s) does not return the algorithm just set", pp_primitive_name(prim));
}

const char *tc_config_name(const tc_config *c)
{
    static char buf[96];
    if (c->backend == PP_BACKEND_CPU)
        snprintf(buf, sizeof buf, "backend=cpu threads=%d algo=%s", c->threads, pp_algorithm_name(c->algo));
    else
        snprintf(buf, sizeof buf, "backend=%s algo=%s", pp_backend_name(c->backend), pp_algorithm_name(c->algo));
    return buf;
}

int tc_status_ok(const tc_config *c, pp_status st, const char *fn)
{
    if (st == PP_SUCCESS) return 1;
    if (st == PP_ERROR_UNSUPPORTED && c->algo != PP_ALGO_AUTO) {
        char key[160];
        snprintf(key, sizeof key, "%s %s", tc_config_name(c), fn);
        tc_skip(key, "%s: %s returned PP_ERROR_UNSUPPORTED, which an algorithm other than auto may (first: \"%s\")",
                key, fn, pp_last_error(c->ctx));
        return 0;
    }
    TC_FAIL("%s returned %s: \"%s\"", fn, pp_status_string(st), pp_last_error(c->ctx));
    return 0;
}

int tc_status_or_absent(const tc_config *c, pp_status st, const char *fn, int required)
{
    char absent[160];
    snprintf(absent, sizeof absent, "%s: not available on the %s backend yet", fn, pp_backend_name(c->backend));
    if (!required && st == PP_ERROR_UNSUPPORTED && strcmp(pp_last_error(c->ctx), absent) == 0) {
        char key[160];
        snprintf(key, sizeof key, "%s %s absent", pp_backend_name(c->backend), fn);
        tc_skip(key, "%s not available on %s yet", fn, pp_backend_name(c->backend));
        return 0;
    }
    return tc_status_ok(c, st, fn);
}
