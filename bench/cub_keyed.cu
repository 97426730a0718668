// bench_cub's rows of the segmented reduce and scan, reduce_by_key,
// scan_by_key, run_length_encode and argsort (--only
// segmented,bykey,argsort), beside CUB's counterparts. Values and keys are
// u32, so that every row's results are checked bit for bit against CUB's
// (float sums would differ in rounding). Segment layouts: fixed average
// lengths 4, 64 and 4096 (lengths uniform in [1, 2 * avg - 1]) and
// power-law lengths (2^(24 u), u uniform, capped at n); the by-key rows
// take the segment number of each element as its key, so that runs are the
// segments. CUB has no segmented scan in this toolkit: the segmented scan
// row times cub::DeviceScan::InclusiveSumByKey over the segment numbers
// (marked "by key" in the row's name).
#include <cub/cub.cuh>

#include <math.h>
#include <stdint.h>
#include <vector>

#include "cub_rows.cuh"

namespace {

// ids[i] = the segment holding i (offsets cover [0, n) exactly).
__global__ void segment_ids(uint32_t *ids, const uint64_t *off, size_t nseg)
{
    for (size_t s = blockIdx.x * (size_t)blockDim.x + threadIdx.x; s < nseg; s += (size_t)gridDim.x * blockDim.x)
        for (uint64_t i = off[s]; i < off[s + 1]; i++) ids[i] = (uint32_t)s;
}

__global__ void iota_u32(uint32_t *p, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (uint32_t)i;
}

const unsigned GRID = 1024;

// Offsets of a layout covering [0, n): avg > 0 fixed average, 0 power-law.
std::vector<uint64_t> layout(size_t n, size_t avg, uint64_t seed)
{
    std::vector<uint64_t> off(1, 0);
    const double cap = log2((double)(n < ((size_t)1 << 24) ? n : ((size_t)1 << 24)));
    for (uint64_t k = 0; off.back() < n; k++) {
        const uint64_t h = bench_mix(seed + k);
        uint64_t len = avg ? 1 + h % (2 * avg - 1) : (uint64_t)exp2((double)(h >> 11) / 9007199254740992.0 * cap);
        if (len < 1) len = 1;
        off.push_back(off.back() + len < n ? off.back() + len : n);
    }
    return off;
}

void row(const char *name, const char *layout_name, size_t n, double ours, double cub, double bytes, double copy,
         double target, int ok)
{
    char full[96];
    snprintf(full, sizeof full, "%s, %s", name, layout_name);
    add_row(full, "u32", n, ours, cub, bytes, copy, target, ok);
}

// A row of ours (writing out1) against cub::DeviceScan::InclusiveSumByKey
// of in over keys (into out2), checked equal.
template <typename F>
void scan_row(const char *name, const char *lname, size_t n, double copy, double bytes, const uint32_t *keys,
              const uint32_t *in, const uint32_t *out1, uint32_t *out2, F ours_fn)
{
    size_t t = 0;
    cub::DeviceScan::InclusiveSumByKey(nullptr, t, keys, in, out2, (int64_t)n);
    void *temp = cub_temp(t);
    double ours, cub;
    time_pair(&ours, &cub, ours_fn, [&] {
        cub::DeviceScan::InclusiveSumByKey(temp, t, keys, in, out2, (int64_t)n, ::cuda::std::equal_to<>{}, g_stream);
    });
    CK(cudaStreamSynchronize(g_stream));
    row(name, lname, n, ours, cub, bytes, copy, 1.2, equal_dev(out1, out2, n * sizeof(uint32_t)));
}

// The rows of one layout: the segmented reduce and scan, reduce_by_key,
// scan_by_key and run_length_encode over in (u32 values) and keys (the
// segment numbers).
void layout_rows(size_t n, double copy, size_t avg, const char *lname, const uint32_t *in, uint32_t *keys,
                 uint32_t *out1, uint32_t *out2, uint32_t *k1, uint32_t *k2)
{
    const double target = 1.2;
    const size_t vb = n * sizeof(uint32_t);
    std::vector<uint64_t> h = layout(n, avg, 1000 + avg);
    const size_t nseg = h.size() - 1;
    uint64_t *off, *cnt, *ccnt;
    CK(cudaMalloc(&off, h.size() * sizeof(uint64_t)));
    CK(cudaMalloc(&cnt, 8));
    CK(cudaMalloc(&ccnt, 8));
    // On g_stream: a plain cudaMemcpy from pageable memory may return before
    // its data lands, and g_stream (non-blocking) would not wait for it.
    CK(cudaMemcpyAsync(off, h.data(), h.size() * sizeof(uint64_t), cudaMemcpyHostToDevice, g_stream));
    segment_ids<<<GRID, 256, 0, g_stream>>>(keys, off, nseg);
    CK(cudaStreamSynchronize(g_stream));
    size_t t = 0;
    double ours, cub;
    if (want("segmented")) {
        cub::DeviceSegmentedReduce::Sum(nullptr, t, in, out2, (int64_t)nseg, off, off + 1);
        void *temp = cub_temp(t);
        time_pair(&ours, &cub, [&] { PK(g_ctx, pp_segmented_reduce(g_ctx, PP_U32, PP_SUM, in, n, off, nseg, out1)); },
                  [&] { cub::DeviceSegmentedReduce::Sum(temp, t, in, out2, (int64_t)nseg, off, off + 1, g_stream); });
        CK(cudaStreamSynchronize(g_stream));
        row("segmented reduce sum", lname, n, ours, cub, (double)vb + nseg * 12.0, copy, target,
            equal_dev(out1, out2, nseg * 4));

        scan_row("segmented incl. scan sum (CUB: by key)", lname, n, copy, 2.0 * vb + nseg * 8.0, keys, in, out1, out2,
                 [&] { PK(g_ctx, pp_segmented_scan(g_ctx, PP_U32, PP_SUM, PP_INCLUSIVE, in, out1, n, off, nseg)); });
    }
    if (want("bykey")) {
        cub::DeviceReduce::ReduceByKey(nullptr, t, keys, k2, in, out2, ccnt, ::cuda::std::plus<>{}, (int64_t)n);
        void *temp = cub_temp(t);
        time_pair(
            &ours, &cub,
            [&] { PK(g_ctx, pp_reduce_by_key(g_ctx, PP_U32, PP_U32, PP_SUM, keys, in, n, k1, out1, cnt)); },
            [&] {
                cub::DeviceReduce::ReduceByKey(temp, t, keys, k2, in, out2, ccnt, ::cuda::std::plus<>{}, (int64_t)n,
                                               g_stream);
            });
        CK(cudaStreamSynchronize(g_stream));
        uint64_t c1 = 0, c2 = 0;
        CK(cudaMemcpy(&c1, cnt, 8, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&c2, ccnt, 8, cudaMemcpyDeviceToHost));
        row("reduce_by_key sum", lname, n, ours, cub, 2.0 * vb + c1 * 8.0, copy, target,
            c1 == c2 && c1 == nseg && equal_dev(k1, k2, c1 * 4) && equal_dev(out1, out2, c1 * 4));

        scan_row("scan_by_key incl. sum", lname, n, copy, 3.0 * vb, keys, in, out1, out2,
                 [&] { PK(g_ctx, pp_scan_by_key(g_ctx, PP_U32, PP_U32, PP_SUM, PP_INCLUSIVE, keys, in, out1, n)); });

        if (n <= 0x7fffffffu) { // CUB's Encode counts in int
            uint64_t *lc1, *lc2;
            CK(cudaMalloc(&lc1, n * 8));
            CK(cudaMalloc(&lc2, n * 8));
            cub::DeviceRunLengthEncode::Encode(nullptr, t, keys, k2, lc2, ccnt, (int)n);
            temp = cub_temp(t);
            time_pair(&ours, &cub, [&] { PK(g_ctx, pp_run_length_encode(g_ctx, PP_U32, keys, n, k1, lc1, cnt)); },
                      [&] { cub::DeviceRunLengthEncode::Encode(temp, t, keys, k2, lc2, ccnt, (int)n, g_stream); });
            CK(cudaStreamSynchronize(g_stream));
            CK(cudaMemcpy(&c1, cnt, 8, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&c2, ccnt, 8, cudaMemcpyDeviceToHost));
            row("run_length_encode", lname, n, ours, cub, (double)vb + c1 * 12.0, copy, target,
                c1 == c2 && c1 == nseg && equal_dev(k1, k2, c1 * 4) && equal_dev(lc1, lc2, c1 * 8));
            CK(cudaFree(lc1));
            CK(cudaFree(lc2));
        }
    }
    CK(cudaFree(off));
    CK(cudaFree(cnt));
    CK(cudaFree(ccnt));
}

} // namespace

