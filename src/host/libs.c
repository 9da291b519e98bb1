/*
 * The CUDA stack as a process on this host would load it: libcuda,
 * libcudart, libcudnn and libnccl through dlopen() (so LD_LIBRARY_PATH,
 * the ld.so cache and RUNPATHs all count, as they do for the application),
 * and PyTorch through a Python interpreter.
 */
#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host.h"
#include "util/libsearch.h"
#include "util/xalloc.h"

/*
 * major * base + minor * 100 + patch, where base is 10000 from `wide_from` up
 * and 1000 below it (the two encodings cuDNN and NCCL have used).
 */
static int decode_version(long v, long wide_from, int *major, int *minor, int *patch)
{
	long base = v >= wide_from ? 10000 : 1000;
	*major = *minor = *patch = 0;
	if (v <= 0)
		return -1;
	*major = (int)(v / base);
	*minor = (int)(v % base / 100);
	*patch = (int)(v % 100);
	return 0;
}

int host_cudnn_decode(long v, int *major, int *minor, int *patch)
{
	/* cuDNN 9: CUDNN_VERSION = major*10000 + minor*100 + patch; cuDNN 8 and before: major*1000 + ... */
	return decode_version(v, 90000, major, minor, patch);
}

int host_nccl_decode(long v, int *major, int *minor, int *patch)
{
	/* NCCL_VERSION(X,Y,Z) = (X <= 2 && Y <= 8) ? X*1000+Y*100+Z : X*10000+Y*100+Z */
	return decode_version(v, 10000, major, minor, patch);
}

/* The loader's search only (check reports what a process would load), or dirs alone. */
static void *open_first(struct host_lib *l, const char *dirs, const char *const *names)
{
	size_t which = 0;
	char *opened;
	void *h = libsearch_open(dirs, names, LIBSEARCH_LOADER, &which, &opened);
	if (h) {
		struct link_map *lm = NULL;
		snprintf(l->soname, sizeof(l->soname), "%s", names[which]);
		if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name) {
			/* the file behind the soname link names the full version */
			char *real = realpath(lm->l_name, NULL);
			l->path = xstrdup(real ? real : lm->l_name);
			free(real);
		}
		free(opened);
	} else {
		l->error = xasprintf("not found%s%s (%s)", dirs ? " in " : "", dirs ? dirs : "", names[0]);
	}
	return h;
}

static void *sym(void *h, const char *name)
{
	return dlsym(h, name);
}

/*
 * Calls the library's `int NAME(int *version)` into l->raw: 0, or -1 with
 * l->error set.  `status` names the library's result type for the message.
 */
static int int_version(void *h, const char *name, const char *status, struct host_lib *l)
{
	int (*fn)(int *);
	void *f = sym(h, name);
	int v = 0, rc;
	memcpy(&fn, &f, sizeof(fn));
	if (!fn) {
		l->error = xasprintf("lacks %s", name);
		return -1;
	}
	rc = fn(&v);
	if (rc) {
		l->error = xasprintf("%s failed (%s %d)", name, status, rc);
		return -1;
	}
	l->raw = v;
	return 0;
}

void host_libs_release(struct host_lib libs[HOST_LIB_N])
{
	int k;
	for (k = 0; k < HOST_LIB_N; k++) {
		free(libs[k].path);
		free(libs[k].error);
		libs[k].path = libs[k].error = NULL;
	}
}

