/* opencl sorting: pp_sort and pp_sort_pairs (and, at the end, pp_argsort's
 * slot: the index sequence, argsort.cl, for core/argsort.c). Kernels:
 * sort_keys.cl (the radix key, the control block, copy_back), embedded in
 * front of each of the two programs, "sort_scatter" (sort_scatter.cl) and
 * "sort_onesweep" (sort_onesweep.cl).
 *
 * Two algorithms. PP_ALGO_ONESWEEP (the default where it runs: NVIDIA GPUs
 * of compute capability 7.0 on, pp_ocl_nv_ptx) is the cuda backend's
 * Onesweep, at the end of this file. PP_ALGO_COUNT_SCAN_SCATTER (the
 * default elsewhere, and what every other device runs) is below:
 *
 * Stable LSD radix sort over 8-bit digits of a radix key computed on the fly
 * (keys are moved unchanged, so NaN payloads survive; the key map is the
 * cuda sort's: signed: sign bit flipped; floats: every NaN -> all ones,
 * negative -> all bits flipped, else sign bit set; descending: all bits
 * flipped; PP_DESCENDING_NAN_LAST: descending, float keys' programs built
 * with PP_NAN_LAST, where every NaN's radix key is all ones). One pass per
 * digit position, each three launches with no work-group ever waiting for
 * another (OpenCL promises no forward progress between work-groups, so
 * there is no look-back):
 *   count    per tile, its digit counts, digit-major: counts[d][t]
 *   scan     one exclusive scan of the whole counts array (pp_ocl_scan_into,
 *            uint, or ulong when n >= 2^32): offsets[d][t]
 *   scatter  per tile, a stable local sort by digit (two 4-bit counting
 *            ranks), then every key (value) to offsets[d][t] + its rank
 *            among the tile's keys of digit d, in sorted order
 * Before the passes, key_bits + plan find (on the device) the digit
 * positions where every key has the same digit; the kernels of those passes
 * exit at once on a device flag, and the device places every pass: which
 * buffers it reads and writes (the inputs, the outputs or the alternate
 * ones; out of place, pp_sort_copy and pp_sort_pairs_copy, the first active
 * pass reads the inputs and the last writes the outputs, so there is no copy
 * first) and whether copy_back must move the result home (sort_keys.cl,
 * plan_buffers). So the host never waits: like every opencl primitive, the
 * sort is only queued.
 *
 * Programs: one per (key width, value size, offset width): the key type's
 * kind (signed, unsigned, float) and the order are kernel arguments, so the
 * ten key types share four key widths; float keys in
 * PP_DESCENDING_NAN_LAST alone get programs of their own (PP_NAN_LAST), so
 * the other orders' kernels are unchanged by it. The kernels move bits
 * only: f64 keys need no cl_khr_fp64.
 *
 * Memory: one pp_ocl_scratch buffer: a control block, the key_bits partial
 * results, the counts (256 per tile), the scan's working memory, and the
 * alternate keys and values (n * (key size + value size)).
 */
#include "opencl_internal.h"

#include <string.h>

#define SORT_RADIX 256      /* digit values: 8-bit digits */
#define SORT_PART_MAX 256   /* key_bits groups at most (plan folds them serially) */
#define SORT_CTRL_WORDS 40  /* uints of ctrl, the control block (sort_keys.cl: which passes run, from which buffer) */
#define SORT_MAX_TILE 32768 /* 16-bit ranks and counters in the kernels */
#define SORT_ALIGN 256      /* byte alignment of every region in scratch */

/* The kernels of the sort_scatter program, as indices into
 * sort_plan.kernels: the radix passes' first, then those only the 1-byte
 * path's program has. */
enum {
    KERNEL_KEY_BITS,
    KERNEL_PLAN,
    KERNEL_COUNT,
    KERNEL_SCATTER,
    KERNEL_COPY_BACK,
    RADIX_KERNELS, /* how many the radix passes use */
    KERNEL_HIST8 = RADIX_KERNELS,
    KERNEL_STARTS8,
    KERNEL_FILL8,
    ALL_KERNELS
};
static const char *const kernel_names[ALL_KERNELS] = {"key_bits", "plan", "count", "scatter", "copy_back",
                                                      "hist8", "starts8", "fill8"};

