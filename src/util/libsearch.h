/*
 * Finding a shared library the way a CUDA program on this host would: the
 * one search bench (the CUDA driver, cuBLASLt, NCCL) and check (the
 * driver, the runtime, cuDNN, NCCL) share, so both look in the same places
 * in the same order (docs/bench.md, "Libraries").
 */
#ifndef GPUSCOPE_UTIL_LIBSEARCH_H
#define GPUSCOPE_UTIL_LIBSEARCH_H

#include <stddef.h>

/* Where to look when no directories are given, in this order. */
enum libsearch_where {
	LIBSEARCH_LOADER = 0x1,  /* dlopen() by soname: LD_LIBRARY_PATH, the ld.so cache, the system's */
	LIBSEARCH_CUDA = 0x2,    /* the CUDA toolkit: $CUDA_HOME/lib64, /usr/local/cuda/lib64 */
	LIBSEARCH_PYTORCH = 0x4, /* a PyTorch install's copies, below $VIRTUAL_ENV, $CONDA_PREFIX,
				    ~/.local, /usr/local and /usr: lib/python3.N/{site,dist}-packages/
				    nvidia/WHEEL/lib (the nvidia-*-cu12 wheels), then .../torch/lib */
	LIBSEARCH_ALL = 0x7,
};

/*
 * dlopen()s (RTLD_NOW | RTLD_LOCAL) the first of names (NULL-ended, newest
 * soname first) that loads.  With dirs (a ':'-separated list; NULL for
 * none) only those directories are tried, by absolute path, and `where`
 * is ignored ("" tries nothing); otherwise the places `where` names, for each name in
 * turn.  Returns the handle (the caller dlclose()s it) with *which the
 * index of the name that loaded and *path what was given to dlopen():
 * the soname itself when the loader found it, else DIR/NAME (malloc()ed,
 * the caller frees it); NULL when nothing loaded (*path NULL, *which
 * untouched).  which may be NULL.
 */
void *libsearch_open(const char *dirs, const char *const *names, unsigned where, size_t *which, char **path);

#endif
