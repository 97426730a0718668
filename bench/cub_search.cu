// bench_cub's rows of top-k, search, merge and the seeded scan (--only
// topk,search,merge,scaninit), beside CUB's counterparts:
//  - top-k (u32, f32; k = 1, 32, 1024, 65536; the k largest):
//    cub::DeviceTopK::MaxKeys / MaxPairs (indices from a counting
//    iterator), which return the k unsorted and in no fixed order, against
//    pp_top_k's sorted, stable result without and with indices; and a row
//    against a read-only pass over the input (cub::DeviceReduce::Sum of the
//    same keys: the bound of any top-k that reads its input once). At
//    2^16 and below, against one empty kernel launch.
//  - search (u32): 2^24 queries into 2^28 sorted keys (2^24 into n below
//    that), random and sorted queries: cub::DeviceFind::LowerBound and
//    LowerBoundSortedValues against pp_lower_bound.
//  - merge (u32 keys, u32 values): two sorted halves of n,
//    cub::DeviceMerge::MergeKeys / MergePairs against pp_merge /
//    pp_merge_pairs.
//  - scaninit (u32 sum): cub::DeviceScan::ExclusiveScan from a device value
//    (cub::FutureValue) against pp_scan_init, and pp_scan_init against
//    pp_scan of the same data (the issue asks for pp_scan's time).
// DeviceTopK and DeviceFind come with the nvidia-cuda-cccl wheel's CUB
// (PP_BENCH_CCCL_INCLUDE); built without them, those rows print that they
// are skipped and why. Every row's results are compared (top-k: CUB's keys
// sorted on the host against ours; our indices checked to point at their
// keys).
#include <cub/cub.cuh>
#if __has_include(<cub/device/device_topk.cuh>)
#include <cub/device/device_topk.cuh>
#include <cuda/execution>
#include <cuda/iterator>
#define PP_HAVE_CUB_TOPK 1
#endif
#if __has_include(<cub/device/device_find.cuh>)
#include <cub/device/device_find.cuh>
#define PP_HAVE_CUB_FIND 1
#endif

#include <algorithm>
#include <functional>
#include <stdint.h>
#include <vector>

#include "cub_rows.cuh"

namespace
{

const unsigned GRID = 1024;

// Random keys from a seed: u32 every bit pattern; f32 every finite bit
// pattern (an all-ones exponent loses its low bit), both signs.
template <typename T> __global__ void fill_keys(T *p, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t u = (uint32_t)bench_mix(seed ^ i);
        if (sizeof(T) == 4 && (T)0.5 != (T)0) {
            if (((u >> 23) & 0xFFu) == 0xFFu) u ^= 1u << 23;
            p[i] = (T)__uint_as_float(u);
        } else
            p[i] = (T)u;
    }
}

#if PP_HAVE_CUB_TOPK
// bad[0] += 1 for every j where keys[j] != in[idx[j]].
// The keys compared as bits (both key types are 4 bytes).
__global__ void check_gather(const uint32_t *in, const uint32_t *keys, const uint64_t *idx, size_t k, int *bad)
{
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < k; j += (size_t)gridDim.x * blockDim.x)
        if (keys[j] != in[idx[j]]) atomicAdd(bad, 1);
}
#endif

// Sorts n u32 keys in place on g_stream (untimed set-up), with tmp (n keys).
void sort_u32(uint32_t *keys, uint32_t *tmp, size_t n)
{
    size_t t = 0;
    cub::DeviceRadixSort::SortKeys(nullptr, t, keys, tmp, (int64_t)n);
    void *temp = cub_temp(t);
    cub::DeviceRadixSort::SortKeys(temp, t, keys, tmp, (int64_t)n, 0, 32, g_stream);
    CK(cudaMemcpyAsync(keys, tmp, n * 4, cudaMemcpyDeviceToDevice, g_stream));
    CK(cudaStreamSynchronize(g_stream));
}

template <typename T> const char *tname() { return (T)0.5 != (T)0 ? "f32" : "u32"; }
template <typename T> pp_type ptype() { return (T)0.5 != (T)0 ? PP_F32 : PP_U32; }

