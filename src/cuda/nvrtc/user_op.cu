// Reduce and scan with an operator of the user's own (cuda_operator.cu):
// compiled at run time by NVRTC after the user's text, which defines
// pp_elem and pp_combine (--device-as-default-execution-space makes it
// device code). Every fold combines in element order, left to right (never
// commuted). Each warp takes a contiguous range in tiles of 32 * PP_K
// elements: a tile is loaded coalesced into the warp's shared memory, each
// lane folds (or scans) its PP_K consecutive elements there, and the lanes'
// results are combined in lane order with shuffles (an in-order tree, or a
// Hillis-Steele scan whose left operand is always the earlier lane): no
// block-wide barrier anywhere. A tile's rows of PP_K elements (one lane's)
// lie PP_K + 1 elements apart in shared memory, so that the lanes reading
// their rows meet different banks. PP_T (threads per block, a multiple of
// 32) and PP_K follow from the element's size, so that the tiles stay
// within 16 KB of shared memory before that padding (more elements a lane
// lost: bench/studies/user-operators.md); the host reads them back.
// Commutative operators (the creator's hint) reduce without the tiles:
// each lane folds a strided share in registers (pp_op_reduce_any).
typedef unsigned long long pp_u64_;
constexpr unsigned PP_T = sizeof(pp_elem) <= 16 ? 256 : sizeof(pp_elem) <= 64 ? 128 : 64;
constexpr unsigned PP_K_FIT = (unsigned)(16384 / (PP_T * sizeof(pp_elem)));
constexpr unsigned PP_K = PP_K_FIT > 8 ? 8 : PP_K_FIT < 1 ? 1 : PP_K_FIT;
constexpr unsigned PP_WARPS_ = PP_T / 32;
constexpr unsigned PP_WTILE_ = 32 * PP_K;
constexpr unsigned PP_WPAD_ = 32 * (PP_K + 1); // a tile's room in shared memory

// Where element i of a tile lies in the warp's shared memory
__device__ __forceinline__ unsigned pp_at_(unsigned i) { return i + i / PP_K; }

// sizeof and alignof(pp_elem), threads per block, elements per lane: for the host
extern "C" __constant__ pp_u64_ pp_op_shape_[4] = {sizeof(pp_elem), alignof(pp_elem), PP_T, PP_K};

#define PP_WORDS_ ((sizeof(pp_elem) + 3) / 4)
// A pp_elem moved between lanes as 32-bit words (every lane takes part):
// from lane + d (PP_DOWN_), lane - d (PP_UP_) or lane d (PP_FROM_).
enum { PP_DOWN_, PP_UP_, PP_FROM_ };
template <int M> __device__ __forceinline__ pp_elem pp_shfl_(pp_elem v, unsigned d)
{
    unsigned w[PP_WORDS_];
    memcpy(w, &v, sizeof v);
    for (unsigned i = 0; i < PP_WORDS_; i++)
        w[i] = M == PP_DOWN_ ? __shfl_down_sync(0xffffffffu, w[i], d)
               : M == PP_UP_ ? __shfl_up_sync(0xffffffffu, w[i], d)
                             : __shfl_sync(0xffffffffu, w[i], (int)d);
    memcpy(&v, w, sizeof v);
    return v;
}

// s[0 .. count) = in[0 .. count), coalesced over the warp's lanes
__device__ __forceinline__ void pp_load_(const pp_elem *in, unsigned count, pp_elem *s, unsigned lane)
{
    for (int j = 0; j < PP_K; j++) {
        const unsigned i = lane + 32u * j;
        if (i < count) s[pp_at_(i)] = in[i];
    }
    __syncwarp();
}

// The fold of the lane's PP_K elements of s[0 .. count) (lanes past the
// last element hold a copy of s[0], never combined with the others').
__device__ __forceinline__ pp_elem pp_lane_fold_(const pp_elem *s, unsigned count, unsigned lane)
{
    const unsigned a = lane * PP_K, r = lane * (PP_K + 1); // r: the row of element a
    pp_elem v = s[a < count ? r : 0];
    for (int j = 1; j < PP_K; j++)
        if (a + j < count) v = pp_combine(v, s[r + j]);
    return v;
}

