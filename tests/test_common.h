/* Shared pieces of the test programs: the run's seed and random numbers,
 * the list of backend/algorithm/thread configurations to test, device
 * buffers with guard bytes, element helpers and failure reporting.
 *
 * Environment:
 *   PARPRIM_TEST_SEED=N        reproduce a run (the seed is printed at start)
 *   PARPRIM_TEST_BACKENDS=a,b  test only these backends (cpu, cuda, opencl)
 *   PARPRIM_TEST_QUICK=1       small sizes only (for slow runs: sanitizers)
 *   PARPRIM_TEST_CPU_THREADS=1,3  the cpu contexts' thread counts (default 1,2,3)
 *   PARPRIM_TEST_OPENCL_DEVICE=N  the opencl device to test (pp_options.device:
 *                              devices counted over all platforms; default 0)
 *   PARPRIM_TEST_FILTER=pat    run only the cmocka tests whose name matches
 *                              pat (* and ? wildcards), e.g. 'test_f*'
 *
 * The tests include this header only; test_common_internal.h lists the
 * files of the library pp_testcommon that implement it.
 */
#ifndef PP_TEST_COMMON_H
#define PP_TEST_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "parprim.h"
#include "reference.h"

/* ---- seed and random numbers ---------------------------------------------------------- */
typedef struct tc_rng {
    uint64_t s;
} tc_rng;

/* Reads PARPRIM_TEST_SEED or takes a time-based seed, prints it, and finds
 * the backends to test. Call first in main(). */
void tc_init(const char *program);
/* Destroys the contexts; prints how many cases were skipped ("<program>:
 * skipped N", always, for scripts/check) and every reason with its count. */
void tc_finish(void);
uint64_t tc_seed(void);
/* A generator for one test, derived from the run's seed and the test's name
 * (so one test reproduces on its own). */
tc_rng tc_rng_for(const char *name);
uint64_t tc_next(tc_rng *r);
uint64_t tc_below(tc_rng *r, uint64_t bound); /* uniform in [0, bound), bound > 0 */
int64_t tc_between(tc_rng *r, int64_t lo, int64_t hi); /* uniform in [lo, hi] */
void tc_fill_random(tc_rng *r, void *buf, size_t bytes);

/* ---- configurations ----------------------------------------------------------------------- */
typedef struct tc_config {
    pp_context *ctx;
    pp_backend backend;
    int threads;        /* as asked in pp_options (0: the default) */
    pp_algorithm algo;
} tc_config;

/* Every configuration to test prim on: each backend (restricted by
 * PARPRIM_TEST_BACKENDS), on cpu each thread count (1, 2, 3, or those of
 * PARPRIM_TEST_CPU_THREADS), and each
 * algorithm that pp_set_algorithm accepts for prim, PP_ALGO_AUTO first
 * (PP_ALGO_SEQUENTIAL, one thread by definition, with one count only).
 * Returns the count; *list stays valid until tc_finish. */
size_t tc_configs(pp_primitive prim, const tc_config **list);
/* Selects c->algo for prim on c->ctx (fails the test if refused). */
void tc_use(const tc_config *c, pp_primitive prim);
/* One context per available backend (cpu: default threads). */
size_t tc_contexts(pp_context *const **list);
/* For the large tests: ctx, or on cpu a new context of all cores (the
 * shared one may run fewer threads); pp_destroy it where it is not ctx. */
pp_context *tc_context_all_cores(pp_context *ctx);
const char *tc_config_name(const tc_config *c); /* static buffer */

/* The status of a primitive call: 1 to go on and check the result, 0 to
 * skip it (PP_ERROR_UNSUPPORTED from an algorithm other than AUTO, which
 * the header allows); fails the test on anything else. */
int tc_status_ok(const tc_config *c, pp_status st, const char *fn);
/* tc_status_ok for a call that a backend may not have yet: where required
 * is 0 and the call returned PP_ERROR_UNSUPPORTED with the message "fn:
 * not available on the <backend> backend yet", a skip ("fn not available
 * on <backend> yet") and 0; else tc_status_ok. */
int tc_status_or_absent(const tc_config *c, pp_status st, const char *fn, int required);
/* Every skip so far (tc_skip, tc_need, tc_need_f64, tc_status_ok). */
extern unsigned long long tc_skipped;

/* ---- skips and resources --------------------------------------------------------------------
 * A case that needs what a device or the host may lack asks first and is
 * skipped, with a printed reason and a count, where it is missing; a case
 * that runs is checked in full. */