#if PP_HAVE_CUB_TOPK
// Host check of one top-k row: ours (sorted, descending) equals CUB's keys
// sorted descending, bit for bit, and our indices point at our keys.
template <typename T> int topk_agree(const T *in, const T *ours, const uint64_t *idx, const T *cubk, size_t k, int *bad)
{
    std::vector<T> a(k), b(k);
    CK(cudaMemcpy(a.data(), ours, k * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), cubk, k * sizeof(T), cudaMemcpyDeviceToHost));
    std::sort(b.begin(), b.end(), std::greater<T>());
    int ok = memcmp(a.data(), b.data(), k * sizeof(T)) == 0;
    if (idx) {
        CK(cudaMemset(bad, 0, sizeof(int)));
        check_gather<<<GRID, 256, 0, g_stream>>>((const uint32_t *)in, (const uint32_t *)ours, idx, k, bad);
        int h = 1;
        CK(cudaMemcpyAsync(&h, bad, sizeof(int), cudaMemcpyDeviceToHost, g_stream));
        CK(cudaStreamSynchronize(g_stream));
        ok = ok && h == 0;
    }
    return ok;
}
#endif

template <typename T> void topk_rows(size_t n, int lg, double copy)
{
    static_assert(sizeof(T) == 4, "the checks compare 4-byte keys as bits");
#if PP_HAVE_CUB_TOPK
    const size_t ks[4] = {1, 32, 1024, 65536};
    Buffers B;
    if (!B.get("top-k", 1, n * sizeof(T), ((size_t)3 * 65536 * 16) + ((size_t)64 << 20))) return;
    T *in = (T *)B.p[0];
    T *ko, *kc;
    uint64_t *io, *ic;
    int *bad;
    CK(cudaMalloc(&ko, 65536 * sizeof(T)));
    CK(cudaMalloc(&kc, 65536 * sizeof(T)));
    CK(cudaMalloc(&io, 65536 * 8));
    CK(cudaMalloc(&ic, 65536 * 8));
    CK(cudaMalloc(&bad, sizeof(int)));
    fill_keys<T><<<GRID, 256, 0, g_stream>>>(in, n, 777 + lg);
    CK(cudaStreamSynchronize(g_stream));
    const auto env = ::cuda::std::execution::env{
        ::cuda::stream_ref{g_stream}, ::cuda::execution::require(::cuda::execution::determinism::not_guaranteed,
                                                                 ::cuda::execution::output_ordering::unsorted)};
    // The read-only pass: CUB's sum of the keys (as u32 bits for f32 too).
    double read_ms;
    {
        size_t t = 0;
        cub::DeviceReduce::Sum(nullptr, t, (const uint32_t *)in, (uint32_t *)ic, (int64_t)n);
        void *temp = cub_temp(t);
        read_ms = time_median(
            [&] { cub::DeviceReduce::Sum(temp, t, (const uint32_t *)in, (uint32_t *)ic, (int64_t)n, g_stream); });
    }
    double launch_ms = 0;
    if (lg <= 16) launch_ms = time_median([&] { empty_kernel<<<1, 32, 0, g_stream>>>(); });
    const pp_type pt = ptype<T>();
    char name[96];
    for (size_t k : ks) {
        if (k > n) continue;
        for (int pairs = 0; pairs < 2; pairs++) {
            size_t t = 0;
            const auto counting = ::cuda::counting_iterator<uint64_t>(0);
            if (pairs)
                cub::DeviceTopK::MaxPairs(nullptr, t, in, kc, counting, ic, (int64_t)n, (int64_t)k, env);
            else
                cub::DeviceTopK::MaxKeys(nullptr, t, in, kc, (int64_t)n, (int64_t)k, env);
            void *temp = cub_temp(t);
            double ours, cub;
            time_pair(
                &ours, &cub, [&] { PK(g_ctx, pp_top_k(g_ctx, pt, in, n, k, PP_DESCENDING, ko, pairs ? io : NULL)); },
                [&] {
                    if (pairs)
                        cub::DeviceTopK::MaxPairs(temp, t, in, kc, counting, ic, (int64_t)n, (int64_t)k, env);
                    else
                        cub::DeviceTopK::MaxKeys(temp, t, in, kc, (int64_t)n, (int64_t)k, env);
                });
            CK(cudaStreamSynchronize(g_stream));
            const int ok = topk_agree<T>(in, ko, pairs ? io : NULL, kc, k, bad);
            snprintf(name, sizeof name, "top-k %s k=%zu", pairs ? "keys+indices" : "keys", k);
            add_row(name, tname<T>(), n, ours, cub, (double)n * sizeof(T), copy, 1.5, ok);
            // The same run of ours against the read-only pass (target 0.8
            // of it), or below 2^16 against one launch (within 2x).
            snprintf(name, sizeof name, "top-k %s k=%zu vs %s", pairs ? "keys+indices" : "keys", k,
                     lg <= 16 ? "one launch" : "read-only pass");
            add_row(name, tname<T>(), n, ours, lg <= 16 ? launch_ms : read_ms, (double)n * sizeof(T), copy,
                    lg <= 16 ? 0.5 : 0.8, ok);
        }
    }
    CK(cudaFree(ko));
    CK(cudaFree(kc));
    CK(cudaFree(io));
    CK(cudaFree(ic));
    CK(cudaFree(bad));
#else
    (void)n;
    (void)lg;
    (void)copy;
    printf("  top-k: skipped, this CUB has no DeviceTopK (build with PP_BENCH_CCCL_INCLUDE: the nvidia-cuda-cccl "
           "wheel)\n");
#endif
}

