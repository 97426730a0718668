// bench_cub's rows of the segmented sorts (--only segsort), beside CUB's
// DeviceSegmentedSort::StableSortKeys and StableSortPairs: u32 and f32 keys
// (--types) in segments of a fixed size (64, 1K, 16K and 256K keys, where n
// holds two segments at least) and of power-law sizes from 1 to 2^24; pairs
// (u32 keys, u32 values) in 1K-key segments; and a reference row per type:
// one pp_sort of all n keys (the issue's target: every segmented row at least
// that throughput), beside CUB's DeviceRadixSort::SortKeys. Our sorts run in
// place on a fresh copy of the keys (made before the timed part); CUB's sort
// from the pristine keys into its output. Float keys hold no NaN and no
// -0.0 (where the two libraries' orders differ), so results compare bit
// for bit.
#include <cub/cub.cuh>

#include "cub_rows.cuh"

#include <vector>

// Random keys from a seed: every bit pattern for u32; for f32 a nonzero
// 32-bit integer converted (finite, never -0.0 or NaN, about half negative).
template <typename T> __global__ void segsort_keys(T *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        // two rounds of multiply and xor-shift over i and the seed
        const uint64_t x = ((uint64_t)i + ((uint64_t)seed << 40)) * 0x9E3779B97F4A7C15ull;
        const uint32_t h = (uint32_t)(((x ^ (x >> 29)) * 0xBF58476D1CE4E5B9ull) >> 32);
        if constexpr ((T)0.5 != (T)0)
            p[i] = (T)(int32_t)(h | 1u);
        else
            p[i] = (T)h;
    }
}

// Offsets of a layout over n keys: fixed segments of `size` keys (size > 0),
// or power-law sizes (size == 0): 2^(24 u) for u uniform in [0, 1) from a
// fixed generator (as many segments of each binade), the last one cut at n.
static std::vector<uint64_t> layout(size_t n, size_t size)
{
    std::vector<uint64_t> off(1, 0);
    uint64_t x = 0x2545F4914F6CDD1Dull;
    while (off.back() < n) {
        size_t len = size;
        if (!size) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            len = (size_t)exp2(24.0 * (double)(x >> 11) * 0x1p-53);
        }
        off.push_back(off.back() + len < n ? off.back() + len : n);
    }
    return off;
}

template <typename T> static void segsort_type(size_t n, int lg, double copy, pp_type pt, const char *tn)
{
    const size_t bytes = n * sizeof(T);
    Buffers B; // pristine keys, ours, CUB's
    if (!B.get("segsort", 3, bytes, 2 * bytes + (bytes >> 4))) return;
    T *pk = (T *)B.p[0], *kk = (T *)B.p[1], *kc = (T *)B.p[2];
    segsort_keys<T><<<1024, 256, 0, g_stream>>>(pk, n, 700u + (uint32_t)lg);
    CK(cudaGetLastError());
    auto refresh = [&] { CK(cudaMemcpyAsync(kk, pk, bytes, cudaMemcpyDeviceToDevice, g_stream)); };
    {
        size_t t = 0;
        cub::DeviceRadixSort::SortKeys(nullptr, t, pk, kc, (int64_t)n);
        void *temp = cub_temp(t);
        double ours, cub;
        time_pair(
            &ours, &cub, [&] { PK(g_ctx, pp_sort(g_ctx, pt, kk, n, PP_ASCENDING)); },
            [&] { cub::DeviceRadixSort::SortKeys(temp, t, pk, kc, (int64_t)n, 0, 8 * (int)sizeof(T), g_stream); },
            refresh, [] {});
        CK(cudaStreamSynchronize(g_stream));
        add_row("segsort ref: one sort", tn, n, ours, cub, 2.0 * bytes, copy, 0.0, equal_dev(kk, kc, bytes));
    }
    const size_t sizes[] = {64, 1024, 16384, 262144, 0};
    for (size_t size : sizes) {
        if (size && 2 * size > n) continue;
        const std::vector<uint64_t> off = layout(n, size);
        const size_t nseg = off.size() - 1;
        uint64_t *doff;
        CK(cudaMalloc(&doff, off.size() * sizeof(uint64_t)));
        CK(cudaMemcpyAsync(doff, off.data(), off.size() * sizeof(uint64_t), cudaMemcpyHostToDevice, g_stream));
        size_t t = 0;
        cub::DeviceSegmentedSort::StableSortKeys(nullptr, t, pk, kc, (int64_t)n, (int64_t)nseg, doff, doff + 1);
        void *temp = cub_temp(t);
        double ours, cub;
        time_pair(
            &ours, &cub, [&] { PK(g_ctx, pp_segmented_sort(g_ctx, pt, kk, n, doff, nseg, PP_ASCENDING)); },
            [&] {
                cub::DeviceSegmentedSort::StableSortKeys(temp, t, pk, kc, (int64_t)n, (int64_t)nseg, doff, doff + 1,
                                                         g_stream);
            },
            refresh, [] {});
        CK(cudaStreamSynchronize(g_stream));
        char name[48];
        if (size)
            snprintf(name, sizeof name, "segsort keys %zu", size);
        else
            snprintf(name, sizeof name, "segsort keys power-law");
        add_row(name, tn, n, ours, cub, 2.0 * bytes, copy, 1.5, equal_dev(kk, kc, bytes));
        CK(cudaFree(doff));
    }
}

