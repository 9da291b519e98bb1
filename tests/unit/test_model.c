/*
 * The memory and time model: formulas pinned to hand-computed values, and
 * the model's monotonic behaviour (more recompute never raises memory, more
 * TP never raises per-GPU weights, faster links never slow a step), and the
 * 4-bit floating-point formats (bits with their block scales, FP4 against
 * fp8 on Blackwell, the quantisation passes, GPUs without FP4 refused).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "model/model.h"
#include "model/model_int.h"
#include "model/tune.h"
#include "model/vendor.h"

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

static const struct cat_gpu *gpu(const char *key)
{
	const struct cat_gpu *g = catalog_get(cat, CAT_GPUS, key);
	if (!g)
		fail_msg("no gpu %s in the catalog", key);
	return g;
}

static void preset(struct workload *w, const char *name)
{
	struct diag err;
	diag_clear(&err);
	if (workload_preset(w, name, &err))
		fail_msg("preset %s: %s", name, err.msg);
}

/* A config on one server of `n` GPUs of `key`, completed and checked. */
static void config(struct model_config *c, const struct workload *w, const char *key, int n)
{
	struct diag err;
	model_config_defaults(c);
	c->gpu = gpu(key);
	c->precision = c->gpu->bf16_tflops > 0 ? MODEL_BF16 : MODEL_FP16;
	c->gpus = n;
	c->dp = 0;
	c->gpus_per_node = n < 8 ? n : 8;
	model_config_complete(w, c);
	diag_clear(&err);
	if (model_links_from_catalog(c, cat, NULL, n > 8 ? "ib-hdr-8x200" : NULL, &err))
		fail_msg("links: %s", err.msg);
}

static void check_ok(const struct workload *w, const struct model_config *c)
{
	struct diag err;
	diag_clear(&err);
	if (model_config_check(w, c, &err))
		fail_msg("config rejected: %s: %s", err.field, err.msg);
}

/*
 * A GPT-style layer with h = 1024, a = 16, s = 512, b = 2, dropout on, no
 * flash attention: Korthikanti et al. 2022 eq. (1)-(4), per layer:
 *   no parallelism:            s b h (34 + 5 a s / h)   = 1,048,576 x 74 = 77,594,624
 *   tensor parallel t = 2:     s b h (10 + 24/t + 5 a s/(h t)) = 1,048,576 x 42 = 44,040,192
 *   t = 2 + sequence parallel: s b h / t (34 + 5 a s / h)      = 38,797,312
 *   t = 2 + SP + selective:    34 s b h / t                    = 17,825,792
 */
static void estimate_ok(const struct workload *w, const struct model_config *c, struct model_result *r)
{
	check_ok(w, c);
	assert_int_equal(model_estimate(w, c, r), 0);
}

static void test_korthikanti_activations(void **state)
{
	struct workload w;
	struct workload_dims d;
	struct model_config c;
	struct model_memory m;
	struct diag err;
	(void)state;
	memset(&d, 0, sizeof(d));
	d.layers = 2;
	d.hidden = 1024;
	d.heads = 16;
	d.ffn_hidden = 4096;
	d.vocab = 1000;
	d.seq_len = 512;
	d.max_seq = 512;
	d.causal = 1;
	d.learned_pos = 1;
	d.has_bias = 1;
	d.dropout = 0.1;
	diag_clear(&err);
	assert_int_equal(workload_from_dims(&w, "gpt", &d, &err), 0);
	config(&c, &w, "a100-sxm4-80gb", 1);
	c.flash = 0;
	c.micro_batch = 2;
	c.global_batch = 2;
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_true(m.activations_layer_bytes == 77594624.0);

	config(&c, &w, "a100-sxm4-80gb", 2);
	c.flash = 0;
	c.tp = 2;
	c.dp = 1;
	c.micro_batch = 2;
	c.global_batch = 2;
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_true(m.activations_layer_bytes == 44040192.0);
	c.seq_parallel = 1;
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_true(m.activations_layer_bytes == 38797312.0);
	c.recompute = MODEL_RECOMPUTE_SELECTIVE;
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_true(m.activations_layer_bytes == 17825792.0);
}

/*
 * Llama 2 7B, bf16 AdamW on one GPU: 6,738,415,616 parameters x 2 B
 * weights, x 4 B gradients, x 12 B master + moments (18 B/parameter).
 * ZeRO-3 over 8 shards each by 8.  LoRA: frozen 2 B weights only.
 */
static void test_weights_and_states(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_memory m;
	const double P = 6738415616.0;
	(void)state;
	preset(&w, "llama2-7b");
	config(&c, &w, "a100-sxm4-80gb", 1);
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_true(m.weights_bytes == P * 2);
	assert_true(m.gradients_bytes == P * 4);
	assert_true(m.optimizer_bytes == P * 12);

	config(&c, &w, "a100-sxm4-80gb", 8);
	c.zero = 3;
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_true(fabs(m.weights_bytes - P * 2 / 8) < 1);
	assert_true(fabs(m.optimizer_bytes - P * 12 / 8) < 1);

	config(&c, &w, "a100-sxm4-80gb", 1);
	c.task = MODEL_TASK_LORA;
	model_config_complete(&w, &c);
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_true(m.weights_bytes == P * 2);
	assert_true(m.gradients_bytes == 0 && m.optimizer_bytes == 0);
	/* rank 16 adapters on every linear layer: 16 x 32 x (4 x 8192 + 3 x 15104) x 16 B */
	assert_true(m.lora_bytes == 16.0 * 32 * (4 * 8192.0 + 3 * 15104.0) * 16);

	/* QLoRA: block matrices at 4.127 bits, embeddings and head in 16-bit */
	c.task = MODEL_TASK_QLORA;
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_true(m.weights_bytes < P * 0.6 && m.weights_bytes > P * 0.5);
}

/* Llama 2 70B (8 KV heads of 128): KV cache 2 x 80 x 1024 x 4096 tokens x 2 B. */
static void test_kv_cache(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_memory m;
	(void)state;
	preset(&w, "llama2-70b");
	model_config_defaults(&c);
	c.gpu = gpu("h100-sxm5-80gb");
	c.gpus = 8;
	c.gpus_per_node = 8;
	c.tp = 8;
	c.task = MODEL_TASK_INFER;
	c.batch = 1;
	c.prompt_len = 4000;
	c.output_len = 96;
	model_config_complete(&w, &c);
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &m), 0);
	/* tp 8 splits the 8 KV heads: one head (128) per GPU */
	assert_true(m.kv_cache_bytes == 2.0 * 80 * 128 * 4096 * 2);
	c.kv_precision = MODEL_FP8;
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_true(m.kv_cache_bytes == 2.0 * 80 * 128 * 4096 * 1);
}

/*
 * DeepSeek-V3's latent attention caches kv_lora_rank + qk_rope_dim = 576
 * elements per token per layer, whole on every TP rank: 61 x 576 x 4096
 * tokens x 2 B at tp 8, the same at tp 1 (not split by head).
 */
static void test_mla_kv_cache(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_memory m;
	struct model_result r;
	(void)state;
	preset(&w, "deepseek-v3");
	model_config_defaults(&c);
	c.gpu = gpu("h200-sxm-141gb");
	c.gpus = 8;
	c.gpus_per_node = 8;
	c.tp = 8;
	c.task = MODEL_TASK_INFER;
	c.batch = 1;
	c.prompt_len = 4000;
	c.output_len = 96;
	c.weight_precision = MODEL_FP8;
	model_config_complete(&w, &c);
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_true(m.kv_cache_bytes == 61.0 * 576 * 4096 * 2);
	assert_int_equal(model_estimate(&w, &c, &r), 0);
	/* decode reads the latent of the mean context 4000 + 96/2 tokens */
	assert_true(fabs(r.infer.decode_kv_bytes - 61.0 * 576 * 4048 * 2) < 1);
}

/*
 * MoE parallel folding: ep x etp divides tp x cp x dp.  DeepSeek-V3 on 64
 * GPUs at tp 8, dp 8: ep 64 with etp 1 is a layout, ep 64 with etp = tp is
 * not; the experts' memory falls as ep grows, and its ZeRO shard is over
 * the expert-data-parallel ranks only.
 */