typedef struct sort_plan {
    size_t ks, vs;    /* key and value bytes */
    size_t L, items;  /* work-group size, keys per work-item in a tile */
    size_t tile;      /* L * items */
    int off64;        /* counts and offsets are ulong */
    int bytes;        /* 1-byte keys without values: count and fill */
    int nan_last;     /* float keys in PP_DESCENDING_NAN_LAST: built with PP_NAN_LAST */
    cl_kernel kernels[ALL_KERNELS];
} sort_plan;

static size_t padded(size_t n) { return n + (n >> 5) + 1; }

/* Local memory of the scatter kernel (the largest), as sort_scatter.cl declares it. */
static size_t scatter_local_bytes(size_t L, size_t items, size_t ks, size_t vs)
{
    const size_t tile = L * items, wider = vs > ks ? vs : ks;
    size_t shared = padded(tile) * wider, cnt = padded(8 * L) * 4;
    if (cnt > shared) shared = cnt;
    shared = (shared + 7) / 8 * 8;
    return shared + padded(tile) * 3 + L * 4 + SORT_RADIX * (2 + 8) + 64;
}

/* Work-group shape. GPUs: 128 or 256 work-items, 16 keys each (tiles of
 * 2048 or 4096 keys; local memory about 20 to 40 KB): 256 for pairs of
 * keys and values of up to 4 bytes each, 128 otherwise (the shapes found
 * faster on NVIDIA's OpenCL). CPU devices (PoCL): a work-group runs on one
 * thread, its work-items as loops split at every barrier, so narrow groups
 * with long serial runs are faster. */
static void shape_for(const pp_ocl_caps *caps, size_t ks, size_t vs, size_t *L, size_t *items)
{
    if (pp_ocl_cpu_shape(caps)) {
        *L = 16;
        *items = 128;
    } else {
        *L = (vs && vs <= 4 && ks <= 4) ? 256 : 128;
        *items = 16;
    }
#ifdef PP_OCL_SORT_GPU_L /* build options for experiments with the shape */
    *L = PP_OCL_SORT_GPU_L;
#endif
#ifdef PP_OCL_SORT_GPU_ITEMS
    *items = PP_OCL_SORT_GPU_ITEMS;
#endif
}

static pp_status get_kernels(pp_context *ctx, const char *fn, sort_plan *p)
{
    const pp_ocl_caps *caps = pp_ocl_device_caps(ctx);
    size_t L, items;
    shape_for(caps, p->ks, p->vs, &L, &items);
    L = pp_ocl_group_size(ctx, L);
    while (L * items > SORT_MAX_TILE) items /= 2;
    while (items > 1 && scatter_local_bytes(L, items, p->ks, p->vs) > caps->local_mem) items /= 2;
    while (L > 1 && scatter_local_bytes(L, items, p->ks, p->vs) > caps->local_mem) L /= 2;
    if (scatter_local_bytes(L, items, p->ks, p->vs) > caps->local_mem)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                       "%s: the device's local memory (%llu bytes) is too small for the sort", fn,
                       (unsigned long long)caps->local_mem);
    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    pp_ocl_def(&d, "KS=%zu", p->ks);
    pp_ocl_def(&d, "VS=%zu", p->vs);
    pp_ocl_def(&d, "ITEMS=%zu", items);
    pp_ocl_def(&d, "OFF64=%d", p->off64);
    if (p->nan_last) pp_ocl_def(&d, "NAN_LAST=1");
    const int nk = p->bytes ? ALL_KERNELS : RADIX_KERNELS; /* the bytes path's kernels exist in its program only */
    PP_OCL_STATUS(pp_ocl_kernels_fit(ctx, fn, "sort_scatter", &d, kernel_names, nk, p->kernels, &L));
    p->L = L;
    p->items = items;
    p->tile = L * items;
    return PP_SUCCESS;
}

/* Scratch regions: byte offsets, each SORT_ALIGN-aligned; 0 on overflow. */
static int carve(size_t *at, size_t bytes, size_t *off)
{
    size_t a = (*at + SORT_ALIGN - 1) / SORT_ALIGN * SORT_ALIGN;
    if (a < *at || a + bytes < a) return 0;
    *off = a;
    *at = a + bytes;
    return 1;
}

