#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"

static struct catalog *cat;

static int setup(void **state)
{
	struct diag err;
	(void)state;
	return catalog_load(&cat, NULL, &err);
}

static int teardown(void **state)
{
	(void)state;
	catalog_free(cat);
	return 0;
}

static void test_sizes(void **state)
{
	(void)state;
	assert_true(catalog_count(cat, CAT_GPUS) >= 30);
	assert_true(catalog_count(cat, CAT_SERVERS) >= 15);
	assert_true(catalog_count(cat, CAT_CLOUDS) >= 20);
	assert_true(catalog_count(cat, CAT_LINKS) >= 15);
	assert_true(catalog_count(cat, CAT_CPUS) >= 5);
	assert_true(catalog_count(cat, CAT_FACILITY) >= 5);
}

static void test_every_row_has_source_and_date(void **state)
{
	int t;
	size_t i;
	(void)state;
	for (t = 0; t < CAT_NTABLES; t++)
		for (i = 0; i < catalog_count(cat, t); i++) {
			const struct cat_row *r = catalog_row(cat, t, i);
			assert_non_null(r->source);
			assert_non_null(r->as_of);
		}
}

static void test_resolve(void **state)
{
	char why[1024];
	const struct cat_gpu *g;
	(void)state;
	g = catalog_gpu(cat, "A100-SXM4-80GB", why, sizeof(why));
	assert_non_null(g);
	assert_string_equal(g->row.key, "a100-sxm4-80gb");
	g = catalog_gpu(cat, "NVIDIA A100-SXM4-80GB", why, sizeof(why));
	assert_non_null(g);
	assert_string_equal(g->row.key, "a100-sxm4-80gb");
	g = catalog_gpu(cat, "NVIDIA H200", why, sizeof(why));
	assert_non_null(g);
	assert_string_equal(g->row.key, "h200-sxm-141gb");
	assert_null(catalog_gpu(cat, "a100", why, sizeof(why)));
	assert_non_null(strstr(why, "ambiguous gpu 'a100'"));
	assert_non_null(strstr(why, "a100-sxm4-80gb"));
	assert_null(catalog_gpu(cat, "h1000-sxm", why, sizeof(why)));
	assert_non_null(strstr(why, "unknown gpu 'h1000-sxm'; closest:"));
	/* dense peaks: A100 bf16 312 TFLOP/s, absent fp8 is NaN not 0 */
	g = catalog_gpu(cat, "a100-sxm4-80gb", why, sizeof(why));
	assert_true(fabs(cat_gpu_peak_tflops(g, "bf16") - 312) < 0.5);
	assert_true(isnan(cat_gpu_peak_tflops(g, "fp8")));
}

static int load(const char *text, enum cat_table t, struct diag *err)
{
	struct catalog *c = catalog_new();
	int rc = catalog_load_buffer(c, t, "user/links.csv", text, strlen(text), err);
	catalog_free(c);
	return rc;
}

#define HDR "key,name,kind,generation,aliases,bw_gbps_per_dir,latency_us,lanes,source,as_of,confidence\n"

