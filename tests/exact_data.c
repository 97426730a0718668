/* The data sets of the exact sums' tests (exact_data.h). */
#include "exact_data.h"

#include <float.h>
#include <math.h>

const char *const exact_set_names[EXACT_SETS] = {"normal",    "uniform",          "cancellation",   "below-half-ulp",
                                                 "full-range", "partial-overflow", "total-overflow", "specials",
                                                 "zeros",     "ties",             "subnormal"};

static double unit01(tc_rng *r) { return (double)(tc_next(r) >> 11) * 0x1p-53; }

/* A value of the format: v rounded to f32 where is_f64 is 0. */
static double fmt(int is_f64, double v) { return is_f64 ? v : (double)(float)v; }

void exact_gen(tc_rng *r, int is_f64, int set, size_t n, double *v)
{
    const int emax = is_f64 ? 1023 : 127, emin = is_f64 ? -1074 : -149, p = is_f64 ? 53 : 24;
    const double big = is_f64 ? 0x1.8p1020 : 0x1.8p124, max = is_f64 ? DBL_MAX : FLT_MAX;
    for (size_t i = 0; i < n; i++) {
        double u = unit01(r), s = (tc_next(r) & 1) ? 1.0 : -1.0, x;
        switch (set) {
        case 0: x = sqrt(-2 * log(u + 0x1p-60)) * cos(6.283185307179586 * unit01(r)); break;
        case 1: x = is_f64 ? u : (double)(tc_next(r) >> 40) * 0x1p-24; break;
        case 2: x = s * ldexp(1 + u, -(int)tc_below(r, 40)); break; /* residues; pairs below */
        case 3: /* one 1.0 among values below half its ulp */
            x = i == n / 3 ? 1.0 : ldexp(0.5 + 0.5 * u, -p - 1 - (int)tc_below(r, 3)) * (tc_below(r, 8) ? 1 : -1);
            break;
        case 4: x = s * ldexp(1 + u, emin + (int)tc_below(r, (uint64_t)(emax - emin + 1))); break;
        case 5: x = i < n / 2 ? big : i < n - n / 2 - 1 ? -big : s * u; break;
        case 6: x = (set + i) % 5 ? big : s * u; break;
        case 7: x = s * u; break;
        case 8: x = tc_below(r, 4) ? -0.0 : 0.0; break;
        case 9: x = i == 0 ? 1.0 : ldexp(tc_below(r, 3) ? 1.0 : -1.0, -p - (int)tc_below(r, 2)); break;
        default: x = s * ldexp(u, emin + p - 1); break;
        }
        if (fabs(x) > max && !isinf(x)) x = s * max;
        v[i] = fmt(is_f64, x);
    }
    if (set == 2) /* +b and -b at random places */
        for (size_t k = 0; n >= 2 && k < n / 3 + 1; k++) {
            double b = fmt(is_f64, ldexp(1 + unit01(r), 90 + (int)tc_below(r, 21)));
            size_t i = tc_below(r, n), j = tc_below(r, n);
            if (i != j) v[i] = b, v[j] = -b;
        }
    if (set == 6 && n >= 2 && (n & 1)) /* odd sizes overflow downwards */
        for (size_t i = 0; i < n; i++) v[i] = -v[i];
    if (set == 7 && n) { /* NaN, +inf, -inf or both infinities */
        int kind = (int)tc_below(r, 4);
        v[tc_below(r, n)] = kind == 0 ? NAN : kind == 2 ? -INFINITY : INFINITY;
        if (kind == 3) v[tc_below(r, n)] = -INFINITY;
    }
    if (set == 8 && n && (n % 3) == 0) /* all -0.0 */
        for (size_t i = 0; i < n; i++) v[i] = -0.0;
}

void exact_pack(int is_f64, const double *v, size_t n, void *buf)
{
    for (size_t i = 0; i < n; i++) {
        if (is_f64) ((double *)buf)[i] = v[i];
        else ((float *)buf)[i] = (float)v[i];
    }
}
