/*
 * plan's field tables (plan/fields.h) and the documents view/plan.h writes
 * from them: names unique and documented, every number with its unit, the
 * choice's keys and the CSV columns those of the interface, in its order,
 * the values read from the choice they describe, and the JSON's objects and
 * lists where docs/plan.md puts them.
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
#include <unistd.h>

#include "catalog/catalog.h"
#include "model/model.h"
#include "plan/fields.h"
#include "plan/plan_int.h"
#include "report/html.h"
#include "util/strbuf.h"
#include "view/plan.h"

/* The columns of `plan --csv` and the keys of a choice, as documented (docs/plan.md); never renamed. */
static const char choice_keys[] =
	"rank,hardware,hardware_kind,label,lifecycle,gpu,nodes,gpus_per_node,gpus,spare_gpus,intra_link,intra_gbps,network,"
	"inter_gbps_per_gpu,architecture,layout,precision,tp,pp,vpp,dp,ep,zero,hsdp,recompute,seq_parallel,micro_batch,"
	"global_batch,loader,batch,replicas,memory_total_bytes,memory_capacity_bytes,memory_pct,weights_bytes,"
	"gradients_bytes,optimizer_bytes,activations_bytes,logits_bytes,lora_bytes,kv_cache_bytes,buffers_bytes,"
	"reserve_bytes,context_bytes,microbatches_in_flight,step_s,compute_s,gemm_s,attention_s,memory_bound_s,"
	"recompute_s,optimizer_s,tp_comm_s,ep_comm_s,pp_bubble_s,pp_p2p_s,dp_comm_s,dp_comm_total_s,zero_comm_s,"
	"data_s,overhead_s,tokens_per_s,samples_per_s,mfu,mfu_tflops_per_gpu,hfu_tflops_per_gpu,peak_tflops,"
	"latency_s,ttft_p99_s,tpot_s,utilisation,capacity_per_s,time_to_finish_s,train_steps,hours,cost_usd,share_usd,"
	"usd_per_gpu_hour,"
	"cost_basis,energy_kwh,gpu_power_w,power_kw,score,on_front,meets_constraints,violates,miss,"
	"fabric_best_step_s,capex_usd,bom_frontend_usd,bom_oob_usd,bom_power_distribution_usd,bom_install_usd,"
	"bom_staff_engineers,bom_staff_usd_per_year,bom_licence_usd_per_year,goodput,ideal_hours,checkpoint_bytes,checkpoint_write_s,checkpoint_every_s,"
	"checkpoint_hours,interruptions,interruption_hours,estimate_args,calibration";

/* Numbers that have no unit: counts held in a double, ratios and scores. */
static const char *const unitless[] = {
	"train_steps", "score",        "miss",          "interruptions",
	"params",      "train_tokens", "train_samples", "epochs",
	"ratio_time",  "ratio_cost",   "speedup",       "breakeven_jobs_per_year",
	NULL,
};

static struct catalog *cat;