static void test_ep_folding(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_memory m8, m64;
	struct diag err;
	(void)state;
	preset(&w, "deepseek-v3");
	config(&c, &w, "h100-sxm5-80gb", 64);
	c.tp = 8;
	c.pp = 8;
	c.dp = 1;
	c.gpus = 64;
	c.ep = 8;
	c.etp = 1;
	c.zero = 1;
	c.micro_batch = 1;
	c.global_batch = 64;
	c.seq_len = 4096;
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &m8), 0);
	c.ep = 16;
	diag_clear(&err);
	assert_int_equal(model_config_check(&w, &c, &err), -1);
	assert_string_equal(err.field, "ep");
	assert_non_null(strstr(err.msg, "8 x 1 x 1 = 8"));
	c.ep = 8;
	c.etp = 3;
	assert_int_equal(model_config_check(&w, &c, &err), -1);
	assert_string_equal(err.field, "etp");
	/* 8 stages of 8 GPUs: tp 1, dp 8; ep 8 with etp 1 folds over the dp ranks */
	c.tp = 1;
	c.dp = 8;
	c.etp = 0;
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &m64), 0);
	/* ZeRO-1 over dp 8 shards the dense states; the experts' have edp = 1: none */
	{
		double lay = 8; /* ceil(61 / 8) layers on the first stage */
		double xp = lay * 58.0 / 61 * 256 / 8 * 3.0 * 7168 * 2048;
		assert_true(m64.optimizer_bytes > xp * 12 * 0.999);
	}
}

/*
 * Microbenchmarks: a large GEMM at emax x s(m) s(n) s(k) x wave of peak:
 * A100 fp16 8192^3 = 312 x 0.85 x (8192/8288)^3 x 4096 tiles in 38 waves
 * of 108 SMs; a skinny GEMM (m = 1) is bound by reading its 8192^2 weights
 * at 0.86 x 2039 GB/s.
 */
static void test_microbenchmarks(void **state)
{
	const struct cat_gpu *a100 = gpu("a100-sxm4-80gb");
	double s = 8192.0 / 8288.0, skinny;
	struct model_config c;
	(void)state;
	assert_true(fabs(model_gemm_tflops(a100, MODEL_FP16, 8192, 8192, 8192) -
			 312 * 0.85 * s * s * s * 4096 / (38 * 108)) < 0.01);
	skinny = 2.0 * 8192 * 8192 / (2.0 * (8192 + 8192.0 * 8192 + 8192) / (2039e9 * 0.86)) / 1e12;
	assert_true(fabs(model_gemm_tflops(a100, MODEL_FP16, 1, 8192, 8192) - skinny) < 1e-6);
	assert_true(fabs(model_hbm_gbps(a100) - 2039 * 0.86) < 1e-9);
	/* 8 GPUs on NVSwitch gen 2: busbw = 0.77 x 300 GB/s, less the fixed latency */
	model_config_defaults(&c);
	c.gpu = a100;
	c.gpus = 8;
	c.gpus_per_node = 8;
	assert_int_equal(model_links_from_catalog(&c, cat, NULL, NULL, NULL), 0);
	assert_int_equal(c.intra_kind, MODEL_LINK_NVSWITCH);
	assert_int_equal(c.intra_nvls, 0);
	assert_true(fabs(model_allreduce_busbw_gbps(&c) - 231) < 0.5);
}