/* Counts a skip. The reason is printed ("  skipped: reason") the first time
 * it is seen and listed with its count by tc_finish. key groups skips whose
 * reasons differ only in detail (the first reason is kept); NULL: the reason
 * itself. */
void tc_skip(const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The host memory free for a new allocation, in bytes: MemAvailable of
 * /proc/meminfo, less where a cgroup limit (memory.max) leaves less; 0 if
 * it cannot be read. */
uint64_t tc_host_available(void);
/* 1 if what (a phrase such as "u16 sort of 1074266115 keys") can run on
 * ctx: its largest buffer (the library's scratch included) is within the
 * device's largest allocation, device_bytes (all buffers and scratch
 * together) within the device's memory and what it has free, and
 * host_bytes within the host's free memory, keeping TC_HOST_RESERVE
 * spare. Device memory that is host memory (cpu; opencl, whose devices
 * the API does not tell apart, and PoCL's CPU device allocates from the
 * host) counts against the host too. Else records a skip naming the
 * backend, what and the limit, and returns 0. ctx may be NULL for host
 * memory alone. Fails the test if pp_context_memory fails. */
int tc_need_buffers(pp_context *ctx, const char *what, size_t largest_buffer, size_t device_bytes,
                    size_t host_bytes);
/* The status of a call in a large test, after asking: 0 for PP_SUCCESS;
 * PP_ERROR_OUT_OF_MEMORY (memory others took since) or PP_ERROR_UNSUPPORTED
 * (a call the backend lacks) is a skip naming the backend, what and the
 * message (returns 1); any other status fails the test. */
int tc_skip_status(pp_context *ctx, pp_status st, const char *what);
/* What the unit tests allow for the library's working memory beside a
 * call's own buffers: the size of the data and 1 MiB (sort keeps keys and
 * values; the other primitives far less). */
#define TC_SCRATCH(bytes) ((size_t)(bytes) + ((size_t)1 << 20))
/* tc_need_buffers where one buffer holds all of device_bytes. */
int tc_need(pp_context *ctx, const char *what, size_t device_bytes, size_t host_bytes);
#define TC_HOST_RESERVE ((uint64_t)512 << 20)
/* 1 if ctx computes in double precision: always on cpu and cuda; on
 * opencl, where the device has cl_khr_fp64 (a one-element f64 pp_reduce,
 * once per context, asks). Else records a skip of what on this backend
 * and returns 0. Callers ask for every f64 reduce, scan, compaction and
 * histogram, and for even histograms of f32 (evaluated in double). */
int tc_need_f64(pp_context *ctx, const char *what);

/* ---- failure reporting -------------------------------------------------------------------- */
/* Describes what is being tested now (printed with any failure). */
void tc_case(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void tc_fail_at(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
#define TC_FAIL(...) tc_fail_at(__FILE__, __LINE__, __VA_ARGS__)
#define TC_REQUIRE(cond, ...)                     \
    do {                                          \
        if (!(cond)) TC_FAIL(__VA_ARGS__);        \
    } while (0)
#define TC_OK(call)                                                                   \
    do {                                                                              \
        pp_status st_ = (call);                                                       \
        if (st_ != PP_SUCCESS) TC_FAIL("%s returned %s", #call, pp_status_string(st_)); \
    } while (0)

/* Compares n elements with ref_equal (NaNs equal); fails with the first
 * differing index and both values. */
void tc_expect_equal_at(const char *file, int line, pp_type type, const void *got, const void *want,
                        size_t n, const char *what);
#define TC_EXPECT_EQUAL(type, got, want, n, what) tc_expect_equal_at(__FILE__, __LINE__, type, got, want, n, what)
/* Compares n elements bit for bit (NaN payloads included). */
void tc_expect_bits_at(const char *file, int line, pp_type type, const void *got, const void *want, size_t n,
                       const char *what);
#define TC_EXPECT_BITS(type, got, want, n, what) tc_expect_bits_at(__FILE__, __LINE__, type, got, want, n, what)

/* ---- memory ------------------------------------------------------------------------------- */
/* Every device buffer carries TC_GUARD bytes after its payload, set to a
 * known pattern; downloads read them back and check them, which finds
 * writes past the end on every backend (no pointer arithmetic is done on
 * device handles). Host buffers that receive downloads must have room for
 * the guard: allocate them with tc_halloc. */
#define TC_GUARD 64
void *tc_halloc(size_t bytes);             /* malloc(bytes + TC_GUARD); never NULL */
void *tc_dev_upload(pp_context *ctx, const void *host, size_t bytes);
void *tc_dev_filled(pp_context *ctx, size_t bytes, unsigned char fill);
/* Downloads bytes (+ the guard) into host (tc_halloc'ed) and checks the guard. */
void tc_dev_download_at(const char *file, int line, pp_context *ctx, void *host, const void *dev, size_t bytes,
                        const char *what);
#define TC_DOWNLOAD(ctx, host, dev, bytes, what) tc_dev_download_at(__FILE__, __LINE__, ctx, host, dev, bytes, what)
void tc_dev_free(pp_context *ctx, void *p);

/* ---- element helpers ----------------------------------------------------------------------- */
int tc_is_float(pp_type t);
int tc_is_signed(pp_type t);
size_t tc_size(pp_type t);
/* Stores an integer (truncated to the type) or a double (converted). */
void tc_set_int(pp_type t, void *buf, size_t i, uint64_t v);
void tc_set_f(pp_type t, void *buf, size_t i, double v);
double tc_get_f(pp_type t, const void *buf, size_t i);
uint64_t tc_get_bits(pp_type t, const void *buf, size_t i);   /* raw bits, zero-extended */
int64_t tc_get_i(pp_type t, const void *buf, size_t i);       /* signed types: sign-extended */
int64_t tc_type_min(pp_type t);  /* integer types */
uint64_t tc_type_max(pp_type t); /* integer types */
/* A random NaN of the type (random sign and payload) at buf[i]. */
void tc_set_nan(tc_rng *r, pp_type t, void *buf, size_t i);
/* A random non-NaN float (any finite value, +-0, +-inf, subnormals). */
void tc_set_any_float(tc_rng *r, pp_type t, void *buf, size_t i);
/* Makes sure the first bytes are not all zero (data is never all zeros). */
void tc_not_all_zero(pp_type t, void *buf, size_t n);
/* n random elements of t for op whose folds do not depend on the order of
 * evaluation (integers wrap; float sums of quarter integers that stay
 * exact, products of +-1 and a few powers of 2, MIN/MAX of anything);
 * nans: a few NaNs among floats. Never all zero. */
void tc_gen_op_data(tc_rng *r, pp_type t, pp_op op, size_t n, int nans, void *buf);
/* n random bytes from start alone (blocks of 1 MiB, each its own
 * generator, filled in parallel), so that they can be made again: the
 * large tests' data. */
void tc_fill_bytes(uint64_t start, unsigned char *p, size_t n);

/* Element counts that straddle the cpu backend's blocks and tiles (8192
 * elements for reduce and scan, and multiples of it) and likely GPU tile
 * sizes. */
extern const size_t tc_sizes[];
extern size_t tc_nsizes;
/* A few larger sizes (around 2^20). */
extern const size_t *tc_big_sizes;
extern const size_t tc_nbig;
/* 1 in quick mode (PARPRIM_TEST_QUICK): no sizes beyond the quick ones. */
extern int tc_quick;

/* The arithmetic types (every type but the half types PP_F16 and PP_BF16,
 * which few calls take yet: test_half.c). */
#define TC_NTYPES 10
extern const pp_type tc_types[TC_NTYPES];

/* One cmocka test per element type: TC_TYPE_TESTS(fn) defines test_i8 ...
 * test_f64, each calling fn(PP_xx); TC_TYPE_UNIT_TESTS lists them for a
 * CMUnitTest array. */
#define TC_TYPE_TEST_(S, E, fn)            \
    static void test_##S(void **state)     \
    {                                      \
        (void)state;                       \
        fn(E);                             \
    }
#define TC_TYPE_TESTS(fn)                                                             \
    TC_TYPE_TEST_(i8, PP_I8, fn) TC_TYPE_TEST_(u8, PP_U8, fn) TC_TYPE_TEST_(i16, PP_I16, fn)   \
    TC_TYPE_TEST_(u16, PP_U16, fn) TC_TYPE_TEST_(i32, PP_I32, fn) TC_TYPE_TEST_(u32, PP_U32, fn) \
    TC_TYPE_TEST_(i64, PP_I64, fn) TC_TYPE_TEST_(u64, PP_U64, fn) TC_TYPE_TEST_(f32, PP_F32, fn) \
    TC_TYPE_TEST_(f64, PP_F64, fn)
#define TC_TYPE_UNIT_TESTS                                                                       \
    cmocka_unit_test(test_i8), cmocka_unit_test(test_u8), cmocka_unit_test(test_i16),            \
        cmocka_unit_test(test_u16), cmocka_unit_test(test_i32), cmocka_unit_test(test_u32),      \
        cmocka_unit_test(test_i64), cmocka_unit_test(test_u64), cmocka_unit_test(test_f32),      \
        cmocka_unit_test(test_f64)

#endif