static int setup(void **state)
{
	struct diag err;
	(void)state;
	diag_clear(&err);
	if (catalog_load(&cat, NULL, &err)) {
		fprintf(stderr, "catalog: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	catalog_free(cat);
	return 0;
}

static const struct report_schema *(*const schemas[])(void) = {
	plan_choice_schema,      plan_workload_schema,    plan_request_schema,     plan_search_schema,
	plan_closest_fit_schema, plan_explanation_schema, plan_alternative_schema, plan_optimisation_schema,
};

static int listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return 1;
	return 0;
}

static void test_schemas(void **state)
{
	size_t k, i, j;
	(void)state;
	for (k = 0; k < sizeof(schemas) / sizeof(schemas[0]); k++) {
		const struct report_schema *s = schemas[k]();
		assert_true(!strncmp(s->name, "plan", 4));
		for (j = 0; j < k; j++)
			assert_string_not_equal(s->name, schemas[j]()->name);
		for (i = 0; i < s->nfields; i++) {
			const struct report_field *f = &s->fields[i];
			assert_non_null(f->help);
			assert_true(strlen(f->help) > 3);
			for (j = 0; j < i; j++)
				assert_string_not_equal(f->name, s->fields[j].name);
			if (f->type == REPORT_NUM && !f->unit && !listed(unitless, f->name))
				fail_msg("%s.%s is a number without a unit", s->name, f->name);
			if (f->type != REPORT_NUM && f->unit)
				fail_msg("%s.%s has a unit but is no number", s->name, f->name);
		}
	}
}

static char *csv_header(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	report_csv_header(plan_choice_schema(), f);
	fclose(f);
	return buf;
}

static void test_choice_keys(void **state)
{
	char *h = csv_header();
	(void)state;
	assert_int_equal(plan_choice_schema()->nfields, 106);
	assert_int_equal(strlen(h), strlen(choice_keys) + 1);
	assert_memory_equal(h, choice_keys, strlen(choice_keys));
	free(h);
}

/*
 * A small plan: the default fine-tune on up to 8 H100s and A100s, or inference of Llama 3 8B;
 * plan_of() with gpus NULL searches every GPU.
 */
static struct plan *plan_of(struct workload *w, struct plan_request *req, const struct cat_gpu **gpus,
			    const char *model, enum model_task task, enum plan_objective obj, int max_gpus);

static struct plan *small_plan(struct workload *w, struct plan_request *req, const struct cat_gpu **gpus,
			       const char *model, enum model_task task)
{
	return plan_of(w, req, gpus, model, task, PLAN_OBJ_COST, 8);
}

static struct plan *plan_of(struct workload *w, struct plan_request *req, const struct cat_gpu **gpus,
			    const char *model, enum model_task task, enum plan_objective obj, int max_gpus)
{
	struct plan *p;
	struct diag err;
	diag_clear(&err);
	if (workload_preset(w, model, &err))
		fail_msg("preset %s: %s", model, err.msg);
	memset(req, 0, sizeof(*req));
	req->w = w;
	model_config_defaults(&req->base);
	req->base.task = task;
	req->objective = obj;
	req->max_gpus = max_gpus;
	req->threads = 2;
	if (gpus) {
		gpus[0] = catalog_get(cat, CAT_GPUS, "h100-sxm5-80gb");
		gpus[1] = catalog_get(cat, CAT_GPUS, "a100-sxm4-80gb");
		assert_non_null(gpus[0]);
		assert_non_null(gpus[1]);
		req->gpus = gpus;
		req->ngpus = 2;
	}
	if (plan_run(&p, cat, req, &err))
		fail_msg("plan_run: %s", err.msg);
	assert_true(plan_nranked(p) > 0);
	return p;
}

static double num(const struct report_row *row, const char *name)
{
	long i = report_field_index(report_row_schema(row), name);
	assert_true(i >= 0);
	return report_num(row, (size_t)i);
}

static const char *text(const struct report_row *row, const char *name)
{
	long i = report_field_index(report_row_schema(row), name);
	assert_true(i >= 0);
	return report_text(row, (size_t)i);
}

static void test_choice_values(void **state)
{
	struct workload w;
	struct plan_request req;
	const struct cat_gpu *gpus[2];
	struct plan *p = small_plan(&w, &req, gpus, "llama2-7b", MODEL_TASK_FINETUNE);
	struct report_row *row = report_row_new(plan_choice_schema());
	struct plan_choice c = *plan_ranked(p, 0);
	static const char *const viol[] = {"",      "deadline",       "budget",       "deadline;budget",
					   "power", "deadline;power", "budget;power", "deadline;budget;power"};
	char want[64];
	unsigned v;
	(void)state;

	plan_choice_row(p, plan_ranked(p, 0), row);
	assert_int_equal(num(row, "rank"), 1);
	assert_true(fabs(num(row, "memory_pct") - 100 * c.res.mem.total_bytes / c.res.mem.capacity_bytes) < 1e-9);
	assert_true(num(row, "time_to_finish_s") == c.hours * 3600);
	assert_true(isnan(num(row, "ttft_p99_s"))); /* training: null */
	assert_true(isnan(num(row, "utilisation")));
	assert_true(num(row, "meets_constraints") == 1);
	assert_string_equal(text(row, "violates"), "");
	assert_string_equal(text(row, "estimate_args"), plan_estimate_args(p, &c, (char[2048]){0}, 2048));
	assert_true(!strncmp(text(row, "estimate_args"), "--model llama2-7b --gpu ", 24));

	/* the constraints broken, joined by ';' in a fixed order, the life last; the rack bit is not one of them */
	for (v = 0; v < 32; v++) {
		c.violates = v;
		plan_choice_row(p, &c, row);
		snprintf(want, sizeof(want), "%s%s%s", viol[v & 7], v & PLAN_VIOL_LIFE && v & 7 ? ";" : "",
			 v & PLAN_VIOL_LIFE ? "life" : "");
		assert_string_equal(text(row, "violates"), want);
		assert_true(num(row, "meets_constraints") == (v == 0));
		assert_int_equal(num(row, "rank"), 0); /* a copy is not the ranked choice */
	}
	report_row_free(row);
	plan_free(p);
}

static void test_infer_values(void **state)
{
	struct workload w;
	struct plan_request req;
	const struct cat_gpu *gpus[2];
	struct plan *p;
	struct report_row *row = report_row_new(plan_choice_schema());
	const struct plan_choice *c;
	(void)state;

	p = small_plan(&w, &req, gpus, "llama3-8b", MODEL_TASK_INFER);
	c = plan_ranked(p, 0);
	plan_choice_row(p, c, row);
	assert_true(num(row, "ttft_p99_s") > 0);
	assert_true(num(row, "tpot_s") == c->res.infer.decode_token_s);
	assert_true(num(row, "utilisation") > 0 && num(row, "utilisation") <= 1);
	assert_true(num(row, "time_to_finish_s") == 0);
	assert_true(num(row, "samples_per_s") == c->res.samples_per_s * (c->replicas > 1 ? c->replicas : 1));
	report_row_free(row);
	plan_free(p);
}

/* The keys of a JSON object, comma-joined in their order. */
static char *keys(json_t *o)
{
	char *buf = NULL;
	size_t len = 0;
	const char *k;
	json_t *v;
	FILE *f = open_memstream(&buf, &len);
	json_object_foreach(o, k, v) fprintf(f, "%s%s", ftell(f) ? "," : "", k);
	fclose(f);
	return buf;
}

static void assert_keys(json_t *o, const char *want)
{
	char *got = keys(o);
	assert_string_equal(got, want);
	free(got);
}

static void test_document(void **state)
{
	struct workload w;
	struct plan_request req;
	const struct cat_gpu *gpus[2];
	struct plan *p = small_plan(&w, &req, gpus, "llama2-7b", MODEL_TASK_FINETUNE);
	struct plan_explanation ex;
	json_t *doc, *first;
	char *want;
	(void)state;

	assert_int_equal(plan_explain(p, plan_ranked(p, 0), &ex), 0);
	doc = view_plan_json(p, &ex, NULL, 1);
	assert_keys(
		doc,
		"workload,request,search,ranked,front,nearest_miss,closest_fit,no_layout,explanation,have,all,calibration");
	assert_keys(json_object_get(doc, "workload"),
		    "name,kind,params,task,seq_len,global_batch,train_tokens,train_samples,epochs");
	assert_keys(
		json_object_get(doc, "request"),
		"objective,buy,runs_per_year,provider,max_gpus,precisions,gpus,ecosystem,include_eol,"
		"deadline_s,budget_usd,power_kw,memory_headroom_pct,years,rate_per_s,ttft_target_s,tpot_target_s");
	assert_string_equal(json_string_value(
				    json_array_get(json_object_get(json_object_get(doc, "request"), "gpus"), 1)),
			    "a100-sxm4-80gb");
	assert_true(json_is_null(json_object_get(json_object_get(doc, "request"), "deadline_s")));
	assert_keys(json_object_get(doc, "search"),
		    "hardware_options,fabrics,slots,items,layouts,configurations,"
		    "memory_calls,estimate_calls,bound_calls,threads,wall_s,left_out");
	assert_keys(
		json_object_get(doc, "explanation"),
		"architecture,architecture_text,sizing,rent_or_buy,rent_instance,rent_tier,rent_usd_per_gpu_hour,rent_usd,"
		"own_usd,own_share_usd,own_usd_per_year,own_priced_pct,runs_per_year,own_capex_usd,own_utilisation_pct,"
		"breakeven_utilisation_pct,breakeven_hours_per_year,"
		"breakeven_jobs_per_year,compute_share,"
		"comm_share,bubble_share,data_share,other_share,alternatives,optimisations");
	first = json_array_get(json_object_get(doc, "ranked"), 0);
	want = malloc(sizeof(choice_keys) + 4);
	snprintf(want, sizeof(choice_keys) + 4, "%s,bom", choice_keys);
	assert_keys(first, want);
	free(want);
	assert_true(json_is_object(json_object_get(first, "bom")));
	assert_true(json_is_integer(json_object_get(first, "rank")));
	assert_true(json_is_boolean(json_object_get(first, "on_front")));
	assert_true(json_is_null(json_object_get(doc, "nearest_miss")));
	assert_true(json_array_size(json_object_get(doc, "all")) >= plan_nranked(p));
	json_decref(doc);
	doc = view_plan_json(p, NULL, NULL, 0);
	assert_null(json_object_get(doc, "all"));
	assert_true(json_is_null(json_object_get(doc, "explanation")));
	json_decref(doc);
	plan_explanation_release(&ex);
	plan_free(p);
}

static char *read_all(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb, NULL);
}