void run_keyed_rows(size_t n, int lg, double copy)
{
    if (!want_type("u32")) return;
    const size_t vb = n * sizeof(uint32_t);
    if (want("segmented") || want("bykey")) {
        Buffers B; // values, keys, two outputs, two key outputs
        if (B.get("segmented/bykey", 6, vb, 2 * vb)) {
            uint32_t *in = (uint32_t *)B.p[0], *keys = (uint32_t *)B.p[1];
            fill_u32<<<GRID, 256, 0, g_stream>>>(in, n, 7000 + lg, 0xffffu);
            const size_t avgs[4] = {4, 64, 4096, 0};
            const char *names[4] = {"avg 4", "avg 64", "avg 4096", "power-law"};
            for (int k = 0; k < 4; k++)
                layout_rows(n, copy, avgs[k], names[k], in, keys, (uint32_t *)B.p[2], (uint32_t *)B.p[3],
                            (uint32_t *)B.p[4], (uint32_t *)B.p[5]);
        }
    }
    if (want("argsort")) {
        Buffers B; // keys, CUB's sorted keys, the sequence, ours, CUB's indices
        if (B.get("argsort", 5, vb, 2 * vb)) {
            uint32_t *keys = (uint32_t *)B.p[0], *ks = (uint32_t *)B.p[1], *seq = (uint32_t *)B.p[2];
            uint32_t *i1 = (uint32_t *)B.p[3], *i2 = (uint32_t *)B.p[4];
            fill_u32<<<GRID, 256, 0, g_stream>>>(keys, n, 8000 + lg, 0xffffffffu);
            size_t t = 0;
            cub::DeviceRadixSort::SortPairs(nullptr, t, keys, ks, seq, i2, (int64_t)n);
            void *temp = cub_temp(t);
            double ours, cub;
            time_pair(&ours, &cub, [&] { PK(g_ctx, pp_argsort(g_ctx, PP_U32, keys, n, PP_ASCENDING, PP_U32, i1)); },
                      [&] {
                          iota_u32<<<GRID, 256, 0, g_stream>>>(seq, n);
                          cub::DeviceRadixSort::SortPairs(temp, t, keys, ks, seq, i2, (int64_t)n, 0, 32, g_stream);
                      });
            CK(cudaStreamSynchronize(g_stream));
            add_row("argsort (CUB: SortPairs + sequence)", "u32/u32", n, ours, cub, 3.0 * vb, copy, 1.1,
                    equal_dev(i1, i2, vb));
        }
    }
}
