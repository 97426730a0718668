/* The backends built into this library: the one file of the core that
 * names them. pp_create's AUTO tries them in this order; the last (cpu,
 * always built) is the fallback. */
#include "internal.h"

extern const pp_backend_ops pp_cpu_ops;
#ifdef PP_HAVE_CUDA
extern const pp_backend_ops pp_cuda_ops;
#endif
#ifdef PP_HAVE_OPENCL
extern const pp_backend_ops pp_opencl_ops;
#endif

static const pp_backend_ops *const registry[] = {
#ifdef PP_HAVE_CUDA
    &pp_cuda_ops,
#endif
#ifdef PP_HAVE_OPENCL
    &pp_opencl_ops,
#endif
    &pp_cpu_ops,
};

const pp_backend_ops *pp_backend_table(pp_backend b)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (registry[i]->id == b) return registry[i];
    return NULL;
}

const pp_backend_ops *const *pp_backend_auto_order(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

int pp_backend_has_algorithm(const pp_backend_ops *ops, pp_primitive prim, pp_algorithm algo)
{
    if ((unsigned)algo >= PP_ALGO_COUNT) return 0;
    switch (prim) {
    case PP_PRIM_REDUCE: return ops->reduce[algo] != NULL;
    case PP_PRIM_SCAN: return ops->scan[algo] != NULL;
    case PP_PRIM_HISTOGRAM: return ops->histogram[algo] != NULL;
    case PP_PRIM_SELECT: return ops->select[algo] != NULL;
    case PP_PRIM_SORT: return ops->sort[algo] != NULL;
    }
    return 0;
}
