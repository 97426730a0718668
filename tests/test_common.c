#define _POSIX_C_SOURCE 200809L
#include "test_common.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const size_t tc_sizes[] = {
    0,     1,     2,     3,     5,     7,      15,     16,     17,     31,     32,     33,    63,
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
const size_t tc_nbig = sizeof big_sizes / sizeof big_sizes[0];

const pp_type tc_types[PP_TYPE_COUNT] = {PP_I8, PP_U8,  PP_I16, PP_U16, PP_I32,
                                         PP_U32, PP_I64, PP_U64, PP_F32, PP_F64};

unsigned long long tc_skipped;

static uint64_t g_seed;

/* skips: one entry per reason (or key), with its count */
#define MAX_SKIP_REASONS 64
static struct {
    char key[160];
    char reason[400];
    unsigned long long count;
} g_skips[MAX_SKIP_REASONS];
static size_t g_nskips;
static unsigned long long g_skips_other;

/* opencl contexts asked for cl_khr_fp64 (tc_need_f64) */
#define MAX_F64 8
static struct {
    const pp_context *ctx;
    int has;
    char why[320];
} g_f64[MAX_F64];
static size_t g_nf64;
static char g_case[768];
static const char *g_program = "test";

/* ---- random numbers (splitmix64) ------------------------------------------------------- */
uint64_t tc_next(tc_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t tc_below(tc_rng *r, uint64_t bound)
{
    return (uint64_t)(((unsigned __int128)tc_next(r) * bound) >> 64);
}

int64_t tc_between(tc_rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; /* 0 means the full 64-bit range */
    uint64_t v = span ? tc_below(r, span) : tc_next(r);
    return (int64_t)((uint64_t)lo + v);
}

void tc_fill_random(tc_rng *r, void *buf, size_t bytes)
{
    unsigned char *p = (unsigned char *)buf;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t v = tc_next(r);
        memcpy(p + i, &v, 8);
    }
    if (i < bytes) {
        uint64_t v = tc_next(r);
        memcpy(p + i, &v, bytes - i);
    }
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

tc_rng tc_rng_for(const char *name)
{
    tc_rng r = {g_seed ^ hash_name(name)};
    tc_next(&r);
    return r;
}

uint64_t tc_seed(void) { return g_seed; }

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
            add_context(b, 1);
            add_context(b, 2);
            add_context(b, 3);
            g_main_ctx[g_nmain++] = g_ctx[first + 1];
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
    printf("%s: skipped %llu\n", g_program, tc_skipped);
    for (size_t i = 0; i < g_nskips; i++) printf("  %llu x %s\n", g_skips[i].count, g_skips[i].reason);
    if (g_skips_other) printf("  %llu x other reasons (printed above as they happened)\n", g_skips_other);
    fflush(stdout);
    for (size_t i = 0; i < g_nctx; i++) pp_destroy(g_ctx[i]);
    g_nctx = g_nmain = 0;
    g_nf64 = 0;
}