static void test_bad_files(void **state)
{
	struct diag err;
	char *big;
	size_t n;
	(void)state;
	assert_int_equal(load(HDR "x,X,gpu,1,,10,1,,s,2024-01,Q\n", CAT_LINKS, &err), 1);

	assert_int_equal(load(HDR "x,X,gpu,1,,10,1,,s,2024-01\n", CAT_LINKS, &err), -1);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.msg, "expected 11 fields"));

	assert_int_equal(load(HDR "x,X,gpu,1,,10 furlongs/s,1,,s,2024-01,Q\n", CAT_LINKS, &err), -1);
	assert_string_equal(err.field, "bw_gbps_per_dir");
	assert_int_equal(err.col, 12);
	assert_non_null(strstr(err.msg, "unknown unit"));

	assert_int_equal(load(HDR "x,X,gpu,1,,-5,1,,s,2024-01,Q\n", CAT_LINKS, &err), -1);
	assert_non_null(strstr(err.msg, "negative"));

	assert_int_equal(load(HDR "x,X,gpu,1,,5,1,,s,2024-01,Q\nx,Y,gpu,1,,5,1,,s,2024-01,Q\n", CAT_LINKS, &err), -1);
	assert_int_equal(err.line, 3);
	assert_non_null(strstr(err.msg, "duplicate key 'x' (first defined on line 2)"));

	assert_int_equal(load(HDR "x,X\xc3,gpu,1,,5,1,,s,2024-01,Q\n", CAT_LINKS, &err), -1);
	assert_non_null(strstr(err.msg, "UTF-8"));

	assert_int_equal(load("", CAT_LINKS, &err), -1);
	assert_non_null(strstr(err.msg, "empty file"));

	assert_int_equal(load("key,name,speed\n", CAT_LINKS, &err), -1);
	assert_string_equal(err.field, "speed");
	assert_non_null(strstr(err.msg, "unknown column"));

	assert_int_equal(load("key,name,as_of\nx,X,2024-01\n", CAT_LINKS, &err), -1);
	assert_string_equal(err.field, "source");

	assert_int_equal(load(HDR "X Y,X,gpu,1,,5,1,,s,2024-01,Q\n", CAT_LINKS, &err), -1);
	assert_string_equal(err.field, "key");

	assert_int_equal(load(HDR "x,X,gpu,1,,5,1,,s,2024-13,Q\n", CAT_LINKS, &err), -1);
	assert_string_equal(err.field, "as_of");

	assert_int_equal(load(HDR "x,X,gpu,1,,5,1,,s,2024-01,Z\n", CAT_LINKS, &err), -1);
	assert_string_equal(err.field, "confidence");

	/* a 10 MB line */
	n = 10u << 20;
	big = malloc(n + sizeof(HDR) + 1);
	strcpy(big, HDR);
	memset(big + strlen(HDR), 'x', n);
	big[strlen(HDR) + n] = '\0';
	assert_int_equal(load(big, CAT_LINKS, &err), -1);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.msg, "longer than"));
	free(big);
}

static void test_override_and_refs(void **state)
{
	struct catalog *c;
	struct diag err;
	const char *gpus = "key,name,memory_gib,source,as_of\nmy-gpu,My GPU,96,lab,2026-01\n";
	const char *servers = "key,name,gpu,gpu_count,source,as_of\nbox,Box,my-gpu,4,lab,2026-01\nbad,Bad,nope-gpu,4,lab,2026-01\n";
	char why[512];
	(void)state;
	assert_int_equal(catalog_load(&c, NULL, &err), 0);
	assert_int_equal(catalog_load_buffer(c, CAT_GPUS, "u/gpus.csv", gpus, strlen(gpus), &err), 1);
	assert_non_null(catalog_gpu(c, "My GPU", why, sizeof(why)));
	assert_int_equal(catalog_load_buffer(c, CAT_SERVERS, "u/servers.csv", servers, strlen(servers), &err), 2);
	assert_int_equal(catalog_validate(c, &err), -1);
	assert_string_equal(err.file, "u/servers.csv");
	assert_int_equal(err.line, 3);
	assert_string_equal(err.field, "gpu");
	assert_non_null(strstr(err.msg, "'nope-gpu' is not a key in gpus.csv"));
	catalog_free(c);
	/* replacing an embedded row by key keeps the count */
	assert_int_equal(catalog_load(&c, NULL, &err), 0);
	{
		size_t before = catalog_count(c, CAT_GPUS);
		const char *o = "key,name,memory_gib,source,as_of\na100-sxm4-80gb,A100 lab,80,lab,2026-01\n";
		assert_int_equal(catalog_load_buffer(c, CAT_GPUS, "u/gpus.csv", o, strlen(o), &err), 1);
		assert_int_equal(catalog_count(c, CAT_GPUS), before);
		assert_string_equal(((const struct cat_gpu *)catalog_get(c, CAT_GPUS, "a100-sxm4-80gb"))->row.name, "A100 lab");
	}
	catalog_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_every_row_has_source_and_date),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_override_and_refs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
