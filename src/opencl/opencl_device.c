/* OpenCL devices (opencl_device.h): discovery over every platform, the
 * table's probe and AUTO choice, and a device's capabilities. */
#include "opencl_device.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- discovery ------------------------------------------------------------------------------------------ */

cl_int pp_ocl_find_device(int index, int *count, cl_platform_id *plat, cl_device_id *dev)
{
    *count = 0;
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0)) return CL_SUCCESS;
    if (err != CL_SUCCESS) return err;
    cl_platform_id *plats = (cl_platform_id *)calloc(np, sizeof *plats);
    if (!plats) return CL_OUT_OF_HOST_MEMORY;
    err = clGetPlatformIDs(np, plats, NULL);
    if (err != CL_SUCCESS) {
        free(plats);
        return err == CL_PLATFORM_NOT_FOUND_KHR ? CL_SUCCESS : err;
    }
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || nd == 0) continue;
        if (index >= *count && index < *count + (int)nd) {
            cl_device_id *devs = (cl_device_id *)calloc(nd, sizeof *devs);
            if (!devs) {
                free(plats);
                return CL_OUT_OF_HOST_MEMORY;
            }
            err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
            if (err != CL_SUCCESS) {
                free(devs);
                free(plats);
                return err;
            }
            *plat = plats[p];
            *dev = devs[index - *count];
            free(devs);
        }
        *count += (int)nd;
    }
    free(plats);
    return CL_SUCCESS;
}

pp_status pp_ocl_probe(void)
{
    int count = 0;
    cl_platform_id p;
    cl_device_id d;
    return pp_ocl_find_device(-1, &count, &p, &d) == CL_SUCCESS && count > 0 ? PP_SUCCESS
                                                                              : PP_ERROR_BACKEND_UNAVAILABLE;
}

/* pp_create's AUTO choice: only a GPU. */
int pp_ocl_auto_choice(int device)
{
    int count = 0;
    cl_platform_id p = NULL;
    cl_device_id d = NULL;
    if (device < 0 || pp_ocl_find_device(device, &count, &p, &d) != CL_SUCCESS || device >= count) return 0;
    cl_device_type type = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS) return 0;
    return (type & CL_DEVICE_TYPE_GPU) != 0;
}

/* ---- properties ------------------------------------------------------------------------------------------ */

void pp_ocl_info_string(cl_device_id dev, cl_platform_id plat, cl_uint param, char *buf, size_t cap)
{
    buf[0] = '\0';
    cl_int err = dev ? clGetDeviceInfo(dev, param, cap, buf, NULL) : clGetPlatformInfo(plat, param, cap, buf, NULL);
    if (err != CL_SUCCESS) {
        /* too long for buf: take the start */
        size_t need = 0;
        err = dev ? clGetDeviceInfo(dev, param, 0, NULL, &need) : clGetPlatformInfo(plat, param, 0, NULL, &need);
        char *tmp = err == CL_SUCCESS ? (char *)malloc(need + 1) : NULL;
        if (tmp) {
            err = dev ? clGetDeviceInfo(dev, param, need, tmp, NULL) : clGetPlatformInfo(plat, param, need, tmp, NULL);
            if (err == CL_SUCCESS) {
                tmp[need] = '\0';
                snprintf(buf, cap, "%s", tmp);
            }
            free(tmp);
        }
    }
    buf[cap - 1] = '\0';
    size_t len = strlen(buf), b = 0;
    while (len && isspace((unsigned char)buf[len - 1])) buf[--len] = '\0';
    while (b < len && isspace((unsigned char)buf[b])) b++;
    if (b) memmove(buf, buf + b, len - b + 1);
}

/* 1 if the space-separated extension list has ext. */
static int has_extension(const char *list, const char *ext)
{
    size_t len = strlen(ext);
    for (const char *p = list; (p = strstr(p, ext)) != NULL; p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0')) return 1;
    return 0;
}

cl_int pp_ocl_query_caps(cl_device_id dev, pp_ocl_caps *c)
{
    cl_int err;
    size_t items[3] = {0, 0, 0};
    if ((err = clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof c->type, &c->type, NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof c->max_work_group, &c->max_work_group,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof c->local_mem, &c->local_mem, NULL)) !=
            CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof c->compute_units, &c->compute_units,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof c->max_alloc, &c->max_alloc, NULL)) !=
            CL_SUCCESS ||
        (err = clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof c->global_mem, &c->global_mem, NULL)) !=
            CL_SUCCESS)
        return err;
    c->max_work_item0 = items[0] ? items[0] : c->max_work_group;
    if (c->compute_units < 1) c->compute_units = 1;
    if (c->max_work_group < 1) c->max_work_group = 1;
    size_t need = 0;
    if ((err = clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &need)) != CL_SUCCESS) return err;
    char *ext = (char *)malloc(need + 1);
    if (!ext) return CL_OUT_OF_HOST_MEMORY;
    if ((err = clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, need, ext, NULL)) != CL_SUCCESS) {
        free(ext);
        return err;
    }
    ext[need] = '\0';
    c->fp64 = has_extension(ext, "cl_khr_fp64");
    c->int64_atomics = has_extension(ext, "cl_khr_int64_base_atomics");
    c->nv_sm = 0;
    if (has_extension(ext, "cl_nv_device_attribute_query") && (c->type & CL_DEVICE_TYPE_GPU)) {
        /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, _MINOR_NV (cl_ext.h spells them; the values are the
         * extension's) */
        cl_uint major = 0, minor = 0;
        if (clGetDeviceInfo(dev, 0x4000, sizeof major, &major, NULL) == CL_SUCCESS &&
            clGetDeviceInfo(dev, 0x4001, sizeof minor, &minor, NULL) == CL_SUCCESS && major < 100 && minor < 10)
            c->nv_sm = (int)(10 * major + minor);
    }
    free(ext);
    char ver[128];
    pp_ocl_info_string(dev, NULL, CL_DEVICE_OPENCL_C_VERSION, ver, sizeof ver);
    c->c_major = 1;
    c->c_minor = 0;
    if (sscanf(ver, "OpenCL C %d.%d", &c->c_major, &c->c_minor) != 2) c->c_major = 1, c->c_minor = 0;
    return CL_SUCCESS;
}