static void test_network_spec(void **state)
{
	struct model_config c;
	struct diag err;
	int n;
	double g;
	const struct cat_link *fab;
	char why[256];
	(void)state;
	assert_int_equal(model_parse_network(cat, "ib-hdr-8x200", &n, &g, &fab, why, sizeof(why)), 0);
	assert_int_equal(n, 8);
	assert_true(g == 200);
	assert_string_equal(fab->row.key, "ib-hdr");
	assert_int_equal(model_parse_network(cat, "roce-4x400", &n, &g, &fab, why, sizeof(why)), 0);
	assert_string_equal(fab->row.key, "roce-400");
	assert_int_equal(model_parse_network(cat, "nvlink4", &n, &g, &fab, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a scale-out"));
	model_config_defaults(&c);
	c.gpu = gpu("h100-sxm5-80gb");
	c.gpus = 16;
	c.gpus_per_node = 8;
	diag_clear(&err);
	assert_int_equal(model_links_from_catalog(&c, cat, NULL, "ib-ndr-8x400", &err), 0);
	assert_true(c.inter_gbps_per_gpu == 50);
	assert_int_equal(c.intra_nvls, 1);
	assert_int_equal(model_links_from_catalog(&c, cat, NULL, "warp-drive", &err), -1);
	assert_string_equal(err.field, "network");
}

/* The layout iterator gives exactly the pairs the rules admit. */
static void test_layout_iterator(void **state)
{
	struct workload w;
	struct model_layout_iter it;
	int n = 0, tp, pp;
	(void)state;
	preset(&w, "llama2-7b"); /* 32 heads, MLP 11008, 32 layers */
	model_layout_begin(&it, &w, 16, 8, 1);
	while (model_layout_next(&it)) {
		assert_true(model_tp_valid(&w, it.tp) && it.tp <= 8);
		assert_true(w.d.layers % it.pp == 0);
		assert_int_equal(it.tp * it.pp * it.dp, 16);
		n++;
	}
	/* brute force: tp in 1,2,4,8 and pp dividing 16/tp and 32 */
	for (tp = 1; tp <= 8; tp *= 2)
		for (pp = 1; pp <= 16 / tp; pp++)
			n -= (16 / tp) % pp == 0 && 32 % pp == 0;
	assert_int_equal(n, 0);
}

/* The resolver holds the defaults: precision, flash attention, explicit zeros. */
static void test_resolve_defaults(void **state)
{
	struct workload w;
	struct model_request q;
	struct model_config c;
	struct model_notes notes;
	struct diag err;
	(void)state;
	preset(&w, "llama2-7b");
	model_request_init(&q);
	q.gpu = gpu("v100-sxm2-32gb");
	q.task = MODEL_TASK_INFER;
	q.output_len = 0;
	diag_clear(&err);
	assert_int_equal(model_resolve(&w, cat, &q, &c, &notes, &err), 0);
	assert_int_equal(c.precision, MODEL_FP16);
	assert_int_equal(c.kv_precision, MODEL_FP16);
	assert_int_equal(c.flash, 0);
	assert_int_equal(c.output_len, 0);
	assert_int_equal(notes.n, 0);
	model_notes_release(&notes);

	model_request_init(&q);
	q.gpu = gpu("h100-sxm5-80gb");
	q.gpus = 16;
	q.dp = 16;
	assert_int_equal(model_resolve(&w, cat, &q, &c, &notes, &err), 0);
	assert_int_equal(c.precision, MODEL_BF16);
	assert_int_equal(c.flash, 1);
	assert_int_equal(c.gpus_per_node, 8);
	assert_true(c.inter_gbps_per_gpu > 0);
	/* the network assumed, and the ZeRO stage chosen for the given layout */
	assert_int_equal(notes.n, 2);
	assert_non_null(strstr(notes.text[0], "assumed"));
	assert_non_null(strstr(notes.text[1], "no --zero"));
	model_notes_release(&notes);
}

/*
 * Transformer Engine fp8 casts each linear layer's input (and a transposed
 * copy) in kernels of their own: fp8 training moves more memory-bound bytes
 * than bf16 on H100 and MI300X; Gaudi 2 converts inside its matrix engines.
 */
static void test_fp8_casts_cost_memory_time(void **state)
{
	static const char *const gpus[] = {"h100-sxm5-80gb", "mi300x-192gb", "gaudi2-96gb"};
	struct workload w;
	struct model_config c;
	struct model_result b, f;
	size_t i;
	(void)state;
	preset(&w, "llama2-7b");
	for (i = 0; i < 3; i++) {
		config(&c, &w, gpus[i], 8);
		c.recompute = MODEL_RECOMPUTE_FULL;
		estimate_ok(&w, &c, &b);
		c.precision = MODEL_FP8;
		estimate_ok(&w, &c, &f);
		if (i < 2)
			assert_true(f.time.memory_bound_s > 1.3 * b.time.memory_bound_s);
		else
			assert_true(fabs(f.time.memory_bound_s / b.time.memory_bound_s - 1) < 1e-9);
	}
}

/*
 * A layout given without --zero still gets its stage by the layout
 * picker's rule: llama2-13b over 8 A100-80GB in pure data parallelism does
 * not fit without sharding (16 B per parameter of weights, gradients and
 * AdamW states is 208 GB), so a sharded stage wins.  LoRA and per-sample
 * networks keep stage 0, as the picker leaves them.
 */
static void test_resolve_zero_for_given_layout(void **state)
{
	struct workload w;
	struct model_request q;
	struct model_config c;
	struct model_notes notes;
	struct diag err;
	(void)state;
	preset(&w, "llama2-13b");
	model_request_init(&q);
	q.gpu = gpu("a100-sxm4-80gb");
	q.gpus = 8;
	q.tp = 1;
	diag_clear(&err);
	assert_int_equal(model_resolve(&w, cat, &q, &c, &notes, &err), 0);
	assert_int_equal(c.dp, 8);
	assert_true(c.zero >= 1);
	{
		struct model_memory m;
		assert_int_equal(model_memory(&w, &c, &m), 0);
		assert_true(m.fits);
	}
	model_notes_release(&notes);
	q.zero = 0;
	assert_int_equal(model_resolve(&w, cat, &q, &c, &notes, &err), 0);
	assert_int_equal(c.zero, 0);
	model_notes_release(&notes);
	q.zero = MODEL_UNSET;
	q.task = MODEL_TASK_LORA;
	assert_int_equal(model_resolve(&w, cat, &q, &c, &notes, &err), 0);
	assert_int_equal(c.zero, 0);
	model_notes_release(&notes);
	preset(&w, "resnet50");
	model_request_init(&q);
	q.gpu = gpu("a100-sxm4-80gb");
	q.gpus = 8;
	q.dp = 8;
	assert_int_equal(model_resolve(&w, cat, &q, &c, &notes, &err), 0);
	assert_int_equal(c.zero, 0);
	model_notes_release(&notes);
}

static void test_config_errors_name_flags(void **state)
{
	struct workload w;
	struct model_config c;
	struct diag err;
	(void)state;
	preset(&w, "llama2-7b");
	config(&c, &w, "a100-sxm4-80gb", 6);
	c.tp = 3;
	c.dp = 2;
	diag_clear(&err);
	assert_int_equal(model_config_check(&w, &c, &err), -1);
	assert_string_equal(err.field, "tp");
	assert_non_null(strstr(err.msg, "--tp 3"));
	assert_non_null(strstr(err.msg, "32 attention heads"));

	config(&c, &w, "a100-sxm4-80gb", 8);
	c.dp = 4;
	assert_int_equal(model_config_check(&w, &c, &err), -1);
	assert_string_equal(err.field, "gpus");

	config(&c, &w, "a100-sxm4-80gb", 33);
	c.pp = 33;
	c.dp = 1;
	assert_int_equal(model_config_check(&w, &c, &err), -1);
	assert_string_equal(err.field, "pp");
	assert_non_null(strstr(err.msg, "32 layers"));
	/* uneven stages are a layout: 3 stages of 11, 11 and 10 layers */
	config(&c, &w, "a100-sxm4-80gb", 3);
	c.pp = 3;
	c.dp = 1;
	check_ok(&w, &c);
	assert_true(model_stage_layers(&w, &c) == 11);

	config(&c, &w, "v100-sxm2-16gb", 1);
	c.precision = MODEL_BF16;
	assert_int_equal(model_config_check(&w, &c, &err), -1);
	assert_string_equal(err.field, "precision");
	assert_non_null(strstr(err.msg, "fp16"));

	config(&c, &w, "a100-sxm4-80gb", 16);
	c.inter_gbps_per_gpu = 0;
	assert_int_equal(model_config_check(&w, &c, &err), -1);
	assert_string_equal(err.field, "network");

	config(&c, &w, "a100-sxm4-80gb", 8);
	c.global_batch = 12;
	assert_int_equal(model_config_check(&w, &c, &err), -1);
	assert_string_equal(err.field, "global-batch");
}

/*
 * Pipeline: bubble = (p - 1)/v micro-batch times (Narayanan 2021); MFU is
 * a fraction; HFU counts the recomputed forward, so it exceeds MFU.
 */
/* model_estimate_mem() with model_memory()'s answer is model_estimate(). */
static void test_estimate_with_known_memory(void **state)
{
	static const char *const presets[] = {"llama2-13b", "mixtral-8x7b", "resnet50"};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		struct workload w;
		struct model_config c;
		struct model_memory m;
		struct model_result a, b;
		preset(&w, presets[i]);
		config(&c, &w, "h100-sxm5-80gb", 8);
		c.zero = 3;
		check_ok(&w, &c);
		assert_int_equal(model_memory(&w, &c, &m), 0);
		assert_int_equal(model_estimate(&w, &c, &a), 0);
		assert_int_equal(model_estimate_mem(&w, &c, &m, &b), 0);
		assert_true(a.time.step_s == b.time.step_s);
		assert_true(a.mem.total_bytes == b.mem.total_bytes);
		assert_true(a.mem.fits == b.mem.fits);
		assert_true(a.samples_per_s == b.samples_per_s);
		assert_true(a.mfu == b.mfu);
		assert_true(a.energy_kwh == b.energy_kwh);
		assert_true(a.limits == b.limits);
	}
}

/*
 * fp8 training casts the linear layers only: the attention matmuls run at
 * the 16-bit rate (flash or not), so attention takes as long as under bf16
 * while the GEMMs speed up.  Inference with an fp8 KV cache runs fp8
 * attention.
 */
static void test_fp8_attention_at_16bit_rate(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_result b, f;
	int flash;
	(void)state;
	preset(&w, "llama2-7b");
	for (flash = 0; flash <= 1; flash++) {
		config(&c, &w, "h100-sxm5-80gb", 8);
		c.flash = flash;
		c.recompute = MODEL_RECOMPUTE_FULL;
		estimate_ok(&w, &c, &b);
		c.precision = MODEL_FP8;
		estimate_ok(&w, &c, &f);
		assert_true(f.time.gemm_s < 0.8 * b.time.gemm_s);
		assert_true(fabs(f.time.attention_s / b.time.attention_s - 1) < 1e-9);
	}
	/* serving with an fp8 KV cache: fp8 attention, a shorter prefill than with a bf16 cache */
	config(&c, &w, "h100-sxm5-80gb", 1);
	c.task = MODEL_TASK_INFER;
	c.precision = MODEL_FP8;
	c.batch = 8;
	c.prompt_len = 4096;
	c.output_len = 1;
	c.kv_precision = MODEL_BF16;
	estimate_ok(&w, &c, &b);
	c.kv_precision = MODEL_FP8;
	estimate_ok(&w, &c, &f);
	assert_true(f.infer.prefill_s < b.infer.prefill_s);
}

/*
 * Eager modelling code without flash attention scales the scores and adds
 * the mask as kernels of their own; a fused engine folds both into the
 * softmax.  The difference is traffic over the a s^2 b score elements, so
 * it grows 4 x when the sequence doubles at the same micro-batch.
 */
static void test_eager_attention_scale_and_mask_apart(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_result e, f;
	double diff[2];
	int i;
	(void)state;
	preset(&w, "bert-large");
	for (i = 0; i < 2; i++) {
		config(&c, &w, "a100-sxm4-80gb", 1);
		c.task = MODEL_TASK_FINETUNE;
		c.precision = MODEL_FP16;
		c.flash = 0;
		c.seq_len = 256 << i;
		c.micro_batch = 8;
		c.global_batch = 8;
		c.engine = MODEL_ENGINE_EAGER;
		estimate_ok(&w, &c, &e);
		c.engine = MODEL_ENGINE_COMPILE;
		estimate_ok(&w, &c, &f);
		diff[i] = e.time.attention_s - f.time.attention_s;
		assert_true(diff[i] > 0.05 * f.time.attention_s);
		/* with flash attention nothing is apart */
		c.flash = 1;
		estimate_ok(&w, &c, &f);
		c.engine = MODEL_ENGINE_EAGER;
		estimate_ok(&w, &c, &e);
		assert_true(fabs(e.time.attention_s - f.time.attention_s) < 1e-12);
	}
	assert_true(fabs(diff[1] / diff[0] - 4) < 1e-6);
}

/*
 * A board whose catalog row gives its measured 16-bit GEMM ceiling runs an
 * 8192^3 product at exactly that rate, and its other tensor-core precisions
 * by the same factor; FP32 keeps its generation's fraction, and a board
 * without the figure is its generation's.
 */
static void test_board_gemm_ceiling(void **state)
{
	static const char *const keys[] = {"rtx-4090-24gb", "rtx-3090-24gb", "rtx-a6000-48gb", "l40s-48gb",
					   "t4-16gb"};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct cat_gpu *g = gpu(keys[i]);
		struct cat_gpu bare = *g;
		enum model_precision p = g->bf16_tflops > 0 ? MODEL_BF16 : MODEL_FP16;
		double f;
		assert_true(g->gemm16_tflops > 0);
		bare.gemm16_tflops = NAN;
		atomic_store(&bare.model_vendor_row, 0);
		assert_true(fabs(model_gemm_tflops(g, p, 8192, 8192, 8192) / g->gemm16_tflops - 1) < 1e-9);
		f = model_gemm_tflops(g, p, 8192, 8192, 8192) / model_gemm_tflops(&bare, p, 8192, 8192, 8192);
		assert_true(fabs(f - 1) > 0.005);
		if (g->fp8_tflops > 0)
			assert_true(fabs(model_gemm_tflops(g, MODEL_FP8, 8192, 8192, 8192) /
						 model_gemm_tflops(&bare, MODEL_FP8, 8192, 8192, 8192) -
					 f) < 1e-9);
		assert_true(fabs(model_gemm_tflops(g, MODEL_FP32, 8192, 8192, 8192) /
					 model_gemm_tflops(&bare, MODEL_FP32, 8192, 8192, 8192) -
				 1) < 1e-12);
	}
	assert_true(isnan(gpu("a100-sxm4-80gb")->gemm16_tflops));
}

