/* Skips, counted by reason, and what a case asks before it runs: memory
 * on the device and the host, and double precision on opencl
 * (test_common.h). */
#define _POSIX_C_SOURCE 200809L
#include "test_common_internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

unsigned long long tc_skipped;

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

/* ---- skips ----------------------------------------------------------------------------------------- */
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

void tc_print_skips(void)
{
    printf("%s: skipped %llu\n", tc_program(), tc_skipped);
    for (size_t i = 0; i < g_nskips; i++) printf("  %llu x %s\n", g_skips[i].count, g_skips[i].reason);
    if (g_skips_other) printf("  %llu x other reasons (printed above as they happened)\n", g_skips_other);
    fflush(stdout);
}

/* ---- resources --------------------------------------------------------------------------------------- */
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

void tc_forget_f64(void) { g_nf64 = 0; }

int tc_skip_status(pp_context *ctx, pp_status st, const char *what)
{
    if (st == PP_SUCCESS) return 0;
    if (st == PP_ERROR_OUT_OF_MEMORY || st == PP_ERROR_UNSUPPORTED) {
        tc_skip(NULL, "%s %s: %s (%s)", pp_backend_name(pp_context_backend(ctx)), what, pp_status_string(st),
                pp_last_error(ctx));
        return 1;
    }
    TC_FAIL("%s returned %s: %s", what, pp_status_string(st), pp_last_error(ctx));
    return 1;
}