void search_rows(size_t n, double copy)
{
#if PP_HAVE_CUB_FIND
    const size_t m = std::min(n, (size_t)1 << 24);
    Buffers B;
    if (!B.get("search", 3, n * 4, (size_t)m * 16)) return;
    uint32_t *keys = (uint32_t *)B.p[0], *q = (uint32_t *)B.p[1], *tmp = (uint32_t *)B.p[2];
    uint64_t *o1, *o2;
    CK(cudaMalloc(&o1, m * 8));
    CK(cudaMalloc(&o2, m * 8));
    fill_keys<uint32_t><<<GRID, 256, 0, g_stream>>>(keys, n, 4242);
    fill_keys<uint32_t><<<GRID, 256, 0, g_stream>>>(q, m, 4343);
    sort_u32(keys, tmp, n);
    for (int sorted = 0; sorted < 2; sorted++) {
        if (sorted) sort_u32(q, tmp, m);
        size_t t = 0;
        if (sorted)
            cub::DeviceFind::LowerBoundSortedValues(nullptr, t, keys, (int64_t)n, q, (int64_t)m, o2,
                                                    ::cuda::std::less<>{});
        else
            cub::DeviceFind::LowerBound(nullptr, t, keys, (int64_t)n, q, (int64_t)m, o2, ::cuda::std::less<>{});
        void *temp = cub_temp(t);
        double ours, cub;
        time_pair(
            &ours, &cub, [&] { PK(g_ctx, pp_lower_bound(g_ctx, PP_U32, keys, n, PP_ASCENDING, q, m, o1)); },
            [&] {
                if (sorted)
                    cub::DeviceFind::LowerBoundSortedValues(temp, t, keys, (int64_t)n, q, (int64_t)m, o2,
                                                            ::cuda::std::less<>{}, g_stream);
                else
                    cub::DeviceFind::LowerBound(temp, t, keys, (int64_t)n, q, (int64_t)m, o2, ::cuda::std::less<>{},
                                                ::cuda::stream_ref{g_stream});
            });
        CK(cudaStreamSynchronize(g_stream));
        char name[96];
        snprintf(name, sizeof name, "lower_bound of 2^%d %s queries", (int)log2((double)m),
                 sorted ? "sorted" : "random");
        // Bytes: the queries read, the answers written (the keys' reads are
        // cached lookups, not a stream).
        add_row(name, "u32", n, ours, cub, (double)m * 12, copy, 1.3, equal_dev(o1, o2, m * 8));
    }
    CK(cudaFree(o1));
    CK(cudaFree(o2));
#else
    (void)n;
    (void)copy;
    printf("  search: skipped, this CUB has no DeviceFind::LowerBound (build with PP_BENCH_CCCL_INCLUDE)\n");
#endif
}

