/*
 * The estimate's field tables (model/fields.h): every field named once,
 * with a unit when it is a number that is not a count; the keys an answer
 * shows are the ones estimate --json has always written, in that order
 * (training, LoRA, inference, a per-sample workload, serving and a rate);
 * unknown values are null while fields that do not apply are absent; and
 * docs/estimate.md holds each schema's field list as it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "model/fields.h"
#include "util/strbuf.h"
#include "view/estimate.h"

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
	catalog_free(cat);
	return 0;
}

/* One resolved estimate: the request's task, GPUs, engine and batch. */
struct sample {
	struct workload w;
	struct model_config c;
	struct model_result r;
	struct model_notes notes;
	struct model_answer a;
};

static void sample_init(struct sample *s, const char *model, int task, int gpus, int engine, int batch)
{
	struct model_request q;
	struct diag err;
	diag_clear(&err);
	if (workload_preset(&s->w, model, &err))
		fail_msg("preset %s: %s", model, err.msg);
	model_request_init(&q);
	q.gpu = catalog_get(cat, CAT_GPUS, "a100-sxm4-80gb");
	assert_non_null(q.gpu);
	q.task = task;
	q.gpus = gpus;
	q.engine = engine;
	q.batch = batch;
	if (model_resolve(&s->w, cat, &q, &s->c, &s->notes, &err))
		fail_msg("resolve %s: %s", model, err.msg);
	if (model_estimate(&s->w, &s->c, &s->r))
		fail_msg("estimate %s", model);
	memset(&s->a, 0, sizeof(s->a));
	s->a.w = &s->w;
	s->a.c = &s->c;
	s->a.r = &s->r;
	s->a.notes = &s->notes;
	s->a.latency_batch = -1;
}

/* The names of the fields `shown` marks, space-separated. */
static char *shown_keys(enum model_estimate_part p, const struct model_answer *a, struct report_row **rowp)
{
	const struct report_schema *s = model_estimate_schema(p);
	struct report_row *row = report_row_new(s);
	uint64_t shown = model_estimate_row(p, a, row);
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	for (i = 0; i < s->nfields; i++)
		if (shown >> i & 1)
			strbuf_addf(&sb, "%s%s", sb.len ? " " : "", s->fields[i].name);
	if (rowp)
		*rowp = row;
	else
		report_row_free(row);
	return strbuf_detach(&sb, NULL);
}

static void expect_keys(enum model_estimate_part p, const struct model_answer *a, const char *want)
{
	char *got = shown_keys(p, a, NULL);
	assert_string_equal(got, want);
	free(got);
}

static double num_of(const struct report_row *row, const char *name)
{
	long i = report_field_index(report_row_schema(row), name);
	assert_true(i >= 0);
	return report_num(row, (size_t)i);
}

/* The keys of a JSON object in its order. */
static char *object_keys(json_t *o)
{
	struct strbuf sb = STRBUF_INIT;
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) strbuf_addf(&sb, "%s%s", sb.len ? " " : "", k);
	return strbuf_detach(&sb, NULL);
}

/* ---- the tables themselves ---- */

static void test_schemas(void **state)
{
	static const char *const units[] = {"s",        "bytes",      "FLOP",       "TFLOP/s",  "GB/s",
					    "tokens/s", "samples/s",  "requests/s", "fraction", "kWh",
					    "W",        "parameters", "elements",   "steps",    "cores",
					    "ratio",    "sequences",  "requests",   NULL};
	int p;
	(void)state;
	for (p = 0; p < MODEL_EST_PART_COUNT; p++) {
		const struct report_schema *s = model_estimate_schema((enum model_estimate_part)p);
		size_t i, j;
		int q;
		assert_non_null(s);
		assert_true(s->nfields > 0 && s->nfields <= 64);
		assert_int_equal(strncmp(s->name, "estimate", 8), 0);
		for (q = 0; q < p; q++)
			assert_string_not_equal(model_estimate_schema((enum model_estimate_part)q)->name, s->name);
		for (i = 0; i < s->nfields; i++) {
			const struct report_field *f = &s->fields[i];
			assert_true(f->name[0] && f->help && f->help[0]);
			for (j = 0; j < i; j++)
				if (!strcmp(s->fields[j].name, f->name))
					fail_msg("%s: %s twice", s->name, f->name);
			/* a real number has a unit; integers are counts (GPUs, layers, sequences) */
			if (f->type == REPORT_NUM && !f->unit)
				fail_msg("%s.%s: a number without a unit", s->name, f->name);
			if (f->unit) {
				for (j = 0; units[j] && strcmp(units[j], f->unit); j++)
					;
				if (!units[j])
					fail_msg("%s.%s: unit '%s' is not one of the documented", s->name, f->name,
						 f->unit);
			}
		}
	}
	assert_null(model_estimate_schema(MODEL_EST_PART_COUNT));
}