size_t tc_configs(pp_primitive prim, const tc_config **list)
{
    if (!g_cfg_done[prim]) {
        size_t k = 0;
        for (size_t i = 0; i < g_nctx; i++) {
            for (int a = 0; a < PP_ALGO_COUNT; a++) {
                pp_algorithm algo = (pp_algorithm)a;
                if (algo != PP_ALGO_AUTO && pp_set_algorithm(g_ctx[i], prim, algo) != PP_SUCCESS) continue;
                /* the sequential algorithm is one thread whatever the count */
                if (algo == PP_ALGO_SEQUENTIAL && g_ctx_backend[i] == PP_BACKEND_CPU && g_ctx_threads[i] != 2)
                    continue;
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

/* ---- failures -------------------------------------------------------------------------------- */
void tc_case(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_case, sizeof g_case, fmt, ap);
    va_end(ap);
}

void tc_fail_at(const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_error("FAILED (seed %llu: PARPRIM_TEST_SEED=%llu reproduces)\n  case: %s\n  %s\n",
                (unsigned long long)g_seed, (unsigned long long)g_seed, g_case, msg);
    _fail(file, line);
}

void tc_expect_equal_at(const char *file, int line, pp_type type, const void *got, const void *want, size_t n,
                        const char *what)
{
    size_t at = 0;
    if (ref_equal(type, got, want, n, &at)) return;
    char a[80], b[80];
    tc_fail_at(file, line, "%s: first difference at index %zu of %zu: got %s, expected %s", what, at, n,
               ref_format(type, got, at, a, sizeof a), ref_format(type, want, at, b, sizeof b));
}

void tc_expect_bits_at(const char *file, int line, pp_type type, const void *got, const void *want, size_t n,
                       const char *what)
{
    size_t sz = pp_type_size(type);
    if (n == 0 || memcmp(got, want, n * sz) == 0) return;
    for (size_t i = 0; i < n; i++) {
        if (memcmp((const char *)got + i * sz, (const char *)want + i * sz, sz) != 0) {
            char a[80], b[80];
            tc_fail_at(file, line, "%s: first difference (bitwise) at index %zu of %zu: got %s, expected %s",
                       what, i, n, ref_format(type, got, i, a, sizeof a), ref_format(type, want, i, b, sizeof b));
        }
    }
}

/* ---- memory ----------------------------------------------------------------------------------- */
static unsigned char guard_byte(size_t i) { return (unsigned char)(0xA5 ^ (i * 29)); }

void *tc_halloc(size_t bytes)
{
    void *p = malloc(bytes + TC_GUARD);
    if (!p) {
        fprintf(stderr, "%s: out of host memory (%zu bytes)\n", g_program, bytes);
        abort();
    }
    return p;
}

static void *dev_with(pp_context *ctx, const void *host, size_t bytes, int fill)
{
    unsigned char *tmp = (unsigned char *)tc_halloc(bytes);
    if (host) {
        if (bytes) memcpy(tmp, host, bytes);
    } else {
        memset(tmp, fill, bytes);
    }
    for (size_t i = 0; i < TC_GUARD; i++) tmp[bytes + i] = guard_byte(i);
    void *d = NULL;
    pp_status st = pp_malloc(ctx, &d, bytes + TC_GUARD);
    if (st != PP_SUCCESS || !d) {
        free(tmp);
        TC_FAIL("pp_malloc(%zu) returned %s: %s", bytes + TC_GUARD, pp_status_string(st), pp_last_error(ctx));
    }
    st = pp_upload(ctx, d, tmp, bytes + TC_GUARD);
    free(tmp);
    if (st != PP_SUCCESS) TC_FAIL("pp_upload returned %s: %s", pp_status_string(st), pp_last_error(ctx));
    return d;
}

void *tc_dev_upload(pp_context *ctx, const void *host, size_t bytes)
{
    static const char empty = 0;
    return dev_with(ctx, host ? host : &empty, host ? bytes : 0, 0);
}

void *tc_dev_filled(pp_context *ctx, size_t bytes, unsigned char fill) { return dev_with(ctx, NULL, bytes, fill); }

void tc_dev_download_at(const char *file, int line, pp_context *ctx, void *host, const void *dev, size_t bytes,
                        const char *what)
{
    pp_status st = pp_download(ctx, host, dev, bytes + TC_GUARD);
    if (st != PP_SUCCESS)
        tc_fail_at(file, line, "pp_download(%s) returned %s: %s", what, pp_status_string(st), pp_last_error(ctx));
    const unsigned char *g = (const unsigned char *)host + bytes;
    for (size_t i = 0; i < TC_GUARD; i++)
        if (g[i] != guard_byte(i))
            tc_fail_at(file, line, "%s: written past its end (guard byte %zu after %zu bytes changed)", what, i,
                       bytes);
}

void tc_dev_free(pp_context *ctx, void *p)
{
    pp_status st = pp_free(ctx, p);
    if (st != PP_SUCCESS) TC_FAIL("pp_free returned %s", pp_status_string(st));
}

/* ---- skips and resources ----------------------------------------------------------------------- */
void tc_skip(const char *key, const char *fmt, ...)
{
    char reason[sizeof g_skips[0].reason];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    const char *k = key ? key : reason;
    tc_skipped++;
    for (size_t i = 0; i < g_nskips; i++)
        if (strncmp(g_skips[i].key, k, sizeof g_skips[i].key - 1) == 0) {
            g_skips[i].count++;
            return;
        }
    if (g_nskips < MAX_SKIP_REASONS) {
        snprintf(g_skips[g_nskips].key, sizeof g_skips[g_nskips].key, "%.*s", (int)sizeof g_skips[0].key - 1, k);
        snprintf(g_skips[g_nskips].reason, sizeof g_skips[g_nskips].reason, "%s", reason);
        g_skips[g_nskips++].count = 1;
    } else {
        g_skips_other++;
    }
    printf("  skipped: %s\n", reason);
    fflush(stdout);
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A number from a one-line file (cgroup memory.max, memory.current); 0
 * where the file is missing or says "max". */
static uint64_t read_number(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    unsigned long long v = 0;
    if (fscanf(f, "%llu", &v) != 1) v = 0;
    fclose(f);
    return v;
}

/* The least room (memory.max - memory.current) of the cgroup v2 groups the
 * process is in, from its own up to the root; UINT64_MAX where none limits. */
static uint64_t cgroup_room(void)
{
    uint64_t room = UINT64_MAX;
    char line[512], path[600];
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return room;
    char group[512] = "";
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "0::", 3) == 0) {
            snprintf(group, sizeof group, "%s", line + 3);
            group[strcspn(group, "\n")] = '\0';
        }
    fclose(f);
    for (;;) {
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", strcmp(group, "/") ? group : "");
        uint64_t max = read_number(path);
        if (max) {
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.current", strcmp(group, "/") ? group : "");
            uint64_t cur = read_number(path);
            uint64_t r = max > cur ? max - cur : 0;
            if (r < room) room = r;
        }
        char *slash = strrchr(group, '/');
        if (!slash || slash == group) {
            if (!group[0] || strcmp(group, "/") == 0) break;
            strcpy(group, "/");
            continue;
        }
        *slash = '\0';
    }
    return room;
}

uint64_t tc_host_available(void)
{
    /* read again when older than 0.2 s: tests ask per case */
    static double when = -1;
    static uint64_t avail;
    double t = mono_now();
    if (when >= 0 && t - when < 0.2) return avail;
    when = t;
    avail = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                avail = (uint64_t)kb * 1024;
                break;
            }
        fclose(f);
    }
    uint64_t room = cgroup_room();
    if (avail && room < avail) avail = room;
    return avail;
}

