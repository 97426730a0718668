/* What test_search and test_merge share: sorted keys with awkward
 * contents (duplicates, NaNs of many payloads, -0.0 and +0.0, extremes),
 * split into two sorted sequences in chosen layouts, and the status check
 * that turns a backend's missing call into a printed skip. */
#ifndef PP_SEARCH_DATA_H
#define PP_SEARCH_DATA_H

#include "test_common.h"

#define SD_MODES 3
/* "any" (full range; floats any bits, a NaN now and then), "few" (few
 * distinct values, -0.0 and +0.0 among them, NaNs), "specials" (NaNs,
 * +-inf, +-0, the type's extremes). */
extern const char *const sd_mode_names[SD_MODES];
extern const char *const sd_order_names[3];

/* n keys of mode into buf (never all zero). */
void sd_gen(tc_rng *r, pp_type t, size_t n, int mode, void *buf);

#define SD_LAYOUTS 3
/* "interleaved", "second-first", "first-first" */
extern const char *const sd_layout_names[SD_LAYOUTS];
/* n1 + n2 keys of mode, sorted in order, dealt into first (n1 keys) and
 * second (n2 keys), each sorted then: interleaved (each key to either at
 * random), second-first (the n2 smallest to second: every key of second
 * before or equal to every key of first) or first-first. */
void sd_split(tc_rng *r, pp_type t, int mode, pp_order o, int layout, void *first, size_t n1, void *second, size_t n2);

/* Fails the test unless the bytes of context memory at dev (none where
 * bytes == 0) are still those of host; frees dev (if not NULL). */
void sd_expect_unchanged(pp_context *ctx, void *dev, const void *host, size_t bytes, const char *what);

/* A call's status: 1 to check its results; 0, with a printed skip ("fn: not
 * available on <backend> yet"), where a backend other than cpu does not
 * have the call; any other failure fails the test (tc_status_ok). */
int sd_status_ok(const tc_config *c, pp_status st, const char *fn);

#endif