static void test_limit_keys(void **state)
{
	static const struct {
		unsigned bit;
		const char *key;
	} want[] = {
		{MODEL_LIMIT_COMPUTE, "compute"},          {MODEL_LIMIT_MEMORY_BW, "memory_bandwidth"},
		{MODEL_LIMIT_COMM, "communication"},       {MODEL_LIMIT_BUBBLE, "pipeline_bubble"},
		{MODEL_LIMIT_DATA, "data_loading"},        {MODEL_LIMIT_LAUNCH, "kernel_launches"},
		{MODEL_LIMIT_CAPACITY, "memory_capacity"},
	};
	size_t i;
	(void)state;
	/* bit i of enum model_limit is key i */
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(want[i].bit, 1u << i);
		assert_string_equal(model_limit_key(i), want[i].key);
	}
	assert_null(model_limit_key(i));
}

/* ---- the keys of answers: estimate --json as it has always been written ---- */

#define CONFIG_HEAD \
	"task gpu gpus gpus_per_node intra_link intra_gbps inter_gbps_per_gpu precision tp pp dp ep vpp cp zero"
#define CONFIG_TAIL "recompute seq_parallel flash_attention micro_batch global_batch seq_len optimizer offload"
#define CONFIG_BASE CONFIG_HEAD " " CONFIG_TAIL
/* a training step also says which communication it hides */
#define CONFIG_TRAIN CONFIG_HEAD " comm_overlap " CONFIG_TAIL
#define MEMORY_BASE \
	"weights_bytes gradients_bytes optimizer_bytes activations_bytes activations_layer_bytes " \
	"microbatches_in_flight logits_bytes lora_bytes kv_cache_bytes buffers_bytes allocated_bytes reserve_bytes " \
	"reserved_bytes paged_bytes device_bytes context_bytes total_bytes capacity_bytes host_bytes host_fits fits"
#define TRANSFORMER_KEYS \
	"name kind sample_unit params params_active layers hidden heads kv_heads ffn_hidden vocab " \
	"experts experts_active"