// The fold of in[lo, hi), lo < hi, by one warp (valid in lane 0), a tile
// at a time through the warp's shared memory t.
__device__ __forceinline__ pp_elem pp_warp_fold_(const pp_elem *in, pp_u64_ lo, pp_u64_ hi, pp_elem *t, unsigned lane)
{
    pp_elem acc;
    for (pp_u64_ b = lo; b < hi; b += PP_WTILE_) {
        const unsigned count = (unsigned)(hi - b < PP_WTILE_ ? hi - b : PP_WTILE_), live = (count + PP_K - 1) / PP_K;
        pp_load_(in + b, count, t, lane);
        pp_elem v = pp_lane_fold_(t, count, lane);
        for (unsigned st = 1; st < 32; st *= 2) {
            const pp_elem o = pp_shfl_<PP_DOWN_>(v, st);
            if (lane % (2 * st) == 0 && lane + st < live) v = pp_combine(v, o);
        }
        if (lane == 0) acc = b == lo ? v : pp_combine(acc, v);
        __syncwarp();
    }
    return acc;
}

// part[gw] = the fold of warp gw's range in[gw per, min(n, (gw + 1) per)),
// for gw < nw (per: a multiple of the warp's tile)
extern "C" __global__ void pp_op_reduce_ranges(const pp_elem *in, pp_u64_ n, pp_u64_ per, pp_elem *part, pp_u64_ nw)
{
    __shared__ pp_elem s[PP_WARPS_][PP_WPAD_];
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const pp_u64_ gw = (pp_u64_)blockIdx.x * PP_WARPS_ + w;
    if (gw >= nw) return; // the whole warp
    const pp_u64_ lo = gw * per, hi = lo + per < n ? lo + per : n;
    const pp_elem acc = pp_warp_fold_(in, lo, hi, s[w], lane);
    if (lane == 0) part[gw] = acc;
}

// part[gw] = the fold of warp gw's range, as pp_op_reduce_ranges, for a
// commutative operator: lane l folds in[lo + l + 32 i] in registers, PP_K
// loads in flight, and the lanes' results meet in a tree.
extern "C" __global__ void pp_op_reduce_any(const pp_elem *in, pp_u64_ n, pp_u64_ per, pp_elem *part, pp_u64_ nw)
{
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const pp_u64_ gw = (pp_u64_)blockIdx.x * PP_WARPS_ + w;
    if (gw >= nw) return; // the whole warp
    const pp_u64_ lo = gw * per, hi = lo + per < n ? lo + per : n;
    const unsigned live = hi - lo < 32 ? (unsigned)(hi - lo) : 32u;
    pp_u64_ i = lo + lane;
    pp_elem acc = in[i < hi ? i : lo];
    for (i += 32; i + 32ull * (PP_K - 1) < hi; i += 32ull * PP_K) {
        pp_elem x[PP_K];
        for (int u = 0; u < PP_K; u++) x[u] = in[i + 32ull * u];
        for (int u = 0; u < PP_K; u++) acc = pp_combine(acc, x[u]);
    }
    for (; i < hi; i += 32) acc = pp_combine(acc, in[i]);
    for (unsigned st = 1; st < 32; st *= 2) {
        const pp_elem o = pp_shfl_<PP_DOWN_>(acc, st);
        if (lane % (2 * st) == 0 && lane + st < live) acc = pp_combine(acc, o);
    }
    if (lane == 0) part[gw] = acc;
}

// carry[g] = identity . part[0] . ... . part[g - 1] for g < m, by one warp:
// each lane folds a contiguous share, the shares are scanned in lane order,
// then each lane writes its share's carries.
extern "C" __global__ void pp_op_carries(const pp_elem *part, pp_u64_ m, pp_elem *carry, pp_elem identity)
{
    const unsigned lane = threadIdx.x & 31;
    if (threadIdx.x >= 32 || blockIdx.x != 0) return;
    const pp_u64_ c = (m + 31) / 32, lo = lane * c < m ? lane * c : m, hi = lo + c < m ? lo + c : m;
    pp_elem f = identity;
    for (pp_u64_ i = lo; i < hi; i++) f = pp_combine(f, part[i]);
    for (unsigned st = 1; st < 32; st *= 2) {
        const pp_elem o = pp_shfl_<PP_UP_>(f, st);
        if (lane >= st) f = pp_combine(o, f);
    }
    pp_elem acc = pp_shfl_<PP_UP_>(f, 1);
    if (lane == 0) acc = identity;
    for (pp_u64_ i = lo; i < hi; i++) {
        carry[i] = acc;
        acc = pp_combine(acc, part[i]);
    }
}

