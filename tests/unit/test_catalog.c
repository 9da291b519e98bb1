#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

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

/* Device names as drivers report them, with the memory and SM count that pick the one GPU. */
static void test_device(void **state)
{
	char why[1024];
	const struct cat_gpu *g;
	(void)state;
	g = catalog_gpu_for_device(cat, "NVIDIA A100-PG509-200", 42297524224.0, 108, why, sizeof(why));
	assert_non_null(g);
	assert_string_equal(g->row.key, "a100-sxm4-40gb");
	g = catalog_gpu_for_device(cat, "NVIDIA A100-SXM4-80GB", 85051572224.0, 108, why, sizeof(why));
	assert_non_null(g);
	assert_string_equal(g->row.key, "a100-sxm4-80gb");
	g = catalog_gpu_for_device(cat, "Tesla V100-SXM2-16GB", 16945512448.0, 80, why, sizeof(why));
	assert_non_null(g);
	assert_string_equal(g->row.key, "v100-sxm2-16gb");
	g = catalog_gpu_for_device(cat, "AMD Instinct MI250X", 68702699520.0, 110, why, sizeof(why));
	assert_non_null(g);
	assert_string_equal(g->row.key, "mi250x-gcd-64gb");
	/* a name alone, no properties (the 2021 schema) */
	g = catalog_gpu_for_device(cat, "NVIDIA A100-PG509-200", NAN, NAN, why, sizeof(why));
	assert_non_null(g);
	/* "A100" matches several; 80 GiB and 108 SMs leave the SXM4 and PCIe 80 GB */
	assert_null(catalog_gpu_for_device(cat, "NVIDIA A100", 85051572224.0, 108, why, sizeof(why)));
	assert_non_null(strstr(why, "ambiguous gpu 'NVIDIA A100' (79.2 GiB, 108 SMs): it matches"));
	assert_non_null(strstr(why, "a100-sxm4-80gb"));
	assert_null(strstr(why, "a100-sxm4-40gb"));
	/* the name fits, the memory does not */
	assert_null(catalog_gpu_for_device(cat, "NVIDIA A100-SXM4-80GB", 42297524224.0, 108, why, sizeof(why)));
	assert_non_null(strstr(why, "its name matches, with other memory or SMs: a100-sxm4-80gb"));
	assert_non_null(strstr(why, "the same memory and SMs: a100-sxm4-40gb"));
	/* nothing of the name: the closest names */
	assert_null(catalog_gpu_for_device(cat, "Quux 9000", NAN, NAN, why, sizeof(why)));
	assert_non_null(strstr(why, "unknown gpu 'Quux 9000'; closest:"));
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
	assert_non_null(strstr(err.msg, "must be more than 0, got -5"));

	assert_int_equal(load(HDR "x,X,gpu,1,,5,1,,s,2024-01,Q\nx,Y,gpu,1,,5,1,,s,2024-01,Q\n", CAT_LINKS, &err),
			 -1);
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

/* Control characters in text: ESC, BEL, a tab or newline inside, DEL, C1 CSI; with line, column and field. */
static void test_control_characters(void **state)
{
	static const struct {
		const char *row, *field, *what;
		int col;
	} bad[] = {
		{"x,X\x1b[31mred,gpu,1,,10,1,,s,2024-01,Q\n", "name", "U+001B", 3},
		{"x,X,gpu,1,,10,1,,s\a,2024-01,Q\n", "source", "U+0007", 18},
		{"x,X,gpu,1,na\tme,10,1,,s,2024-01,Q\n", "aliases", "U+0009", 11},
		{"x,\"two\nlines\",gpu,1,,10,1,,s,2024-01,Q\n", "name", "U+000A", 3},
		{"x,X\x7f,gpu,1,,10,1,,s,2024-01,Q\n", "name", "U+007F", 3},
		{"x,X\xc2\x9b"
		 "31m,gpu,1,,10,1,,s,2024-01,Q\n",
		 "name", "U+009B", 3},
		{"x,X,gpu,1,,10,1,,s,2024-01,Q\r\x1b\n", "confidence", "U+000D", 28},
	};
	struct diag err;
	size_t i;
	char text[256];
	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), HDR "%s", bad[i].row);
		assert_int_equal(load(text, CAT_LINKS, &err), -1);
		assert_int_equal(err.line, 2);
		assert_string_equal(err.field, bad[i].field);
		assert_int_equal(err.col, bad[i].col);
		assert_non_null(strstr(err.msg, bad[i].what));
	}
	/* printable UTF-8 beyond C1, and blanks around a value, are fine */
	assert_int_equal(load(HDR "x,X \xc2\xa0\xc3\xa9,gpu,1,,10,1,,\ts ,2024-01,Q\n", CAT_LINKS, &err), 1);
}