/* The report's bill names each part's catalog row whole, however long its source note. */
static void test_report_bill(void **state)
{
	struct workload w;
	struct plan_request req;
	const struct cat_gpu *gpus[2];
	struct plan *p = plan_of(&w, &req, gpus, "llama2-7b", MODEL_TASK_FINETUNE, PLAN_OBJ_TIME, 64);
	const struct plan_choice *c = plan_ranked(p, 0);
	const struct cat_part *sw = c->bom.switch_part;
	struct plan_explanation ex;
	struct strbuf want = STRBUF_INIT;
	struct diag err;
	char path[] = "/tmp/test_plan_fields_XXXXXX", *html, *esc;
	int fd = mkstemp(path);
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	/* the fastest choice spans nodes, so its bill buys switches */
	assert_true(c->has_bom && c->bom.tiers > 0 && sw);
	strbuf_addf(&want, "%s (%s, %s)", sw->row.key, sw->row.source ? sw->row.source : "",
		    sw->row.as_of ? sw->row.as_of : "");
	assert_true(want.len > 320);
	assert_int_equal(plan_explain(p, c, &ex), 0);
	diag_clear(&err);
	assert_int_equal(view_plan_report(p, &ex, NULL, path, &err), 0);
	html = read_all(path);
	esc = html_escape(strbuf_str(&want));
	assert_non_null(strstr(html, esc));
	free(esc);
	free(html);
	strbuf_release(&want);
	unlink(path);
	plan_explanation_release(&ex);
	plan_free(p);
}