/* 1-byte keys without values: a key is its digit, so the sort is a
 * histogram (hist8 over chunks, starts8 folds them into the runs' starts)
 * of the input and a rewrite of the runs into the output (fill8): no
 * alternate buffer, and an input whose keys are all equal is rewritten
 * unchanged. */
static pp_status sort_bytes(pp_context *ctx, const char *fn, sort_plan *p, cl_mem kin, cl_mem km, size_t n,
                            cl_ulong xmask)
{
    size_t groups = n / 65536 + 1;
    if (groups > 1024) groups = 1024;
    size_t chunk = n / groups + (n % groups != 0);
    if (chunk > ((size_t)1 << 31)) { /* local counts are 32-bit */
        groups = n / ((size_t)1 << 31) + 1;
        chunk = n / groups + (n % groups != 0);
    }
    groups = n / chunk + (n % chunk != 0);
    size_t at = 0, o_part, o_starts;
    if (!carve(&at, groups * SORT_RADIX * 8, &o_part) || !carve(&at, (SORT_RADIX + 1) * 8, &o_starts))
        return pp_fail(ctx, PP_ERROR_INTERNAL, "%s: working memory size overflow", fn);
    cl_mem s;
    PP_OCL_STATUS(pp_ocl_scratch(ctx, at, fn, &s));
    const cl_ulong n64 = n, chunk64 = chunk, part_off = o_part / 8, starts_off = o_starts / 8;
    const cl_uint ng = (cl_uint)groups;
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, p->kernels[KERNEL_HIST8], groups, p->L, PP_OCL_ARG(kin), PP_OCL_ARG(n64),
                                PP_OCL_ARG(chunk64), PP_OCL_ARG(xmask), PP_OCL_ARG(s), PP_OCL_ARG(part_off)));
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, p->kernels[KERNEL_STARTS8], 1, p->L, PP_OCL_ARG(s), PP_OCL_ARG(part_off),
                                PP_OCL_ARG(ng), PP_OCL_ARG(s), PP_OCL_ARG(starts_off)));
    const size_t fchunk = p->L * 64;
    const cl_ulong fchunk64 = fchunk;
    return PP_OCL_LAUNCH(ctx, fn, p->kernels[KERNEL_FILL8], pp_ocl_groups_for(n, fchunk), p->L, PP_OCL_ARG(km),
                         PP_OCL_ARG(n64), PP_OCL_ARG(fchunk64), PP_OCL_ARG(xmask), PP_OCL_ARG(s),
                         PP_OCL_ARG(starts_off));
}

/* The sort's buffers, once their sizes are checked: the outputs km and vm,
 * the inputs kin and vin (without values, vm and vin repeat km and kin, as
 * the kernels' unused arguments); *oop: 1 out of place (keys_in and
 * values_in are other buffers than keys and values). */
static pp_status sort_buffers(pp_context *ctx, const pp_sort_args *a, size_t ks, size_t vs, cl_mem *km, cl_mem *vm,
                              cl_mem *kin, cl_mem *vin, cl_uint *oop)
{
    const size_t n = a->n;
    const int out_of_place = a->keys_in != a->keys;
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, a->fn, {a->keys, n * ks, "keys"}, {a->values, n * vs, "values"},
                                     {out_of_place ? a->keys_in : NULL, n * ks, "keys_in"},
                                     {out_of_place ? a->values_in : NULL, n * vs, "values_in"}));
    *km = pp_ocl_mem(a->keys);
    *vm = a->values ? pp_ocl_mem(a->values) : *km;
    *kin = pp_ocl_mem(a->keys_in);
    *vin = a->values ? pp_ocl_mem(a->values_in) : *kin;
    *oop = (cl_uint)out_of_place;
    return PP_SUCCESS;
}

/* The key map's XOR (signed: the sign bit; both descending orders: every
 * bit flipped too). */
cl_ulong pp_ocl_sort_xmask(pp_type type, size_t ks, pp_order order)
{
    cl_ulong xmask = 0;
    if (pp_type_kind(type) == PP_KIND_SINT) xmask = (cl_ulong)1 << (8 * ks - 1);
    if (order != PP_ASCENDING) xmask = ~xmask;
    return xmask;
}