void host_probe_libs(const char *dirs, struct host_lib out[HOST_LIB_N])
{
	static const char *const cuda[] = {"libcuda.so.1", "libcuda.so", NULL};
	static const char *const cudart[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0",
					     "libcudart.so", NULL};
	static const char *const cudnn[] = {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so", NULL};
	static const char *const nccl[] = {"libnccl.so.2", "libnccl.so", NULL};
	static const char *const names[HOST_LIB_N] = {"libcuda", "libcudart", "libcudnn", "libnccl"};
	int k;

	for (k = 0; k < HOST_LIB_N; k++) {
		struct host_lib *l = &out[k];
		void *h, *f;
		memset(l, 0, sizeof(*l));
		l->kind = (enum host_lib_kind)k;
		l->name = names[k];
		h = open_first(l, dirs,
			       k == HOST_LIB_CUDA   ? cuda :
			       k == HOST_LIB_CUDART ? cudart :
			       k == HOST_LIB_CUDNN  ? cudnn :
						      nccl);
		if (!h)
			continue;
		l->found = 1;
		switch (k) {
		case HOST_LIB_CUDA:
		case HOST_LIB_CUDART:
			if (k == HOST_LIB_CUDA ? int_version(h, "cuDriverGetVersion", "CUresult", l) :
						 int_version(h, "cudaRuntimeGetVersion", "cudaError", l))
				break;
			/* 1000*major + 10*minor */
			l->major = l->raw / 1000;
			l->minor = l->raw % 1000 / 10;
			break;
		case HOST_LIB_CUDNN: {
			size_t (*fn)(void);
			size_t v;
			f = sym(h, "cudnnGetVersion");
			memcpy(&fn, &f, sizeof(fn));
			if (!fn) {
				l->error = xstrdup("lacks cudnnGetVersion");
				break;
			}
			v = fn();
			if (!v || v > 10000000) {
				l->error = xasprintf("cudnnGetVersion returned %zu", v);
				break;
			}
			l->raw = (int)v;
			host_cudnn_decode((long)v, &l->major, &l->minor, &l->patch);
			break;
		}
		default:
			if (int_version(h, "ncclGetVersion", "ncclResult", l))
				break;
			host_nccl_decode(l->raw, &l->major, &l->minor, &l->patch);
			break;
		}
		dlclose(h);
	}
}

/* ---- PyTorch ---- */

/* Prints one JSON line; every field is optional and read defensively. */
static const char torch_script[] =
	"import json, sys\n"
	"r = {'python': sys.version.split()[0]}\n"
	"try:\n"
	"    import torch\n"
	"    r['torch'] = torch.__version__\n"
	"    r['cuda'] = torch.version.cuda or ''\n"
	"    try:\n"
	"        r['cudnn'] = torch.backends.cudnn.version() or 0\n"
	"    except Exception:\n"
	"        r['cudnn'] = 0\n"
	"    r['cuda_available'] = bool(torch.cuda.is_available())\n"
	"    r['device_count'] = torch.cuda.device_count() if r['cuda_available'] else 0\n"
	"    try:\n"
	"        r['arch_list'] = ' '.join(torch.cuda.get_arch_list())\n"
	"    except Exception:\n"
	"        r['arch_list'] = ''\n"
	"    try:\n"
	"        r['nccl'] = '.'.join(str(x) for x in torch.cuda.nccl.version())\n"
	"    except Exception:\n"
	"        r['nccl'] = ''\n"
	"except Exception as e:\n"
	"    r['error'] = '%s: %s' % (type(e).__name__, e)\n"
	"print(json.dumps(r))\n";

static void jstr(json_t *o, const char *key, char *out, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));
	if (s)
		snprintf(out, len, "%s", s);
}

/* Replaces the owned text *dst with a new one (a message, whole). */
static void set_text(char **dst, char *text)
{
	free(*dst);
	*dst = text;
}

int host_parse_torch(const char *text, struct host_torch *out)
{
	json_error_t je;
	json_t *o;
	const char *line = text;
	/* the JSON is the last line that starts with '{' (imports may print) */
	const char *p = text;
	while (p && *p) {
		if (*p == '{')
			line = p;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	o = json_loadb(line, strcspn(line, "\n"), 0, &je);
	if (!o || !json_is_object(o)) {
		json_decref(o);
		set_text(&out->error, xstrdup("unexpected output from the PyTorch probe"));
		return -1;
	}
	out->python_found = 1;
	if (json_object_get(o, "torch")) {
		out->torch_found = 1;
		jstr(o, "torch", out->version, sizeof(out->version));
		jstr(o, "cuda", out->cuda, sizeof(out->cuda));
		jstr(o, "arch_list", out->arch_list, sizeof(out->arch_list));
		jstr(o, "nccl", out->nccl, sizeof(out->nccl));
		out->cudnn = (int)json_integer_value(json_object_get(o, "cudnn"));
		out->cuda_available = json_is_true(json_object_get(o, "cuda_available"));
		out->device_count = (int)json_integer_value(json_object_get(o, "device_count"));
	}
	if (json_string_value(json_object_get(o, "error")))
		set_text(&out->error, xstrdup(json_string_value(json_object_get(o, "error"))));
	json_decref(o);
	return 0;
}

int host_probe_torch(const char *python, unsigned timeout_ms, struct host_torch *out)
{
	const char *argv[] = {python, "-c", torch_script, NULL};
	struct host_child c;

	memset(out, 0, sizeof(*out));
	out->python = xstrdup(python);
	if (host_run(argv, timeout_ms, 0, &c)) {
		set_text(&out->error, xasprintf("cannot start '%s': %s", python, strerror(errno)));
		return -1;
	}
	if (c.timed_out) {
		host_child_release(&c);
		out->python_found = 1;
		set_text(&out->error, xasprintf("'%s' did not answer within %u ms", python, timeout_ms));
		return 0;
	}
	if (host_child_exited(&c, 127) && c.len == 0) {
		host_child_release(&c);
		set_text(&out->error, xasprintf("'%s' not found", python));
		return -1;
	}
	out->python_found = 1;
	if (!c.out)
		set_text(&out->error, xasprintf("'%s' printed nothing", python));
	else
		host_parse_torch(c.out, out);
	host_child_release(&c);
	return 0;
}

void host_torch_release(struct host_torch *t)
{
	free(t->python);
	free(t->error);
	memset(t, 0, sizeof(*t));
}
