/*
 * parprim_mpi over NCCL: the same pp_dist calls (parprim_mpi.h), with every
 * byte between GPUs moved by NCCL. Built into parprim_mpi where nccl.h and
 * libnccl are found with the cuda backend (PP_WITH_NCCL=AUTO); the macro
 * PP_DIST_HAVE_NCCL tells a program linked to it.
 *
 * Engine: the exchange of a distributed sort is one group of ncclSend /
 * ncclRecv (NCCL's all-to-all has one fixed count); histograms are summed
 * by ncclAllReduce in place on the device; the per-rank totals of reduce
 * and scan, and the agreements, go through ncclAllGather and are combined
 * in rank order on every rank (NCCL's own reduction order changes with its
 * ring/tree choice, so float totals are never reduced by NCCL).
 * Streams: NCCL runs on a stream of the pp_dist's own; parprim's public API
 * does not tell the context's stream, so the engine waits for the context
 * (pp_synchronize) before NCCL reads its memory and for its stream before
 * the context goes on (docs/distributed.md: what a stream query would
 * save).
 */
#ifndef PARPRIM_NCCL_H
#define PARPRIM_NCCL_H

#include <nccl.h>

#include "parprim_mpi.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Creates a pp_dist whose ranks are comm's (an initialized communicator,
 *  one rank per GPU; not duplicated: it must outlive d, and the caller's
 *  own NCCL work on it must not interleave with d's calls). ctx must be a
 *  cuda context of the communicator's device (ncclCommCuDevice); a cpu or
 *  opencl context is PP_ERROR_INVALID_ARGUMENT on every rank. Collective
 *  over comm. pp_dist_destroy leaves comm alone. */
PP_DIST_API pp_status pp_dist_create_nccl(pp_dist **d, pp_context *ctx, ncclComm_t comm);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PARPRIM_NCCL_H */