/* Whether the programs need PP_NAN_LAST: float keys in
 * PP_DESCENDING_NAN_LAST (for integers that order is PP_DESCENDING). */
int pp_ocl_sort_nan_last(pp_type type, pp_order order)
{
    return order == PP_DESCENDING_NAN_LAST && pp_type_kind(type) == PP_KIND_FLOAT;
}

pp_status pp_ocl_sort_count_scan_scatter(pp_context *ctx, const pp_sort_args *a)
{
    const char *fn = a->fn;
    const pp_type type = a->type;
    const void *values = a->values;
    const size_t value_size = a->value_size, n = a->n;
    const pp_order order = a->order;
    sort_plan p;
    memset(&p, 0, sizeof p);
    p.ks = pp_type_size(type);
    p.vs = values ? value_size : 0;
    cl_mem km, vm, kin, vin;
    cl_uint oop32;
    PP_OCL_STATUS(sort_buffers(ctx, a, p.ks, p.vs, &km, &vm, &kin, &vin, &oop32));
    p.bytes = p.ks == 1 && !values;
    p.off64 = !p.bytes && (uint64_t)n > UINT32_MAX;
    p.nan_last = pp_ocl_sort_nan_last(type, order);
    PP_OCL_STATUS(get_kernels(ctx, fn, &p));

    const cl_uint is_float = pp_type_kind(type) == PP_KIND_FLOAT;
    const cl_ulong xmask = pp_ocl_sort_xmask(type, p.ks, order);
    if (p.bytes) return sort_bytes(ctx, fn, &p, kin, km, n, xmask);

    const pp_type off_type = p.off64 ? PP_U64 : PP_U32;
    const size_t offsz = p.off64 ? 8 : 4;
    const size_t ntiles = n / p.tile + (n % p.tile != 0);
    const size_t ncount = SORT_RADIX * ntiles;
    size_t scan_elems = 0;
    PP_OCL_STATUS(pp_ocl_scan_work(ctx, fn, off_type, PP_SUM, ncount, &scan_elems));

    size_t part_groups = n / 4096 + 1;
    if (part_groups > SORT_PART_MAX) part_groups = SORT_PART_MAX;
    const size_t part_chunk = n / part_groups + (n % part_groups != 0);
    part_groups = n / part_chunk + (n % part_chunk != 0);

    size_t at = 0, o_ctrl, o_part, o_counts, o_work, o_alt, o_valt = 0;
    int ok = carve(&at, SORT_CTRL_WORDS * 4, &o_ctrl) && carve(&at, 2 * 8 * part_groups, &o_part) &&
             ncount <= SIZE_MAX / offsz && carve(&at, ncount * offsz, &o_counts) &&
             scan_elems <= SIZE_MAX / offsz && carve(&at, scan_elems * offsz, &o_work) &&
             carve(&at, n * p.ks, &o_alt) && (!p.vs || carve(&at, n * p.vs, &o_valt));
    if (!ok)
        return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: the working memory for %zu keys overflows size_t", fn, n);
    cl_mem s;
    PP_OCL_STATUS(pp_ocl_scratch(ctx, at, fn, &s));

    const cl_ulong n64 = n, ntiles64 = ntiles, ctrl_off = o_ctrl / 4, part_off = o_part / 8,
                   counts_off = o_counts / offsz, alt_off = o_alt / p.ks, valt_off = p.vs ? o_valt / p.vs : 0;
    const cl_ulong chunk64 = part_chunk;
    const cl_uint ngroups = (cl_uint)part_groups;
    const size_t L = p.L;

    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, p.kernels[KERNEL_KEY_BITS], part_groups, L, PP_OCL_ARG(kin), PP_OCL_ARG(n64),
                                PP_OCL_ARG(chunk64), PP_OCL_ARG(is_float), PP_OCL_ARG(xmask), PP_OCL_ARG(s),
                                PP_OCL_ARG(part_off)));
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, p.kernels[KERNEL_PLAN], 1, L, PP_OCL_ARG(s), PP_OCL_ARG(part_off),
                                PP_OCL_ARG(ngroups), PP_OCL_ARG(s), PP_OCL_ARG(ctrl_off), PP_OCL_ARG(oop32)));

    const size_t groups = ntiles < PP_OCL_MAX_GROUPS ? ntiles : PP_OCL_MAX_GROUPS;
    for (cl_uint pass = 0; pass < (cl_uint)p.ks; pass++) {
        PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, p.kernels[KERNEL_COUNT], groups, L, PP_OCL_ARG(km), PP_OCL_ARG(s),
                                    PP_OCL_ARG(alt_off), PP_OCL_ARG(kin), PP_OCL_ARG(n64), PP_OCL_ARG(ntiles64),
                                    PP_OCL_ARG(pass), PP_OCL_ARG(is_float), PP_OCL_ARG(xmask), PP_OCL_ARG(s),
                                    PP_OCL_ARG(counts_off), PP_OCL_ARG(s), PP_OCL_ARG(ctrl_off)));
        PP_OCL_STATUS(pp_ocl_scan_into(ctx, fn, off_type, PP_SUM, PP_EXCLUSIVE, s, (size_t)counts_off, s,
                                       (size_t)counts_off, ncount, s, o_work / offsz));
        PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, p.kernels[KERNEL_SCATTER], groups, L, PP_OCL_ARG(km), PP_OCL_ARG(s),
                                    PP_OCL_ARG(alt_off), PP_OCL_ARG(vm), PP_OCL_ARG(s), PP_OCL_ARG(valt_off),
                                    PP_OCL_ARG(kin), PP_OCL_ARG(vin), PP_OCL_ARG(n64), PP_OCL_ARG(ntiles64),
                                    PP_OCL_ARG(pass), PP_OCL_ARG(is_float),
                                    PP_OCL_ARG(xmask), PP_OCL_ARG(s), PP_OCL_ARG(counts_off), PP_OCL_ARG(s),
                                    PP_OCL_ARG(ctrl_off)));
    }
    const size_t cgroups = pp_ocl_groups_for(n, L * 16);
    return PP_OCL_LAUNCH(ctx, fn, p.kernels[KERNEL_COPY_BACK], cgroups, L, PP_OCL_ARG(km), PP_OCL_ARG(s),
                         PP_OCL_ARG(alt_off), PP_OCL_ARG(vm), PP_OCL_ARG(s), PP_OCL_ARG(valt_off), PP_OCL_ARG(kin),
                         PP_OCL_ARG(vin), PP_OCL_ARG(n64), PP_OCL_ARG(s), PP_OCL_ARG(ctrl_off));
}