/*
 * --autocast on (docs/model.md, "Autocast in eager code") adds a count of
 * bytes: per token of each layer (16 + 6n) h forward and (36 + 6n) h
 * backward, n = 4 linears casting a norm's output in BERT (Q, K, V, MLP
 * up), the 12 h^2 weights cast forward and their gradients backward at 6 B
 * each, and per score element 12 + 4m forward and 18 + 4m backward of
 * unfused attention; all over the stream bandwidth, at two sequence
 * lengths.  With flash attention the attention term is 0 and the rest is
 * unchanged.  Activations: the fp32 norm inputs (+2 B twice), the two
 * further 16-bit cast copies (+4 B) and P in fp32 beside AV's cast
 * (4 + m + 2 for e + m + m e) per score element.
 */
static void test_autocast_counted_bytes(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_result off, on;
	struct hw h;
	int i, f;
	(void)state;
	preset(&w, "bert-large");
	for (i = 0; i < 2; i++)
		for (f = 0; f < 2; f++) {
			double hd = w.d.hidden, L = w.d.layers, n = 4, m = w.d.dropout > 0 ? 1 : 0, T, el, mem,
			       attn;
			config(&c, &w, "a100-sxm4-80gb", 1);
			c.task = MODEL_TASK_FINETUNE;
			c.precision = MODEL_FP16;
			c.flash = f;
			c.seq_len = 128 << (2 * i);
			c.micro_batch = c.global_batch = 32 >> (2 * i);
			estimate_ok(&w, &c, &off);
			c.autocast = 1;
			estimate_ok(&w, &c, &on);
			assert_int_equal(hw_of(&c, &h), 0);
			T = (double)c.micro_batch * c.seq_len;
			el = T * w.d.heads * c.seq_len;
			mem = L * (T * (16 + 6 * n + 36 + 6 * n) * hd + 2 * 6 * 12 * hd * hd) * h.inv_bw;
			attn = f ? 0 : L * el * (12 + 4 * m + 18 + 4 * m) * h.inv_bw;
			assert_true(fabs(on.time.memory_bound_s - off.time.memory_bound_s - mem) < 1e-9 * mem);
			assert_true(fabs(on.time.attention_s - off.time.attention_s - attn) <
				    1e-9 * (attn + 1e-3));
			assert_true(fabs(on.mem.activations_bytes - off.mem.activations_bytes -
					 L * (8 * T * hd + (f ? 0 : el * (4 - 2 * m)))) <
				    1e-6 * on.mem.activations_bytes);
			assert_true(on.time.step_s > off.time.step_s);
		}
}

/*
 * --mlm-head all runs BERT's output layer over every position, where the
 * default gathers the masked 15 % first.  A fine-tuned encoder has no
 * vocabulary head, so pretrain minus finetune is the masked head alone:
 * its GEMMs (forward and both gradients) and its 24 B a logit of traffic.
 * Over every position those cost 1/0.15 times as much, so `all` is dearer
 * than `masked` by (1/0.15 - 1) times the masked head: exactly for the
 * logit traffic, the logits' memory and the model FLOPs (6 h V a token
 * of the unmasked 85 %), and within 5 % for the GEMMs, whose shape
 * roofline prices m + x0 rows and whole waves of tiles (2.7 % short at
 * 32,768 tokens, 4,915 of them masked).
 */
static void test_mlm_head_over_every_position(void **state)
{
	const double k = 1 / MODEL_MLM_SHARE - 1;
	struct workload w;
	struct model_config c;
	struct model_result ft, masked, all;
	double T;
	(void)state;
	preset(&w, "bert-base");
	config(&c, &w, "a100-sxm4-80gb", 1);
	c.seq_len = 128;
	c.micro_batch = c.global_batch = 256;
	c.task = MODEL_TASK_FINETUNE;
	estimate_ok(&w, &c, &ft);
	c.task = MODEL_TASK_PRETRAIN;
	estimate_ok(&w, &c, &masked);
	c.mlm_head = MODEL_MLM_HEAD_ALL;
	estimate_ok(&w, &c, &all);
	T = (double)c.global_batch * c.seq_len;

	assert_true(masked.time.gemm_s > ft.time.gemm_s);
	assert_true(fabs((all.time.memory_bound_s - masked.time.memory_bound_s) -
			 k * (masked.time.memory_bound_s - ft.time.memory_bound_s)) <
		    1e-9 * all.time.memory_bound_s);
	assert_true(fabs((all.time.gemm_s - masked.time.gemm_s) / (k * (masked.time.gemm_s - ft.time.gemm_s)) -
			 1) < 0.05);
	assert_true(fabs(all.mem.logits_bytes * MODEL_MLM_SHARE / masked.mem.logits_bytes - 1) < 1e-9);
	assert_true(fabs((all.model_flops_per_step - masked.model_flops_per_step) /
				 (3 * 2.0 * w.d.hidden * w.d.vocab * T * (1 - MODEL_MLM_SHARE)) -
			 1) < 1e-9);
	assert_true(all.time.step_s > masked.time.step_s);
}

/*
 * The vendor row is resolved once per GPU and kept in the catalog row: a
 * second lookup returns the same row without reading the names again, a
 * new row (zeroed) resolves afresh, and an unknown architecture falls back
 * by ecosystem.
 */
static void test_vendor_row_resolved_once(void **state)
{
	struct cat_gpu g;
	const struct model_vendor_eff *a, *b;
	(void)state;
	memset(&g, 0, sizeof(g));
	g.arch = "hopper";
	a = model_vendor_eff(&g);
	assert_string_equal(a->arch, "hopper");
	assert_true(atomic_load(&g.model_vendor_row) > 0);
	g.arch = "gaudi2";
	b = model_vendor_eff(&g);
	assert_ptr_equal(a, b);
	memset(&g, 0, sizeof(g));
	g.arch = "no-such-arch";
	g.ecosystem = "rocm";
	assert_string_equal(model_vendor_eff(&g)->arch, "*rocm");
	assert_ptr_equal(model_vendor_eff(gpu("h100-sxm5-80gb")), a);
	assert_string_equal(model_vendor_eff(NULL)->arch, "*cuda");
}

/*
 * FSDP's prefetched gathers hide under a long enough compute, but still
 * cost the step the SM share they take from it, never nothing; short of
 * cover, the uncovered part shows.
 */
static void test_zero3_hidden_gathers_still_cost(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_result r;
	(void)state;
	preset(&w, "llama2-13b");
	config(&c, &w, "h100-sxm5-80gb", 8);
	c.zero = 3;
	c.recompute = MODEL_RECOMPUTE_FULL;
	c.micro_batch = 8;
	c.global_batch = 64;
	estimate_ok(&w, &c, &r);
	assert_true(r.time.dp_comm_total_s > 0);
	assert_true(r.time.dp_comm_total_s < 0.5 * r.time.compute_s);
	/* hidden: the SM share of every collective, a little more for the first gather and last reduce */
	assert_true(r.time.zero_comm_s >= TUNE_ZERO3_SM_SHARE * r.time.dp_comm_total_s);
	assert_true(r.time.zero_comm_s < 0.5 * r.time.dp_comm_total_s);
	c.micro_batch = 1;
	c.global_batch = 8;
	c.gpus_per_node = 1;
	{
		struct diag err;
		diag_clear(&err);
		assert_int_equal(model_links_from_catalog(&c, cat, NULL, "ib-hdr-1x200", &err), 0);
	}
	estimate_ok(&w, &c, &r);
	assert_true(r.time.zero_comm_s > 0.5 * r.time.dp_comm_total_s);
}

