/*
 * The calibration file: what bench_calibration_write writes,
 * bench_calibration_read gives back field for field; a bad file is refused
 * at its line, column and field and changes nothing; a calibration of one
 * GPU type leaves every other type's ceilings as the catalog has them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/calib.h"
#include "catalog/catalog.h"
#include "gpu/gpu.h"
#include "model/model.h"

static struct catalog *cat;

static int setup(void **state)
{
	struct diag err;
	(void)state;
	diag_clear(&err);
	return catalog_load(&cat, NULL, &err);
}

static int teardown(void **state)
{
	(void)state;
	model_calibration_use(NULL);
	catalog_free(cat);
	return 0;
}

#define NROWS 24

struct fixture {
	struct bench_result r;
	struct bench_gpu g[2];
	struct bench_row rows[NROWS];
};

static struct bench_row *add(struct fixture *f, const char *test, int gpu)
{
	struct bench_row *x = &f->rows[f->r.nrows++];
	memset(x, 0, sizeof(*x));
	x->test = test;
	x->gpu = gpu;
	x->peer = -1;
	x->m = x->n = x->k = x->bytes = x->time_s = x->tflops = x->gbps = x->busbw_gbps = x->latency_s = NAN;
	x->expected = NAN;
	x->clk = (struct bench_clocks){1, 1455, 2619, 512.5, 700, 61, GPU_CLOCK_EVENT_SW_POWER_CAP};
	return x;
}

/* Two H100s: bf16 and fp8 GEMMs (the best shape wins), every copy, an all-reduce, launches. */
static void result(struct fixture *f)
{
	static char name[] = "NVIDIA H100 80GB HBM3", uuid[] = "GPU-0000-1111", drv[] = "550.54.15";
	static char date[] = "2025-06-01T10:00:00Z";
	struct bench_row *x;
	int i;
	memset(f, 0, sizeof(*f));
	f->r.gpus = f->g;
	f->r.ngpus = 2;
	f->r.rows = f->rows;
	f->r.date = date;
	f->r.driver_version = drv;
	f->r.cuda_driver = 12040;
	f->r.cublaslt_version = 130000;
	f->r.nccl_version = 22105;
	for (i = 0; i < 2; i++)
		f->g[i] = (struct bench_gpu){.index = i, .name = name, .uuid = uuid};
	x = add(f, "gemm", 0);
	x->dtype = "bf16";
	x->m = x->n = x->k = 4096;
	x->tflops = 601.25;
	x = add(f, "gemm", 0);
	x->dtype = "bf16";
	x->m = 8192;
	x->n = 4096;
	x->k = 2048;
	x->tflops = 640.5;
	x = add(f, "gemm", 0);
	x->dtype = "fp8";
	x->m = x->n = x->k = 8192;
	x->tflops = 1210.75;
	for (i = 0; i < 2; i++) {
		add(f, "hbm-read", i)->gbps = 3000 + i;
		add(f, "hbm-write", i)->gbps = 2900 + i;
		add(f, "hbm-copy", i)->gbps = 2600 + 2 * i;
		add(f, "h2d", i)->gbps = 53.5;
		add(f, "d2h", i)->gbps = 52.25;
	}
	add(f, "p2p", 0)->gbps = 390;
	x = add(f, "all-reduce", -1);
	x->busbw_gbps = 360.5;
	add(f, "launch", 0)->latency_s = 2.5e-6;
	add(f, "graph", 0)->latency_s = 1.25e-6;
}

/* r written for g and read back: 0, or -1 with err. */
static int round_trip(const struct bench_result *r, const struct cat_gpu *g, struct bench_calibration *out,
		      struct diag *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;
	assert_non_null(f);
	rc = bench_calibration_write(r, g, f, err);
	fclose(f);
	if (!rc)
		rc = bench_calibration_read(text, len, "rt.json", cat, out, err);
	free(text);
	return rc;
}

