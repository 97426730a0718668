/* opencl_devices: the OpenCL devices as pp_options.device counts them
 * (include/parprim.h: the platforms in clGetPlatformIDs order, each one's
 * devices of every type in clGetDeviceIDs order), one line each:
 * "index<TAB>gpu|cpu|other<TAB>name (platform)". No line where there is no
 * platform; exit status 1 where the platforms cannot be listed. It asks
 * OpenCL itself, not parprim, so that the devices the opencl stage of
 * scripts/gpu-check tests (scripts/gpu/opencl.sh) are not chosen by the
 * code under test. Built with the opencl backend, against the same OpenCL
 * headers and loader. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

int main(void)
{
    cl_platform_id plats[64];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(64, plats, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: no platform */) return 0;
    if (err != CL_SUCCESS) {
        fprintf(stderr, "clGetPlatformIDs: %d\n", (int)err);
        return 1;
    }
    int index = 0;
    for (cl_uint p = 0; p < np && p < 64; p++) {
        cl_device_id devs[64];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS) continue;
        char pname[128] = "";
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        for (cl_uint d = 0; d < nd; d++, index++) {
            char name[256] = "";
            cl_device_type t = 0;
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof name, name, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof t, &t, NULL);
            const char *kind = (t & CL_DEVICE_TYPE_GPU) ? "gpu" : (t & CL_DEVICE_TYPE_CPU) ? "cpu" : "other";
            printf("%d\t%s\t%s (%s)\n", index, kind, name, pname);
        }
    }
    return 0;
}
