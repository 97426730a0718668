// bench_cub's rows of the half types, f16 and bf16 (--only half, --types
// f16,bf16), beside CUB's counterparts (issue 46's speed targets):
//  - sum: pp_reduce(PP_SUM), the exact sum rounded once to the half format,
//    against cub::DeviceReduce::TransformReduce converting each half to
//    float with a float accumulator (init 0.0f). Ours is checked bit for
//    bit against the cpu backend's (g_cpu) sum of the same data; CUB's float
//    is printed beside the exact value with their relative difference
//    (reported, never a failure: CUB's sum is rounded differently).
//  - inclusive scan: pp_scan(PP_SUM, PP_INCLUSIVE) against
//    cub::DeviceScan::InclusiveScan over a transform iterator (half to
//    float), float accumulation, written back as half through a transform
//    output iterator. Ours is checked bit for bit against the cpu backend's
//    scan of the first 2^20 inputs and, for the last output, the cpu's sum
//    of all (as the exact rows do).
//  - sort keys (f16, bf16) and sort pairs (f16 keys, u32 values):
//    pp_sort / pp_sort_pairs against cub::DeviceRadixSort::SortKeys /
//    SortPairs on __half / __nv_bfloat16 keys.
// Targets (ours-over-CUB speed ratios): 0.95 for the sum and the scan, 1.1
// for the sorts, above 2^16; at 2^16 and below the rows are references (no
// target). Data: fresh from a seed; sums and scans over values in 8 binades
// (2^-8 .. 1) of both signs, so that the sums cancel and stay in f16's
// range at every size; sort keys every finite bit pattern (no NaN, no
// infinity); both data kinds have 1/64 zeros, -0.0 and +0.0 alike.
//
// The order of zeros: parprim orders -0.0 before +0.0 (NumPy's order,
// include/parprim.h). CUB's radix sort does not: its digit extractor maps
// the twiddled bits of -0.0 to those of +0.0 (BaseDigitExtractor<KeyT,
// true>::ProcessFloatMinusZero, cub/block/radix_rank_sort_operations.cuh),
// so both zeros are one key to it, kept in input order (the sort is
// stable). So the sort rows check: outside the zeros, keys (and values)
// bitwise equal to CUB's; the zeros at the same places, and there our keys
// and values are CUB's stably partitioned, every -0.0 before every +0.0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cub/cub.cuh>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <math.h>
#include <stdint.h>
#include <vector>

#include "cub_rows.cuh"

namespace
{

const unsigned GRID = 1024;

// The half type's name, pp_type and conversions (to and from float, and a
// float's half rounded to nearest even).
template <typename H> struct half_info;
template <> struct half_info<__half> {
    static constexpr pp_type id = PP_F16;
    static constexpr uint16_t EXP = 0x7C00, EXP_LOW = 0x0400; // the exponent field, its low bit
    static const char *name() { return "f16"; }
    __host__ __device__ static float to_float(__half x) { return __half2float(x); }
    __host__ __device__ static __half from_float(float f) { return __float2half_rn(f); }
};
template <> struct half_info<__nv_bfloat16> {
    static constexpr pp_type id = PP_BF16;
    static constexpr uint16_t EXP = 0x7F80, EXP_LOW = 0x0080;
    static const char *name() { return "bf16"; }
    __host__ __device__ static float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
    __host__ __device__ static __nv_bfloat16 from_float(float f) { return __float2bfloat16_rn(f); }
};

template <typename H> struct ToFloat {
    __host__ __device__ float operator()(H x) const { return half_info<H>::to_float(x); }
};
template <typename H> struct FromFloat {
    __host__ __device__ H operator()(float f) const { return half_info<H>::from_float(f); }
};

// The value of a half's 16 bits on the host, decoded by hand (exact: every
// half is an f32).
template <typename H> float host_value(uint16_t b)
{
    if (half_info<H>::id == PP_BF16) {
        const uint32_t u = (uint32_t)b << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    const int e = (b >> 10) & 31, m = b & 1023;
    const float mag = e == 31  ? (m ? NAN : INFINITY)
                      : e == 0 ? ldexpf((float)m, -24)
                               : ldexpf((float)(1024 + m), e - 25);
    return (b & 0x8000) ? -mag : mag;
}

// Fresh halves from a seed, as the bits of H. 1/64 are zeros of either
// sign; the rest: SUMS, +-(1 + u) 2^-(1..8) rounded to H; KEYS, every
// finite bit pattern (an all-ones exponent loses its low bit).
enum HalfFill { SUMS, KEYS };
template <typename H> __global__ void fill_half(uint16_t *p, size_t n, uint64_t seed, HalfFill kind)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint64_t h = bench_mix(seed ^ i);
        uint16_t b;
        if ((h >> 58) == 0)
            b = (h & 1) ? 0x8000 : 0;
        else if (kind == KEYS) {
            b = (uint16_t)h;
            if ((b & half_info<H>::EXP) == half_info<H>::EXP) b ^= half_info<H>::EXP_LOW;
        } else {
            const float v = ldexpf(1.0f + (float)((h >> 8) & 0x7FFFFF) * 0x1p-23f, -1 - (int)(h % 8));
            H x = half_info<H>::from_float((h >> 3) & 1 ? -v : v);
            memcpy(&b, &x, 2);
        }
        p[i] = b;
    }
}
template <typename H> void fill(uint16_t *p, size_t n, uint64_t seed, HalfFill kind)
{
    fill_half<H><<<GRID, 256, 0, g_stream>>>(p, n, seed, kind);
    CK(cudaGetLastError());
}