// out[lo, hi) = the scan of in[lo, hi) from run (exclusive: out[i] = run .
// in[lo] . ... . in[i - 1]) by one warp, a tile at a time through its
// shared memory t; in == out is allowed (a tile is read whole before it is
// written).
__device__ __forceinline__ void pp_warp_scan_(const pp_elem *in, pp_elem *out, pp_u64_ lo, pp_u64_ hi, pp_elem run,
                                              int exclusive, pp_elem *t, unsigned lane)
{
    for (pp_u64_ b = lo; b < hi; b += PP_WTILE_) {
        const unsigned count = (unsigned)(hi - b < PP_WTILE_ ? hi - b : PP_WTILE_), live = (count + PP_K - 1) / PP_K;
        pp_load_(in + b, count, t, lane);
        pp_elem f = pp_lane_fold_(t, count, lane);
        for (unsigned st = 1; st < 32; st *= 2) { // inclusive scan of the lanes' folds
            const pp_elem o = pp_shfl_<PP_UP_>(f, st);
            if (lane >= st && lane < live) f = pp_combine(o, f);
        }
        const pp_elem before = pp_shfl_<PP_UP_>(f, 1), total = pp_shfl_<PP_FROM_>(f, live - 1);
        pp_elem acc = lane ? pp_combine(run, before) : run;
        const unsigned a = lane * PP_K, r = lane * (PP_K + 1);
        if (exclusive) {
            for (int j = 0; j < PP_K; j++)
                if (a + j < count) {
                    const pp_elem x = t[r + j];
                    t[r + j] = acc;
                    acc = pp_combine(acc, x);
                }
        } else {
            for (int j = 0; j < PP_K; j++)
                if (a + j < count) {
                    acc = pp_combine(acc, t[r + j]);
                    t[r + j] = acc;
                }
        }
        __syncwarp();
        for (int j = 0; j < PP_K; j++) {
            const unsigned i = lane + 32u * j;
            if (i < count) out[b + i] = t[pp_at_(i)];
        }
        __syncwarp();
        run = pp_combine(run, total);
    }
}

// The scan of each warp's range from carry[gw] (pp_warp_scan_).
extern "C" __global__ void pp_op_scan_ranges(const pp_elem *in, pp_elem *out, pp_u64_ n, pp_u64_ per, pp_u64_ nw,
                                             const pp_elem *carry, int exclusive)
{
    __shared__ pp_elem s[PP_WARPS_][PP_WPAD_];
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const pp_u64_ gw = (pp_u64_)blockIdx.x * PP_WARPS_ + w;
    if (gw >= nw) return;
    const pp_u64_ lo = gw * per, hi = lo + per < n ? lo + per : n;
    pp_warp_scan_(in, out, lo, hi, carry[gw], exclusive, s[w], lane);
}

// ---- the segmented forms: a warp per segment ------------------------------
// Offsets are clamped where read: segment g is [b, e) with lo <= b <= e <=
// hi, lo = min(off[0], n), hi = max(lo, min(off[nseg], n)), so bad offsets
// write nothing outside out[0 .. nseg) (reduce) or out[lo .. hi) (scan).
__device__ __forceinline__ void pp_seg_bounds_(const pp_u64_ *off, pp_u64_ nseg, pp_u64_ n, pp_u64_ g, pp_u64_ *b,
                                               pp_u64_ *e)
{
    const pp_u64_ lo = off[0] < n ? off[0] : n, top = off[nseg] < n ? off[nseg] : n, hi = top > lo ? top : lo;
    const pp_u64_ x = off[g] < lo ? lo : off[g] > hi ? hi : off[g];
    const pp_u64_ y = off[g + 1] < x ? x : off[g + 1] > hi ? hi : off[g + 1];
    *b = x;
    *e = y;
}

// Warps take segments g, g + (all warps), ...: scan 0: out[g] = the fold of
// segment g (the identity where it is empty); 1: out over the segment = its
// scan from the identity (exclusive with exclusive set; in == out allowed).
extern "C" __global__ void pp_op_segmented(const pp_elem *in, pp_elem *out, pp_u64_ n, const pp_u64_ *off,
                                           pp_u64_ nseg, int scan, int exclusive, pp_elem identity)
{
    __shared__ pp_elem s[PP_WARPS_][PP_WPAD_];
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const pp_u64_ warps = (pp_u64_)gridDim.x * PP_WARPS_;
    for (pp_u64_ g = (pp_u64_)blockIdx.x * PP_WARPS_ + w; g < nseg; g += warps) { // uniform in the warp
        pp_u64_ b, e;
        pp_seg_bounds_(off, nseg, n, g, &b, &e);
        if (scan) {
            pp_warp_scan_(in, out, b, e, identity, exclusive, s[w], lane);
        } else {
            const pp_elem acc = b < e ? pp_warp_fold_(in, b, e, s[w], lane) : identity;
            if (lane == 0) out[g] = acc;
        }
        __syncwarp();
    }
}
