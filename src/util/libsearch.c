/*
 * The shared-library search (util/libsearch.h).  The PyTorch globs are
 * expanded per root, in order, so a virtualenv's copy wins over the
 * system's as it would inside that virtualenv.
 */
#include <dlfcn.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "util/libsearch.h"
#include "util/xalloc.h"

/* The variable's value, or NULL when it is unset or empty. */
static const char *env_set(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

static void *open_in(const char *dir, size_t dir_len, const char *name, char **path)
{
	char *p = xasprintf("%.*s/%s", (int)dir_len, dir, name);
	void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
	if (h)
		*path = p;
	else
		free(p);
	return h;
}

/* Each directory of a ':'-separated list in turn. */
static void *open_in_list(const char *dirs, const char *name, char **path)
{
	void *h = NULL;
	while (*dirs && !h) {
		size_t n = strcspn(dirs, ":");
		if (n)
			h = open_in(dirs, n, name, path);
		dirs += n + (dirs[n] == ':');
	}
	return h;
}

static void *open_pytorch(const char *name, char **path)
{
	static const char *const tails[] = {"lib/python3*/site-packages/nvidia/*/lib",
					    "lib/python3*/dist-packages/nvidia/*/lib",
					    "lib/python3*/site-packages/torch/lib",
					    "lib/python3*/dist-packages/torch/lib", NULL};
	const char *roots[5], *v;
	char *home = NULL;
	void *h = NULL;
	size_t nr = 0, r, t, i;
	if ((v = env_set("VIRTUAL_ENV")))
		roots[nr++] = v;
	if ((v = env_set("CONDA_PREFIX")))
		roots[nr++] = v;
	if ((v = env_set("HOME")))
		roots[nr++] = home = xasprintf("%s/.local", v);
	roots[nr++] = "/usr/local";
	roots[nr++] = "/usr";
	for (r = 0; r < nr && !h; r++)
		for (t = 0; tails[t] && !h; t++) {
			glob_t g;
			char *pat = xasprintf("%s/%s", roots[r], tails[t]);
			if (glob(pat, 0, NULL, &g) == 0) {
				for (i = 0; i < g.gl_pathc && !h; i++)
					h = open_in(g.gl_pathv[i], strlen(g.gl_pathv[i]), name, path);
				globfree(&g);
			}
			free(pat);
		}
	free(home);
	return h;
}

static void *open_one(const char *dirs, const char *name, unsigned where, char **path)
{
	const char *cuda_home;
	void *h = NULL;
	if (dirs)
		return open_in_list(dirs, name, path);
	if ((where & LIBSEARCH_LOADER) && (h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
		*path = xstrdup(name);
		return h;
	}
	if (where & LIBSEARCH_CUDA) {
		if ((cuda_home = env_set("CUDA_HOME"))) {
			char *lib = xasprintf("%s/lib64", cuda_home);
			h = open_in(lib, strlen(lib), name, path);
			free(lib);
		}
		if (!h)
			h = open_in_list("/usr/local/cuda/lib64", name, path);
	}
	if (!h && (where & LIBSEARCH_PYTORCH))
		h = open_pytorch(name, path);
	return h;
}

void *libsearch_open(const char *dirs, const char *const *names, unsigned where, size_t *which, char **path)
{
	void *h = NULL;
	size_t i;
	*path = NULL;
	for (i = 0; names[i] && !h; i++)
		if ((h = open_one(dirs, names[i], where, path)) && which)
			*which = i;
	return h;
}