/* ---- Onesweep (NVIDIA GPUs) ----------------------------------------------------------------------------
 * Program sort_onesweep, built with PP_NV_PTX: os_count reads the keys once
 * for the digit counts of every position, os_plan turns them into each
 * pass's digit offsets and the passes' control words, then one os_pass per
 * digit position (a pass whose digit is the same in every key exits at
 * once: the device decides, the host never waits), copy_back last. Tiles
 * of L work-items x items keys (L below; items: 14 for 8-byte keys, 20 with
 * values, 24 for keys alone, fewer where keys or values would not fit local
 * memory: 22 for 4-byte keys alone in NVIDIA's 48 KiB), registers capped
 * at 80 so that two work-groups of
 * 384 (or three of 256) share a multiprocessor. NVIDIA's driver reports
 * CL_KERNEL_WORK_GROUP_SIZE 256 for these kernels, yet runs them with 384
 * (their reqd_work_group_size), so the device's limit decides.
 *
 * Scratch: ctrl (SORT_CTRL_WORDS uints: sort_keys.cl's CTRL_ words; 24 + p are pass p's tickets),
 * hist and pbase (key bytes x 256 ulongs each), carry (key bytes x portions
 * x 256 ulongs, zero on entry), two sets of look-back rows (tiles x 256
 * uints each; os_count clears the first, each pass the other set for the
 * next pass), the alternate keys and values. */
