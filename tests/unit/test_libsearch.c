/*
 * The shared-library search (util/libsearch.h) over a tree built here: a
 * given directory list alone, the CUDA toolkit, a PyTorch install's wheel
 * and torch/lib copies, the virtualenv before conda, sonames newest first.
 * The library copied about is the fake CUDA driver the tests build (it
 * needs nothing but libc), under a name no system has.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/libsearch.h"
#include "util/xalloc.h"

static char root[] = "/tmp/gs-libsearch-XXXXXX";

static void mkdirs(const char *path)
{
	char *p = xstrdup(path), *s;
	for (s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
	free(p);
}

/* The fake driver copied to root/DIR/NAME. */
static void place(const char *dir, const char *name)
{
	const char *build = getenv("BUILDDIR");
	char *from = xasprintf("%s/fake-cuda/libcuda.so.1", build ? build : ".");
	char *d = xasprintf("%s/%s", root, dir), *to = xasprintf("%s/%s", d, name);
	char buf[65536];
	size_t n;
	FILE *in = fopen(from, "rb"), *out;
	if (!in)
		fail_msg("cannot open %s (BUILDDIR names the build tree)", from);
	mkdirs(d);
	out = fopen(to, "wb");
	assert_non_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
	free(from);
	free(d);
	free(to);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	place("a", "libgstest.so.7");
	place("b", "libgstest.so.8");
	place("cuda/lib64", "libgstest.so.7");
	place("venv/lib/python3.11/site-packages/nvidia/gstest/lib", "libgstest.so.7");
	place("conda/lib/python3.12/site-packages/torch/lib", "libgstest.so.7");
	place("conda/lib/python3.12/site-packages/torch/lib", "libgsconda.so.1");
	unsetenv("VIRTUAL_ENV");
	unsetenv("CONDA_PREFIX");
	unsetenv("CUDA_HOME");
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", root);
	(void)state;
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
	free(cmd);
	return 0;
}

static const char *const names[] = {"libgstest.so.8", "libgstest.so.7", NULL};

/* What the search opened, relative to root ("" none); which = the name's index. */
static char *found(const char *dirs, const char *const *list, unsigned where, size_t *which)
{
	char *path = NULL, *rel;
	void *h;
	*which = 99;
	h = libsearch_open(dirs, list, where, which, &path);
	if (!h) {
		assert_null(path);
		return xstrdup("");
	}
	assert_non_null(path);
	dlclose(h);
	rel = xstrdup(!strncmp(path, root, strlen(root)) ? path + strlen(root) + 1 : path);
	free(path);
	return rel;
}

static void expect(const char *dirs, const char *const *list, unsigned where, const char *want, size_t want_which)
{
	size_t which;
	char *got = found(dirs, list, where, &which);
	if (strcmp(got, want))
		fail_msg("dirs %s, where %u: opened '%s', wanted '%s'", dirs ? dirs : "(none)", where, got, want);
	if (*want)
		assert_int_equal(which, want_which);
	else
		assert_int_equal(which, 99);
	free(got);
}

static void test_dirs_alone_newest_first(void **state)
{
	char *ab = xasprintf("%s/none:%s/a::%s/b", root, root, root), *a = xasprintf("%s/a", root);
	(void)state;
	/* the newest soname of the list wins over the directory order */
	expect(ab, names, LIBSEARCH_ALL, "b/libgstest.so.8", 0);
	expect(a, names, LIBSEARCH_ALL, "a/libgstest.so.7", 1);
	/* given directories are the only ones: the virtualenv's copy is not looked at */
	setenv("VIRTUAL_ENV", root, 1);
	expect("", names, LIBSEARCH_ALL, "", 0);
	unsetenv("VIRTUAL_ENV");
	free(ab);
	free(a);
}

static void test_cuda_and_pytorch(void **state)
{
	const char *const v7[] = {"libgstest.so.7", NULL}, *const conda_only[] = {"libgsconda.so.1", NULL};
	char *venv = xasprintf("%s/venv", root), *conda = xasprintf("%s/conda", root);
	char *cuda = xasprintf("%s/cuda", root);
	(void)state;
	/* not on the loader's path: the loader alone finds nothing */
	setenv("VIRTUAL_ENV", venv, 1);
	setenv("CONDA_PREFIX", conda, 1);
	setenv("CUDA_HOME", cuda, 1);
	expect(NULL, v7, LIBSEARCH_LOADER, "", 0);
	/* the toolkit before a PyTorch install */
	expect(NULL, v7, LIBSEARCH_ALL, "cuda/lib64/libgstest.so.7", 0);
	/* the virtualenv's wheel before conda's torch/lib */
	expect(NULL, v7, LIBSEARCH_PYTORCH, "venv/lib/python3.11/site-packages/nvidia/gstest/lib/libgstest.so.7",
	       0);
	expect(NULL, conda_only, LIBSEARCH_PYTORCH, "conda/lib/python3.12/site-packages/torch/lib/libgsconda.so.1",
	       0);
	unsetenv("VIRTUAL_ENV");
	expect(NULL, v7, LIBSEARCH_PYTORCH, "conda/lib/python3.12/site-packages/torch/lib/libgstest.so.7", 0);
	unsetenv("CONDA_PREFIX");
	expect(NULL, v7, LIBSEARCH_PYTORCH, "", 0);
	unsetenv("CUDA_HOME");
	expect(NULL, v7, LIBSEARCH_CUDA, "", 0);
	free(venv);
	free(conda);
	free(cuda);
}

/* The loader by soname: a library every process has, given back as its soname. */
static void test_loader_by_soname(void **state)
{
	const char *const libc[] = {"libgs-no-such.so.1", "libc.so.6", NULL};
	(void)state;
	expect(NULL, libc, LIBSEARCH_LOADER, "libc.so.6", 1);
	expect(NULL, libc, LIBSEARCH_CUDA | LIBSEARCH_PYTORCH, "", 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dirs_alone_newest_first),
		cmocka_unit_test(test_cuda_and_pytorch),
		cmocka_unit_test(test_loader_by_soname),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