/*
 * The explanation's counterfactual sentences say what their figures say:
 * plan_compare_steps() classes two step times by the figures it prints, and
 * on real plans no note prints two equal step times as a change, nor says
 * "longer", "shorter" or "saves more time" against the sign of its ratio.
 */
static void test_compare_steps(void **state)
{
	char buf[96];
	(void)state;
	/* alike at three figures: the same, printed once */
	assert_int_equal(plan_compare_steps(0.02491, 0.02493, buf, sizeof(buf)), PLAN_CMP_SAME);
	assert_string_equal(buf, "0.0249 s either way");
	assert_int_equal(plan_compare_steps(11.3, 11.3, buf, sizeof(buf)), PLAN_CMP_SAME);
	assert_string_equal(buf, "11.3 s either way");
	/* printed apart but within 0.5 %: the same, both printed */
	assert_int_equal(plan_compare_steps(0.1548, 0.1544, buf, sizeof(buf)), PLAN_CMP_SAME);
	assert_string_equal(buf, "0.155 s instead of 0.154 s, within 0.5%");
	/* a change: its ratio, and which way */
	assert_int_equal(plan_compare_steps(0.0256, 0.0249, buf, sizeof(buf)), PLAN_CMP_SLOWER);
	assert_string_equal(buf, "0.0256 s instead of 0.0249 s, 1.03x the time");
	assert_int_equal(plan_compare_steps(2.0, 2.8, buf, sizeof(buf)), PLAN_CMP_FASTER);
	assert_string_equal(buf, "2 s instead of 2.8 s, 0.71x the time");
}

