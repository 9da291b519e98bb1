/*
 * What the fake libcuda.so.1 shares with the fake cuBLASLt and NCCL built
 * beside it (they link against it, as the real ones need the driver): the
 * scenario's numbers and the virtual clock of each stream.
 */
#ifndef FAKE_CUDA_FAKE_H
#define FAKE_CUDA_FAKE_H

#include "bench/cuda_abi.h"

#define FAKE_API __attribute__((visibility("default")))

/* A number of the scenario ($FAKE_CUDA_SCENARIO), or def when it is not given. */
FAKE_API double fakecuda_num(const char *key, double def);
/* Moves the stream's virtual clock on by seconds; the null stream is the current device's. */
FAKE_API void fakecuda_advance(CUstream s, double seconds);
/* The stream's clock, s. */
FAKE_API double fakecuda_now(CUstream s);
/* Sets the stream's clock (a collective ends on every stream at once). */
FAKE_API void fakecuda_set(CUstream s, double t_s);

#endif