static void test_round_trip_every_field(void **state)
{
	struct fixture f;
	struct bench_calibration c;
	struct diag err;
	const struct cat_gpu *g = catalog_get(cat, CAT_GPUS, "h100-sxm5-80gb");
	char *s;
	int p;
	(void)state;
	assert_non_null(g);
	result(&f);
	diag_clear(&err);
	assert_int_equal(round_trip(&f.r, g, &c, &err), 0);
	assert_ptr_equal(c.model.gpu, g);
	assert_string_equal(c.file, "rt.json");
	assert_string_equal(c.date, "2025-06-01T10:00:00Z");
	assert_string_equal(c.gpu_name, "NVIDIA H100 80GB HBM3");
	assert_string_equal(c.uuid, "GPU-0000-1111");
	assert_string_equal(c.driver, "550.54.15");
	assert_int_equal(c.count, 2);
	assert_int_equal(c.cuda_driver, 12040);
	assert_int_equal(c.cublaslt, 130000);
	assert_int_equal(c.nccl, 22105);
	/* the model's part: the best shape of each dtype, and pointers at the owned text */
	assert_float_equal(c.model.gemm_tflops[MODEL_BF16], 640.5, 1e-9);
	assert_float_equal(c.model.gemm_shape[MODEL_BF16][0], 8192, 0);
	assert_float_equal(c.model.gemm_shape[MODEL_BF16][1], 4096, 0);
	assert_float_equal(c.model.gemm_shape[MODEL_BF16][2], 2048, 0);
	assert_float_equal(c.model.gemm_tflops[MODEL_FP8], 1210.75, 1e-9);
	for (p = 0; p <= MODEL_FP8; p++)
		if (p != MODEL_BF16 && p != MODEL_FP8)
			assert_true(isnan(c.model.gemm_tflops[p]));
	assert_float_equal(c.model.hbm_gbps, 2601, 1e-9);
	assert_ptr_equal(c.model.file, c.file);
	assert_ptr_equal(c.model.date, c.date);
	assert_ptr_equal(c.model.gpu_name, c.gpu_name);
	/* the other ceilings: means over the GPUs, the best collective, the latencies */
	assert_float_equal(c.hbm_read_gbps, 3000.5, 1e-9);
	assert_float_equal(c.hbm_write_gbps, 2900.5, 1e-9);
	assert_float_equal(c.hbm_copy_gbps, 2601, 1e-9);
	assert_float_equal(c.h2d_gbps, 53.5, 1e-9);
	assert_float_equal(c.d2h_gbps, 52.25, 1e-9);
	assert_float_equal(c.p2p_gbps, 390, 1e-9);
	assert_float_equal(c.allreduce_busbw_gbps, 360.5, 1e-9);
	assert_float_equal(c.launch_s, 2.5e-6, 1e-15);
	assert_float_equal(c.graph_s, 1.25e-6, 1e-15);
	/* the clocks of the bf16 row */
	assert_float_equal(c.sm_mhz, 1455, 0);
	assert_float_equal(c.mem_mhz, 2619, 0);
	assert_float_equal(c.power_w, 512.5, 1e-9);
	assert_string_equal(c.clock_events, "sw_power_cap");
	s = bench_calibration_summary(&c);
	assert_non_null(strstr(s,
			       "h100-sxm5-80gb, 2 x NVIDIA H100 80GB HBM3 measured 2025-06-01T10:00:00Z: "
			       "bf16 GEMM 640 TFLOP/s, HBM 2601 GB/s"));
	free(s);
	bench_calibration_release(&c);
	assert_null(c.file);
}

/* A file with only what the model needs reads, the rest absent (NaN, NULL, 0). */
static void test_minimal_file(void **state)
{
	static const char text[] =
		"{\"format\": \"gpuscope-calibration\", \"version\": 1,\n"
		" \"gpu\": {\"catalog\": \"a100-sxm4-80gb\"},\n"
		" \"ceilings\": {\"hbm_copy_gbps\": 1700}}";
	struct bench_calibration c;
	struct diag err;
	(void)state;
	diag_clear(&err);
	assert_int_equal(bench_calibration_read(text, strlen(text), "min.json", cat, &c, &err), 0);
	assert_string_equal(c.model.gpu->row.key, "a100-sxm4-80gb");
	assert_float_equal(c.model.hbm_gbps, 1700, 0);
	assert_true(isnan(c.model.gemm_tflops[MODEL_BF16]) && isnan(c.h2d_gbps) && isnan(c.sm_mhz));
	assert_null(c.date);
	assert_null(c.gpu_name);
	assert_int_equal(c.count, 0);
	bench_calibration_release(&c);
}

struct bad_case {
	const char *text;
	int line, col;
	const char *field, *msg;
};

static const char H[] =
	"{\"format\": \"gpuscope-calibration\", \"version\": 1, "
	"\"gpu\": {\"catalog\": \"h100-sxm5-80gb\"},\n";

