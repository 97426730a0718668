// The look-back of the segmented kernels (segmented/tile.cuh): a single
// pass over tiles where each tile learns the carry of the tiles before it,
// the decoupled look-back of device/lookback.cuh (Merrill and Garland,
// 2016) made reproducible for floats.
//
// A carry is (c, f, v): c the heads (segment or run starts) counted so far,
// f whether there was one, v the fold of the values since the last head.
// Carries combine as the segmented operator of segmented/pair.cuh, plus
// the sum of the counts. The counts are integers, so any order of addition
// gives the same sum; the values are combined in one canonical order, a
// left fold: the inclusive carry of tile t is P(t).v = A(t).v if tile t
// has a head, else P(t-1).v op A(t).v (A: the tile's own aggregate). Every
// tile computes exactly that, whichever published predecessor it starts
// from: the nearest tile that has published its inclusive carry or whose
// aggregate has a head (then P.v = A.v), folding the aggregates after it
// one by one in tile order. So float results depend on the input alone,
// not on timing, unlike the unsegmented look-back's scan. The serial fold
// is short in practice: a tile that holds a head ends it.
//
// Each tile's line of the context's look-back arena (PP_CUDA_LB_STRIDE
// 64-bit words): word 0 the tag (launch epoch) and state in its high 32
// bits, words 2-3 the aggregate, words 4-5 the inclusive carry (c | f <<
// 63, then v's bits). A payload is written before its state, with a fence
// between, and read after its state, with a fence between; the aggregate
// and the inclusive carry have slots of their own, so a reader that saw one
// state never reads the other's payload.
#ifndef PP_CUDA_SEGMENTED_LOOKBACK_CUH
#define PP_CUDA_SEGMENTED_LOOKBACK_CUH

#include "../device/lookback.cuh"

template <typename T> struct SegCarry {
    uint64_t c;
    uint32_t f;
    T v;
};

// Tile idx's words; the look-back state is a pp_lookback<uint64_t> (its
// flags and epoch, the same arena and delays as the other look-backs).
typedef pp_lookback<uint64_t> seg_lb;

template <typename T>
__device__ __forceinline__ void seg_lb_publish(const seg_lb &lb, unsigned long long tile, uint32_t state,
                                               const SegCarry<T> &x)
{
    unsigned long long *w = pp_lb_word(lb, tile);
    pp_store_relaxed128(w + (state == PP_LB_PREFIX ? 4 : 2), x.c | ((unsigned long long)x.f << 63), pp_lb_bits(x.v));
    __threadfence();
    pp_store_relaxed64(w, (unsigned long long)((lb.epoch << 2) | state) << 32);
}

// The state of tile idx (tiles before 0: an inclusive carry).
__device__ __forceinline__ uint32_t seg_lb_state(const seg_lb &lb, long long idx)
{
    if (idx < 0) return PP_LB_PREFIX;
    const uint32_t f = (uint32_t)(pp_load_relaxed64(pp_lb_word(lb, (unsigned long long)idx)) >> 32);
    return (f & ~3u) == (lb.epoch << 2) ? (f & 3u) : PP_LB_NONE;
}

// The payload of tile idx for a state seen earlier (after a fence); tiles
// before 0: the empty carry.
template <typename T, typename Op>
__device__ __forceinline__ SegCarry<T> seg_lb_payload(const seg_lb &lb, long long idx, uint32_t state)
{
    SegCarry<T> x;
    if (idx < 0) {
        x.c = 0;
        x.f = 0;
        x.v = Op::template identity<T>();
        return x;
    }
    unsigned long long lo, hi;
    pp_load_relaxed128(pp_lb_word(lb, (unsigned long long)idx) + (state == PP_LB_PREFIX ? 4 : 2), lo, hi);
    x.c = lo & ~(1ull << 63);
    x.f = (uint32_t)(lo >> 63);
    x.v = pp_lb_value<T>(hi);
    return x;
}