static const char *fmt_bytes(char *buf, size_t cap, uint64_t v)
{
    snprintf(buf, cap, "%llu bytes (%.3f GiB)", (unsigned long long)v, (double)v / (1024.0 * 1024 * 1024));
    return buf;
}

int tc_need_buffers(pp_context *ctx, const char *what, size_t largest_buffer, size_t device_bytes,
                    size_t host_bytes)
{
    char a[64], b[64];
    const char *name = "host";
    uint64_t host_need = host_bytes;
    const char *shared = "";
    if (ctx) {
        pp_backend be = pp_context_backend(ctx);
        name = pp_backend_name(be);
        pp_memory_info mi;
        memset(&mi, 0, sizeof mi);
        pp_status st = pp_context_memory(ctx, &mi);
        if (st != PP_SUCCESS) {
            TC_FAIL("pp_context_memory returned %s: %s", pp_status_string(st), pp_last_error(ctx));
            return 0;
        }
        if (mi.max_alloc_bytes && largest_buffer > mi.max_alloc_bytes) {
            tc_skip(NULL, "%s %s: needs a buffer of %s (its data or the library's working memory), above the "
                    "device's largest allocation, %s", name, what,
                    fmt_bytes(a, sizeof a, largest_buffer), fmt_bytes(b, sizeof b, mi.max_alloc_bytes));
            return 0;
        }
        if (mi.total_bytes && device_bytes > mi.total_bytes) {
            tc_skip(NULL, "%s %s: needs %s of device memory, the device has %s", name, what,
                    fmt_bytes(a, sizeof a, device_bytes), fmt_bytes(b, sizeof b, mi.total_bytes));
            return 0;
        }
        if (be == PP_BACKEND_CUDA) {
            if (mi.available_bytes && device_bytes > mi.available_bytes) {
                tc_skip(NULL, "%s %s: needs %s of device memory, %s free", name, what,
                        fmt_bytes(a, sizeof a, device_bytes), fmt_bytes(b, sizeof b, mi.available_bytes));
                return 0;
            }
        } else {
            host_need += device_bytes;
            shared = be == PP_BACKEND_CPU ? " (its device memory is host memory)"
                                          : " (opencl device memory counted as host memory, as on PoCL)";
        }
    }
    if (host_need) {
        uint64_t avail = tc_host_available();
        if (avail && host_need + TC_HOST_RESERVE > avail) {
            tc_skip(NULL, "%s %s: needs %s of host memory%s, %llu MiB more than MemAvailable less %llu MiB spare",
                    name, what, fmt_bytes(a, sizeof a, host_need), shared,
                    (unsigned long long)((host_need + TC_HOST_RESERVE - avail) >> 20),
                    (unsigned long long)(TC_HOST_RESERVE >> 20));
            return 0;
        }
    }
    return 1;
}