/* Work-group sizes: 384 (12 warps, the cuda sort's) for keys alone from
 * OS_L_MAX_FROM keys, else 256 (8 warps: the fewest, one work-item per
 * digit): the faster of the two for each (bench/studies/opencl.md, "opencl sort
 * on NVIDIA: Onesweep with inline-PTX warp operations"). Keys alone in
 * three groups of 320 x 24 at 64 registers (the cuda sort's shape) lost to
 * two of 384 x 22 at 80 (bench/studies/opencl.md, "opencl sort on NVIDIA: the cuda
 * sort's later pass changes"). */
#define OS_L_MAX 384
#define OS_L_MIN 256
#define OS_L_MAX_FROM ((size_t)1 << 22)
#define OS_MAXRREG 80
#define OS_PORTION_KEYS (((size_t)1 << 30) - 1) /* look-back counts are 30 bits */
enum { OS_COUNT, OS_PLAN, OS_PASS, OS_COPY_BACK, OS_KERNELS };
static const char *const os_kernel_names[OS_KERNELS] = {"os_count", "os_plan", "os_pass", "copy_back"};

static int onesweep_runs(const pp_ocl_caps *caps)
{
    return pp_ocl_nv_ptx(caps) && caps->max_work_group >= OS_L_MIN && caps->max_work_item0 >= OS_L_MIN;
}

/* Local memory of os_pass with L work-items of items keys
 * (sort_onesweep.cl), less the staged digits (DIG_STAGED: a byte per key of
 * the tile). */
static size_t os_local_bytes(size_t L, size_t items, size_t ks, size_t vs)
{
    return (L / 32) * SORT_RADIX * 4 + SORT_RADIX * 8 + 64 + L * items * (vs > ks ? vs : ks);
}

/* Keys per work-item (see above), fewer while the tile's keys (or values)
 * and the pass's counters would not fit local memory. */
static size_t os_items(const pp_ocl_caps *caps, size_t L, size_t ks, size_t vs)
{
    size_t items = ks > 4 ? 14 : vs ? 20 : 24;
    while (items > 1 && os_local_bytes(L, items, ks, vs) > caps->local_mem) items--;
    return items;
}

