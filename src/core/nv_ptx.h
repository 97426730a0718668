/* PTX text of the NVIDIA warp and memory operations that both the cuda
 * backend (src/cuda/device) and the opencl prelude (src/opencl/common.cl,
 * which the build embeds after this file) write as inline PTX: one spelling
 * of each. String macros only, so the file is valid C, C++, CUDA and
 * OpenCL C. Operands: see each user. */
#ifndef PP_NV_PTX_H
#define PP_NV_PTX_H

/* %0 = the lanes whose (w & bit) != 0 equals this lane's (w = %1, bit = %2):
 * a ballot of the bit, inverted in the lanes where it is clear. */
#define PP_PTX_SAME_BIT                                                                                      \
    "{\n\t.reg .pred q;\n\t"                                                                               \
    "and.b32 %0, %1, %2;\n\t"                                                                              \
    "setp.ne.u32 q, %0, 0;\n\t"                                                                            \
    "vote.sync.ballot.b32 %0, q, 0xffffffff;\n\t"                                                          \
    "@!q not.b32 %0, %0;\n\t}"

/* Strong relaxed accesses to global memory at device (gpu) scope: load %0
 * from [%1], store %1 to [%0]. */
#define PP_PTX_LD_RELAXED_U32 "ld.relaxed.gpu.global.u32 %0, [%1];"
#define PP_PTX_ST_RELAXED_U32 "st.relaxed.gpu.global.u32 [%0], %1;"
#define PP_PTX_LD_RELAXED_U64 "ld.relaxed.gpu.global.u64 %0, [%1];"
#define PP_PTX_ST_RELAXED_U64 "st.relaxed.gpu.global.u64 [%0], %1;"

#endif