void merge_rows(size_t n, double copy)
{
    const size_t h = n / 2;
    Buffers B;
    if (!B.get("merge", 6, n * 4, n * 8)) return;
    uint32_t *k = (uint32_t *)B.p[0], *v = (uint32_t *)B.p[1], *ko = (uint32_t *)B.p[2], *vo = (uint32_t *)B.p[3];
    uint32_t *kc = (uint32_t *)B.p[4], *vc = (uint32_t *)B.p[5];
    fill_keys<uint32_t><<<GRID, 256, 0, g_stream>>>(k, n, 5151);
    fill_keys<uint32_t><<<GRID, 256, 0, g_stream>>>(v, n, 5252);
    sort_u32(k, ko, h);
    sort_u32(k + h, ko, n - h);
    for (int pairs = 0; pairs < 2; pairs++) {
        size_t t = 0;
        if (pairs)
            cub::DeviceMerge::MergePairs(nullptr, t, k, v, (int64_t)h, k + h, v + h, (int64_t)(n - h), kc, vc);
        else
            cub::DeviceMerge::MergeKeys(nullptr, t, k, (int64_t)h, k + h, (int64_t)(n - h), kc);
        void *temp = cub_temp(t);
        double ours, cub;
        time_pair(
            &ours, &cub,
            [&] {
                if (pairs)
                    PK(g_ctx, pp_merge_pairs(g_ctx, PP_U32, k, v, h, k + h, v + h, n - h, 4, ko, vo, PP_ASCENDING));
                else
                    PK(g_ctx, pp_merge(g_ctx, PP_U32, k, h, k + h, n - h, ko, PP_ASCENDING));
            },
            [&] {
                if (pairs)
                    cub::DeviceMerge::MergePairs(temp, t, k, v, (int64_t)h, k + h, v + h, (int64_t)(n - h), kc, vc,
                                                 ::cuda::std::less<>{}, g_stream);
                else
                    cub::DeviceMerge::MergeKeys(temp, t, k, (int64_t)h, k + h, (int64_t)(n - h), kc,
                                                ::cuda::std::less<>{}, g_stream);
            });
        CK(cudaStreamSynchronize(g_stream));
        const int ok = equal_dev(ko, kc, n * 4) && (!pairs || equal_dev(vo, vc, n * 4));
        add_row(pairs ? "merge_pairs of two halves" : "merge of two halves", "u32", n, ours, cub,
                (double)n * 4 * (pairs ? 4 : 2), copy, 1.2, ok);
    }
}

void scaninit_rows(size_t n, double copy)
{
    Buffers B;
    if (!B.get("scan_init", 3, n * 4, n * 4)) return;
    uint32_t *in = (uint32_t *)B.p[0], *o1 = (uint32_t *)B.p[1], *o2 = (uint32_t *)B.p[2], *init;
    CK(cudaMalloc(&init, 4));
    fill_keys<uint32_t><<<GRID, 256, 0, g_stream>>>(in, n, 6161);
    fill_keys<uint32_t><<<1, 1, 0, g_stream>>>(init, 1, 6262);
    CK(cudaStreamSynchronize(g_stream));
    size_t t = 0;
    const auto fv = cub::FutureValue<uint32_t>(init);
    cub::DeviceScan::ExclusiveScan(nullptr, t, in, o2, ::cuda::std::plus<>{}, fv, (int64_t)n);
    void *temp = cub_temp(t);
    double ours, cub, plain;
    time_pair(
        &ours, &cub, [&] { PK(g_ctx, pp_scan_init(g_ctx, PP_U32, PP_SUM, PP_EXCLUSIVE, in, o1, n, init)); },
        [&] { cub::DeviceScan::ExclusiveScan(temp, t, in, o2, ::cuda::std::plus<>{}, fv, (int64_t)n, g_stream); });
    CK(cudaStreamSynchronize(g_stream));
    const int ok = equal_dev(o1, o2, n * 4);
    add_row("exclusive scan_init sum", "u32", n, ours, cub, (double)n * 8, copy, 1.0, ok);
    time_pair(
        &ours, &plain, [&] { PK(g_ctx, pp_scan_init(g_ctx, PP_U32, PP_SUM, PP_EXCLUSIVE, in, o1, n, init)); },
        [&] { PK(g_ctx, pp_scan(g_ctx, PP_U32, PP_SUM, PP_EXCLUSIVE, in, o2, n)); });
    add_row("exclusive scan_init vs pp_scan", "u32", n, ours, plain, (double)n * 8, copy, 0.98, 1);
    CK(cudaFree(init));
}

} // namespace

void run_search_rows(size_t n, int lg, double copy)
{
    if (want("topk")) {
        if (want_type("u32")) topk_rows<uint32_t>(n, lg, copy);
        if (want_type("f32")) topk_rows<float>(n, lg, copy);
    }
    if (want("search") && want_type("u32")) search_rows(n, copy);
    if (want("merge") && want_type("u32")) merge_rows(n, copy);
    if (want("scaninit") && want_type("u32")) scaninit_rows(n, copy);
}
