// Warp and block ranking of the Onesweep sort (cuda_sort.cu): 8-bit digits
// kept four to a register, keys kept packed in registers, the stable
// ranking of a warp's keys by digit (ballots of the digit's bits, one
// predicated shared-memory atomic per group of peers), and the scan of the
// warps' digit counts. Internal linkage: each including file has its own
// copy.
#ifndef PP_CUDA_DEVICE_SORT_RANK_CUH
#define PP_CUDA_DEVICE_SORT_RANK_CUH

#include <stdint.h>

#include "nv_ptx.h"
#include "sort_keys.cuh"

namespace {

// The digits of a thread's ITEMS keys, four to a register (indices are known
// at compile time in the unrolled loops, so get and set are bit-field ops).
template <int ITEMS> struct Digits {
    uint32_t w[(ITEMS + 3) / 4];
    __device__ __forceinline__ void set(int i, uint32_t d)
    {
        if (i % 4 == 0) w[i / 4] = d;
        else w[i / 4] |= d << (8 * (i % 4));
    }
    __device__ __forceinline__ uint32_t get(int i) const { return (w[i / 4] >> (8 * (i % 4))) & 255u; }
};

// Lanes of the warp whose word w has the same value as this lane's at the
// bit(s) of `bit`: a ballot of the bit, inverted in the lanes where the bit
// is clear. All 32 lanes must call it.
__device__ __forceinline__ unsigned same_bit(uint32_t w, uint32_t bit)
{
    unsigned r;
    asm volatile(PP_PTX_SAME_BIT : "=r"(r) : "r"(w), "r"(bit));
    return r;
}

// *p += v by the lanes where `leader` is set, returning the old value there
// (0 elsewhere): one predicated shared-memory atomic instead of a branch.
__device__ __forceinline__ uint32_t leader_add(uint32_t *p, uint32_t v, bool leader)
{
    uint32_t old;
    asm volatile("{\n\t.reg .pred q;\n\t"
                 "setp.ne.u32 q, %3, 0;\n\t"
                 "mov.u32 %0, 0;\n\t"
                 "@q atom.shared.add.u32 %0, [%1], %2;\n\t}"
                 : "=r"(old)
                 : "r"((uint32_t)__cvta_generic_to_shared(p)), "r"(v), "r"((uint32_t)leader)
                 : "memory");
    return old;
}

// *p += 1 in shared memory, no value returned (a reduction, not an atomic
// that waits for the old value).
__device__ __forceinline__ void shared_increment(uint32_t *p)
{
    asm volatile("red.shared.add.u32 [%0], 1;" ::"r"((uint32_t)__cvta_generic_to_shared(p)) : "memory");
}

// A thread's ITEMS keys; keys of 1 or 2 bytes are kept packed in 32-bit
// registers (get/set with compile-time indices become bit-field ops).
template <typename U, int ITEMS, bool SMALL = (sizeof(U) < 4)> struct KeyRegs {
    U r[ITEMS];
    __device__ __forceinline__ U get(int i) const { return r[i]; }
    __device__ __forceinline__ void set(int i, U v) { r[i] = v; }
};
template <typename U, int ITEMS> struct KeyRegs<U, ITEMS, true> {
    static constexpr int PER = 4 / (int)sizeof(U);
    uint32_t w[(ITEMS + PER - 1) / PER];
    __device__ __forceinline__ U get(int i) const { return (U)(w[i / PER] >> (8 * (int)sizeof(U) * (i % PER))); }
    __device__ __forceinline__ void set(int i, U v)
    {
        if (i % PER == 0) w[i / PER] = (uint32_t)v;
        else w[i / PER] |= (uint32_t)v << (8 * (int)sizeof(U) * (i % PER));
    }
};

// The warp holds 32 * ITEMS consecutive keys of the tile, item i of lane l
// being key i * 32 + l of the warp's chunk; so "item by item, lane by lane"
// is input order. For each item, the lanes with the same digit (peers) are
// found with 8 ballots; the highest peer (leader) adds the number of peers to
// the warp's running counter of that digit (an atomic that returns the old
// value; no other lane touches that counter in this item) and later hands
// the old value to its peers; each lane's rank is the old value plus the
// number of lower peers. __syncwarp orders the items, so the counters and ranks follow
// input order: the ranking is stable. The counters count on from their
// values at entry c[d]: item i's rank r is c[d] plus its rank among the
// warp's keys of digit d, handed to f(i, r) in item order (r = 0 for an item
// that does not exist); on return wcnt[d] is c[d] plus the warp's count of
// digit d. The ballots of G items are issued before their atomics (they are
// independent of each other; more in flight, more registers).
// valid: keys of the warp's chunk that exist (FULL: all of them).
template <int ITEMS, bool FULL, int G, typename F>
__device__ __forceinline__ void warp_rank_each(const Digits<ITEMS> &dg, uint32_t *wcnt, int valid, F &&f)
{
    const int lane = threadIdx.x & 31;
    const unsigned lower = (1u << lane) - 1u;
#pragma unroll
    for (int g = 0; g < ITEMS; g += G) {
        unsigned pm[G];
#pragma unroll
        for (int u = 0; u < G; u++) {
            const int i = g + u;
            pm[u] = 0;
            if (i >= ITEMS || (!FULL && valid - i * 32 <= 0)) continue; // warp-uniform
            const uint32_t w = dg.w[i / 4];
            const int b0 = 8 * (i % 4);
            pm[u] = same_bit(w, 1u << b0) & same_bit(w, 1u << (b0 + 1)) & same_bit(w, 1u << (b0 + 2)) &
                    same_bit(w, 1u << (b0 + 3)) & same_bit(w, 1u << (b0 + 4)) & same_bit(w, 1u << (b0 + 5)) &
                    same_bit(w, 1u << (b0 + 6)) & same_bit(w, 1u << (b0 + 7));
        }
#pragma unroll
        for (int u = 0; u < G; u++) {
            const int i = g + u;
            if (i >= ITEMS) break;
            unsigned peers = pm[u];
            bool ok = true;
            if (!FULL) {
                const int nv = valid - i * 32;
                if (nv <= 0) { // warp-uniform
                    f(i, 0u);
                    continue;
                }
                const unsigned live = nv >= 32 ? ~0u : (1u << nv) - 1u;
                peers &= live;
                ok = (live >> lane) & 1u;
            }
            const int leader = ok ? 31 - __clz(peers) : lane;
            uint32_t base = leader_add(&wcnt[dg.get(i)], (uint32_t)__popc(peers), ok && lane == leader);
            base = __shfl_sync(~0u, base, leader);
            f(i, base + (uint32_t)__popc(peers & lower));
            __syncwarp();
        }
    }
}

// warp_rank_each with every item's ballots first, the ranks into rk.
template <int ITEMS, bool FULL>
__device__ __forceinline__ void warp_rank(const Digits<ITEMS> &dg, uint32_t (&rk)[ITEMS], uint32_t *wcnt, int valid)
{
    warp_rank_each<ITEMS, FULL, ITEMS>(dg, wcnt, valid, [&](int i, uint32_t r) { rk[i] = r; });
}

// For digit d (thread d < 256, after a __syncthreads that follows the
// counting): the column of warp counts of digit d, warp w's count being the
// sum of its PARTS copies from[(w * 256 + d) * PARTS + part], becomes the
// exclusive prefixes cnt[w][d] over the warps; returns the tile's count of
// digit d. from may be cnt itself when PARTS is 1.
template <int WARPS, int PARTS = 1>
__device__ __forceinline__ uint32_t column_scan(const uint32_t *from, uint32_t *cnt, int d)
{
    static_assert(PARTS == 1 || PARTS == 2, "column_scan: 1 or 2 parts");
    uint32_t s = 0;
#pragma unroll
    for (int w = 0; w < WARPS; w++) {
        uint32_t c;
        if constexpr (PARTS == 2) { // one 8-byte read: a warp's reads fill whole wavefronts
            const uint2 v = ((const uint2 *)from)[w * kRadix + d];
            c = v.x + v.y;
        } else {
            c = from[w * kRadix + d];
        }
        cnt[w * kRadix + d] = s;
        s += c;
    }
    return s;
}

} // namespace

#endif