double target(double t, int lg) { return lg <= 16 ? 0.0 : t; }

// Our sorted keys ko (values vo) against CUB's kc (vc); vo, vc NULL for
// keys only. st[0] += 1 for each place where the keys differ other than in
// the sign of a zero, or the values differ at a nonzero key; st[1] counts
// the zeros, st[2] is the first zero's place (st[2] initialized to ~0).
__global__ void compare_sorted(const uint16_t *ko, const uint16_t *kc, const uint32_t *vo, const uint32_t *vc, size_t n,
                               unsigned long long *st)
{
    unsigned long long bad = 0, zeros = 0, first = ~0ull; // this thread's, added once at the end
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint16_t a = ko[i], b = kc[i];
        const bool za = (a & 0x7FFF) == 0, zb = (b & 0x7FFF) == 0;
        if (za != zb || (!za && a != b) || (!za && vo && vo[i] != vc[i])) bad++;
        if (za && zeros++ == 0) first = i; // i grows: the first is this thread's least
    }
    if (bad) atomicAdd(&st[0], bad);
    if (zeros) {
        atomicAdd(&st[1], zeros);
        atomicMin(&st[2], first);
    }
}

// 1 if our sort (ko, vo) is CUB's (kc, vc) with its zeros stably
// partitioned, -0.0 first (the head comment says why); vo, vc NULL for keys
// only.
int check_sort(const uint16_t *ko, const uint16_t *kc, const uint32_t *vo, const uint32_t *vc, size_t n)
{
    unsigned long long *st, h[3] = {0, 0, ~0ull};
    CK(cudaMalloc(&st, sizeof h));
    CK(cudaMemcpyAsync(st, h, sizeof h, cudaMemcpyHostToDevice, g_stream));
    compare_sorted<<<GRID, 256, 0, g_stream>>>(ko, kc, vo, vc, n, st);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(h, st, sizeof h, cudaMemcpyDeviceToHost, g_stream));
    CK(cudaStreamSynchronize(g_stream));
    CK(cudaFree(st));
    if (h[0] != 0) {
        printf("  half sort: %llu places differ from CUB's other than in the zeros\n", h[0]);
        return 0;
    }
    const size_t z = (size_t)h[1], z0 = z ? (size_t)h[2] : 0;
    if (z == 0) return 1;
    // The zero run [z0, z0 + z) (within [0, n): the z zeros are at distinct
    // places from z0 on): CUB's, stably partitioned by sign, must be ours.
    std::vector<uint16_t> ao(z), ac(z);
    std::vector<uint32_t> bo(vo ? z : 0), bc(vo ? z : 0);
    CK(cudaMemcpy(ao.data(), ko + z0, z * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ac.data(), kc + z0, z * 2, cudaMemcpyDeviceToHost));
    if (vo) {
        CK(cudaMemcpy(bo.data(), vo + z0, z * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(bc.data(), vc + z0, z * 4, cudaMemcpyDeviceToHost));
    }
    size_t j = 0;
    for (int pass = 0; pass < 2; pass++) {
        const uint16_t want = pass == 0 ? 0x8000 : 0;
        for (size_t i = 0; i < z; i++) {
            if ((ac[i] & 0x7FFF) != 0) { // CUB's zeros are not one run: not sorted
                printf("  half sort: CUB's zeros are not one run\n");
                return 0;
            }
            if (ac[i] != want) continue;
            if (ao[j] != want || (vo && bo[j] != bc[i])) {
                printf("  half sort: the zeros differ from CUB's stably partitioned by sign at %zu\n", z0 + j);
                return 0;
            }
            j++;
        }
    }
    return j == z;
}