// acc op w[l] for l = from - 1 down to 0, w[l] the value in lane l (lanes
// in descending tile order): the left fold of a window. Every lane of the
// warp calls it with the same from; every lane gets the same acc.
template <typename T, typename Op> __device__ __forceinline__ T seg_fold_down(T acc, T w, int from)
{
    for (int l = from - 1; l >= 0; l--) acc = Op::apply(acc, pp_shfl(w, l));
    return acc;
}

// Called by all 32 lanes of one warp of tile's block: publishes tile's
// aggregate, looks back, publishes its inclusive carry and returns its
// exclusive carry (the empty carry for tile 0), the same in every lane.
template <typename T, typename Op>
__device__ SegCarry<T> seg_lookback(const seg_lb &lb, unsigned long long tile, const SegCarry<T> &agg)
{
    const int lane = threadIdx.x & 31;
    SegCarry<T> ex;
    ex.c = 0;
    ex.f = 0;
    ex.v = Op::template identity<T>();
    if (tile == 0) {
        if (lane == 0) seg_lb_publish(lb, 0, PP_LB_PREFIX, agg);
        return ex;
    }
    if (lane == 0) seg_lb_publish(lb, tile, PP_LB_AGGREGATE, agg);
    if (lb.first_ns) __nanosleep(lb.first_ns);

    const long long last = (long long)tile - 1;
    long long base = last;
    T w0 = ex.v;        // the window nearest the tile: lane l holds tile last - l's value
    bool found = false; // the start of the value fold is known:
    long long at = 0;   // its tile,
    T acc = ex.v;       // and its value
    for (;;) {
        const long long idx = base - lane;
        uint32_t state;
        for (;;) {
            state = seg_lb_state(lb, idx);
            const unsigned pre = __ballot_sync(0xffffffffu, state == PP_LB_PREFIX);
            const unsigned needed = pre ? (pre & -pre) * 2u - 1u : 0xffffffffu;
            if (!(__ballot_sync(0xffffffffu, state == PP_LB_NONE) & needed)) break;
            if (lb.poll_ns) __nanosleep(lb.poll_ns);
        }
        __threadfence();
        const unsigned pre = __ballot_sync(0xffffffffu, state == PP_LB_PREFIX);
        const int stop = pre ? __ffs(pre) - 1 : 31;
        SegCarry<T> x = seg_lb_payload<T, Op>(lb, idx, state);
        if (lane > stop) {
            x.c = 0;
            x.f = 0;
            x.v = ex.v;
        }
        ex.c += pp_warp_reduce<uint64_t, Op_sum>(x.c);
        ex.f |= __any_sync(0xffffffffu, x.f != 0) ? 1u : 0u;
        if (base == last) w0 = x.v;
        if (!found) {
            const unsigned starts = __ballot_sync(0xffffffffu, lane <= stop && (x.f || state == PP_LB_PREFIX));
            if (starts) {
                const int l = __ffs(starts) - 1;
                found = true;
                at = base - l;
                acc = pp_shfl(x.v, l);
            }
        }
        if (pre) break;
        base -= 32;
    }
    // The left fold from tile at + 1 to tile last, a window at a time (the
    // nearest window from w0; older ones read again: every tile after `at`
    // has published its aggregate, and the fence above orders the reads).
    while (at < last) {
        const long long hi = at + 32 < last ? at + 32 : last;
        T w = w0;
        if (hi != last) {
            const long long idx = hi - lane;
            w = idx > at ? seg_lb_payload<T, Op>(lb, idx, PP_LB_AGGREGATE).v : ex.v;
        }
        acc = seg_fold_down<T, Op>(acc, w, (int)(hi - at));
        at = hi;
    }
    ex.v = acc;
    if (lane == 0) {
        SegCarry<T> inc;
        inc.c = ex.c + agg.c;
        inc.f = ex.f | agg.f;
        inc.v = agg.f ? agg.v : Op::apply(acc, agg.v);
        seg_lb_publish(lb, tile, PP_LB_PREFIX, inc);
    }
    return ex;
}

#endif
