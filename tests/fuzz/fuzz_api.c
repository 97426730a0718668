/* libFuzzer target over the whole API (cpu backend).
 *
 * Each input decodes into one call: any primitive, with type, operator,
 * comparison, order and scan kind possibly out of range, n up to 32767,
 * element data taken from the input, and sometimes NULL pointers,
 * overlapping buffers, nbins 0 or huge, bad edges or a bad value_size.
 *
 * The harness predicts from the header whether the call must fail
 * (PP_ERROR_INVALID_ARGUMENT, or PP_ERROR_UNSUPPORTED for bitwise operators
 * on floats) or must succeed, and aborts when the library disagrees. On
 * success the result is compared with the reference (ref/reference.c);
 * every byte of every buffer outside the call's outputs must be unchanged;
 * on failure nothing at all may have changed and pp_last_error must say
 * why. The harness may abort; the library never may.
 *
 * Input layout (missing bytes read as 0):
 *   [0] selector: 0 reduce, 1 scan, 2 histogram_even, 3 histogram_range,
 *       4 select_flagged, 5 select_if, 6 unique, 7 partition_if, 8 sort,
 *       9 sort_pairs, 10 the rest of the API (memory, names, algorithms)
 *   [1] type: % 12 (10 and 11 are out of range: 10 and -1)
 *   [2] parameter: operator (% 8, 7 out of range), scan kind (>> 3, % 3),
 *       comparison (% 7), order (% 3), value_size (>> 2, % 8 -> table)
 *   [3] bit 0: sequential algorithm; bit 1: the 3-thread context;
 *       bits 2-4: pointer mode (0-3 normal, 4 NULL input, 5 NULL output,
 *       6 overlapping buffers, 7 NULL scalar or in place);
 *       bits 5-7: data mode (how elements are made from the data bytes)
 *   [4..5] n (little-endian): bit 15 set: n = v & 0x7fff, else v & 0xfff
 *   [6..7] nbins: 0xffff SIZE_MAX, 0xfffe SIZE_MAX / 8 + 1, else v % 1100
 *   [8..15] first scalar (lower, value), [16..23] second scalar (upper);
 *       sort and sort_pairs: [23] bit 0 the _copy form, bits 1-2 its
 *       outputs (new arrays, the inputs, the other input, NULL)
 *   [24..25] overlap offset selector
 *   [26..]  data bytes, used cyclically
 *
 * This file: the contexts and the entry, which decodes the input
 * (fuzz_input.c) and runs the call it names (fuzz_calls.c, with the checks
 * of fuzz_check.c); fuzz_api.h has what they share.
 */
#include "fuzz_api.h"

/* ---- contexts ---------------------------------------------------------------------------------- */
pp_context *g_ctx[2];

static void init_once(void)
{
    if (g_ctx[0]) return;
    for (int i = 0; i < 2; i++) {
        pp_options o = PP_OPTIONS_INIT;
        o.backend = PP_BACKEND_CPU;
        o.threads = i ? 3 : 1;
        pp_status st = pp_create(&g_ctx[i], &o);
        CHECK(st == PP_SUCCESS, "pp_create: %s", pp_last_error(NULL));
    }
}

void fuzz_api_cleanup(void)
{
    for (int i = 0; i < 2; i++) {
        pp_destroy(g_ctx[i]);
        g_ctx[i] = NULL;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init_once();
    input in;
    decode(data, size, &in);
    switch (in.sel) {
    case 0: fuzz_reduce_scan(&in, 0); break;
    case 1: fuzz_reduce_scan(&in, 1); break;
    case 2: fuzz_histogram(&in, 0); break;
    case 3: fuzz_histogram(&in, 1); break;
    case 4: fuzz_select(&in, SEL_FLAGGED); break;
    case 5: fuzz_select(&in, SEL_IF); break;
    case 6: fuzz_select(&in, SEL_UNIQUE); break;
    case 7: fuzz_select(&in, SEL_PARTITION); break;
    case 8: fuzz_sort(&in, 0); break;
    case 9: fuzz_sort(&in, 1); break;
    default: fuzz_misc(&in); break;
    }
    return 0;
}
