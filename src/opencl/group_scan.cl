/* parprim opencl: the work-group scan of per-work-item counts that the
 * compaction programs share; no program itself: the build embeds it before
 * select.cl and bykey.cl (src/opencl/CMakeLists.txt). It needs PP_L, the
 * work-group size (a build define of both). */
/* Sum of c over the group in *tot (local), and the exclusive prefix of
 * this work-item. sc: PP_L uints of local memory. Ends with a barrier. */
uint group_scan(uint c, __local uint *sc, __local uint *tot, uint lid)
{
    sc[lid] = c;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < PP_L; off <<= 1) {
        const uint left = lid >= off ? sc[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        sc[lid] += left;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint incl = sc[lid];
    if (lid == PP_L - 1) *tot = incl;
    barrier(CLK_LOCAL_MEM_FENCE);
    return incl - c;
}