/* Each bad file gives its located error and leaves *out exactly as it was. */
static void test_bad_files_located_and_nothing_applied(void **state)
{
	char buf[1024];
	const struct bad_case cases[] = {
		/* truncated */
		{"{\"format\": \"gpuscope-calibration\", \"version\": 1,\n \"gpu\": {\"cata", 2, 14, "",
		 "not valid JSON"},
		{"", 1, 1, "", "not valid JSON"},
		/* version mismatch, wrong type, missing */
		{"{\"format\": \"gpuscope-calibration\",\n \"version\": 2}", 2, 2, "version",
		 "version 2 is not one this gpuscope reads (1)"},
		{"{\"format\": \"gpuscope-calibration\",\n \"version\": \"1\"}", 2, 2, "version",
		 "expected an integer"},
		{"{\"format\": \"gpuscope-calibration\"}", 1, 1, "version", "missing"},
		{"{\"format\": \"gpuscope-calibration\", \"version\": 1}", 1, 1, "gpu", "missing"},
		{"{\"format\": \"gpuscope-calibration\", \"version\": 1,\n \"gpu\": {\"name\": \"x\"}}", 2, 2,
		 "gpu.catalog", "missing"},
		{"{\"format\": \"gpuscope-calibration\", \"version\": 1,\n \"gpu\": {\"catalog\": 7}}", 2, 10,
		 "gpu.catalog", "expected the catalog's GPU key"},
		/* unknown GPU */
		{"{\"format\": \"gpuscope-calibration\", \"version\": 1,\n \"gpu\": {\"catalog\": \"h900-sxm\"}, "
		 "\"ceilings\": {}}",
		 2, 10, "gpu.catalog", "h900-sxm"},
		{"{\"format\": \"gpuscope-calibration\", \"version\": 1,\n \"gpu\": {\"catalog\": \"h100-sxm5-80gb\"}}",
		 1, 1, "ceilings", "missing"},
		/* wrong types */
		{NULL, 2, 2, "ceilings", "expected an object"},
		{NULL, 2, 15, "ceilings.gemm", "expected an object"},
		{NULL, 2, 24, "ceilings.gemm.bf16", "expected an object {tflops, m, n, k}"},
		{NULL, 2, 15, "ceilings.h2d_gbps", "expected a positive number"},
		{NULL, 1, 87, "gpu.count", "expected a whole number >= 0"},
		{NULL, 2, 2, "date", "expected a text"},
		{NULL, 2, 13, "clocks.sm_mhz", "expected a positive number"},
		/* negative, zero, missing ceilings; a dtype that is none */
		{NULL, 2, 33, "ceilings.gemm.bf16.tflops", "expected a positive number"},
		{NULL, 2, 15, "ceilings.hbm_copy_gbps", "expected a positive number"},
		{NULL, 2, 15, "ceilings.launch_s", "expected a positive number"},
		{NULL, 2, 24, "ceilings.gemm.bf16.tflops", "missing"},
		{NULL, 2, 24, "ceilings.gemm.bf16", "needs its shape"},
		{NULL, 2, 24, "ceilings.gemm.int3", "'int3' is not a GEMM dtype"},
		/* NaN and infinity are not JSON */
		{NULL, 2, 34, "", "not valid JSON"},
		{NULL, 2, 36, "", "not valid JSON"},
	};
	const char *tails[] = {
		" \"ceilings\": 3}",
		" \"ceilings\": {\"gemm\": []}}",
		" \"ceilings\": {\"gemm\": {\"bf16\": 400}}}",
		" \"ceilings\": {\"h2d_gbps\": \"fast\"}}",
		NULL, /* gpu.count: in the header line */
		" \"date\": 20250601, \"ceilings\": {}}",
		" \"clocks\": {\"sm_mhz\": -1}, \"ceilings\": {}}",
		" \"ceilings\": {\"gemm\": {\"bf16\": {\"tflops\": -3, \"m\": 1, \"n\": 1, \"k\": 1}}}}",
		" \"ceilings\": {\"hbm_copy_gbps\": 0}}",
		" \"ceilings\": {\"launch_s\": -2e-6}}",
		" \"ceilings\": {\"gemm\": {\"bf16\": {\"m\": 1, \"n\": 1, \"k\": 1}}}}",
		" \"ceilings\": {\"gemm\": {\"bf16\": {\"tflops\": 300, \"m\": 1}}}}",
		" \"ceilings\": {\"gemm\": {\"int3\": {}}}}",
		" \"ceilings\": {\"hbm_copy_gbps\": NaN}}",
		" \"ceilings\": {\"hbm_copy_gbps\": 1e999}}",
	};
	struct bench_calibration c, before;
	struct diag err;
	size_t i, t = 0;
	(void)state;
	memset(&before, 0x5a, sizeof(before));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *text = cases[i].text;
		if (!text) {
			if (tails[t])
				snprintf(buf, sizeof(buf), "%s%s", H, tails[t]);
			else
				snprintf(buf, sizeof(buf), "%s",
					 "{\"format\": \"gpuscope-calibration\", \"version\": 1, "
					 "\"gpu\": {\"catalog\": \"h100-sxm5-80gb\", \"count\": \"8\"},\n"
					 " \"ceilings\": {}}");
			t++;
			text = buf;
		}
		memcpy(&c, &before, sizeof(c));
		diag_clear(&err);
		if (bench_calibration_read(text, strlen(text), "bad.json", cat, &c, &err) == 0)
			fail_msg("case %zu read: %s", i, text);
		if (strcmp(err.file, "bad.json") || err.line != cases[i].line || err.col != cases[i].col ||
		    strcmp(err.field, cases[i].field) || !strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: %s:%d:%d: field '%s': %s; wanted %d:%d '%s' '%s'", i, err.file,
				 err.line, err.col, err.field, err.msg, cases[i].line, cases[i].col,
				 cases[i].field, cases[i].msg);
		assert_memory_equal(&c, &before, sizeof(c));
	}
}