static void test_training_keys(void **state)
{
	struct sample s;
	struct report_row *row;
	char *k;
	(void)state;
	sample_init(&s, "llama2-7b", MODEL_TASK_LORA, 8, MODEL_UNSET, MODEL_UNSET);
	s.a.max_micro_batch = 4;
	expect_keys(MODEL_EST_WORKLOAD, &s.a, TRANSFORMER_KEYS);
	expect_keys(MODEL_EST_CONFIG, &s.a, CONFIG_TRAIN " lora_rank engine mig");
	expect_keys(MODEL_EST_MEMORY, &s.a, MEMORY_BASE " max_micro_batch");
	expect_keys(
		MODEL_EST_TIME, &s.a,
		"step_s compute_s gemm_s attention_s memory_bound_s recompute_s optimizer_s "
		"tp_comm_s ep_comm_s cp_comm_s pp_bubble_s pp_p2p_s dp_comm_s dp_comm_total_s zero_comm_s offload_s "
		"data_s overhead_s straggler_s");
	expect_keys(MODEL_EST_THROUGHPUT, &s.a,
		    "tokens_per_s samples_per_s data_samples_per_s data_cores_per_gpu "
		    "cpu_cores_per_gpu");
	expect_keys(MODEL_EST_SUMMARY, &s.a,
		    "mfu mfu_tflops_per_gpu hfu_tflops_per_gpu peak_tflops "
		    "model_flops_per_step time_to_train_s train_steps energy_kwh energy_basis power_w_per_gpu");
	/* parts the answer does not have fill nothing */
	expect_keys(MODEL_EST_SERVING, &s.a, "");
	expect_keys(MODEL_EST_RATE, &s.a, "");

	/* the same numbers as the result; unknown host memory and no amount of work are null */
	k = shown_keys(MODEL_EST_MEMORY, &s.a, &row);
	assert_true(num_of(row, "device_bytes") == s.r.mem.total_bytes);
	assert_true(num_of(row, "total_bytes") == s.r.mem.total_bytes);
	assert_true(num_of(row, "max_micro_batch") == 4);
	assert_true(isnan(num_of(row, "host_fits")));
	report_row_free(row);
	free(k);
	k = shown_keys(MODEL_EST_SUMMARY, &s.a, &row);
	assert_true(isnan(num_of(row, "time_to_train_s")));
	assert_string_equal(report_text(row, (size_t)report_field_index(report_row_schema(row), "energy_basis")),
			    "one_hour");
	report_row_free(row);
	free(k);
	s.a.host_gib = 2048;
	k = shown_keys(MODEL_EST_MEMORY, &s.a, &row);
	assert_true(num_of(row, "host_fits") == 1);
	report_row_free(row);
	free(k);
	model_notes_release(&s.notes);
}

static void test_inference_keys(void **state)
{
	struct sample s;
	(void)state;
	sample_init(&s, "llama2-7b", MODEL_TASK_INFER, 1, MODEL_ENGINE_EAGER, 4);
	expect_keys(MODEL_EST_CONFIG, &s.a,
		    CONFIG_BASE
		    " batch prompt_len output_len kv_cache_precision cuda_graphs "
		    "weight_precision quant_kernel engine mig");
	expect_keys(MODEL_EST_MEMORY, &s.a, MEMORY_BASE);
	expect_keys(MODEL_EST_INFERENCE, &s.a,
		    "first_token_s token_s request_s decode_weights_bytes decode_kv_bytes "
		    "launch_s");
	s.a.latency_batch = 0;
	s.a.latency_target_s = 0.005;
	expect_keys(MODEL_EST_INFERENCE, &s.a,
		    "first_token_s token_s request_s decode_weights_bytes decode_kv_bytes "
		    "launch_s latency_target_s batch_for_latency");
	model_notes_release(&s.notes);
}

static void test_per_sample_keys(void **state)
{
	struct sample s;
	struct report_row *row;
	char *k;
	(void)state;
	sample_init(&s, "resnet50", MODEL_TASK_PRETRAIN, 1, MODEL_UNSET, MODEL_UNSET);
	expect_keys(MODEL_EST_WORKLOAD, &s.a, "name kind sample_unit params params_active fwd_flops_per_sample");
	/* images have no tokens: null, not absent */
	k = shown_keys(MODEL_EST_THROUGHPUT, &s.a, &row);
	assert_string_equal(k,
			    "tokens_per_s samples_per_s data_samples_per_s data_cores_per_gpu cpu_cores_per_gpu");
	assert_true(isnan(num_of(row, "tokens_per_s")));
	assert_true(num_of(row, "samples_per_s") > 0);
	report_row_free(row);
	free(k);
	model_notes_release(&s.notes);
}

static void test_serving_and_rate_keys(void **state)
{
	struct sample s;
	struct model_serving sv;
	struct model_queue q;
	struct report_row *row;
	char *k;
	(void)state;
	sample_init(&s, "llama2-7b", MODEL_TASK_INFER, 1, MODEL_ENGINE_EAGER, 4);
	memset(&sv, 0, sizeof(sv));
	sv.bound = "kv-cache";
	s.a.sv = &sv;
	expect_keys(MODEL_EST_SERVING, &s.a,
		    "concurrency bound kv_limit weights_bytes workspace_bytes kv_budget_bytes "
		    "kv_bytes_per_token ttft_s tpot_s request_s tokens_per_s requests_per_s");
	model_queue_at(1, 1, 8, 1, 0.1, &q);
	s.a.q = &q;
	k = shown_keys(MODEL_EST_RATE, &s.a, &row);
	assert_string_equal(k,
			    "rate_per_s replicas replicas_given slots capacity_per_s utilisation wait_p99_s "
			    "ttft_p99_s ttft_target_s meets_ttft_target");
	assert_true(isnan(num_of(row, "ttft_target_s")) && isnan(num_of(row, "meets_ttft_target")));
	report_row_free(row);
	free(k);
	s.a.ttft_target_s = 10;
	k = shown_keys(MODEL_EST_RATE, &s.a, &row);
	assert_true(num_of(row, "ttft_target_s") == 10 && num_of(row, "meets_ttft_target") == 1);
	report_row_free(row);
	free(k);
	model_notes_release(&s.notes);
}

