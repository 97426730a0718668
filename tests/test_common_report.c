/* Failure reporting: what is being tested, the failure message with the
 * seed that reproduces it, and element comparisons (test_common.h). */
#include "test_common.h"

#include <stdio.h>
#include <string.h>

static char g_case[768];

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
                (unsigned long long)tc_seed(), (unsigned long long)tc_seed(), g_case, msg);
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
