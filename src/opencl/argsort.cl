/* pp_argsort's index sequence (opencl_sort.c, ocl_iota): out[i] = i for
 * i < n, T the index type (uint or ulong), grid-stride. */
__kernel void iota(__global T *out, ulong n)
{
    const ulong step = get_global_size(0);
    for (ulong i = get_global_id(0); i < n; i += step) out[i] = (T)i;
}