/* A calibration of the H100 scales the H100's time and nothing of the A100's. */
static void test_other_gpu_untouched(void **state)
{
	static const char text[] =
		"{\"format\": \"gpuscope-calibration\", \"version\": 1,\n"
		" \"date\": \"2025-06-01T10:00:00Z\", \"gpu\": {\"catalog\": \"h100-sxm5-80gb\"},\n"
		" \"ceilings\": {\"gemm\": {\"bf16\": {\"tflops\": 300, \"m\": 8192, \"n\": 8192, "
		"\"k\": 8192}}, \"hbm_copy_gbps\": 1500}}";
	const char *keys[] = {"h100-sxm5-80gb", "a100-sxm4-80gb"};
	struct bench_calibration c;
	struct model_ceiling ce[MODEL_CEILINGS_MAX];
	struct workload w;
	struct model_config cfg;
	struct model_result r;
	struct diag err;
	double before[2], after[2];
	size_t n;
	int k, pass;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_preset(&w, "llama2-7b", &err), 0);
	for (pass = 0; pass < 2; pass++) {
		if (pass) {
			assert_int_equal(bench_calibration_read(text, strlen(text), "h.json", cat, &c, &err), 0);
			model_calibration_use(&c.model);
			bench_calibration_release(&c); /* the model keeps its own copy of the text */
		}
		for (k = 0; k < 2; k++) {
			model_config_defaults(&cfg);
			cfg.gpu = catalog_get(cat, CAT_GPUS, keys[k]);
			cfg.precision = MODEL_BF16;
			cfg.gpus = cfg.gpus_per_node = 8;
			cfg.dp = 0;
			model_config_complete(&w, &cfg);
			assert_int_equal(model_links_from_catalog(&cfg, cat, NULL, NULL, &err), 0);
			assert_int_equal(model_estimate(&w, &cfg, &r), 0);
			(pass ? after : before)[k] = r.time.gemm_s;
		}
	}
	assert_null(model_calibration_of(catalog_get(cat, CAT_GPUS, "a100-sxm4-80gb")));
	assert_non_null(model_calibration_of(catalog_get(cat, CAT_GPUS, "h100-sxm5-80gb")));
	assert_float_equal(after[1], before[1], 0);
	/* the H100's GEMM time grows by catalog / measured at the measured shape */
	n = model_calibration_ceilings(model_calibration_of(catalog_get(cat, CAT_GPUS, "h100-sxm5-80gb")), ce);
	assert_int_equal(n, 2);
	assert_string_equal(ce[0].name, "gemm-bf16");
	assert_string_equal(ce[1].name, "hbm");
	assert_float_equal(ce[0].measured, 300, 0);
	assert_float_equal(after[0] / before[0], ce[0].catalog / ce[0].measured, 1e-6 * after[0] / before[0]);
	assert_true(ce[1].catalog > 2000 && ce[1].catalog < 3350);
	assert_string_equal(model_calibration_at(0)->file, "h.json");
	assert_string_equal(model_calibration_at(0)->date, "2025-06-01T10:00:00Z");
	assert_null(model_calibration_at(1));
	model_calibration_use(NULL);
	assert_null(model_calibration_at(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_every_field),
		cmocka_unit_test(test_minimal_file),
		cmocka_unit_test(test_bad_files_located_and_nothing_applied),
		cmocka_unit_test(test_other_gpu_untouched),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