/* The whole document: its objects in order, absent fields left out, the arrays. */
static void test_document(void **state)
{
	struct sample s;
	json_t *o;
	char *k;
	(void)state;
	sample_init(&s, "llama2-7b", MODEL_TASK_FINETUNE, 8, MODEL_UNSET, MODEL_UNSET);
	o = view_estimate_json(&s.a);
	k = object_keys(o);
	assert_string_equal(
		k,
		"workload notes config memory time throughput mfu mfu_tflops_per_gpu "
		"hfu_tflops_per_gpu peak_tflops model_flops_per_step time_to_train_s train_steps energy_kwh "
		"energy_basis power_w_per_gpu limits fit_advice recommendations calibration");
	free(k);
	k = object_keys(json_object_get(o, "config"));
	/* eager 16-bit fine-tuning over fp32 master weights: where --autocast applies */
	assert_string_equal(k, CONFIG_HEAD " comm_overlap autocast " CONFIG_TAIL " engine mig");
	free(k);
	assert_true(json_is_null(json_object_get(json_object_get(o, "memory"), "host_fits")));
	assert_true(json_is_integer(json_object_get(json_object_get(o, "config"), "gpus")));
	assert_true(json_is_real(json_object_get(json_object_get(o, "workload"), "params")));
	assert_true(json_is_array(json_object_get(o, "limits")) &&
		    json_array_size(json_object_get(o, "limits")) > 0);
	json_decref(o);
	model_notes_release(&s.notes);
}

/* ---- docs/estimate.md holds every schema's list as it is ---- */

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	if (!f)
		fail_msg("cannot open %s", path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb, NULL);
}

static void test_docs(void **state)
{
	const char *src = getenv("SRCDIR");
	struct strbuf path = STRBUF_INIT;
	char *doc;
	int p, bad = 0;
	(void)state;
	if (!src)
		skip();
	strbuf_addf(&path, "%s/docs/estimate.md", src);
	doc = read_file(strbuf_str(&path));
	for (p = 0; p < MODEL_EST_PART_COUNT; p++) {
		const struct report_schema *s = model_estimate_schema((enum model_estimate_part)p);
		struct strbuf mark = STRBUF_INIT;
		char *want = NULL, *at, *end;
		size_t len = 0;
		FILE *mem = open_memstream(&want, &len);
		assert_non_null(mem);
		report_schema_markdown(s, mem);
		fclose(mem);
		strbuf_addf(&mark, "<!-- fields:%s -->\n", s->name);
		at = strstr(doc, strbuf_str(&mark));
		end = at ? strstr(at, "<!-- /fields -->") : NULL;
		if (!at || !end || (size_t)(end - at) != mark.len + len || memcmp(at + mark.len, want, len)) {
			/* the block as it should read, to paste */
			fprintf(stderr, "%s%s<!-- /fields -->\n", strbuf_str(&mark), want);
			bad = 1;
		}
		free(want);
		strbuf_release(&mark);
	}
	free(doc);
	strbuf_release(&path);
	assert_false(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schemas),         cmocka_unit_test(test_limit_keys),
		cmocka_unit_test(test_training_keys),   cmocka_unit_test(test_inference_keys),
		cmocka_unit_test(test_per_sample_keys), cmocka_unit_test(test_serving_and_rate_keys),
		cmocka_unit_test(test_document),        cmocka_unit_test(test_docs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
