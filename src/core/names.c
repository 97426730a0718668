/* The names of the API's values: version, statuses, types, operators,
 * backends, primitives and algorithms. */
#include "internal.h"

unsigned pp_version(void) { return PP_VERSION_NUMBER; }

const char *pp_status_string(pp_status status)
{
    switch (status) {
    case PP_SUCCESS: return "success";
    case PP_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case PP_ERROR_UNSUPPORTED: return "unsupported";
    case PP_ERROR_OUT_OF_MEMORY: return "out of memory";
    case PP_ERROR_BACKEND_UNAVAILABLE: return "backend unavailable";
    case PP_ERROR_BACKEND: return "backend error";
    case PP_ERROR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

size_t pp_type_size(pp_type type)
{
    switch (type) {
#define X(E, T, S, K, U, W) case E: return sizeof(T);
        PP_FOR_EACH_TYPE(X)
#undef X
#define X(E, S) case E: return 2;
        PP_FOR_EACH_HALF(X)
#undef X
    }
    return 0;
}

int pp_type_kind(pp_type type)
{
    switch (type) {
#define X(E, T, S, K, U, W) case E: return PP_KIND_##K;
        PP_FOR_EACH_TYPE(X)
#undef X
#define X(E, S) case E: return PP_KIND_FLOAT;
        PP_FOR_EACH_HALF(X)
#undef X
    }
    return -1;
}

const char *pp_type_name(pp_type type)
{
    switch (type) {
#define X(E, T, S, K, U, W) case E: return #S;
        PP_FOR_EACH_TYPE(X)
#undef X
#define X(E, S) case E: return #S;
        PP_FOR_EACH_HALF(X)
#undef X
    }
    return "?";
}

const char *pp_op_name(pp_op op)
{
    switch (op) {
#define X(E, S, I) case E: return #S;
        PP_FOR_EACH_OP(X)
#undef X
    }
    return "?";
}

const char *pp_backend_name(pp_backend backend)
{
    switch (backend) {
    case PP_BACKEND_AUTO: return "auto";
    case PP_BACKEND_CPU: return "cpu";
    case PP_BACKEND_CUDA: return "cuda";
    case PP_BACKEND_OPENCL: return "opencl";
    }
    return "?";
}

const char *pp_primitive_name(pp_primitive prim)
{
    switch (prim) {
    case PP_PRIM_REDUCE: return "reduce";
    case PP_PRIM_SCAN: return "scan";
    case PP_PRIM_HISTOGRAM: return "histogram";
    case PP_PRIM_SELECT: return "select";
    case PP_PRIM_SORT: return "sort";
    }
    return "?";
}

const char *pp_algorithm_name(pp_algorithm algo)
{
    switch (algo) {
    case PP_ALGO_AUTO: return "auto";
    case PP_ALGO_SEQUENTIAL: return "sequential";
    case PP_ALGO_DECOUPLED_LOOKBACK: return "decoupled-lookback";
    case PP_ALGO_REDUCE_THEN_SCAN: return "reduce-then-scan";
    case PP_ALGO_ONESWEEP: return "onesweep";
    case PP_ALGO_BLELLOCH: return "blelloch";
    case PP_ALGO_GLOBAL_ATOMIC: return "global-atomic";
    case PP_ALGO_PRIVATE_ATOMIC: return "private-atomic";
    case PP_ALGO_PRIVATE_REDUCE: return "private-reduce";
    case PP_ALGO_BLELLOCH_PADDED: return "blelloch-padded";
    case PP_ALGO_INTERLEAVED_DIVERGENT: return "interleaved-divergent";
    case PP_ALGO_INTERLEAVED_STRIDED: return "interleaved-strided";
    case PP_ALGO_SEQUENTIAL_ADDRESSING: return "sequential-addressing";
    case PP_ALGO_FIRST_ADD: return "first-add";
    case PP_ALGO_CASCADE: return "cascade";
    case PP_ALGO_LAUNCH_PER_STEP: return "launch-per-step";
    case PP_ALGO_WINDOWED: return "windowed";
    case PP_ALGO_WARP_SHUFFLE: return "warp-shuffle";
    case PP_ALGO_NAIVE: return "naive";
    case PP_ALGO_HILLIS_STEELE: return "hillis-steele-horn";
    case PP_ALGO_SCAN_SCATTER: return "scan-scatter";
    case PP_ALGO_BALLOT: return "ballot";
    case PP_ALGO_SPLIT_RADIX: return "split-radix";
    case PP_ALGO_COUNT_SCAN_SCATTER: return "count-scan-scatter";
    case PP_ALGO_EXACT: return "exact";
    }
    return "?";
}