pp_status pp_ocl_sort_onesweep(pp_context *ctx, const pp_sort_args *a)
{
    const char *fn = a->fn;
    const pp_ocl_caps *caps = pp_ocl_device_caps(ctx);
    const size_t n = a->n, ks = pp_type_size(a->type), vs = a->values ? a->value_size : 0;
    cl_mem km, vm, kin, vin;
    cl_uint oop32;
    PP_OCL_STATUS(sort_buffers(ctx, a, ks, vs, &km, &vm, &kin, &vin, &oop32));
    if (!onesweep_runs(caps))
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED,
                       "%s: PP_ALGO_ONESWEEP on opencl needs an NVIDIA GPU of compute capability 7.0 or later "
                       "(its warp operations are inline PTX) taking work-groups of %d; this device is not one "
                       "(PP_ALGO_COUNT_SCAN_SCATTER runs everywhere)",
                       fn, OS_L_MIN);
    if (n < 2) return PP_SUCCESS;
    const size_t L = !vs && n >= OS_L_MAX_FROM && caps->max_work_group >= OS_L_MAX && caps->max_work_item0 >= OS_L_MAX
                         ? OS_L_MAX
                         : OS_L_MIN;
    const size_t items = os_items(caps, L, ks, vs), tile = L * items;
    if (os_local_bytes(L, items, ks, vs) > caps->local_mem)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: the device's local memory (%llu bytes) is too small for the sort",
                       fn, (unsigned long long)caps->local_mem);
    /* with values, the sorted positions' digits in local memory (a byte
     * each) where they fit beside the tile: the write loops then need not
     * hold them in registers */
    const int dig_staged = vs && os_local_bytes(L, items, ks, vs) + tile <= caps->local_mem;
    const size_t tiles = n / tile + (n % tile != 0);
    if (tiles > UINT32_MAX)
        return pp_fail(ctx, PP_ERROR_UNSUPPORTED, "%s: %zu keys are more than the sort's 2^32 tiles hold", fn, n);
    const size_t tpp = OS_PORTION_KEYS / tile, portions = tiles / tpp + 1;

    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    pp_ocl_def(&d, "KS=%zu", ks);
    pp_ocl_def(&d, "VS=%zu", vs);
    pp_ocl_def(&d, "ITEMS=%zu", items);
    pp_ocl_def(&d, "OFF64=%d", (uint64_t)n > UINT32_MAX);
    pp_ocl_def(&d, "L=%zu", L);
    pp_ocl_def(&d, "DIG_STAGED=%d", dig_staged);
    pp_ocl_def(&d, "NV_PTX=1");
    if (pp_ocl_sort_nan_last(a->type, a->order)) pp_ocl_def(&d, "NAN_LAST=1");
    pp_ocl_option(&d, "-cl-nv-maxrregcount=%d", OS_MAXRREG);
    cl_kernel k[OS_KERNELS];
    for (int i = 0; i < OS_KERNELS; i++) {
        PP_OCL_STATUS(pp_ocl_kernel(ctx, fn, "sort_onesweep", &d, os_kernel_names[i], &k[i]));
    }

    const size_t hist_words = ks * SORT_RADIX, rows = tiles * SORT_RADIX;
    size_t at = 0, o_ctrl, o_hist, o_pbase, o_carry, o_status, o_alt, o_valt = 0;
    int ok = carve(&at, SORT_CTRL_WORDS * 4, &o_ctrl) && carve(&at, hist_words * 8, &o_hist) &&
             carve(&at, hist_words * 8, &o_pbase) && carve(&at, ks * portions * SORT_RADIX * 8, &o_carry) &&
             rows <= SIZE_MAX / 8 && carve(&at, 2 * rows * 4, &o_status) && n <= SIZE_MAX / ks &&
             carve(&at, n * ks, &o_alt) && (!vs || (n <= SIZE_MAX / vs && carve(&at, n * vs, &o_valt)));
    if (!ok) return pp_fail(ctx, PP_ERROR_OUT_OF_MEMORY, "%s: the working memory for %zu keys overflows size_t", fn, n);
    cl_mem s;
    PP_OCL_STATUS(pp_ocl_scratch(ctx, at, fn, &s));
    const cl_ulong zero = 0;
    PP_OCL_STATUS(pp_ocl_fill(ctx, fn, s, &zero, 8, o_hist, hist_words * 8));
    PP_OCL_STATUS(pp_ocl_fill(ctx, fn, s, &zero, 8, o_carry, ks * portions * SORT_RADIX * 8));

    const cl_uint is_float = pp_type_kind(a->type) == PP_KIND_FLOAT;
    const cl_ulong xmask = pp_ocl_sort_xmask(a->type, ks, a->order), n64 = n, ctrl_off = o_ctrl / 4, hist_off = o_hist / 8,
                   pbase_off = o_pbase / 8, status_off = o_status / 4, rows64 = rows, alt_off = o_alt / ks,
                   valt_off = vs ? o_valt / vs : 0;
    /* os_count: about four groups per multiprocessor, none counting 2^31 keys */
    size_t groups = n / 8192 + 1;
    if (groups > 4 * (size_t)caps->compute_units) groups = 4 * (size_t)caps->compute_units;
    if (groups < n / ((size_t)1 << 31) + 1) groups = n / ((size_t)1 << 31) + 1;
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, k[OS_COUNT], groups, L, PP_OCL_ARG(kin), PP_OCL_ARG(n64),
                                PP_OCL_ARG(is_float), PP_OCL_ARG(xmask), PP_OCL_ARG(s), PP_OCL_ARG(hist_off),
                                PP_OCL_ARG(s), PP_OCL_ARG(status_off), PP_OCL_ARG(rows64)));
    PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, k[OS_PLAN], 1, L, PP_OCL_ARG(s), PP_OCL_ARG(hist_off), PP_OCL_ARG(n64),
                                PP_OCL_ARG(s), PP_OCL_ARG(pbase_off), PP_OCL_ARG(s), PP_OCL_ARG(ctrl_off),
                                PP_OCL_ARG(oop32)));
    const cl_uint tpp32 = (cl_uint)tpp, tiles32 = (cl_uint)tiles;
    for (cl_uint pass = 0; pass < (cl_uint)ks; pass++) {
        const cl_ulong st_off = status_off + (pass & 1u) * rows64, next_off = status_off + ((pass + 1) & 1u) * rows64,
                       carry_off = o_carry / 8 + (cl_ulong)pass * portions * SORT_RADIX;
        const cl_uint has_next = pass + 1 < (cl_uint)ks;
        PP_OCL_STATUS(PP_OCL_LAUNCH(ctx, fn, k[OS_PASS], tiles, L, PP_OCL_ARG(km), PP_OCL_ARG(s),
                                    PP_OCL_ARG(alt_off), PP_OCL_ARG(vm), PP_OCL_ARG(s), PP_OCL_ARG(valt_off),
                                    PP_OCL_ARG(kin), PP_OCL_ARG(vin), PP_OCL_ARG(n64), PP_OCL_ARG(pass),
                                    PP_OCL_ARG(is_float), PP_OCL_ARG(xmask),
                                    PP_OCL_ARG(s), PP_OCL_ARG(st_off), PP_OCL_ARG(next_off), PP_OCL_ARG(has_next),
                                    PP_OCL_ARG(s), PP_OCL_ARG(pbase_off), PP_OCL_ARG(s), PP_OCL_ARG(carry_off),
                                    PP_OCL_ARG(s), PP_OCL_ARG(ctrl_off), PP_OCL_ARG(tpp32), PP_OCL_ARG(tiles32)));
    }
    const size_t cgroups = pp_ocl_groups_for(n, L * 16);
    return PP_OCL_LAUNCH(ctx, fn, k[OS_COPY_BACK], cgroups, L, PP_OCL_ARG(km), PP_OCL_ARG(s), PP_OCL_ARG(alt_off),
                         PP_OCL_ARG(vm), PP_OCL_ARG(s), PP_OCL_ARG(valt_off), PP_OCL_ARG(kin), PP_OCL_ARG(vin),
                         PP_OCL_ARG(n64), PP_OCL_ARG(s), PP_OCL_ARG(ctrl_off));
}