static void test_override_and_refs(void **state)
{
	struct catalog *c;
	struct diag err;
	const char *gpus = "key,name,memory_gib,source,as_of\nmy-gpu,My GPU,96,lab,2026-01\n";
	const char *servers =
		"key,name,gpu,gpu_count,source,as_of\nbox,Box,my-gpu,4,lab,2026-01\nbad,Bad,nope-gpu,4,lab,2026-01\n";
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
		assert_string_equal(((const struct cat_gpu *)catalog_get(c, CAT_GPUS, "a100-sxm4-80gb"))->row.name,
				    "A100 lab");
	}
	catalog_free(c);
}

/* Values that passed a ">= 0" check and then printed $0.00, inf or nan, or overflowed. */
static void test_ranges(void **state)
{
	static const char *gpu_hdr = "key,name,memory_gib,price_usd,source,as_of\n";
	static const char *srv_hdr = "key,name,gpu,gpu_count,source,as_of\n";
	static const struct {
		enum cat_table t;
		const char *row, *field, *why;
	} bad[] = {
		{CAT_GPUS, "g,G,80,0,s,2024-01\n", "price_usd", "more than 0"},
		{CAT_GPUS, "g,G,1e308,100,s,2024-01\n", "memory_gib", "at most"},
		{CAT_GPUS, "g,G,1e308 TiB,100,s,2024-01\n", "memory_gib", "finite"},
		{CAT_GPUS, "g,G,1e-320,100,s,2024-01\n", "memory_gib", "subnormal"},
		{CAT_GPUS, "g,G,0x50,100,s,2024-01\n", "memory_gib", "not a number"},
		{CAT_SERVERS, "b,B,a100-sxm4-80gb,0,s,2024-01\n", "gpu_count", "at least 1"},
		{CAT_SERVERS, "b,B,a100-sxm4-80gb,1e308,s,2024-01\n", "gpu_count", "at most"},
		{CAT_SERVERS, "b,B,a100-sxm4-80gb,2.5,s,2024-01\n", "gpu_count", "whole"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct catalog *c = catalog_new();
		struct diag err;
		char *text = xasprintf("%s%s", bad[i].t == CAT_GPUS ? gpu_hdr : srv_hdr, bad[i].row);
		assert_int_equal(catalog_load_buffer(c, bad[i].t, "user.csv", text, strlen(text), &err), -1);
		assert_string_equal(err.field, bad[i].field);
		if (!strstr(err.msg, bad[i].why))
			fail_msg("%s: '%s' lacks '%s'", bad[i].row, err.msg, bad[i].why);
		free(text);
		catalog_free(c);
	}
}

/* A fleet catalog: keys looked up by hash, duplicates still caught. */
static void test_many_rows(void **state)
{
	struct catalog *c = catalog_new();
	struct diag err;
	size_t n = 20000, i, len = 0, cap = 0;
	char *text = NULL, line[128], key[32];
	(void)state;
	for (i = 0; i <= n; i++) {
		int l = i ? snprintf(line, sizeof(line), "g-%zu,G %zu,80,s,2024-01\n", i, i) :
			    snprintf(line, sizeof(line), "key,name,memory_gib,source,as_of\n");
		XGROW(text, cap, len + (size_t)l + 1);
		memcpy(text + len, line, (size_t)l + 1);
		len += (size_t)l;
	}
	assert_int_equal(catalog_load_buffer(c, CAT_GPUS, "fleet.csv", text, len, &err), (int)n);
	for (i = 1; i <= n; i += 997) {
		snprintf(key, sizeof(key), "g-%zu", i);
		assert_non_null(catalog_get(c, CAT_GPUS, key));
	}
	assert_null(catalog_get(c, CAT_GPUS, "g-0"));
	/* a second file replaces by key; a key twice in one file is an error */
	snprintf(line, sizeof(line), "key,name,memory_gib,source,as_of\ng-7,Seven,96,s,2024-01\n");
	assert_int_equal(catalog_load_buffer(c, CAT_GPUS, "b.csv", line, strlen(line), &err), 1);
	assert_true(((const struct cat_gpu *)catalog_get(c, CAT_GPUS, "g-7"))->memory_gib == 96);
	assert_int_equal(catalog_count(c, CAT_GPUS), n);
	snprintf(line, sizeof(line), "key,name,memory_gib,source,as_of\ng-9,A,1,s,2024-01\ng-9,B,1,s,2024-01\n");
	assert_int_equal(catalog_load_buffer(c, CAT_GPUS, "c.csv", line, strlen(line), &err), -1);
	assert_non_null(strstr(err.msg, "duplicate key 'g-9'"));
	free(text);
	catalog_free(c);
}

/* The lifecycle columns: their cells parse or fail at file:line:column, and read against a month. */
static void test_lifecycle(void **state)
{
	static const char hdr[] = "key,name,arch,end_of_sale,cuda_last,pytorch_last,source,as_of\n";
	static const struct {
		const char *row, *field, *says;
		int col;
	} bad[] = {
		{"g,G,volta,2024-13,12,2.14,s; lifecycle: n,2026-11", "end_of_sale", "'2024-13' is not YYYY-MM",
		 11},
		{"g,G,volta,Aug 2024,12,2.14,s; lifecycle: n,2026-11", "end_of_sale", "'Aug 2024' is not YYYY-MM",
		 11},
		{"g,G,volta,2024-08,12.5,2.14,s; lifecycle: n,2026-11", "cuda_last", "whole", 19},
		{"g,G,volta,2024-08,0,2.14,s; lifecycle: n,2026-11", "cuda_last", "0", 19},
		{"g,G,volta,2024-08,12,2.x,s; lifecycle: n,2026-11", "pytorch_last", "release '2.x'", 22},
		{"g,G,volta,2024-08,12,2..14,s; lifecycle: n,2026-11", "pytorch_last", "release '2..14'", 22},
	};
	struct catalog *c = catalog_new();
	struct diag err;
	struct strbuf sb = STRBUF_INIT;
	const struct cat_gpu *g;
	const struct cat_server *sv;
	char buf[512];
	size_t i;
	int aug24 = 2024 * 12 + 7, nov26 = 2026 * 12 + 10;
	(void)state;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct catalog *b = catalog_new();
		snprintf(buf, sizeof(buf), "%s%s\n", hdr, bad[i].row);
		diag_clear(&err);
		assert_int_equal(catalog_load_buffer(b, CAT_GPUS, "t.csv", buf, strlen(buf), &err), -1);
		assert_string_equal(err.file, "t.csv");
		assert_int_equal(err.line, 2);
		assert_int_equal(err.col, bad[i].col);
		assert_string_equal(err.field, bad[i].field);
		if (!strstr(err.msg, bad[i].says))
			fail_msg("row %zu: '%s' lacks '%s'", i, err.msg, bad[i].says);
		catalog_free(b);
	}

	snprintf(buf, sizeof(buf),
		 "%sold,Old,volta,2024-08,12,2.14,spec sheet; lifecycle: notice 2025-08,2026-11\n"
		 "new,New,hopper,,,,spec sheet,2026-11\n",
		 hdr);
	diag_clear(&err);
	assert_int_equal(catalog_load_buffer(c, CAT_GPUS, "t.csv", buf, strlen(buf), &err), 2);
	assert_int_equal(catalog_validate(c, &err), 0);
	g = catalog_get(c, CAT_GPUS, "old");
	assert_string_equal(g->end_of_sale, "2024-08");
	assert_true(g->cuda_last == 12);
	assert_string_equal(g->pytorch_last, "2.14");
	assert_string_equal(cat_life_source(&g->row), "notice 2025-08");
	/* the end of sale counts from its month on; before it, it is announced */
	assert_int_equal(cat_gpu_life(g, aug24), CAT_LIFE_END_OF_SALE | CAT_LIFE_UNSUPPORTED);
	assert_int_equal(cat_gpu_life(g, aug24 - 1), CAT_LIFE_UNSUPPORTED);
	cat_gpu_life_text(g, aug24 - 1, &sb);
	assert_string_equal(strbuf_str(&sb),
			    "end of sale 2024-08 (announced); volta: CUDA 12 and PyTorch 2.14 were "
			    "the last releases to support it");
	g = catalog_get(c, CAT_GPUS, "new");
	assert_int_equal(cat_gpu_life(g, nov26), 0);
	assert_null(g->end_of_sale);
	assert_true(isnan(g->cuda_last));
	assert_null(cat_life_source(&g->row));

	/* a lifecycle cell without its source is refused, naming the row */
	snprintf(buf, sizeof(buf), "%snosrc,X,volta,2024-08,,,spec sheet,2026-11\n", hdr);
	assert_int_equal(catalog_load_buffer(c, CAT_GPUS, "u.csv", buf, strlen(buf), &err), 1);
	assert_int_equal(catalog_validate(c, &err), -1);
	assert_string_equal(err.file, "u.csv");
	assert_int_equal(err.line, 2);
	assert_string_equal(err.field, "source");
	assert_non_null(strstr(err.msg, "lifecycle:"));
	catalog_free(c);

	assert_int_equal(cat_month_parse("2024-08"), 24295);
	assert_int_equal(cat_month_parse("2024-08-22"), 24295);
	assert_int_equal(cat_month_parse("2024-8"), -1);
	assert_int_equal(cat_month_parse(NULL), -1);

	/* the shipped catalog: Volta dropped, B100 and DGX A100 past their end of sale, H100 current */
	assert_int_equal(cat_gpu_life(catalog_get(cat, CAT_GPUS, "v100-sxm2-16gb"), nov26), CAT_LIFE_UNSUPPORTED);
	assert_int_equal(cat_gpu_life(catalog_get(cat, CAT_GPUS, "b100-sxm-192gb"), nov26), CAT_LIFE_END_OF_SALE);
	assert_int_equal(cat_gpu_life(catalog_get(cat, CAT_GPUS, "a40-48gb"), nov26), CAT_LIFE_END_OF_SALE);
	assert_int_equal(cat_gpu_life(catalog_get(cat, CAT_GPUS, "h100-sxm5-80gb"), nov26), 0);
	assert_int_equal(cat_gpu_life(catalog_get(cat, CAT_GPUS, "t4-16gb"), nov26), 0);
	sv = catalog_get(cat, CAT_SERVERS, "lenovo-sr670");
	assert_int_equal(cat_server_life(cat, sv, nov26), CAT_LIFE_UNSUPPORTED);
	sv = catalog_get(cat, CAT_SERVERS, "dgx-a100-320gb");
	assert_int_equal(cat_server_life(cat, sv, nov26), CAT_LIFE_END_OF_SALE);
	/* its price is from 2020-05: stale once over 36 months old, at 2023-06, not yet at 2023-05 */
	assert_true(cat_price_stale(&sv->row, sv->price_usd, nov26));
	assert_true(cat_price_stale(&sv->row, sv->price_usd, 2023 * 12 + 5));
	assert_false(cat_price_stale(&sv->row, sv->price_usd, 2023 * 12 + 4));
	assert_false(cat_price_stale(&sv->row, NAN, nov26));
	sv = catalog_get(cat, CAT_SERVERS, "dgx-h100");
	assert_int_equal(cat_server_life(cat, sv, nov26), 0);
	assert_false(cat_price_stale(&sv->row, sv->price_usd, nov26));
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_every_row_has_source_and_date),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_device),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_override_and_refs),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_many_rows),
		cmocka_unit_test(test_lifecycle),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
