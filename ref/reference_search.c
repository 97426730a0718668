/* The sequential reference of search and merge (see reference.h): plain
 * loops over host memory, keys compared by ref_order_rank, pp_sort's
 * order as reference.c's sort has it. Shares no code with the library. */
#include "reference.h"

#include <string.h>

/* The first i in [0, n] with !(sorted[i] before q) (upper: with q before
 * sorted[i]). */
static uint64_t bound(pp_type type, const unsigned char *sorted, size_t n, pp_order order, const void *q, int upper)
{
    const size_t ks = ref_type_size(type);
    const uint64_t rq = ref_order_rank(type, q, order);
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const uint64_t r = ref_order_rank(type, sorted + mid * ks, order);
        const int go_right = upper ? !(rq < r) : r < rq;
        if (go_right)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void ref_lower_bound(pp_type type, const void *sorted, size_t n, pp_order order, const void *queries, size_t m,
                     uint64_t *out)
{
    const size_t ks = ref_type_size(type);
    for (size_t j = 0; j < m; j++)
        out[j] = bound(type, (const unsigned char *)sorted, n, order, (const unsigned char *)queries + j * ks, 0);
}

void ref_upper_bound(pp_type type, const void *sorted, size_t n, pp_order order, const void *queries, size_t m,
                     uint64_t *out)
{
    const size_t ks = ref_type_size(type);
    for (size_t j = 0; j < m; j++)
        out[j] = bound(type, (const unsigned char *)sorted, n, order, (const unsigned char *)queries + j * ks, 1);
}

void ref_merge_pairs(pp_type type, const void *a_keys, const void *a_values, size_t na, const void *b_keys,
                     const void *b_values, size_t nb, size_t value_size, void *keys_out, void *values_out,
                     pp_order order)
{
    const size_t ks = ref_type_size(type), vs = values_out ? value_size : 0;
    const unsigned char *ak = (const unsigned char *)a_keys, *bk = (const unsigned char *)b_keys;
    const unsigned char *av = (const unsigned char *)a_values, *bv = (const unsigned char *)b_values;
    unsigned char *ko = (unsigned char *)keys_out, *vo = (unsigned char *)values_out;
    size_t i = 0, j = 0;
    for (size_t k = 0; k < na + nb; k++) {
        /* b's key goes first only where it is before a's */
        int take_b;
        if (i == na)
            take_b = 1;
        else if (j == nb)
            take_b = 0;
        else
            take_b = ref_order_rank(type, bk + j * ks, order) < ref_order_rank(type, ak + i * ks, order);
        if (take_b) {
            memcpy(ko + k * ks, bk + j * ks, ks);
            if (vs) memcpy(vo + k * vs, bv + j * vs, vs);
            j++;
        } else {
            memcpy(ko + k * ks, ak + i * ks, ks);
            if (vs) memcpy(vo + k * vs, av + i * vs, vs);
            i++;
        }
    }
}

void ref_merge(pp_type type, const void *a, size_t na, const void *b, size_t nb, void *out, pp_order order)
{
    ref_merge_pairs(type, a, NULL, na, b, NULL, nb, 0, out, NULL, order);
}