/* Two servers of 8 A100 on 8 x HDR each, links set by hand (model_int.h's ZeRO-3 per layer). */
static void zero3_hand_config(struct model_config *c)
{
	model_config_defaults(c);
	c->gpus = 16;
	c->gpus_per_node = 8;
	c->dp = 16;
	c->zero = 3;
	c->intra_kind = MODEL_LINK_NVSWITCH;
	c->intra_gbps = 300;
	c->intra_lat_us = 1;
	c->inter_gbps_per_gpu = 25;
	c->inter_lat_us = 1;
}

/*
 * ZeRO-3 per layer, by hand: 4 layers of 1 GB over 16 ranks on 2 servers,
 * forward 4 ms and backward 8 ms a layer.  The ring crosses servers on all
 * 8 NICs: 8 x 25 GB/s x 0.86 = 172 GB/s (under NVLink's 300 x 0.77); each
 * collective t = 10 us + 15/16 x 1e9 / 172e9 + NCCL's Simple-protocol ring
 * hops, 14 inside a server at 3.4 us and 1 between them at 9.6 us (57.2 us).
 * Forward hides a gather under 4 ms, backward a gather and a reduce under
 * 8 ms, each adding max(c - t, 0.35 c); the first gather and the last
 * reduce add in full.  Without resharding the backward has no gather.
 */
static void test_zero3_per_layer_by_hand(void **state)
{
	struct model_config c;
	struct zero3_layers z = {4, 1e9, 0, 4e-3, 8e-3, 4};
	struct zero3_time t;
	double ag = 10e-6 + 15.0 / 16 * 1e9 / (8 * 25e9 * 0.86) + 57.2e-6; /* 5.5178 ms */
	double f = fmax(ag - 4e-3, 0.35 * ag), b = fmax(2 * ag - 8e-3, 0.35 * 2 * ag);
	(void)state;
	assert_true(fabs(TUNE_ZERO3_SM_SHARE - 0.35) < 1e-12);
	zero3_hand_config(&c);
	zero3_time(&c, &z, &t);
	assert_true(fabs(t.ag_s - ag) < 1e-12);
	assert_true(fabs(t.rs_s - ag) < 1e-12);
	assert_true(t.ar_s == 0);
	assert_true(fabs(t.total_s - 4 * 3 * ag) < 1e-12);
	assert_true(fabs(t.exposed_s - (2 * ag + 3 * (f + b))) < 1e-12);
	assert_true(fabs(t.exposed_s - 28.417e-3) < 1e-5); /* 11.036 + 3 x (1.931 + 3.862) ms */

	/* --reshard-after-forward off: the backward hides a reduce alone, max(5.47 - 8, 0.35 x 5.47) */
	c.reshard_after_forward = 0;
	zero3_time(&c, &z, &t);
	assert_true(fabs(t.total_s - 4 * 2 * ag) < 1e-12);
	assert_true(fabs(t.exposed_s - (2 * ag + 3 * (f + 0.35 * ag))) < 1e-12);

	/*
	 * --hsdp 8: gathers and reduces inside a server (7/8 x 1e9 / 231e9 + 10 us +
	 * 2 ceil(log2 8) x 1 us), and each eighth all-reduced over the 2 replicas on
	 * one NIC's share, 2 x 1/2 x 1.25e8 / 21.5e9 + 10 us + a ring's 2 network
	 * hops at 9.6 us, x 1.9 (NCCL's plateau; the tree's 2 x 50 us is dearer).
	 */
	c.reshard_after_forward = 1;
	c.hsdp = 8;
	zero3_time(&c, &z, &t);
	ag = 10e-6 + 7.0 / 8 * 1e9 / (300e9 * 0.77) + 6e-6;
	assert_true(fabs(t.ag_s - ag) < 1e-12);
	assert_true(fabs(t.ar_s - (10e-6 + 1.25e8 / (25e9 * 0.86) + 1.9 * 2 * 9.6e-6)) < 1e-12);
	assert_true(fabs(t.exposed_s - (2 * ag + t.ar_s +
					3 * (fmax(ag - 4e-3, 0.35 * ag) +
					     fmax(2 * ag + t.ar_s - 8e-3, 0.35 * (2 * ag + t.ar_s))))) < 1e-12);
	/* hide(): a collective the compute covers costs its SM share, one it does not its excess */
	assert_true(zero3_hide_s(10, 20, 0.35) == 3.5);
	assert_true(zero3_hide_s(10, 2, 0.35) == 8);
	assert_true(zero3_hide_s(0, 2, 0.35) == 0);
}

/*
 * --zero3-impl deepspeed-2021 on the same 16 ranks: each of the 4 matrices
 * of a 1 GB layer gathered alone, 10 us + 15/16 x 2.5e8 / 172e9 + 57.2 us of
 * ring hops, plus 380 us of host and 16 x 60 us of per-rank copies; the
 * gradients one bucket (1 GB = 5e8 16-bit elements) all-reduced, 10 us +
 * 2 x 15/16 x 1e9 / 172e9 + the ring's 1.9 x (28 x 3.4 + 2 x 9.6) us (the
 * tree's 2 (7 x 28 + 50) us is dearer).  All exposed: 4 layers x (2 gathers
 * + 1 all-reduce).
 */
static void test_zero3_deepspeed_by_hand(void **state)
{
	struct model_config c;
	struct zero3_layers z = {4, 1e9, 0, 4e-3, 8e-3, 4};
	struct zero3_time t;
	double ag = 4 * (10e-6 + 15.0 / 16 * 2.5e8 / 172e9 + 57.2e-6 + 380e-6 + 16 * 60e-6); /* 11.08 ms */
	double ar = 10e-6 + 2 * 15.0 / 16 * 1e9 / 172e9 + 1.9 * 114.4e-6;                    /* 11.13 ms */
	(void)state;
	assert_true(fabs(TUNE_DS_RANK_COPY_S - 60e-6) < 1e-15);
	zero3_hand_config(&c);
	c.zero3_impl = MODEL_ZERO3_DEEPSPEED_2021;
	zero3_time(&c, &z, &t);
	assert_true(fabs(t.ag_s - ag) < 1e-12);
	assert_true(fabs(t.ar_s - ar) < 1e-12);
	assert_true(t.rs_s == 0);
	assert_true(fabs(t.total_s - 4 * (2 * ag + ar)) < 1e-12);
	assert_true(fabs(t.exposed_s - t.total_s) < 1e-15);
	assert_true(fabs(t.exposed_s - 0.1331) < 1e-3);
	/* a 2.5 GB unit all-reduces in 3 buckets of 0.833 GB */
	zero3_deepspeed_unit(&c, 2.5e9, 1, &ag, &ar);
	assert_true(fabs(ar - 3 * (10e-6 + 2 * 15.0 / 16 * 2.5e9 / 3 / 172e9 + 1.9 * 114.4e-6)) < 1e-12);
	/* FSDP on the same layer is far cheaper: its flat gathers hide under compute */
	c.zero3_impl = MODEL_ZERO3_FSDP;
	zero3_time(&c, &z, &t);
	assert_true(t.exposed_s < 0.03);
}

/* Hybrid sharding keeps N ranks' worth of the states; reshard off keeps the stage's weights gathered. */
static void test_zero3_hsdp_memory(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_memory full, hy, kept;
	const double P = 6738415616.0;
	(void)state;
	preset(&w, "llama2-7b");
	config(&c, &w, "a100-sxm4-80gb", 16);
	c.zero = 3;
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &full), 0);
	c.hsdp = 8;
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &hy), 0);
	assert_true(fabs(full.weights_bytes - P * 2 / 16) < 1);
	assert_true(fabs(hy.weights_bytes - P * 2 / 8) < 1);
	assert_true(fabs(hy.optimizer_bytes - 2 * full.optimizer_bytes) < 1);
	c.hsdp = 0;
	c.reshard_after_forward = 0;
	check_ok(&w, &c);
	assert_int_equal(model_memory(&w, &c, &kept), 0);
	/* 32 gathered layers instead of 2 */
	assert_true(kept.buffers_bytes - full.buffers_bytes > 29 * 2 * P / 32 * 0.95);
}

/*
 * Stragglers, by hand: sigma sqrt(2 ln S) of the busy time, S servers.
 * 3,072 GPUs in servers of 8 are S = 384: sqrt(2 ln 384) = 3.44982, so
 * sigma = 0.01 and 10 s of work wait 0.344982 s; one server waits for
 * none; the shipped sigma (fitted 0, docs/model.md "Stragglers") adds
 * nothing.  In a step, the wait adds to the step of 2 x 8 GPUs and not to
 * the step of one server of 8.
 */
