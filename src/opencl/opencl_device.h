/* OpenCL devices for the opencl backend (opencl_device.c): which devices
 * there are (pp_options.device counts them over all platforms, in platform
 * order), which one pp_create's AUTO takes, and what a device can do. */
#ifndef PP_OPENCL_DEVICE_H
#define PP_OPENCL_DEVICE_H

#include "opencl_error.h"

/* Device capabilities, queried once at pp_create. */
typedef struct pp_ocl_caps {
    cl_device_type type;         /* CL_DEVICE_TYPE_GPU, _CPU, ... */
    size_t max_work_group;       /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    size_t max_work_item0;       /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0] */
    cl_ulong local_mem;          /* CL_DEVICE_LOCAL_MEM_SIZE, bytes */
    cl_uint compute_units;       /* CL_DEVICE_MAX_COMPUTE_UNITS */
    cl_ulong max_alloc;          /* CL_DEVICE_MAX_MEM_ALLOC_SIZE, bytes */
    cl_ulong global_mem;         /* CL_DEVICE_GLOBAL_MEM_SIZE, bytes (pp_context_memory) */
    int fp64;                    /* cl_khr_fp64 */
    int int64_atomics;           /* cl_khr_int64_base_atomics (global 64-bit atom_add, ...) */
    int c_major, c_minor;        /* OpenCL C version (CL_DEVICE_OPENCL_C_VERSION) */
    int nv_sm;                   /* NVIDIA GPU: compute capability as 10 * major + minor
                                    (cl_nv_device_attribute_query), else 0 */
} pp_ocl_caps;

/* 1 where kernels may use the warp-level inline PTX of common.cl
 * (PP_NV_PTX): an NVIDIA GPU of compute capability 7.0 or later, whose
 * OpenCL compiler takes inline PTX (vote.sync, shfl.sync and the .relaxed
 * memory accesses need sm_70). */
static inline int pp_ocl_nv_ptx(const pp_ocl_caps *caps) { return caps->nv_sm >= 70; }

/* Walks the devices of every platform, in platform order, all device types.
 * Returns CL_SUCCESS and the total in *count; if index < *count, the
 * device's platform and id. No platform (CL_PLATFORM_NOT_FOUND_KHR from the
 * ICD loader) counts as none. */
cl_int pp_ocl_find_device(int index, int *count, cl_platform_id *plat, cl_device_id *dev);
/* The capabilities of dev; an error code if a query fails. */
cl_int pp_ocl_query_caps(cl_device_id dev, pp_ocl_caps *c);
/* A string property of dev (or, with dev NULL, of plat), trimmed of
 * surrounding blanks and cut to cap - 1 characters; "" on failure. */
void pp_ocl_info_string(cl_device_id dev, cl_platform_id plat, cl_uint param, char *buf, size_t cap);

/* The table's probe: PP_SUCCESS if there is at least one OpenCL device. */
pp_status pp_ocl_probe(void);
/* The table's auto_choice: 1 if OpenCL device `device` is a GPU (the cpu
 * backend serves a CPU better than an OpenCL CPU device such as PoCL's). */
int pp_ocl_auto_choice(int device);

/* 1 where the primitives take the CPU device shape: a work-group of a CPU
 * device (PoCL) runs on one thread, its work-items as a loop that every
 * barrier splits, so narrow groups with long serial runs are faster there.
 * A build with PP_OCL_GPU_SHAPE_EVERYWHERE defined takes the GPU shape on
 * every device (to test it on PoCL). */
static inline int pp_ocl_cpu_shape(const pp_ocl_caps *caps)
{
#ifdef PP_OCL_GPU_SHAPE_EVERYWHERE
    (void)caps;
    return 0;
#else
    return (caps->type & CL_DEVICE_TYPE_CPU) != 0;
#endif
}

#endif
