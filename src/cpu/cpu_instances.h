/* How the cpu backend instantiates its templates: once per row of the type
 * list of src/core/types.h, or once per (type, operator) row pair.
 *
 * The per-type kernels are plain C in .inc templates (cpu_ops.inc,
 * cpu_reduce_scan.inc, cpu_histogram.inc, cpu_select.inc, cpu_sort.inc),
 * so that debuggers, profilers and compiler diagnostics point at their real
 * lines. A template names its type through placeholders:
 *
 *   T        the element type                  uint32_t
 *   U        the unsigned integer of its width uint32_t
 *   W        the type integer arithmetic is done in (at least int's width)
 *   S        the type's suffix                 u32
 *   KIND     PP_KIND_SINT, PP_KIND_UINT or PP_KIND_FLOAT (usable in #if)
 *   NAME(x)  a name of this instantiation      x_u32
 *
 * and a per-operator template also through
 *
 *   O        the operator's suffix             sum
 *   OP(a, b) the operator on T                 pp_sum_u32(a, b)
 *   ID()     its neutral element               pp_id_sum_u32()
 *   NAME(x)                                    x_u32_sum
 *
 * Use:
 *   #define PP_CPU_TEMPLATE "cpu_select.inc"
 *   #define PP_CPU_EACH_OP               (only for a per-operator template)
 *   #include "cpu_each_type.inc"
 * (the walker #undefs both when done).
 *
 * The one list. An X-macro cannot #include, so the walkers visit rows by
 * index instead: cpu_each_type.inc includes cpu_type_row.inc with
 * PP_CPU_TI = 0, 1, ..., which takes row PP_CPU_TI of PP_FOR_EACH_TYPE
 * apart (PP_CPU_NTH below) and stops past the list's end; the same for
 * operators. Nothing here names a type or an operator: a row added to
 * types.h instantiates every template, and a list longer than the indices
 * the walkers visit stops the build with an #error that says what to add.
 * The kernel tables are still built with the X-macros of types.h, from the
 * names the templates define, so a row no template instantiated would be
 * an undeclared name there.
 */
#ifndef PP_CPU_INSTANCES_H
#define PP_CPU_INSTANCES_H

#include "types.h"

#define PP_CPU_CAT_(a, b) a##b
#define PP_CPU_CAT(a, b) PP_CPU_CAT_(a, b)
#define PP_CPU_NAME2_(a, b) a##_##b
#define PP_CPU_NAME2(a, b) PP_CPU_NAME2_(a, b)
#define PP_CPU_NAME3_(a, b, c) a##_##b##_##c
#define PP_CPU_NAME3(a, b, c) PP_CPU_NAME3_(a, b, c)

/* The length of each list, as an expression #if can evaluate: (0 +1 +1 ...). */
#define PP_CPU_PLUS1_(...) +1
#define PP_CPU_TYPE_ROWS (0 PP_FOR_EACH_TYPE(PP_CPU_PLUS1_))
#define PP_CPU_OP_ROWS (0 PP_FOR_EACH_OP(PP_CPU_PLUS1_))
#if PP_CPU_TYPE_ROWS != PP_ARITH_TYPE_COUNT || PP_CPU_OP_ROWS != PP_OP_COUNT
#error "the lists of src/core/types.h and PP_ARITH_TYPE_COUNT or PP_OP_COUNT (include/parprim.h) disagree"
#endif

/* The rows visited: PP_CPU_MAX_ROWS at most per list (PP_CPU_NTH_0 ..
 * PP_CPU_NTH_15 here, and as many indices in cpu_each_type.inc and
 * cpu_each_op.inc). */
#define PP_CPU_MAX_ROWS 16
#if PP_CPU_TYPE_ROWS > PP_CPU_MAX_ROWS || PP_CPU_OP_ROWS > PP_CPU_MAX_ROWS
#error "src/core/types.h lists more rows than the cpu walkers visit: raise PP_CPU_MAX_ROWS, add PP_CPU_NTH_ macros here and indices to cpu_each_type.inc and cpu_each_op.inc"
#endif

/* PP_CPU_NTH(i, a0, a1, ...): ai. */
#define PP_CPU_NTH(i, ...) PP_CPU_CALL_(PP_CPU_CAT(PP_CPU_NTH_, i), __VA_ARGS__)
#define PP_CPU_CALL_(M, ...) M(__VA_ARGS__)
#define PP_CPU_NTH_0(a, ...) a
#define PP_CPU_NTH_1(a, ...) PP_CPU_NTH_0(__VA_ARGS__)
#define PP_CPU_NTH_2(a, ...) PP_CPU_NTH_1(__VA_ARGS__)
#define PP_CPU_NTH_3(a, ...) PP_CPU_NTH_2(__VA_ARGS__)
#define PP_CPU_NTH_4(a, ...) PP_CPU_NTH_3(__VA_ARGS__)
#define PP_CPU_NTH_5(a, ...) PP_CPU_NTH_4(__VA_ARGS__)
#define PP_CPU_NTH_6(a, ...) PP_CPU_NTH_5(__VA_ARGS__)
#define PP_CPU_NTH_7(a, ...) PP_CPU_NTH_6(__VA_ARGS__)
#define PP_CPU_NTH_8(a, ...) PP_CPU_NTH_7(__VA_ARGS__)
#define PP_CPU_NTH_9(a, ...) PP_CPU_NTH_8(__VA_ARGS__)
#define PP_CPU_NTH_10(a, ...) PP_CPU_NTH_9(__VA_ARGS__)
#define PP_CPU_NTH_11(a, ...) PP_CPU_NTH_10(__VA_ARGS__)
#define PP_CPU_NTH_12(a, ...) PP_CPU_NTH_11(__VA_ARGS__)
#define PP_CPU_NTH_13(a, ...) PP_CPU_NTH_12(__VA_ARGS__)
#define PP_CPU_NTH_14(a, ...) PP_CPU_NTH_13(__VA_ARGS__)
#define PP_CPU_NTH_15(a, ...) PP_CPU_NTH_14(__VA_ARGS__)

/* Row i of each list as a parenthesized tuple (a trailing ~ keeps the
 * variable arguments of PP_CPU_NTH_ non-empty), and its fields. */
#define PP_CPU_TYPE_TUPLE_(E, T, S, K, U, W) (E, T, S, K, U, W),
#define PP_CPU_OP_TUPLE_(E, S, I) (E, S, I),
#define PP_CPU_TYPE_ROW(i) PP_CPU_NTH(i, PP_FOR_EACH_TYPE(PP_CPU_TYPE_TUPLE_) ~)
#define PP_CPU_OP_ROW(i) PP_CPU_NTH(i, PP_FOR_EACH_OP(PP_CPU_OP_TUPLE_) ~)
#define PP_CPU_APPLY_(F, tuple) F tuple
#define PP_CPU_TYPE_FIELD(i, F) PP_CPU_APPLY_(F, PP_CPU_TYPE_ROW(i))
#define PP_CPU_OP_FIELD(i, F) PP_CPU_APPLY_(F, PP_CPU_OP_ROW(i))
#define PP_CPU_CTYPE_(E, T, S, K, U, W) T
#define PP_CPU_SUFFIX_(E, T, S, K, U, W) S
#define PP_CPU_KIND_(E, T, S, K, U, W) PP_KIND_##K
#define PP_CPU_UTYPE_(E, T, S, K, U, W) U
#define PP_CPU_WTYPE_(E, T, S, K, U, W) W
#define PP_CPU_OP_SUFFIX_(E, S, I) S

#endif