static void test_straggler_by_hand(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_result r0, r1;
	double saved = tune_fitted[TUNE_K_STRAGGLER_SIGMA];
	(void)state;
	assert_true(saved == 0);
	model_config_defaults(&c);
	c.gpus_per_node = 8;
	c.gpus = 3072;
	assert_true(straggler_s(&c, 10) == 0);
	tune_fitted[TUNE_K_STRAGGLER_SIGMA] = 0.01;
	assert_true(fabs(straggler_s(&c, 10) - 0.344982) < 1e-6);
	c.gpus = 64; /* 8 servers: sqrt(2 ln 8) = 2.03933 */
	assert_true(fabs(straggler_s(&c, 10) - 0.203933) < 1e-6);
	c.gpus = 8;
	assert_true(straggler_s(&c, 10) == 0);
	c.gpus = 9; /* a ninth GPU needs a second server: sqrt(2 ln 2) = 1.17741 */
	assert_true(fabs(straggler_s(&c, 10) - 0.117741) < 1e-6);

	preset(&w, "llama2-7b");
	config(&c, &w, "a100-sxm4-80gb", 8);
	c.global_batch = 16;
	check_ok(&w, &c);
	assert_int_equal(model_estimate(&w, &c, &r1), 0);
	assert_true(r1.time.straggler_s == 0);
	config(&c, &w, "a100-sxm4-80gb", 16);
	c.global_batch = 32;
	check_ok(&w, &c);
	assert_int_equal(model_estimate(&w, &c, &r1), 0);
	tune_fitted[TUNE_K_STRAGGLER_SIGMA] = 0;
	assert_int_equal(model_estimate(&w, &c, &r0), 0);
	tune_fitted[TUNE_K_STRAGGLER_SIGMA] = saved;
	assert_true(r0.time.straggler_s == 0);
	assert_true(r1.time.straggler_s > 0);
	assert_true(fabs(r1.time.step_s - r0.time.step_s - r1.time.straggler_s) < 1e-9 * r0.time.step_s);
}

static void test_pipeline_and_utilisation(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_result r1, r2;
	(void)state;
	preset(&w, "llama2-13b");
	config(&c, &w, "a100-sxm4-80gb", 8);
	c.pp = 4;
	c.tp = 2;
	c.dp = 1;
	c.global_batch = 32;
	c.recompute = MODEL_RECOMPUTE_FULL;
	check_ok(&w, &c);
	assert_int_equal(model_estimate(&w, &c, &r1), 0);
	c.vpp = 2;
	check_ok(&w, &c);
	assert_int_equal(model_estimate(&w, &c, &r2), 0);
	assert_true(r1.time.pp_bubble_s > 0);
	assert_true(fabs(r2.time.pp_bubble_s / r1.time.pp_bubble_s - 0.5) < 0.01);
	assert_true(r1.mfu > 0.05 && r1.mfu < 1);
	assert_true(r1.hfu_tflops_per_gpu > r1.mfu_tflops_per_gpu);
	assert_true(fabs(r1.tokens_per_s - 32.0 * 4096 / r1.time.step_s) < 1e-6 * r1.tokens_per_s);
	/* the step is at least its compute */
	assert_true(r1.time.step_s >= r1.time.compute_s);
}

static void test_max_micro_batch_and_latency(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_memory m;
	int mb, b5, b50;
	(void)state;
	preset(&w, "llama2-7b");
	config(&c, &w, "a100-sxm4-80gb", 8);
	c.zero = 3;
	c.recompute = MODEL_RECOMPUTE_FULL;
	mb = model_max_micro_batch(&w, &c, 1024);
	assert_true(mb >= 1 && mb < 1024);
	c.micro_batch = mb;
	c.global_batch = mb * 8;
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_true(m.fits);
	c.micro_batch = mb + 1;
	c.global_batch = (mb + 1) * 8;
	assert_int_equal(model_memory(&w, &c, &m), 0);
	assert_false(m.fits);

	preset(&w, "gnn");
	config(&c, &w, "t4-16gb", 1);
	c.task = MODEL_TASK_INFER;
	model_config_complete(&w, &c);
	check_ok(&w, &c);
	b5 = model_batch_for_latency(&w, &c, 0.005, 32);
	b50 = model_batch_for_latency(&w, &c, 0.050, 4096);
	assert_true(b5 >= 1 && b5 <= 32);
	assert_true(b50 >= b5);
	assert_int_equal(model_batch_for_latency(&w, &c, 1e-9, 32), 0);
}

/* Pseudo-random configurations for the monotonicity properties. */
static unsigned rng = 12345;
static unsigned next(void)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 16) & 0x7fff;
}

static const char *const models[] = {"llama2-7b", "llama3-70b", "mixtral-8x7b", "gpt3-175b", "bert-large",
				     "vit-l16",   "resnet50",   "unet3d",       "asr"};
static const char *const gpus[] = {"a100-sxm4-80gb", "h100-sxm5-80gb", "v100-sxm2-32gb",
				   "l40s-48gb",      "mi300x-192gb",   "b200-sxm-180gb"};

/* A random valid training config; returns 0 when the draw is not valid. */
static int random_config(struct workload *w, struct model_config *c)
{
	static const int tps[] = {1, 2, 4, 8};
	static const int pps[] = {1, 2, 4};
	struct diag err;
	int n;
	preset(w, models[next() % (sizeof(models) / sizeof(models[0]))]);
	model_config_defaults(c);
	c->gpu = gpu(gpus[next() % (sizeof(gpus) / sizeof(gpus[0]))]);
	if (w->kind == WORKLOAD_TRANSFORMER) {
		c->tp = tps[next() % 4];
		c->pp = pps[next() % 3];
	}
	c->dp = 1 << (next() % 4);
	n = c->tp * c->pp * c->dp;
	c->gpus = n;
	c->gpus_per_node = 8;
	c->zero = (int)(next() % 4);
	c->micro_batch = 1 + (int)(next() % 4);
	c->global_batch = c->micro_batch * c->dp * (1 + (int)(next() % 8));
	c->seq_parallel = c->tp > 1 && (next() & 1);
	c->flash = (int)(next() % 3) - 1;
	c->precision = c->gpu->bf16_tflops > 0 ? MODEL_BF16 : MODEL_FP16;
	model_config_complete(w, c);
	if (c->gpus_per_node > c->gpus)
		c->gpus_per_node = c->gpus;
	diag_clear(&err);
	if (model_links_from_catalog(c, cat, NULL, "ib-ndr-8x400", &err))
		return 0;
	return model_config_check(w, c, &err) == 0;
}

static void test_more_recompute_never_raises_memory(void **state)
{
	int i, tried = 0;
	(void)state;
	for (i = 0; i < 400; i++) {
		struct workload w;
		struct model_config c;
		struct model_memory m0, m1, m2;
		if (!random_config(&w, &c))
			continue;
		tried++;
		c.recompute = MODEL_RECOMPUTE_NONE;
		assert_int_equal(model_memory(&w, &c, &m0), 0);
		c.recompute = MODEL_RECOMPUTE_SELECTIVE;
		assert_int_equal(model_memory(&w, &c, &m1), 0);
		c.recompute = MODEL_RECOMPUTE_FULL;
		assert_int_equal(model_memory(&w, &c, &m2), 0);
		if (!(m1.total_bytes <= m0.total_bytes * (1 + 1e-12) &&
		      m2.total_bytes <= m1.total_bytes * (1 + 1e-12)))
			fail_msg("%s on %s tp %d pp %d: %g %g %g", w.name, c.gpu->row.key, c.tp, c.pp,
				 m0.total_bytes, m1.total_bytes, m2.total_bytes);
	}
	assert_true(tried > 100);
}

static void test_more_tp_never_raises_weights(void **state)
{
	int i, tried = 0;
	(void)state;
	for (i = 0; i < 400; i++) {
		struct workload w;
		struct model_config c;
		struct model_memory m0, m1;
		struct diag err;
		if (!random_config(&w, &c) || w.kind != WORKLOAD_TRANSFORMER)
			continue;
		assert_int_equal(model_memory(&w, &c, &m0), 0);
		c.tp *= 2;
		c.gpus *= 2;
		diag_clear(&err);
		if (model_config_check(&w, &c, &err))
			continue;
		tried++;
		assert_int_equal(model_memory(&w, &c, &m1), 0);
		if (!(m1.weights_bytes <= m0.weights_bytes))
			fail_msg("%s tp %d: %g > %g", w.name, c.tp, m1.weights_bytes, m0.weights_bytes);
	}
	assert_true(tried > 50);
}