int tc_need(pp_context *ctx, const char *what, size_t device_bytes, size_t host_bytes)
{
    return tc_need_buffers(ctx, what, device_bytes, device_bytes, host_bytes);
}

/* Whether an opencl context computes in double: a one-element f64 sum with
 * the default algorithm; PP_ERROR_UNSUPPORTED naming cl_khr_fp64 means no
 * (the header's answer for such devices), anything else fails the test. */
static int probe_f64(pp_context *ctx, char *why, size_t cap)
{
    pp_algorithm algo = pp_get_algorithm(ctx, PP_PRIM_REDUCE);
    TC_OK(pp_set_algorithm(ctx, PP_PRIM_REDUCE, PP_ALGO_AUTO));
    void *d = NULL;
    double x = 1.5, r = 0;
    TC_OK(pp_malloc(ctx, &d, sizeof x));
    TC_OK(pp_upload(ctx, d, &x, sizeof x));
    pp_status st = pp_reduce(ctx, PP_F64, PP_SUM, d, 1, d);
    snprintf(why, cap, "%s", pp_last_error(ctx));
    int has = st == PP_SUCCESS;
    if (has) TC_OK(pp_download(ctx, &r, d, sizeof r));
    TC_OK(pp_free(ctx, d));
    TC_OK(pp_set_algorithm(ctx, PP_PRIM_REDUCE, algo));
    if (has) TC_REQUIRE(r == 1.5, "f64 probe: the sum of one element 1.5 is %g", r);
    else if (st != PP_ERROR_UNSUPPORTED || !strstr(why, "cl_khr_fp64"))
        TC_FAIL("f64 probe (pp_reduce of one f64) returned %s: %s", pp_status_string(st), why);
    return has;
}

int tc_need_f64(pp_context *ctx, const char *what)
{
    if (pp_context_backend(ctx) != PP_BACKEND_OPENCL) return 1;
    size_t i = 0;
    while (i < g_nf64 && g_f64[i].ctx != ctx) i++;
    if (i == g_nf64) {
        if (i == MAX_F64) i = g_nf64 = 0;
        g_f64[i].ctx = ctx;
        g_f64[i].has = probe_f64(ctx, g_f64[i].why, sizeof g_f64[i].why);
        g_nf64++;
    }
    if (g_f64[i].has) return 1;
    char key[160];
    snprintf(key, sizeof key, "opencl f64 %s", what);
    tc_skip(key, "opencl %s: the device lacks cl_khr_fp64 (\"%s\")", what, g_f64[i].why);
    return 0;
}

/* ---- element helpers ---------------------------------------------------------------------------- */
int tc_is_float(pp_type t) { return t == PP_F32 || t == PP_F64; }
int tc_is_signed(pp_type t) { return t == PP_I8 || t == PP_I16 || t == PP_I32 || t == PP_I64; }
size_t tc_size(pp_type t) { return pp_type_size(t); }

void tc_set_int(pp_type t, void *buf, size_t i, uint64_t v)
{
    /* little-endian: the low bytes of v are the value truncated to the type */
    size_t sz = pp_type_size(t);
    unsigned char b[8];
    for (size_t k = 0; k < 8; k++) b[k] = (unsigned char)(v >> (8 * k));
    memcpy((char *)buf + i * sz, b, sz);
}

void tc_set_f(pp_type t, void *buf, size_t i, double v)
{
    if (t == PP_F32) {
        float f = (float)v;
        memcpy((char *)buf + i * 4, &f, 4);
    } else {
        memcpy((char *)buf + i * 8, &v, 8);
    }
}

