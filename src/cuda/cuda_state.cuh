// The cuda backend's host state: the context's state (pp_cuda_state,
// pp_cuda), its scratch memory and look-back arena, and the mapping of CUDA
// errors to parprim's. Implemented in cuda_backend.cu. The device-side
// building blocks are in device/ (one level per file).
#ifndef PP_CUDA_STATE_CUH
#define PP_CUDA_STATE_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "cuda_entry.h"

// One cached graph of a single kernel node (pp_cuda_launch).
enum { PP_CUDA_GRAPHS = 16 };
struct pp_cuda_graph_slot {
    const void *func; // the kernel (NULL: free slot)
    cudaGraph_t graph;
    cudaGraphNode_t node;
    cudaGraphExec_t exec;
    unsigned long long used; // pp_cuda_state.graph_clock at its last launch
};

struct pp_cuda_state {
    int device;
    int sm_count;
    size_t smem_optin;        // largest dynamic shared memory a block may ask for
    cudaStream_t own_stream;  // created with the context
    cudaStream_t stream;      // where work is queued (own_stream or the user's)
    void *scratch;            // general working memory, grown on demand
    size_t scratch_bytes;
    void *held;               // a second buffer for calls that run a primitive on
    size_t held_bytes;        // buffers of their own (argsort), never the scratch
    // Look-back arena: flag words only, never anything else, so that a flag
    // from an earlier call can never be mistaken for one of this call.
    uint32_t *flags;
    size_t flag_words;
    uint32_t epoch;           // flags of this launch are (epoch << 2) | state
    unsigned long long *ticket; // monotonically increasing tile ticket (device)
    unsigned long long ticket_base; // tickets handed out so far (host's count)
    int queued;               // a primitive was queued on `stream` since it was last waited for
    pp_cuda_graph_slot graphs[PP_CUDA_GRAPHS];
    unsigned long long graph_clock;
    void *op_cache;           // the user operators' modules (cuda_operator.cu)
};

static inline pp_cuda_state *pp_cuda(pp_context *ctx) { return (pp_cuda_state *)ctx->impl; }

// Blocks that fill the GPU with per_sm resident blocks on each SM.
static inline size_t pp_cuda_resident(const pp_cuda_state *s, size_t per_sm)
{
    return (size_t)(s->sm_count > 0 ? s->sm_count : 1) * per_sm;
}

// Maps a CUDA error to PP_ERROR_BACKEND (or OUT_OF_MEMORY) with a message.
pp_status pp_cuda_error(pp_context *ctx, cudaError_t err, const char *fn, const char *what);

// Returns a launch's error e as parprim's; PP_CUDA_LAUNCHED: the error of
// the <<<>>> launch just made.
#define PP_CUDA_CHECK_LAUNCH(ctx, fn, e)                                            \
    do {                                                                           \
        cudaError_t e2_ = (e);                                                     \
        if (e2_ != cudaSuccess) return pp_cuda_error((ctx), e2_, (fn), "kernel launch"); \
    } while (0)
#define PP_CUDA_LAUNCHED(ctx, fn) PP_CUDA_CHECK_LAUNCH((ctx), (fn), cudaGetLastError())

#define PP_CUDA_TRY(ctx, call, fn)                                                 \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) return pp_cuda_error((ctx), e_, (fn), #call);       \
    } while (0)

// Working memory of at least bytes on the device, owned by the context and
// reused by later calls (reallocated only when it must grow). NULL with
// PP_ERROR_OUT_OF_MEMORY set on ctx on failure.
void *pp_cuda_scratch(pp_context *ctx, size_t bytes, const char *fn);

// Like pp_cuda_scratch, a second context-owned buffer (state.held) for a
// call that keeps data in it while it runs another primitive, which takes
// the scratch for itself (pp_argsort: the sorted keys and the index
// sequence around the sort).
void *pp_cuda_held(pp_context *ctx, size_t bytes, const char *fn);

// The look-back arena for `tiles` tiles: PP_CUDA_LB_STRIDE 64-bit words
// (a line) per tile (see device/lookback.cuh); sets *epoch to the tag for this launch
// and *ticket_base to the first ticket number of this launch (the launch
// must take exactly `tiles` tickets). NULL on failure (message set).
enum { PP_CUDA_LB_STRIDE = 16 };
uint32_t *pp_cuda_lookback(pp_context *ctx, size_t tiles, uint32_t *epoch,
                           unsigned long long *ticket_base, const char *fn);

// Zeroes bytes of device memory at p, queued on the context's stream.
pp_status pp_cuda_zero(pp_context *ctx, void *p, size_t bytes, const char *fn);

// PP_CUDA_LAUNCHED for a launch that was to take tickets (of
// pp_cuda_lookback, or of ticket_base directly): given the launch's error
// (by default cudaGetLastError()), on an error waits for the stream's
// earlier work and re-reads the device's ticket count, so that later
// launches number their tiles right, then returns the error.
pp_status pp_cuda_launched_tickets(pp_context *ctx, const char *fn, cudaError_t e = cudaGetLastError());

// Queues kernel<<<grid, block, smem>>>(args...) on the context's stream
// through the context's cached graph of that kernel (its parameters
// updated): the same stream order and result as the <<<>>> launch, at
// less host time per call. Returns the launch's error.
cudaError_t pp_cuda_launch_node(pp_context *ctx, const void *func, dim3 grid, dim3 block, size_t smem, void **args);
template <typename T> struct pp_cuda_same_type {
    typedef T type;
};
template <typename... P>
cudaError_t pp_cuda_launch(pp_context *ctx, void (*kernel)(P...), dim3 grid, dim3 block, size_t smem,
                           typename pp_cuda_same_type<P>::type... args)
{
    void *p[sizeof...(P) > 0 ? sizeof...(P) : 1] = {(void *)&args...};
    return pp_cuda_launch_node(ctx, (const void *)kernel, grid, block, smem, p);
}

#endif