/* PP_ALGO_AUTO: Onesweep where it runs, except for 1-byte keys alone (the
 * count-and-fill path: one read and one write, no alternate buffer); else
 * count, scan and scatter. */
pp_status pp_ocl_sort(pp_context *ctx, const pp_sort_args *a)
{
    const int bytes = pp_type_size(a->type) == 1 && !a->values;
    if (!bytes && onesweep_runs(pp_ocl_device_caps(ctx))) return pp_ocl_sort_onesweep(ctx, a);
    return pp_ocl_sort_count_scan_scatter(ctx, a);
}

/* ---- pp_argsort (core/argsort.c): the index sequence (argsort.cl), then the sort ---------------------- */
pp_status pp_ocl_iota(pp_context *ctx, const char *fn, pp_type index_type, void *out, size_t n)
{
    pp_ocl_defines d = PP_OCL_DEFINES_INIT;
    PP_OCL_STATUS(pp_ocl_def_type(ctx, fn, &d, index_type));
    cl_kernel k;
    PP_OCL_STATUS(pp_ocl_kernel(ctx, fn, "argsort", &d, "iota", &k));
    const size_t L = pp_ocl_group_size(ctx, 256);
    cl_mem m = pp_ocl_mem(out);
    cl_ulong n64 = n;
    return PP_OCL_LAUNCH(ctx, fn, k, pp_ocl_groups_for(n, L), L, PP_OCL_ARG(m), PP_OCL_ARG(n64));
}

pp_status pp_ocl_argsort(pp_context *ctx, const pp_argsort_args *a)
{
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, a->fn, {a->keys, a->n * pp_type_size(a->type), "keys"},
                                     {a->indices, a->n * pp_type_size(a->index_type), "indices"}));
    return pp_argsort_by_sort(ctx, a, pp_ocl_iota);
}

pp_status pp_ocl_top_k(pp_context *ctx, const pp_top_k_args *a)
{
    const size_t ks = pp_type_size(a->type);
    PP_OCL_STATUS(PP_OCL_CHECK_SIZES(ctx, a->fn, {a->in, a->n * ks, "in"}, {a->keys_out, a->k * ks, "keys_out"},
                                     {a->indices_out, a->k * sizeof(uint64_t), "indices_out"}));
    return pp_top_k_by_sort(ctx, a, pp_ocl_iota);
}