double tc_get_f(pp_type t, const void *buf, size_t i)
{
    if (t == PP_F32) {
        float f;
        memcpy(&f, (const char *)buf + i * 4, 4);
        return f;
    }
    double d;
    memcpy(&d, (const char *)buf + i * 8, 8);
    return d;
}

uint64_t tc_get_bits(pp_type t, const void *buf, size_t i)
{
    size_t sz = pp_type_size(t);
    const unsigned char *p = (const unsigned char *)buf + i * sz;
    uint64_t v = 0;
    for (size_t k = 0; k < sz; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

int64_t tc_get_i(pp_type t, const void *buf, size_t i)
{
    uint64_t v = tc_get_bits(t, buf, i);
    size_t bits = 8 * pp_type_size(t);
    if (tc_is_signed(t) && bits < 64 && (v >> (bits - 1)) & 1) v |= ~(uint64_t)0 << bits;
    return (int64_t)v;
}

int64_t tc_type_min(pp_type t)
{
    switch (t) {
    case PP_I8: return INT8_MIN;
    case PP_I16: return INT16_MIN;
    case PP_I32: return INT32_MIN;
    case PP_I64: return INT64_MIN;
    default: return 0;
    }
}

uint64_t tc_type_max(pp_type t)
{
    switch (t) {
    case PP_I8: return INT8_MAX;
    case PP_U8: return UINT8_MAX;
    case PP_I16: return INT16_MAX;
    case PP_U16: return UINT16_MAX;
    case PP_I32: return INT32_MAX;
    case PP_U32: return UINT32_MAX;
    case PP_I64: return INT64_MAX;
    case PP_U64: return UINT64_MAX;
    default: return 0;
    }
}

void tc_set_nan(tc_rng *r, pp_type t, void *buf, size_t i)
{
    uint64_t x = tc_next(r);
    if (t == PP_F32) {
        uint32_t b = 0x7f800000u | (uint32_t)(x & 0x807fffffu);
        if ((b & 0x007fffffu) == 0) b |= 0x00400000u;
        memcpy((char *)buf + i * 4, &b, 4);
    } else {
        uint64_t b = 0x7ff0000000000000ull | (x & 0x800fffffffffffffull);
        if ((b & 0x000fffffffffffffull) == 0) b |= 0x0008000000000000ull;
        memcpy((char *)buf + i * 8, &b, 8);
    }
}

void tc_set_any_float(tc_rng *r, pp_type t, void *buf, size_t i)
{
    uint64_t x = tc_next(r);
    switch (x & 15) {
    case 0: tc_set_f(t, buf, i, 0.0); return;
    case 1: tc_set_f(t, buf, i, -0.0); return;
    case 2: tc_set_f(t, buf, i, (x & 16) ? INFINITY : -INFINITY); return;
    case 3: /* subnormal */
        if (t == PP_F32) {
            uint32_t b = (uint32_t)(x >> 32) & 0x807fffffu;
            memcpy((char *)buf + i * 4, &b, 4);
        } else {
            uint64_t b = (x >> 4) & 0x800fffffffffffffull;
            memcpy((char *)buf + i * 8, &b, 8);
        }
        return;
    case 4: case 5: case 6: /* small values, many duplicates */
        tc_set_f(t, buf, i, (double)((int)((x >> 8) % 17) - 8) * 0.5);
        return;
    default: /* random bits that are not NaN */
        for (;;) {
            if (t == PP_F32) {
                uint32_t b = (uint32_t)(x >> 16);
                float f;
                memcpy(&f, &b, 4);
                if (!isnan(f)) {
                    memcpy((char *)buf + i * 4, &b, 4);
                    return;
                }
            } else {
                double d;
                memcpy(&d, &x, 8);
                if (!isnan(d)) {
                    memcpy((char *)buf + i * 8, &x, 8);
                    return;
                }
            }
            x = tc_next(r);
        }
    }
}

void tc_not_all_zero(pp_type t, void *buf, size_t n)
{
    size_t bytes = n * pp_type_size(t);
    const unsigned char *p = (const unsigned char *)buf;
    for (size_t i = 0; i < bytes; i++)
        if (p[i]) return;
    if (n == 0) return;
    if (tc_is_float(t)) tc_set_f(t, buf, 0, 1.0);
    else tc_set_int(t, buf, 0, 1);
}
