// Reduce and scan with an operator of the user's own (cuda_operator.cu):
// compiled at run time by NVRTC after the user's text, which defines
// pp_elem and pp_combine (-default-device makes it device code). Every fold
// combines in element order, left to right (never commuted). A block takes
// a contiguous range in tiles of PP_T * PP_K elements: a tile is loaded
// coalesced into shared memory, each thread folds (or scans) its PP_K
// consecutive elements there, and the threads' results are combined in
// thread order (an in-order tree, or a Hillis-Steele scan whose left
// operand is always the earlier one). PP_T (a power of two) and PP_K come
// from the host by the element's size; the shared memory stays within the
// static 48 KB.
typedef unsigned long long pp_u64_;
#define PP_TILE_ (PP_T * PP_K)

// sizeof and alignof(pp_elem), for the host's checks
extern "C" __constant__ pp_u64_ pp_op_elem_size_[2] = {sizeof(pp_elem), alignof(pp_elem)};

// s[0 .. count) = in[0 .. count), coalesced
__device__ __forceinline__ void pp_load_(const pp_elem *in, pp_u64_ count, pp_elem *s)
{
    for (int j = 0; j < PP_K; j++) {
        const pp_u64_ i = threadIdx.x + (pp_u64_)j * PP_T;
        if (i < count) s[i] = in[i];
    }
}

// The fold of s[0 .. count) (count >= 1), the same value in every thread.
__device__ pp_elem pp_tile_fold_(const pp_elem *s, pp_u64_ count, pp_elem *red)
{
    const unsigned t = threadIdx.x;
    const pp_u64_ a = (pp_u64_)t * PP_K;
    pp_elem acc = s[a < count ? a : 0];
    for (int j = 1; j < PP_K; j++)
        if (a + j < count) acc = pp_combine(acc, s[a + j]);
    red[t] = acc;
    __syncthreads();
    const unsigned live = (unsigned)((count + PP_K - 1) / PP_K); // threads that folded elements
    for (unsigned st = 1; st < PP_T; st *= 2) {
        if (t % (2 * st) == 0 && t + st < live) red[t] = pp_combine(red[t], red[t + st]);
        __syncthreads();
    }
    pp_elem r = red[0];
    __syncthreads();
    return r;
}

// out[g] = the fold of in[g per, min(n, (g + 1) per)) (per: a multiple of the tile)
extern "C" __global__ void pp_op_reduce_ranges(const pp_elem *in, pp_u64_ n, pp_u64_ per, pp_elem *out)
{
    __shared__ pp_elem s[PP_TILE_];
    __shared__ pp_elem red[PP_T];
    const pp_u64_ lo = (pp_u64_)blockIdx.x * per, hi = lo + per < n ? lo + per : n;
    pp_elem acc;
    for (pp_u64_ b = lo; b < hi; b += PP_TILE_) {
        const pp_u64_ count = hi - b < PP_TILE_ ? hi - b : PP_TILE_;
        pp_load_(in + b, count, s);
        __syncthreads();
        const pp_elem f = pp_tile_fold_(s, count, red);
        acc = b == lo ? f : pp_combine(acc, f);
    }
    if (threadIdx.x == 0 && lo < hi) out[blockIdx.x] = acc;
}

// carry[g] = identity . part[0] . ... . part[g - 1], by one thread
extern "C" __global__ void pp_op_carries(const pp_elem *part, pp_u64_ groups, pp_elem *carry, const pp_elem *identity)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    pp_elem acc = identity[0];
    for (pp_u64_ g = 0; g < groups; g++) {
        carry[g] = acc;
        acc = pp_combine(acc, part[g]);
    }
}

// The scan of each block's range from carry[g] (exclusive: out[i] = carry .
// in[lo] . ... . in[i - 1]); in == out is allowed (a tile is read whole
// before it is written).
extern "C" __global__ void pp_op_scan_ranges(const pp_elem *in, pp_elem *out, pp_u64_ n, pp_u64_ per,
                                             const pp_elem *carry, int exclusive)
{
    __shared__ pp_elem s[PP_TILE_];
    __shared__ pp_elem red[2][PP_T];
    const unsigned t = threadIdx.x;
    const pp_u64_ lo = (pp_u64_)blockIdx.x * per, hi = lo + per < n ? lo + per : n;
    pp_elem run = carry[blockIdx.x];
    for (pp_u64_ b = lo; b < hi; b += PP_TILE_) {
        const pp_u64_ count = hi - b < PP_TILE_ ? hi - b : PP_TILE_;
        pp_load_(in + b, count, s);
        __syncthreads();
        const pp_u64_ a = (pp_u64_)t * PP_K;
        const unsigned live = (unsigned)((count + PP_K - 1) / PP_K);
        pp_elem f = s[a < count ? a : 0];
        for (int j = 1; j < PP_K; j++)
            if (a + j < count) f = pp_combine(f, s[a + j]);
        int cur = 0;
        red[0][t] = f;
        __syncthreads();
        for (unsigned st = 1; st < PP_T; st *= 2) { // inclusive scan of the threads' folds
            pp_elem v = red[cur][t];
            if (t >= st && t < live) v = pp_combine(red[cur][t - st], v);
            red[cur ^ 1][t] = v;
            cur ^= 1;
            __syncthreads();
        }
        pp_elem acc = t ? pp_combine(run, red[cur][t - 1]) : run;
        if (a < count) {
            if (exclusive) {
                for (int j = 0; j < PP_K && a + j < count; j++) {
                    const pp_elem x = s[a + j];
                    s[a + j] = acc;
                    acc = pp_combine(acc, x);
                }
            } else {
                for (int j = 0; j < PP_K && a + j < count; j++) {
                    acc = pp_combine(acc, s[a + j]);
                    s[a + j] = acc;
                }
            }
        }
        const pp_elem total = red[cur][live - 1];
        __syncthreads();
        for (int j = 0; j < PP_K; j++) {
            const pp_u64_ i = t + (pp_u64_)j * PP_T;
            if (i < count) out[b + i] = s[i];
        }
        run = pp_combine(run, total);
        __syncthreads();
    }
}