static void test_faster_links_never_slow_a_step(void **state)
{
	int i, tried = 0;
	(void)state;
	for (i = 0; i < 400; i++) {
		struct workload w;
		struct model_config c;
		struct model_result r0, r1, r2;
		if (!random_config(&w, &c))
			continue;
		tried++;
		assert_int_equal(model_estimate(&w, &c, &r0), 0);
		c.intra_gbps *= 2;
		assert_int_equal(model_estimate(&w, &c, &r1), 0);
		c.inter_gbps_per_gpu *= 2;
		c.inter_lat_us /= 2;
		c.intra_lat_us /= 2;
		assert_int_equal(model_estimate(&w, &c, &r2), 0);
		if (!(r1.time.step_s <= r0.time.step_s * (1 + 1e-12) &&
		      r2.time.step_s <= r1.time.step_s * (1 + 1e-12)))
			fail_msg("%s on %s: %g %g %g", w.name, c.gpu->row.key, r0.time.step_s, r1.time.step_s,
				 r2.time.step_s);
		assert_true(isfinite(r2.time.step_s) && r2.time.step_s > 0);
		assert_true(r2.mfu >= 0 && r2.mfu < 1);
	}
	assert_true(tried > 100);
}

/* The fit advice's changes do fit, and recommendations help. */
static void test_advice(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_result r;
	struct model_advice a[8];
	size_t n, i;
	(void)state;
	preset(&w, "llama2-13b");
	config(&c, &w, "a100-sxm4-80gb", 8);
	c.micro_batch = 4;
	c.global_batch = 64;
	check_ok(&w, &c);
	assert_int_equal(model_estimate(&w, &c, &r), 0);
	assert_false(r.mem.fits);
	n = model_fit_advice(&w, &c, a, 8);
	assert_true(n >= 1);
	for (i = 0; i < n; i++) {
		assert_true(a[i].fits);
		assert_true(a[i].total_bytes <= r.mem.capacity_bytes);
		if (i)
			assert_true(a[i - 1].speedup >= a[i].speedup);
	}
	model_advice_release(a, n);

	preset(&w, "resnet50");
	config(&c, &w, "a100-sxm4-80gb", 1);
	c.precision = MODEL_FP32;
	c.micro_batch = 128;
	c.global_batch = 128;
	check_ok(&w, &c);
	n = model_recommend(&w, &c, a, 8);
	assert_true(n >= 2);
	for (i = 0; i < n; i++)
		assert_true(a[i].speedup > 1);
	assert_non_null(strstr(a[0].flags, "--precision"));
	model_advice_release(a, n);
}

/* ---- FP4: NVFP4 and MXFP4 (docs/model.md, "FP4") ---- */

/* Resolves `prec` (and a weight precision, -1: none) for w on n GPUs of key; 0 or -1 with err. */
static int resolve_fp4(const struct workload *w, const char *key, int n, int task, int prec, int wprec,
		       struct model_config *c, struct diag *err)
{
	struct model_request q;
	model_request_init(&q);
	q.gpu = gpu(key);
	q.gpus = n;
	q.tp = n;
	q.task = task;
	q.precision = prec;
	q.weight_precision = wprec;
	if (task == MODEL_TASK_INFER) {
		q.batch = 16;
		q.prompt_len = 1024;
		q.output_len = 256;
	} else {
		q.micro_batch = 1;
		q.global_batch = 64;
		q.recompute = MODEL_RECOMPUTE_FULL;
	}
	diag_clear(err);
	return model_resolve(w, cat, &q, c, NULL, err);
}

static void estimate_fp4(const struct workload *w, const char *key, int n, int task, int prec, int wprec,
			 struct model_result *r)
{
	struct model_config c;
	struct diag err;
	if (resolve_fp4(w, key, n, task, prec, wprec, &c, &err))
		fail_msg("%s at %s: %s: %s", key, model_precision_name((enum model_precision)prec), err.field,
			 err.msg);
	assert_int_equal(model_estimate(w, &c, r), 0);
}

/*
 * NVFP4: 4 bits + one E4M3 byte per 16 = 4.5 bits; MXFP4: 4 + one E8M0
 * byte per 32 = 4.25 bits; "fp4" is nvfp4.
 */
static void test_bits_per_element(void **state)
{
	(void)state;
	assert_true(model_precision_bytes(MODEL_NVFP4) == 4.5 / 8);
	assert_true(model_precision_bytes(MODEL_MXFP4) == 4.25 / 8);
	assert_int_equal(model_precision_from_name("nvfp4"), MODEL_NVFP4);
	assert_int_equal(model_precision_from_name("mxfp4"), MODEL_MXFP4);
	assert_int_equal(model_precision_from_name("fp4"), MODEL_NVFP4);
	assert_string_equal(model_precision_name(MODEL_NVFP4), "nvfp4");
	assert_true(model_precision_fp4(MODEL_MXFP4) && !model_precision_fp4(MODEL_FP8));
}

/*
 * llama3-70b served in NVFP4 on one B200: its 70.6e9 parameters at 4.5
 * bits are 39.7e9 bytes, and each decode step reads them (embeddings
 * aside); MXFP4 at 4.25 bits; weights-only NVFP4 on an H100 stores the
 * same bytes while its GEMMs stay bf16.
 */
static void test_weights_at_fp4(void **state)
{
	struct workload w;
	struct model_result r;
	struct diag err;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_preset(&w, "llama3-70b", &err), 0);
	assert_true(fabs(w.params / 70.6e9 - 1) < 0.002);
	estimate_fp4(&w, "b200-sxm-180gb", 1, MODEL_TASK_INFER, MODEL_NVFP4, MODEL_UNSET, &r);
	assert_true(fabs(r.mem.weights_bytes - w.params * 4.5 / 8) < 1);
	assert_true(fabs(r.infer.decode_weights_bytes - (w.params_active - w.params_embedding) * 4.5 / 8) < 1);
	assert_true(fabs(r.peak_tflops - 9000) < 1e-6);
	estimate_fp4(&w, "b200-sxm-180gb", 1, MODEL_TASK_INFER, MODEL_MXFP4, MODEL_UNSET, &r);
	assert_true(fabs(r.mem.weights_bytes - w.params * 4.25 / 8) < 1);
	/* weights only: stored and read at 4.5 bits, computed at the GPU's bf16 peak */
	estimate_fp4(&w, "h100-sxm5-80gb", 1, MODEL_TASK_INFER, MODEL_BF16, MODEL_NVFP4, &r);
	assert_true(fabs(r.mem.weights_bytes - w.params * 4.5 / 8) < 1);
	assert_true(r.peak_tflops < 1000);
}

/*
 * Training llama3-70b on 8 B200: an FP4 step is faster than an fp8 one,
 * by no more than the ratio of their peaks (the quantisation passes and
 * the 16-bit attention do not speed up); the GEMMs alone gain at most
 * that ratio too.  Master weights and optimizer states stay as at bf16.
 */
static void test_fp4_step_against_fp8(void **state)
{
	static const int fp4[] = {MODEL_NVFP4, MODEL_MXFP4};
	struct workload w;
	struct model_result r8, r4, r16;
	struct diag err;
	const struct cat_gpu *g = gpu("b200-sxm-180gb");
	double ratio = g->fp4_tflops / g->fp8_tflops;
	size_t i;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_preset(&w, "llama3-70b", &err), 0);
	estimate_fp4(&w, "b200-sxm-180gb", 8, MODEL_TASK_PRETRAIN, MODEL_FP8, MODEL_UNSET, &r8);
	estimate_fp4(&w, "b200-sxm-180gb", 8, MODEL_TASK_PRETRAIN, MODEL_BF16, MODEL_UNSET, &r16);
	for (i = 0; i < 2; i++) {
		estimate_fp4(&w, "b200-sxm-180gb", 8, MODEL_TASK_PRETRAIN, fp4[i], MODEL_UNSET, &r4);
		assert_true(r4.time.step_s < r8.time.step_s);
		assert_true(r8.time.step_s / r4.time.step_s <= ratio + 1e-9);
		assert_true(r8.time.gemm_s / r4.time.gemm_s <= ratio + 1e-9);
		assert_true(r4.mem.optimizer_bytes == r16.mem.optimizer_bytes);
		assert_true(r4.mem.weights_bytes == r16.mem.weights_bytes);
		assert_true(r4.time.attention_s == r16.time.attention_s);
	}
}

/*
 * The quantisation kernels of FP4 training are memory-bound passes:
 * NVFP4 (amax pass 2 B + cast 2 B + two 4.5-bit copies, 5.125 B per
 * element) costs more of them than MXFP4 (3.0625 B), and both more than no
 * cast at all (inference, where the weights are already stored quantised).
 */