template <typename H> void sum_rows(size_t n, int lg, double copy)
{
    const pp_type ty = half_info<H>::id;
    const char *tn = half_info<H>::name();
    const size_t bytes = n * 2;
    Buffers B; // the data
    if (!B.get("half sum", 1, bytes, 0)) return;
    uint16_t *x = (uint16_t *)B.p[0];
    fill<H>(x, n, 9100 + lg, SUMS);
    void *o1, *o2; // ours (16 bits), CUB's (a float)
    CK(cudaMalloc(&o1, 64));
    CK(cudaMalloc(&o2, 64));
    const H *in = (const H *)x;
    size_t t = 0;
    cub::DeviceReduce::TransformReduce(nullptr, t, in, (float *)o2, (int64_t)n, ::cuda::std::plus<float>{},
                                       ToFloat<H>{}, 0.0f);
    void *temp = cub_temp(t);
    double ours, cub;
    time_pair(
        &ours, &cub, [&] { PK(g_ctx, pp_reduce(g_ctx, ty, PP_SUM, x, n, o1)); },
        [&] {
            cub::DeviceReduce::TransformReduce(temp, t, in, (float *)o2, (int64_t)n, ::cuda::std::plus<float>{},
                                               ToFloat<H>{}, 0.0f, g_stream);
        });
    CK(cudaStreamSynchronize(g_stream));
    uint16_t got = 0, want = 0;
    float cubsum = 0;
    CK(cudaMemcpy(&got, o1, 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&cubsum, o2, 4, cudaMemcpyDeviceToHost));
    int ok = 0;
    if (g_cpu) { // the reference: the cpu backend's sum of the same data
        uint16_t *hx = (uint16_t *)malloc(bytes);
        void *cx = NULL, *co = NULL;
        if (!hx) {
            fprintf(stderr, "bench_cub: out of host memory\n");
            exit(3);
        }
        CK(cudaMemcpy(hx, x, bytes, cudaMemcpyDeviceToHost));
        PK(g_cpu, pp_malloc(g_cpu, &cx, bytes));
        PK(g_cpu, pp_malloc(g_cpu, &co, 64));
        PK(g_cpu, pp_upload(g_cpu, cx, hx, bytes));
        PK(g_cpu, pp_reduce(g_cpu, ty, PP_SUM, cx, n, co));
        PK(g_cpu, pp_download(g_cpu, &want, co, 2));
        pp_free(g_cpu, cx);
        pp_free(g_cpu, co);
        free(hx);
        ok = got == want;
        if (!ok) printf("  %s sum: got 0x%04x, the cpu's exact sum 0x%04x\n", tn, got, want);
    }
    const double exact = host_value<H>(got), rel = exact != 0 ? fabs((double)cubsum - exact) / fabs(exact) : 0.0;
    printf("  %s sum: exact (rounded once) %.9g, CUB's f32 accumulator %.9g, relative difference %.3g%s\n", tn, exact,
           (double)cubsum, rel, rel > 1e-2 || (exact == 0 && cubsum != 0) ? " (more than 1e-2)" : "");
    add_row("half sum (CUB: f32 acc.)", tn, n, ours, cub, (double)bytes, copy, target(0.95, lg), ok);
    CK(cudaFree(o1));
    CK(cudaFree(o2));
}

