/* Exact sums as values (pp_exact_sum, parprim.h): the states the API
 * accepts, pp_exact_merge and pp_exact_round, and the addition that
 * pp_exact_accumulate (api.c, with the other entries that take a context)
 * uses too. The words are src/core/exact_acc.h's accumulator, normalized:
 * a pp_exact_sum is what the backends' folds compute, plus the flag
 * PP_XACC_NONEMPTY, so that it can be copied, sent and merged anywhere and
 * rounded later with the rules of an exact pp_reduce. */
#include "internal.h"

#include "exact_acc.h"

#include <stdio.h>
#include <string.h>

_Static_assert(PP_EXACT_WORDS == PP_XACC_F64_WORDS, "a pp_exact_sum holds the f64 accumulator");

/* The range of a pp_exact_sum: the top chunk (the sign) within
 * (-PP_XTOP, PP_XTOP), so |M| < 2^(32 (n-1) + 62) units: 2^108 times the
 * largest f64 (f32: 2^73 times the largest f32), room for far more than
 * 2^64 elements (exact_acc.h: chunk n-1 < 2^18 for those). Two top chunks
 * of a valid state and a carry add up without overflowing an int64_t, and
 * the rounding negates any of them. */
#define PP_XTOP ((int64_t)1 << 62)

int pp_exact_chunks(pp_type type)
{
    return type == PP_F64 ? PP_XACC_F64_CHUNKS : type == PP_F32 ? PP_XACC_F32_CHUNKS : 0;
}

const char *pp_exact_malformed(pp_type type, const int64_t *w, char *buf, size_t cap)
{
    const int n = pp_exact_chunks(type);
    for (int i = 0; i < n - 1; i++)
        if (w[i] < 0 || w[i] > (int64_t)PP_XACC_LOW32) {
            snprintf(buf, cap, "word %d = %lld is a chunk outside [0, 2^32)", i, (long long)w[i]);
            return buf;
        }
    if (w[n - 1] <= -PP_XTOP || w[n - 1] >= PP_XTOP) {
        snprintf(buf, cap, "word %d = %lld, the top chunk, is outside (-2^62, 2^62)", n - 1, (long long)w[n - 1]);
        return buf;
    }
    const int64_t flags = w[n];
    if (flags < 0 || flags > PP_XACC_FLAGS) {
        snprintf(buf, cap, "word %d = %lld, the flags, is outside [0, %d]", n, (long long)flags, PP_XACC_FLAGS);
        return buf;
    }
    for (int i = n + 1; i < PP_EXACT_WORDS; i++)
        if (w[i] != 0) {
            snprintf(buf, cap, "word %d = %lld is not 0 (%s)", i, (long long)w[i],
                     i == n + 1 ? "the deposit count" : "beyond the words of an f32 sum");
            return buf;
        }
    /* Consistency: what no sequence of elements can give. A sum without
     * elements is all zero; a nonzero finite part comes from an element
     * other than -0.0. Either would give a wrong sign of zero later. */
    int zero = 1;
    for (int i = 0; i < n && zero; i++) zero = w[i] == 0;
    if (!(flags & PP_XACC_NONEMPTY) && (!zero || flags)) {
        snprintf(buf, cap, "the flags (word %d = %lld) say no element was added, yet the sum is not 0", n,
                 (long long)flags);
        return buf;
    }
    if (!zero && !(flags & PP_XACC_NOT_NEG0)) {
        snprintf(buf, cap, "the flags (word %d = %lld) say every element was -0.0, yet the sum is not 0", n,
                 (long long)flags);
        return buf;
    }
    return NULL;
}

int pp_exact_add(pp_type type, int64_t *w, const int64_t *src)
{
    const int n = pp_exact_chunks(type);
    int64_t t[PP_EXACT_WORDS];
    memcpy(t, w, sizeof t);
    pp_xacc_merge(t, src, n);
    if (t[n - 1] <= -PP_XTOP || t[n - 1] >= PP_XTOP) return 0;
    memcpy(w, t, sizeof t);
    return 1;
}

/* The checks of the calls without a context: the message is the thread's
 * (pp_last_error(NULL)). */
static pp_status check_sum(const char *fn, pp_type type, const pp_exact_sum *s, const char *name)
{
    char why[160];
    if (!s) return pp_thread_fail(PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", fn, name);
    if (pp_exact_malformed(type, s->word, why, sizeof why))
        return pp_thread_fail(PP_ERROR_INVALID_ARGUMENT, "%s: argument '%s' is not an exact sum of %s: %s", fn,
                              name, pp_type_name(type), why);
    return PP_SUCCESS;
}

static pp_status check_type(const char *fn, pp_type type)
{
    if (!pp_type_size(type))
        return pp_thread_fail(PP_ERROR_INVALID_ARGUMENT, "%s: type = %d is not a pp_type", fn, (int)type);
    if (!pp_exact_chunks(type))
        return pp_thread_fail(PP_ERROR_UNSUPPORTED, "%s: type %s has no exact sum (f32 and f64 only)", fn,
                              pp_type_name(type));
    return PP_SUCCESS;
}

pp_status pp_exact_merge(pp_type type, pp_exact_sum *sum, const pp_exact_sum *other)
{
    static const char fn[] = "pp_exact_merge";
    pp_status st = check_type(fn, type);
    if (st == PP_SUCCESS) st = check_sum(fn, type, sum, "sum");
    if (st == PP_SUCCESS) st = check_sum(fn, type, other, "other");
    if (st != PP_SUCCESS) return st;
    if (!pp_exact_add(type, sum->word, other->word)) /* other may be sum: it is read before sum is written */
        return pp_thread_fail(PP_ERROR_UNSUPPORTED, "%s: " PP_EXACT_RANGE_MSG, fn);
    return PP_SUCCESS;
}

pp_status pp_exact_round(pp_type type, const pp_exact_sum *sum, void *out)
{
    static const char fn[] = "pp_exact_round";
    pp_status st = check_type(fn, type);
    if (st == PP_SUCCESS) st = check_sum(fn, type, sum, "sum");
    if (st == PP_SUCCESS && !out) st = pp_thread_fail(PP_ERROR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", fn);
    if (st != PP_SUCCESS) return st;
    const int64_t *w = sum->word;
    if (type == PP_F64) {
        /* the empty sum is pp_reduce's identity, +0.0 (all bits 0) */
        const uint64_t b = (w[PP_XACC_F64_CHUNKS] & PP_XACC_NONEMPTY) ? pp_xacc_bits_f64(w) : 0;
        memcpy(out, &b, sizeof b);
    } else {
        const uint32_t b = (w[PP_XACC_F32_CHUNKS] & PP_XACC_NONEMPTY) ? pp_xacc_bits_f32(w) : 0;
        memcpy(out, &b, sizeof b);
    }
    return PP_SUCCESS;
}