static void test_fp4_cast_passes(void **state)
{
	struct workload w;
	struct model_result nv, mx, b16;
	struct diag err;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_preset(&w, "llama3-8b", &err), 0);
	estimate_fp4(&w, "b200-sxm-180gb", 1, MODEL_TASK_PRETRAIN, MODEL_NVFP4, MODEL_UNSET, &nv);
	estimate_fp4(&w, "b200-sxm-180gb", 1, MODEL_TASK_PRETRAIN, MODEL_MXFP4, MODEL_UNSET, &mx);
	estimate_fp4(&w, "b200-sxm-180gb", 1, MODEL_TASK_PRETRAIN, MODEL_BF16, MODEL_UNSET, &b16);
	assert_true(nv.time.memory_bound_s > mx.time.memory_bound_s);
	assert_true(mx.time.memory_bound_s > b16.time.memory_bound_s);
	/* the cast traffic alone scales as 5.125 : 3.0625 */
	assert_true(fabs((nv.time.memory_bound_s - b16.time.memory_bound_s) /
				 (mx.time.memory_bound_s - b16.time.memory_bound_s) -
			 5.125 / 3.0625) < 1e-6);
}

/* FP4 compute on a GPU without FP4 is refused naming the GPU and the precisions it has. */
static void test_no_fp4_named(void **state)
{
	struct workload w;
	struct model_config c;
	struct diag err;
	char buf[96];
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_preset(&w, "llama3-8b", &err), 0);
	assert_int_equal(resolve_fp4(&w, "h100-sxm5-80gb", 1, MODEL_TASK_INFER, MODEL_NVFP4, MODEL_UNSET, &c,
				     &err),
			 -1);
	assert_string_equal(err.field, "precision");
	assert_non_null(strstr(err.msg, "h100-sxm5-80gb has no nvfp4 support"));
	assert_non_null(strstr(err.msg, "fp32, tf32, fp16, bf16, fp8"));
	assert_null(strstr(err.msg, "mxfp4"));
	assert_string_equal(model_gpu_precisions_text(gpu("b200-sxm-180gb"), buf, sizeof(buf)),
			    "fp32, tf32, fp16, bf16, fp8, nvfp4, mxfp4");
	/* weights-only FP4 needs no FP4 tensor cores */
	assert_int_equal(resolve_fp4(&w, "h100-sxm5-80gb", 1, MODEL_TASK_INFER, MODEL_BF16, MODEL_MXFP4, &c, &err),
			 0);
	/* every Blackwell part of the catalog has a dense FP4 figure, no earlier part has one */
	{
		size_t i, n = catalog_count(cat, CAT_GPUS);
		for (i = 0; i < n; i++) {
			const struct cat_gpu *g = catalog_row(cat, CAT_GPUS, i);
			int bw = g->arch && !strcmp(g->arch, "blackwell");
			if (bw != (g->fp4_tflops > 0))
				fail_msg("%s: arch %s, fp4 %g", g->row.key, g->arch, g->fp4_tflops);
			if (bw)
				assert_true(g->fp4_tflops >= 2 * g->fp8_tflops - 1e-9);
		}
	}
}

/* NVFP4 is recommended on Blackwell, with its gain, and never on a GPU without FP4. */
static void test_fp4_recommended_on_blackwell_only(void **state)
{
	static const char *const keys[] = {"b200-sxm-180gb", "h100-sxm5-80gb"};
	struct workload w;
	struct model_config c;
	struct model_advice a[16];
	struct diag err;
	size_t i, k, n;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_preset(&w, "llama3-8b", &err), 0);
	for (i = 0; i < 2; i++) {
		int found = 0;
		assert_int_equal(resolve_fp4(&w, keys[i], 1, MODEL_TASK_PRETRAIN, MODEL_BF16, MODEL_UNSET, &c,
					     &err),
				 0);
		n = model_recommend(&w, &c, a, 16);
		for (k = 0; k < n; k++)
			if (!strcmp(a[k].flags, "--precision nvfp4")) {
				found = 1;
				assert_true(a[k].speedup >= 1.10);
			}
		assert_int_equal(found, i == 0);
		model_advice_release(a, n);
	}
}

/* A config.json with a quantization_config is served at its stored precision unless told otherwise. */
static void test_quantised_config_json(void **state)
{
	static const char *const base =
		"{\"hidden_size\": 4096, \"num_hidden_layers\": 32, \"num_attention_heads\": 32, "
		"\"num_key_value_heads\": 8, \"intermediate_size\": 14336, \"vocab_size\": 128256, "
		"\"max_position_embeddings\": 8192, \"torch_dtype\": \"bfloat16\"%s}";
	static const struct {
		const char *quant;
		enum model_precision want;
	} cases[] = {
		{", \"quantization_config\": {\"quant_method\": \"mxfp4\"}", MODEL_MXFP4},
		{", \"quantization_config\": {\"quant_method\": \"modelopt\", \"quant_algo\": \"NVFP4\"}",
		 MODEL_NVFP4},
		{", \"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4}", MODEL_INT4},
		{", \"quantization_config\": {\"quant_method\": \"unknown-method\"}", MODEL_FP32},
		{"", MODEL_FP32},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct workload w;
		struct model_config c;
		struct diag err;
		char json[1024];
		snprintf(json, sizeof(json), base, cases[i].quant);
		diag_clear(&err);
		assert_int_equal(workload_from_hf_json(&w, "config.json", json, strlen(json), &err), 0);
		assert_int_equal(w.weight_quant, cases[i].want);
		assert_int_equal(resolve_fp4(&w, "h100-sxm5-80gb", 1, MODEL_TASK_INFER, MODEL_UNSET, MODEL_UNSET,
					     &c, &err),
				 0);
		assert_int_equal(c.weight_precision, cases[i].want == MODEL_FP32 ? -1 : (int)cases[i].want);
		/* a given --weight-precision wins; training ignores the checkpoint's quantisation */
		assert_int_equal(resolve_fp4(&w, "h100-sxm5-80gb", 1, MODEL_TASK_INFER, MODEL_UNSET, MODEL_FP8, &c,
					     &err),
				 0);
		assert_int_equal(c.weight_precision, MODEL_FP8);
		assert_int_equal(resolve_fp4(&w, "h100-sxm5-80gb", 1, MODEL_TASK_PRETRAIN, MODEL_UNSET,
					     MODEL_UNSET, &c, &err),
				 0);
		assert_int_equal(c.weight_precision, -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_korthikanti_activations),
		cmocka_unit_test(test_estimate_with_known_memory),
		cmocka_unit_test(test_fp8_attention_at_16bit_rate),
		cmocka_unit_test(test_eager_attention_scale_and_mask_apart),
		cmocka_unit_test(test_board_gemm_ceiling),
		cmocka_unit_test(test_mlm_head_over_every_position),
		cmocka_unit_test(test_autocast_counted_bytes),
		cmocka_unit_test(test_fp8_casts_cost_memory_time),
		cmocka_unit_test(test_resolve_zero_for_given_layout),
		cmocka_unit_test(test_vendor_row_resolved_once),
		cmocka_unit_test(test_zero3_hidden_gathers_still_cost),
		cmocka_unit_test(test_zero3_per_layer_by_hand),
		cmocka_unit_test(test_zero3_deepspeed_by_hand),
		cmocka_unit_test(test_zero3_hsdp_memory),
		cmocka_unit_test(test_weights_and_states),
		cmocka_unit_test(test_kv_cache),
		cmocka_unit_test(test_mla_kv_cache),
		cmocka_unit_test(test_ep_folding),
		cmocka_unit_test(test_microbenchmarks),
		cmocka_unit_test(test_network_spec),
		cmocka_unit_test(test_config_errors_name_flags),
		cmocka_unit_test(test_layout_iterator),
		cmocka_unit_test(test_resolve_defaults),
		cmocka_unit_test(test_straggler_by_hand),
		cmocka_unit_test(test_pipeline_and_utilisation),
		cmocka_unit_test(test_max_micro_batch_and_latency),
		cmocka_unit_test(test_more_recompute_never_raises_memory),
		cmocka_unit_test(test_more_tp_never_raises_weights),
		cmocka_unit_test(test_faster_links_never_slow_a_step),
		cmocka_unit_test(test_advice),
		cmocka_unit_test(test_bits_per_element),
		cmocka_unit_test(test_weights_at_fp4),
		cmocka_unit_test(test_fp4_step_against_fp8),
		cmocka_unit_test(test_fp4_cast_passes),
		cmocka_unit_test(test_no_fp4_named),
		cmocka_unit_test(test_quantised_config_json),
		cmocka_unit_test(test_fp4_recommended_on_blackwell_only),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
