// The kernel of pp_lower_bound and pp_upper_bound (cuda_search.cu): for
// every query j, out[j] = the first i in [0, n] whose key is not before
// the query (UPPER: whose key the query is before), keys compared by the
// sort's radix keys (device/sort_keys.cuh), so "before" is the unsigned <.
//
// The search is branch-free: the range [base, base + len] that holds the
// answer halves by a select, and len goes down the same way for every
// query (it depends on n alone), so the loop has the same trip count in
// every thread and each probe base + len / 2 < base + len <= n lies in the
// array whatever `sorted` holds. The probes of the first kTreeLevels steps
// form a tree of at most 2^kTreeLevels - 1 positions, the same for every
// query: each block loads their radix keys once into shared memory (node v,
// children 2v and 2v + 1, in the order of the steps) and takes those steps
// there; the rest of the steps read global memory. Each thread searches
// kQueriesPerThread queries at once, stepping them down together, so that
// their loads are in flight together; the queries of a block are
// contiguous (coalesced loads of queries and stores of results).
#ifndef PP_CUDA_SEARCH_BOUNDS_CUH
#define PP_CUDA_SEARCH_BOUNDS_CUH

#include <stdint.h>

#include "../device/sort_keys.cuh"

namespace {

constexpr int kSearchBlock = 256;
constexpr int kTreeLevels = 10;      // steps taken in shared memory at most
constexpr int kQueriesPerThread = 4; // queries a thread steps down together

struct SearchArgs {
    const void *sorted; // n keys (n >= 1)
    uint64_t n;
    const void *queries; // m keys
    uint64_t m;
    uint64_t *out; // m results
    unsigned long long xmask;
    long long nan_key; // with xmask, the KeyMap of Radix::map
    int levels;        // steps taken in the shared tree: min(kTreeLevels, the steps of n)
};

// The number of halving steps of the search over n keys (n >= 1): len goes
// n -> len - len / 2 until it is 1.
__host__ __device__ inline int search_steps(uint64_t n)
{
    int steps = 0;
    for (uint64_t len = n; len > 1; len -= len / 2) steps++;
    return steps;
}

// (launch bounds: 32 registers, so that 2048 threads per SM are resident
// and their loads in flight together)
template <bool FLOAT, typename U, bool UPPER>
__global__ void __launch_bounds__(kSearchBlock, 2048 / kSearchBlock) search_kernel(const SearchArgs p)
{
    typedef Radix<FLOAT, U> R;
    __shared__ U tree[1 << kTreeLevels]; // nodes 1 .. 2^levels - 1 (0 unused)
    const U xm = (U)p.xmask, nk = (U)p.nan_key;
    const U *s = (const U *)p.sorted, *q = (const U *)p.queries;
    const uint64_t n = p.n, m = p.m;
    const int levels = p.levels;

    // Node v at level t (2^t <= v < 2^(t+1)): its bits below the leading one
    // are the choices of steps 0 .. t - 1, first step first; its position is
    // the base those choices give plus half the range left.
    for (uint32_t v = threadIdx.x + 1; v < (1u << levels); v += kSearchBlock) {
        const int t = 31 - __clz((int)v);
        uint64_t base = 0, len = n;
        for (int i = 0; i < t; i++) {
            const uint64_t half = len / 2;
            base += ((v >> (t - 1 - i)) & 1u) ? half : 0;
            len -= half;
        }
        tree[v] = R::map(s[base + len / 2], xm, nk);
    }
    __syncthreads();

    const uint64_t per_block = (uint64_t)kSearchBlock * kQueriesPerThread;
    for (uint64_t j0 = (uint64_t)blockIdx.x * per_block; j0 < m; j0 += (uint64_t)gridDim.x * per_block) {
        U key[kQueriesPerThread];
        uint64_t base[kQueriesPerThread];
        uint32_t node[kQueriesPerThread];
#pragma unroll
        for (int g = 0; g < kQueriesPerThread; g++) {
            const uint64_t j = j0 + (uint64_t)g * kSearchBlock + threadIdx.x;
            key[g] = j < m ? R::map(q[j], xm, nk) : (U)0; // past m: a search never stored
            base[g] = 0;
            node[g] = 1;
        }
        uint64_t len = n;
        for (int t = 0; t < levels; t++) {
            const uint64_t half = len / 2;
#pragma unroll
            for (int g = 0; g < kQueriesPerThread; g++) {
                const U k = tree[node[g]];
                const bool c = UPPER ? k <= key[g] : k < key[g];
                base[g] += c ? half : 0;
                node[g] = 2 * node[g] + (uint32_t)c;
            }
            len -= half;
        }
        while (len > 1) {
            const uint64_t half = len / 2;
#pragma unroll
            for (int g = 0; g < kQueriesPerThread; g++) {
                const U k = R::map(__ldg(s + base[g] + half), xm, nk);
                base[g] += (UPPER ? k <= key[g] : k < key[g]) ? half : 0;
            }
            len -= half;
        }
#pragma unroll
        for (int g = 0; g < kQueriesPerThread; g++) {
            const uint64_t j = j0 + (uint64_t)g * kSearchBlock + threadIdx.x;
            const U k = R::map(__ldg(s + base[g]), xm, nk);
            if (j < m) p.out[j] = base[g] + (uint64_t)(UPPER ? k <= key[g] : k < key[g]);
        }
    }
}

} // namespace

#endif
