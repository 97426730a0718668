// Compensated float sums (the default float PP_SUM of pp_reduce): an
// accumulator s carries the running rounded sum and c the sum of the
// rounding errors of every addition into s, each found exactly by Knuth's
// branch-free TwoSum. s + c, rounded once, is what the accumulator holds.
// Special values keep plain IEEE summation's results: an infinity or NaN
// makes s non-finite (and c NaN), and then s alone is the value; c == 0
// leaves s untouched, so a sum of -0.0 stays -0.0.
#pragma once

// s += x, with the rounding error of that addition added to c.
template <typename T> __device__ __forceinline__ void pp_comp_add(T &s, T &c, T x)
{
    const T t = s + x;
    const T z = t - s;
    c += (s - (t - z)) + (x - z);
    s = t;
}

// The value of the accumulator (s, c).
template <typename T> __device__ __forceinline__ T pp_comp_value(T s, T c)
{
    return (c != (T)0 && isfinite(s) && isfinite(c)) ? s + c : s;
}