// Pairs: u32 keys and u32 values in 1K-key segments.
static void segsort_pairs(size_t n, int lg, double copy)
{
    const size_t bytes = n * 4;
    if (2 * 1024 > n) return;
    Buffers B; // pristine keys and values, ours, CUB's
    if (!B.get("segsort pairs", 6, bytes, 2 * bytes + (bytes >> 4))) return;
    uint32_t *pk = (uint32_t *)B.p[0], *kk = (uint32_t *)B.p[1], *kc = (uint32_t *)B.p[2];
    uint32_t *pv = (uint32_t *)B.p[3], *vv = (uint32_t *)B.p[4], *vc = (uint32_t *)B.p[5];
    segsort_keys<uint32_t><<<1024, 256, 0, g_stream>>>(pk, n, 800u + (uint32_t)lg);
    segsort_keys<uint32_t><<<1024, 256, 0, g_stream>>>(pv, n, 900u + (uint32_t)lg);
    CK(cudaGetLastError());
    const std::vector<uint64_t> off = layout(n, 1024);
    const size_t nseg = off.size() - 1;
    uint64_t *doff;
    CK(cudaMalloc(&doff, off.size() * sizeof(uint64_t)));
    CK(cudaMemcpyAsync(doff, off.data(), off.size() * sizeof(uint64_t), cudaMemcpyHostToDevice, g_stream));
    size_t t = 0;
    cub::DeviceSegmentedSort::StableSortPairs(nullptr, t, pk, kc, pv, vc, (int64_t)n, (int64_t)nseg, doff, doff + 1);
    void *temp = cub_temp(t);
    double ours, cub;
    time_pair(
        &ours, &cub, [&] { PK(g_ctx, pp_segmented_sort_pairs(g_ctx, PP_U32, kk, vv, 4, n, doff, nseg, PP_ASCENDING)); },
        [&] {
            cub::DeviceSegmentedSort::StableSortPairs(temp, t, pk, kc, pv, vc, (int64_t)n, (int64_t)nseg, doff,
                                                      doff + 1, g_stream);
        },
        [&] {
            CK(cudaMemcpyAsync(kk, pk, bytes, cudaMemcpyDeviceToDevice, g_stream));
            CK(cudaMemcpyAsync(vv, pv, bytes, cudaMemcpyDeviceToDevice, g_stream));
        },
        [] {});
    CK(cudaStreamSynchronize(g_stream));
    add_row("segsort pairs 1024", "u32/u32", n, ours, cub, 4.0 * bytes, copy, 1.5,
            equal_dev(kk, kc, bytes) && equal_dev(vv, vc, bytes));
    CK(cudaFree(doff));
}

void run_segsort_rows(size_t n, int lg, double copy)
{
    if (!want("segsort")) return;
    if (want_type("u32")) segsort_type<uint32_t>(n, lg, copy, PP_U32, "u32");
    if (want_type("f32")) segsort_type<float>(n, lg, copy, PP_F32, "f32");
    if (want_type("u32")) segsort_pairs(n, lg, copy);
}