/* "A s instead of B s" in text: both figures, or 0 when there are none. */
static int instead_of(const char *text, double *a, double *b)
{
	const char *s = strstr(text, " s instead of ");
	const char *q;
	if (!s)
		return 0;
	for (q = s; q > text && q[-1] != ' ' && q[-1] != '('; q--)
		;
	*a = strtod(q, NULL);
	*b = strtod(s + strlen(" s instead of "), NULL);
	return 1;
}

/* Every note of the first choice's explanation against its own figures. */
static void check_notes(const char *model, enum model_task task)
{
	struct workload w;
	struct plan_request req;
	struct plan_explanation ex;
	struct plan *p = plan_of(&w, &req, NULL, model, task, PLAN_OBJ_COST, 4096);
	size_t i;

	assert_int_equal(plan_explain(p, plan_ranked(p, 0), &ex), 0);
	for (i = 0; i < ex.nalt; i++) {
		const char *t = ex.alt[i].text;
		double a, b, r = ex.alt[i].ratio_time;
		if (!instead_of(t, &a, &b) || !(ex.alt[i].step_s > 0))
			continue;
		if (strstr(t, "finish in"))
			continue; /* the capex note compares wall times in its own words */
		if (a == b)
			fail_msg("%s: a note prints one figure as a change: %s", model, t);
		if (strstr(t, "be longer") || strstr(t, "saves more time"))
			assert_true(r > 1 + PLAN_CMP_SAME_WITHIN);
		if (strstr(t, "be shorter"))
			assert_true(r < 1 - PLAN_CMP_SAME_WITHIN);
		if (strstr(t, "not change"))
			assert_true(fabs(r - 1) < PLAN_CMP_SAME_WITHIN);
	}
	/* nor is a ratio of 1.00 or a gain of 0.0 % printed as a change */
	for (i = 0; i < ex.nalt; i++)
		if (strstr(ex.alt[i].text, "1.00x the") || strstr(ex.alt[i].text, "gain 0.0%"))
			fail_msg("%s: no change printed as one: %s", model, ex.alt[i].text);
	plan_explanation_release(&ex);
	plan_free(p);
}

/* ResNet-50 (a bridge that changes nothing), Llama 2 70B (a fabric that changes nothing), BERT (ZeRO-3 a tie). */
static void test_notes_follow_figures(void **state)
{
	(void)state;
	check_notes("resnet50", MODEL_TASK_FINETUNE);
	check_notes("llama2-70b", MODEL_TASK_FINETUNE);
	check_notes("bert-large", MODEL_TASK_FINETUNE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schemas),       cmocka_unit_test(test_choice_keys),
		cmocka_unit_test(test_choice_values), cmocka_unit_test(test_infer_values),
		cmocka_unit_test(test_document),      cmocka_unit_test(test_report_bill),
		cmocka_unit_test(test_compare_steps), cmocka_unit_test(test_notes_follow_figures),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
