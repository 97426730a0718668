/* The opencl backend's base: the OpenCL headers (1.2 API) and the error
 * reporting every other file of the backend uses (opencl_error.c). */
#ifndef PP_OPENCL_ERROR_H
#define PP_OPENCL_ERROR_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#ifdef __APPLE__
#include <OpenCL/cl.h>
#else
#include <CL/cl.h>
#endif

#include "internal.h"

/* The ICD loader's "no platform" (cl_khr_icd), which older headers lack. */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

/* "CL_INVALID_VALUE", ...; "CL_UNKNOWN_ERROR" for codes outside OpenCL 1.2's list. */
const char *pp_ocl_error_name(cl_int err);
/* Records "fn: what failed: CL_NAME (code)" and returns PP_ERROR_BACKEND, or
 * PP_ERROR_OUT_OF_MEMORY for CL_MEM_OBJECT_ALLOCATION_FAILURE and
 * CL_OUT_OF_HOST_MEMORY (an allocation made lazily by the driver). */
pp_status pp_ocl_error(pp_context *ctx, cl_int err, const char *fn, const char *what);
/* The same for an allocation call (clCreateBuffer): CL_OUT_OF_RESOURCES
 * and CL_INVALID_BUFFER_SIZE are out of memory too. */
pp_status pp_ocl_alloc_error(pp_context *ctx, cl_int err, const char *fn, const char *what);

/* Returns pp_ocl_error(ctx, e, fn, what) unless the OpenCL call gives CL_SUCCESS. */
#define PP_OCL_TRY(ctx, call, fn, what)                                          \
    do {                                                                         \
        cl_int cl_err_ = (call);                                                 \
        if (cl_err_ != CL_SUCCESS) return pp_ocl_error((ctx), cl_err_, (fn), (what)); \
    } while (0)
/* Returns the status of a parprim call unless it is PP_SUCCESS. */
#define PP_OCL_STATUS(call)                      \
    do {                                         \
        pp_status status_ = (call);              \
        if (status_ != PP_SUCCESS) return status_; \
    } while (0)

#endif