template <typename H> void scan_rows(size_t n, int lg, double copy)
{
    const pp_type ty = half_info<H>::id;
    const char *tn = half_info<H>::name();
    const size_t bytes = n * 2;
    Buffers B; // the data, ours, CUB's
    if (!B.get("half scan", 3, bytes, 0)) return;
    uint16_t *x = (uint16_t *)B.p[0], *y = (uint16_t *)B.p[1], *z = (uint16_t *)B.p[2];
    fill<H>(x, n, 9200 + lg, SUMS);
    thrust::transform_iterator<ToFloat<H>, const H *, float> in((const H *)x, ToFloat<H>{});
    thrust::transform_output_iterator<FromFloat<H>, H *> out((H *)z, FromFloat<H>{});
    size_t t = 0;
    cub::DeviceScan::InclusiveScan(nullptr, t, in, out, ::cuda::std::plus<float>{}, (int64_t)n);
    void *temp = cub_temp(t);
    double ours, cub;
    time_pair(
        &ours, &cub, [&] { PK(g_ctx, pp_scan(g_ctx, ty, PP_SUM, PP_INCLUSIVE, x, y, n)); },
        [&] { cub::DeviceScan::InclusiveScan(temp, t, in, out, ::cuda::std::plus<float>{}, (int64_t)n, g_stream); });
    CK(cudaStreamSynchronize(g_stream));
    int ok = 0;
    if (g_cpu) { // the cpu's scan of the first 2^20 inputs, and its sum of all for the last output
        const size_t sample = n < ((size_t)1 << 20) ? n : ((size_t)1 << 20);
        uint16_t *hx = (uint16_t *)malloc(bytes), *hy = (uint16_t *)malloc(sample * 2),
                 *ref = (uint16_t *)malloc(sample * 2);
        if (!hx || !hy || !ref) {
            fprintf(stderr, "bench_cub: out of host memory\n");
            exit(3);
        }
        uint16_t last = 0, want = 0;
        void *cx = NULL, *cy = NULL, *co = NULL;
        CK(cudaMemcpy(hx, x, bytes, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hy, y, sample * 2, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&last, y + (n - 1), 2, cudaMemcpyDeviceToHost));
        PK(g_cpu, pp_malloc(g_cpu, &cx, bytes));
        PK(g_cpu, pp_malloc(g_cpu, &cy, sample * 2));
        PK(g_cpu, pp_malloc(g_cpu, &co, 64));
        PK(g_cpu, pp_upload(g_cpu, cx, hx, bytes));
        PK(g_cpu, pp_scan(g_cpu, ty, PP_SUM, PP_INCLUSIVE, cx, cy, sample));
        PK(g_cpu, pp_download(g_cpu, ref, cy, sample * 2));
        PK(g_cpu, pp_reduce(g_cpu, ty, PP_SUM, cx, n, co));
        PK(g_cpu, pp_download(g_cpu, &want, co, 2));
        ok = memcmp(ref, hy, sample * 2) == 0 && last == want;
        if (!ok) printf("  %s scan: differs from the cpu's exact scan\n", tn);
        uint16_t clast = 0; // CUB's last output beside the exact one (reported only)
        CK(cudaMemcpy(&clast, z + (n - 1), 2, cudaMemcpyDeviceToHost));
        const double exact = host_value<H>(want), c = host_value<H>(clast);
        printf("  %s scan: last output exact %.9g, CUB's (f32 accumulator, rounded to %s) %.9g\n", tn, exact, tn, c);
        pp_free(g_cpu, cx);
        pp_free(g_cpu, cy);
        pp_free(g_cpu, co);
        free(hx);
        free(hy);
        free(ref);
    }
    add_row("half incl. scan (CUB: f32 acc.)", tn, n, ours, cub, 2.0 * bytes, copy, target(0.95, lg), ok);
}

