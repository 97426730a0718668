// The hierarchical exclusive scan of 64-bit counts used by the study
// algorithms (study/select.cu, study/sort.cu): per-block scans of
// COUNT_SCAN_TILE counts, the same scan of the blocks' totals (recursively),
// and a fix-up that adds each block's offset. Integer sums, so the result is
// exact whatever the grid. Internal linkage: each including file has its
// own copy of the kernels.
#ifndef PP_CUDA_DEVICE_COUNT_SCAN_CUH
#define PP_CUDA_DEVICE_COUNT_SCAN_CUH

#include "../cuda_state.cuh"
#include "block_scan.cuh"
#include "ops.cuh"
#include "util.cuh"

namespace {

constexpr int COUNT_SCAN_BLOCK = 256;                                  // threads per block
constexpr int COUNT_SCAN_ITEMS = 8;                                    // counts per thread
constexpr int COUNT_SCAN_TILE = COUNT_SCAN_BLOCK * COUNT_SCAN_ITEMS; // counts per block

// Each block scans COUNT_SCAN_TILE consecutive elements in place (exclusive;
// thread t owns COUNT_SCAN_ITEMS consecutive ones) and writes its total to
// sums[block] (when sums is not NULL).
__global__ void __launch_bounds__(COUNT_SCAN_BLOCK) count_scan_tiles_kernel(uint64_t *a, size_t m, uint64_t *sums)
{
    __shared__ uint64_t sh[COUNT_SCAN_BLOCK / 32];
    const size_t base = (size_t)blockIdx.x * COUNT_SCAN_TILE + (size_t)threadIdx.x * COUNT_SCAN_ITEMS;
    uint64_t v[COUNT_SCAN_ITEMS];
    uint64_t s = 0;
#pragma unroll
    for (int j = 0; j < COUNT_SCAN_ITEMS; j++) {
        v[j] = base + j < m ? a[base + j] : 0;
        s += v[j];
    }
    uint64_t total;
    uint64_t run = pp_block_exclusive<uint64_t, Op_sum, COUNT_SCAN_BLOCK>(s, &total, sh);
#pragma unroll
    for (int j = 0; j < COUNT_SCAN_ITEMS; j++) {
        if (base + j < m) a[base + j] = run;
        run += v[j];
    }
    if (sums && threadIdx.x == 0) sums[blockIdx.x] = total;
}

// The fix-up: adds the scanned block totals to every element of their block.
__global__ void __launch_bounds__(COUNT_SCAN_BLOCK) count_scan_add_kernel(uint64_t *a, size_t m, const uint64_t *sums)
{
    if (blockIdx.x == 0) return; // sums[0] == 0
    const uint64_t add = sums[blockIdx.x];
    const size_t base = (size_t)blockIdx.x * COUNT_SCAN_TILE;
    for (int j = threadIdx.x; j < COUNT_SCAN_TILE; j += COUNT_SCAN_BLOCK) {
        const size_t i = base + (size_t)j;
        if (i < m) a[i] += add;
    }
}

// Elements of working memory the scan of m counts needs for its upper levels.
inline size_t pp_count_scan_work(size_t m)
{
    size_t w = 0;
    while (m > (size_t)COUNT_SCAN_TILE) {
        m = (m + COUNT_SCAN_TILE - 1) / COUNT_SCAN_TILE;
        w += align_up(m, 32);
    }
    return w;
}

// Exclusive scan of a[0 .. m) in place, on the context's stream; work:
// pp_count_scan_work(m) elements.
inline pp_status pp_count_scan(pp_context *ctx, uint64_t *a, size_t m, uint64_t *work, const char *fn)
{
    cudaStream_t st = pp_cuda(ctx)->stream;
    if (m <= (size_t)COUNT_SCAN_TILE) {
        count_scan_tiles_kernel<<<1, COUNT_SCAN_BLOCK, 0, st>>>(a, m, NULL);
        PP_CUDA_LAUNCHED(ctx, fn);
        return PP_SUCCESS;
    }
    const size_t blocks = (m + COUNT_SCAN_TILE - 1) / COUNT_SCAN_TILE;
    uint64_t *sums = work;
    count_scan_tiles_kernel<<<(unsigned)blocks, COUNT_SCAN_BLOCK, 0, st>>>(a, m, sums);
    PP_CUDA_LAUNCHED(ctx, fn);
    pp_status s = pp_count_scan(ctx, sums, blocks, work + align_up(blocks, 32), fn);
    if (s != PP_SUCCESS) return s;
    count_scan_add_kernel<<<(unsigned)blocks, COUNT_SCAN_BLOCK, 0, st>>>(a, m, sums);
    PP_CUDA_LAUNCHED(ctx, fn);
    return PP_SUCCESS;
}

} // namespace

#endif
