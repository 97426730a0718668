// The course notes' algorithms on cuda (docs/algorithms.md): the path from
// naive to efficient, selectable with pp_set_algorithm for study and
// benchmarking. The defaults (cuda_reduce.cu ... cuda_sort.cu) are not
// here. One file per primitive; each says which algorithms it has
// (pp_cuda_seed_*_has) and runs them. The backend's table (cuda_backend.cu)
// sends a call here when the context's algorithm for the primitive is one
// of these, after the core's checks (arguments are valid).
#ifndef PP_CUDA_SEED_CUH
#define PP_CUDA_SEED_CUH

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

int pp_cuda_seed_reduce_has(pp_algorithm algo);
pp_status pp_cuda_seed_reduce(pp_context *ctx, pp_algorithm algo, pp_type type, pp_op op, const void *in, size_t n,
                              void *out);

int pp_cuda_seed_scan_has(pp_algorithm algo);
pp_status pp_cuda_seed_scan(pp_context *ctx, pp_algorithm algo, pp_type type, pp_op op, pp_scan_kind kind,
                            const void *in, void *out, size_t n);

int pp_cuda_seed_histogram_has(pp_algorithm algo);
pp_status pp_cuda_seed_histogram(pp_context *ctx, pp_algorithm algo, const pp_histogram_args *a);

int pp_cuda_seed_select_has(pp_algorithm algo);
pp_status pp_cuda_seed_select(pp_context *ctx, pp_algorithm algo, const pp_select_args *a);

int pp_cuda_seed_sort_has(pp_algorithm algo);
pp_status pp_cuda_seed_sort(pp_context *ctx, pp_algorithm algo, pp_type type, void *keys, void *values,
                            size_t value_size, size_t n, pp_order order);

#ifdef __cplusplus
}
#endif

#endif