// Sorts: each repetition sorts fresh copies of the same pristine keys (and
// values), the copies made before the timed part, as the main sort rows.
template <typename H> void sort_rows(size_t n, int lg, double copy, bool pairs)
{
    const pp_type ty = half_info<H>::id;
    const char *tn = half_info<H>::name();
    const size_t kbytes = n * 2, vbytes = n * 4;
    Buffers K, V; // keys: pristine, ours, CUB's two; values likewise
    if (!K.get("half sort keys", 4, kbytes, pairs ? 0 : 2 * kbytes)) return;
    if (pairs && !V.get("half sort pairs values", 4, vbytes, 2 * (kbytes + vbytes))) return;
    uint16_t *pk = (uint16_t *)K.p[0], *kk = (uint16_t *)K.p[1];
    uint32_t *pv = pairs ? (uint32_t *)V.p[0] : NULL, *vv = pairs ? (uint32_t *)V.p[1] : NULL;
    fill<H>(pk, n, 9300 + lg, KEYS);
    if (pairs) fill_u32<<<GRID, 256, 0, g_stream>>>(pv, n, 9400 + lg, 0xFFFFFFFFu);
    CK(cudaGetLastError());
    // A fresh copy of the pristine keys into k (and values into v, if not NULL).
    auto refresh = [&](void *k, void *v) {
        CK(cudaMemcpyAsync(k, pk, kbytes, cudaMemcpyDeviceToDevice, g_stream));
        if (v) CK(cudaMemcpyAsync(v, pv, vbytes, cudaMemcpyDeviceToDevice, g_stream));
    };
    cub::DoubleBuffer<H> kb((H *)K.p[2], (H *)K.p[3]);
    size_t t = 0;
    double ours, cub;
    if (!pairs) {
        cub::DeviceRadixSort::SortKeys(nullptr, t, kb, (int64_t)n, 0, 16);
        void *temp = cub_temp(t);
        time_pair(
            &ours, &cub, [&] { PK(g_ctx, pp_sort(g_ctx, ty, kk, n, PP_ASCENDING)); },
            [&] { cub::DeviceRadixSort::SortKeys(temp, t, kb, (int64_t)n, 0, 16, g_stream); },
            [&] { refresh(kk, NULL); },
            [&] {
                kb.selector = 0;
                refresh(kb.Current(), NULL);
            });
        CK(cudaStreamSynchronize(g_stream));
        add_row("half sort keys", tn, n, ours, cub, 2.0 * kbytes, copy, target(1.1, lg),
                check_sort(kk, (const uint16_t *)kb.Current(), NULL, NULL, n));
        return;
    }
    cub::DoubleBuffer<uint32_t> vb((uint32_t *)V.p[2], (uint32_t *)V.p[3]);
    cub::DeviceRadixSort::SortPairs(nullptr, t, kb, vb, (int64_t)n, 0, 16);
    void *temp = cub_temp(t);
    time_pair(
        &ours, &cub, [&] { PK(g_ctx, pp_sort_pairs(g_ctx, ty, kk, vv, 4, n, PP_ASCENDING)); },
        [&] { cub::DeviceRadixSort::SortPairs(temp, t, kb, vb, (int64_t)n, 0, 16, g_stream); },
        [&] { refresh(kk, vv); },
        [&] {
            kb.selector = vb.selector = 0;
            refresh(kb.Current(), vb.Current());
        });
    CK(cudaStreamSynchronize(g_stream));
    char name[16];
    snprintf(name, sizeof name, "%s/u32", tn);
    add_row("half sort_pairs", name, n, ours, cub, 2.0 * (kbytes + vbytes), copy, target(1.1, lg),
            check_sort(kk, (const uint16_t *)kb.Current(), vv, vb.Current(), n));
}

template <typename H> void half_rows(size_t n, int lg, double copy)
{
    sum_rows<H>(n, lg, copy);
    scan_rows<H>(n, lg, copy);
    sort_rows<H>(n, lg, copy, false);
    if (half_info<H>::id == PP_F16) sort_rows<H>(n, lg, copy, true);
}

} // namespace

void run_half_rows(size_t n, int lg, double copy)
{
    if (!want("half")) return;
    if (want_type("f16")) half_rows<__half>(n, lg, copy);
    if (want_type("bf16")) half_rows<__nv_bfloat16>(n, lg, copy);
}
