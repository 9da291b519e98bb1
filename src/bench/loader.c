/*
 * Finding and loading the CUDA driver, cuBLASLt and NCCL at run time.
 *
 * Order, for each library (docs/bench.md, "Libraries"; util/libsearch.h):
 *   1. $GPUSCOPE_BENCH_LIBS (or bench_opts.lib_dirs): those directories
 *      only, by absolute path; nothing else is tried (tests, or a pinned
 *      install);
 *   2. the dynamic loader by soname: LD_LIBRARY_PATH, the ld.so cache and
 *      the system directories, as for any CUDA program;
 *   3. the CUDA toolkit: $CUDA_HOME/lib64, /usr/local/cuda/lib64;
 *   4. the copies a PyTorch install carries: for $VIRTUAL_ENV, $CONDA_PREFIX,
 *      ~/.local, /usr/local and /usr: lib/python3.N/{site,dist}-packages/
 *      nvidia/WHEEL/lib (the nvidia-cublas-cu12, nvidia-nccl-cu12 ... wheels)
 *      and .../torch/lib.
 * The driver (libcuda.so.1) comes with the kernel module and is never in a
 * wheel, but it is looked for the same way.  Sonames newest first.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_int.h"
#include "util/libsearch.h"
#include "util/xalloc.h"

/* The variable's value, or NULL when it is unset or empty. */
static const char *env_set(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

static const char *const sonames[3][5] = {
	{"libcuda.so.1", NULL},
	{"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11", NULL},
	{"libnccl.so.2", NULL},
};
static const char *const labels[3] = {"CUDA driver (libcuda.so.1)", "cuBLASLt (libcublasLt.so)",
				      "NCCL (libnccl.so.2)"};

const char *bench_lib_label(int which)
{
	return labels[which];
}

static void *open_lib(const char *dirs, int which, char **path, char **why)
{
	void *h = libsearch_open(dirs, sonames[which], LIBSEARCH_ALL, NULL, path);
	if (!h)
		*why = dirs ? xasprintf("not found in %s", dirs) :
			      xasprintf("not found by the loader, in the CUDA toolkit or in a PyTorch install");
	return h;
}

/*
 * Resolves every entry point of a list into the table at `fns` (pointers in
 * list order); returns 0, or -1 with *why naming the first missing one.
 */
static int resolve(void *h, void (**fns)(void), const char *const *names, size_t n, char **why)
{
	size_t i;
	for (i = 0; i < n; i++) {
		void *f = dlsym(h, names[2 * i]);
		if (!f && names[2 * i + 1])
			f = dlsym(h, names[2 * i + 1]);
		if (!f) {
			*why = xasprintf("lacks %s", names[2 * i]);
			return -1;
		}
		memcpy(&fns[i], &f, sizeof(f));
	}
	return 0;
}

#define NAMES(ret, member, args, name, old) name, old,
#define COUNT(ret, member, args, name, old) +1
static const char *const cuda_names[] = {BENCH_CUDA_SYMBOLS(NAMES)};
static const char *const lt_names[] = {BENCH_CUBLASLT_SYMBOLS(NAMES)};
static const char *const nccl_names[] = {BENCH_NCCL_SYMBOLS(NAMES)};
_Static_assert(sizeof(struct bench_cuda_api) == (0 BENCH_CUDA_SYMBOLS(COUNT)) * sizeof(void (*)(void)),
	       "one pointer per CUDA symbol");
_Static_assert(sizeof(struct bench_cublaslt_api) == (0 BENCH_CUBLASLT_SYMBOLS(COUNT)) * sizeof(void (*)(void)),
	       "one pointer per cuBLASLt symbol");
_Static_assert(sizeof(struct bench_nccl_api) == (0 BENCH_NCCL_SYMBOLS(COUNT)) * sizeof(void (*)(void)),
	       "one pointer per NCCL symbol");

struct bench_libs *bench_libs_open(const char *dirs)
{
	struct bench_libs *l = xcalloc(1, sizeof(*l));
	void **hs[3] = {&l->cuda_h, &l->lt_h, &l->nccl_h};
	void *tables[3] = {&l->cu, &l->lt, &l->nccl};
	const char *const *names[3] = {cuda_names, lt_names, nccl_names};
	size_t counts[3] = {sizeof(cuda_names) / sizeof(cuda_names[0]) / 2,
			    sizeof(lt_names) / sizeof(lt_names[0]) / 2,
			    sizeof(nccl_names) / sizeof(nccl_names[0]) / 2};
	int k;
	if (!dirs)
		dirs = env_set("GPUSCOPE_BENCH_LIBS");
	/* the driver first: cuBLASLt and NCCL need it loaded */
	for (k = 0; k < 3; k++) {
		*hs[k] = open_lib(dirs, k, &l->path[k], &l->error[k]);
		if (*hs[k] && resolve(*hs[k], (void (**)(void))tables[k], names[k], counts[k], &l->error[k])) {
			dlclose(*hs[k]);
			*hs[k] = NULL;
		}
		if (!*hs[k]) {
			free(l->path[k]);
			l->path[k] = NULL;
		}
	}
	return l;
}

void bench_libs_close(struct bench_libs *l)
{
	int k;
	if (!l)
		return;
	/* NCCL and cuBLASLt before the driver they call */
	if (l->nccl_h)
		dlclose(l->nccl_h);
	if (l->lt_h)
		dlclose(l->lt_h);
	if (l->cuda_h)
		dlclose(l->cuda_h);
	for (k = 0; k < 3; k++) {
		free(l->path[k]);
		free(l->error[k]);
	}
	free(l);
}
