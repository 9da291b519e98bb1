/*
 * Workloads: parameter counts against hand-computed and published figures,
 * the config.json reader and its errors.
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

#include "catalog/embedded.h"
#include "model/model.h"
#include "util/csv.h"

static void load(struct workload *w, const char *name)
{
	struct diag err;
	diag_clear(&err);
	if (workload_preset(w, name, &err))
		fail_msg("preset %s: %s", name, err.msg);
}

/*
 * Llama 2 7B by hand: per layer 4 x 4096^2 (attention) + 3 x 4096 x 11008
 * (SwiGLU) + 2 x 4096 (RMSNorm) = 202,383,360; x 32 = 6,476,267,520;
 * embedding and output 2 x 32000 x 4096 = 262,144,000; final norm 4096.
 * Total 6,738,415,616, the count Hugging Face reports.
 */
static void test_llama2_7b_params(void **state)
{
	struct workload w;
	(void)state;
	load(&w, "llama2-7b");
	assert_true(w.params == 6738415616.0);
	assert_true(w.params_layer == 202383360.0);
	assert_true(w.params_embedding == 131072000.0);
	assert_true(w.params_head == 131072000.0);
	/* forward matmul FLOPs per token: 2 x 32 x (4 x 4096^2 + 3 x 4096 x 11008) */
	assert_true(w.flops_token_dense == 2.0 * 32 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008));
	/* attention scores: 4 x q_dim per token of context per layer */
	assert_true(w.flops_token_attn == 4.0 * 32 * 4096);
	assert_true(w.flops_token_head == 2.0 * 4096 * 32000);
	assert_int_equal(w.kv_dim, 4096);
}

/* Llama 3 8B (GQA, 8 KV heads): 8,030,261,248 parameters. */
static void test_llama3_8b_gqa(void **state)
{
	struct workload w;
	(void)state;
	load(&w, "llama3-8b");
	assert_int_equal(w.kv_dim, 1024);
	assert_true(w.params == 8030261248.0);
}

/* Mixtral 8x7B: 46,702,792,704 in all, 12,879,925,248 active (top-2 of 8). */
static void test_mixtral_moe(void **state)
{
	struct workload w;
	(void)state;
	load(&w, "mixtral-8x7b");
	assert_true(w.params == 46702792704.0);
	assert_true(w.params_active == 12879925248.0);
	assert_true(w.params_layer_router == 4096.0 * 8);
}

/* Every preset's derived count is within 1.5 % of its published count. */
static void test_presets_match_published(void **state)
{
	const struct embedded_file *f = embedded_find("models/presets.csv");
	struct csv_reader *r;
	struct csv_record rec;
	struct diag err;
	int kkey = -1, kpub = -1, kact = -1, first = 1, rows = 0, actives = 0;
	size_t i;
	(void)state;
	assert_non_null(f);
	diag_clear(&err);
	r = csv_open("presets.csv", f->data, f->len, CSV_COMMENTS);
	while (csv_next(r, &rec, &err) > 0) {
		struct workload w;
		double pub, rel;
		if (first) {
			for (i = 0; i < rec.nfields; i++) {
				if (!strcmp(rec.fields[i], "key"))
					kkey = (int)i;
				if (!strcmp(rec.fields[i], "published_params_b"))
					kpub = (int)i;
				if (!strcmp(rec.fields[i], "published_active_b"))
					kact = (int)i;
			}
			first = 0;
			continue;
		}
		assert_true(kkey >= 0 && kpub >= 0);
		load(&w, rec.fields[kkey]);
		pub = atof(rec.fields[kpub]) * 1e9;
		rel = fabs(w.params - pub) / pub;
		if (rel > 0.015)
			fail_msg("%s: %.4g parameters derived, %.4g published", w.name, w.params, pub);
		/* active parameters (mixture of experts), within 2 % of the published figure */
		if (kact >= 0 && (size_t)kact < rec.nfields && rec.fields[kact][0]) {
			pub = atof(rec.fields[kact]) * 1e9;
			if (fabs(w.params_active - pub) / pub > 0.02)
				fail_msg("%s: %.4g active parameters derived, %.4g published", w.name,
					 w.params_active, pub);
			actives++;
		}
		rows++;
	}
	csv_free(r);
	assert_true(rows >= 16);
	assert_true(actives >= 5);
}

static void test_preset_names_and_aliases(void **state)
{
	struct workload w;
	struct diag err;
	size_t n;
	const char *const *names = workload_preset_names(&n);
	(void)state;
	assert_true(n >= 16);
	assert_string_equal(names[0], "llama2-7b");
	diag_clear(&err);
	assert_int_equal(workload_preset(&w, "Llama-2-7b", &err), 0);
	assert_string_equal(w.name, "llama2-7b");
	assert_int_equal(workload_preset(&w, "llama2-7", &err), -1);
	assert_string_equal(err.field, "model");
	assert_non_null(strstr(err.msg, "did you mean"));
	assert_non_null(strstr(err.msg, "llama2-7b"));
}

static const char llama_json[] =
	"{\n"
	"  \"architectures\": [\"LlamaForCausalLM\"],\n"
	"  \"hidden_act\": \"silu\",\n"
	"  \"hidden_size\": 4096,\n"
	"  \"intermediate_size\": 11008,\n"
	"  \"max_position_embeddings\": 4096,\n"
	"  \"model_type\": \"llama\",\n"
	"  \"num_attention_heads\": 32,\n"
	"  \"num_hidden_layers\": 32,\n"
	"  \"num_key_value_heads\": 32,\n"
	"  \"rms_norm_eps\": 1e-05,\n"
	"  \"tie_word_embeddings\": false,\n"
	"  \"torch_dtype\": \"float16\",\n"
	"  \"vocab_size\": 32000\n"
	"}\n";

static void test_hf_llama_matches_preset(void **state)
{
	struct workload w, p;
	struct diag err;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_from_hf_json(&w, "config.json", llama_json, strlen(llama_json), &err), 0);
	load(&p, "llama2-7b");
	assert_true(w.params == p.params);
	assert_int_equal(w.d.gated_mlp, 1);
	assert_int_equal(w.d.tied_embeddings, 0);
	assert_int_equal(w.d.causal, 1);
	assert_int_equal(w.dtype, MODEL_FP16);
	assert_string_equal(w.name, "LlamaForCausalLM");
}

/* GPT-2 spellings: n_embd, n_layer, n_head, n_inner null (4 x hidden), tied by default. */
static void test_hf_gpt2(void **state)
{
	static const char js[] =
		"{\"model_type\": \"gpt2\", \"n_embd\": 768, \"n_layer\": 12, \"n_head\": 12, "
		"\"n_inner\": null, \"n_positions\": 1024, \"vocab_size\": 50257, "
		"\"activation_function\": \"gelu_new\", \"resid_pdrop\": 0.1}";
	struct workload w;
	struct diag err;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_from_hf_json(&w, "gpt2.json", js, strlen(js), &err), 0);
	assert_int_equal(w.d.ffn_hidden, 3072);
	assert_int_equal(w.d.tied_embeddings, 1);
	assert_int_equal(w.d.learned_pos, 1);
	assert_int_equal(w.d.has_bias, 1);
	assert_int_equal(w.d.gated_mlp, 0);
	/* GPT-2 small: 124,439,808 parameters (Hugging Face) */
	assert_true(w.params == 124439808.0);
}

static void test_hf_mixtral_experts(void **state)
{
	static const char js[] =
		"{\"model_type\": \"mixtral\", \"hidden_size\": 4096, \"num_hidden_layers\": 32, "
		"\"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"intermediate_size\": 14336, "
		"\"vocab_size\": 32000, \"num_local_experts\": 8, \"num_experts_per_tok\": 2, "
		"\"tie_word_embeddings\": false, \"max_position_embeddings\": 32768}";
	struct workload w;
	struct diag err;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_from_hf_json(&w, "mixtral.json", js, strlen(js), &err), 0);
	assert_int_equal(w.d.experts, 8);
	assert_int_equal(w.d.experts_active, 2);
	assert_true(w.params == 46702792704.0);
}

/*
 * DeepSeek-V3 by hand (config.json: h 7168, 128 heads, q_lora_rank 1536,
 * kv_lora_rank 512, qk_nope 128 + qk_rope 64, v 128, 61 layers of which the
 * first 3 dense (MLP 18432), 256 routed experts of 2048 and 1 shared, top-8).
 * Attention per layer: q 7168 x 1536 + 1536 x 128 x 192 = 48,758,784;
 * kv 7168 x (512 + 64) + 512 x 128 x 256 = 20,905,984; o 128 x 128 x 7168 =
 * 117,440,512: 187,105,280, with norms 2 x 7168 + 1536 + 512 = 16,384.
 * MoE layer: 257 x 3 x 7168 x 2048 + router 256 x 7168.  Embedding and head
 * 2 x 129280 x 7168.  Total 671,026,404,352 (published 671B); active
 * (8 routed + 1 shared) 37,552,282,624 (published 37B).
 */
static void test_deepseek_v3_mla(void **state)
{
	struct workload w;
	(void)state;
	load(&w, "deepseek-v3");
	assert_true(w.params_layer_attn == 187105280.0 + 16384.0);
	assert_true(w.moe_layers == 58);
	assert_true(w.params == 671026404352.0);
	assert_true(w.params_active == 37552282624.0);
	/* forward matmul FLOPs: 2 (61 attn + 3 dense MLPs + 58 (9 experts + router)) */
	assert_true(w.flops_token_dense == 71395835904.0);
	/* scores: 2 a (qk + v) per token of context per layer = 2 x 128 x 320 x 61 */
	assert_true(w.flops_token_attn == 2.0 * 128 * 320 * 61);
	/* the cached latent: kv_lora_rank + qk_rope_dim per token per layer */
	assert_true(w.kv_cache_elems == 576);
	/* one MTP module: 2h^2 + 3h + an MoE block = 11,610,067,968 */
	assert_true(w.params_mtp == 11610067968.0);
}

/* Llama 4 Maverick: MoE every 2nd layer (24 of 48), dense layers of 16384, 1 shared expert. */
static void test_llama4_interleaved(void **state)
{
	struct workload w;
	(void)state;
	load(&w, "llama4-maverick");
	assert_true(w.moe_layers == 24);
	assert_true(w.params == 400711848960.0);
	assert_true(w.params_active == 17184691200.0);
	load(&w, "llama4-scout");
	assert_true(w.moe_layers == 48);
	assert_true(w.params == 107769861120.0);
	assert_true(w.params_active == 17172894720.0);
	load(&w, "qwen3-30b-a3b");
	assert_true(w.params == 30532110336.0);
	assert_true(w.params_active == 3353020416.0);
}

/* DeepSeek-V3's config.json names give the preset's model. */
static void test_hf_deepseek_v3(void **state)
{
	static const char js[] =
		"{\"architectures\": [\"DeepseekV3ForCausalLM\"], \"model_type\": \"deepseek_v3\", "
		"\"hidden_size\": 7168, \"num_hidden_layers\": 61, \"num_attention_heads\": 128, "
		"\"num_key_value_heads\": 128, \"intermediate_size\": 18432, \"moe_intermediate_size\": 2048, "
		"\"vocab_size\": 129280, \"n_routed_experts\": 256, \"n_shared_experts\": 1, "
		"\"num_experts_per_tok\": 8, \"first_k_dense_replace\": 3, \"moe_layer_freq\": 1, "
		"\"q_lora_rank\": 1536, \"kv_lora_rank\": 512, \"qk_nope_head_dim\": 128, "
		"\"qk_rope_head_dim\": 64, \"v_head_dim\": 128, \"num_nextn_predict_layers\": 1, "
		"\"hidden_act\": \"silu\", \"tie_word_embeddings\": false, \"max_position_embeddings\": 163840, "
		"\"torch_dtype\": \"bfloat16\"}";
	struct workload w, p;
	struct diag err;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_from_hf_json(&w, "ds.json", js, strlen(js), &err), 0);
	load(&p, "deepseek-v3");
	assert_true(w.params == p.params);
	assert_true(w.params_active == p.params_active);
	assert_true(w.params_mtp == p.params_mtp);
	assert_int_equal(w.d.head_dim, 192);
}

/* Llama 4 nests the language model in text_config and says tie_word_embeddings outside it. */
static void test_hf_llama4_text_config(void **state)
{
	static const char js[] =
		"{\"architectures\": [\"Llama4ForConditionalGeneration\"], \"model_type\": \"llama4\", "
		"\"tie_word_embeddings\": false, \"text_config\": {\"model_type\": \"llama4_text\", "
		"\"hidden_size\": 5120, \"num_hidden_layers\": 48, \"num_attention_heads\": 40, "
		"\"num_key_value_heads\": 8, \"head_dim\": 128, \"intermediate_size\": 8192, "
		"\"intermediate_size_mlp\": 16384, \"num_local_experts\": 128, \"num_experts_per_tok\": 1, "
		"\"interleave_moe_layer_step\": 2, \"vocab_size\": 202048, \"hidden_act\": \"silu\", "
		"\"max_position_embeddings\": 1048576}}";
	static const char qwen[] =
		"{\"model_type\": \"qwen3_moe\", \"hidden_size\": 2048, \"num_hidden_layers\": 48, "
		"\"num_attention_heads\": 32, \"num_key_value_heads\": 4, \"head_dim\": 128, "
		"\"intermediate_size\": 6144, \"moe_intermediate_size\": 768, \"num_experts\": 128, "
		"\"num_experts_per_tok\": 8, \"decoder_sparse_step\": 1, \"vocab_size\": 151936, "
		"\"tie_word_embeddings\": false}";
	struct workload w, p;
	struct diag err;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_from_hf_json(&w, "l4.json", js, strlen(js), &err), 0);
	load(&p, "llama4-maverick");
	assert_int_equal(w.d.tied_embeddings, 0);
	assert_int_equal(w.d.shared_experts, 1);
	assert_int_equal(w.d.moe_ffn, 8192);
	assert_int_equal(w.d.ffn_hidden, 16384);
	assert_true(w.params == p.params);
	assert_int_equal(workload_from_hf_json(&w, "q.json", qwen, strlen(qwen), &err), 0);
	load(&p, "qwen3-30b-a3b");
	assert_true(w.params == p.params);
	assert_true(w.params_active == p.params_active);
}

/* Latent attention and layer patterns that cannot be: errors name the config.json key. */
static void test_arch_errors(void **state)
{
	struct workload w;
	struct workload_dims d;
	struct diag err;
	(void)state;
	memset(&d, 0, sizeof(d));
	d.layers = 4;
	d.hidden = 512;
	d.heads = 8;
	d.ffn_hidden = 2048;
	d.vocab = 100;
	d.kv_lora_rank = 64;
	diag_clear(&err);
	assert_int_equal(workload_from_dims(&w, "x", &d, &err), -1);
	assert_string_equal(err.field, "v_head_dim");
	d.kv_lora_rank = 0;
	d.shared_experts = 1;
	assert_int_equal(workload_from_dims(&w, "x", &d, &err), -1);
	assert_string_equal(err.field, "experts");
	d.experts = 8;
	d.experts_active = 2;
	d.dense_layers = 4;
	assert_int_equal(workload_from_dims(&w, "x", &d, &err), -1);
	assert_string_equal(err.field, "first_k_dense_replace");
	assert_non_null(strstr(err.msg, "no mixture-of-experts layer"));
	d.dense_layers = 1;
	d.moe_every = 2;
	assert_int_equal(workload_from_dims(&w, "x", &d, &err), 0);
	/* layers 1 and 3 (i + 1 even), not the dense layer 0 */
	assert_true(w.moe_layers == 2);
}

static void test_hf_bad_json_located(void **state)
{
	static const char js[] = "{\n  \"hidden_size\": 4096,\n  \"num_hidden_layers\": 32 32\n}";
	struct workload w;
	struct diag err;
	char buf[1024];
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_from_hf_json(&w, "bad.json", js, strlen(js), &err), -1);
	assert_int_equal(err.line, 3);
	assert_true(err.col > 1);
	diag_format(&err, buf, sizeof(buf));
	assert_non_null(strstr(buf, "bad.json:3:"));
	assert_non_null(strstr(buf, "not valid JSON"));
}

static void test_hf_missing_keys_named(void **state)
{
	static const char js[] = "{\"model_type\": \"mamba\", \"d_state\": 16, \"n_layer\": 48}";
	struct workload w;
	struct diag err;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_from_hf_json(&w, "mamba.json", js, strlen(js), &err), -1);
	assert_non_null(strstr(err.msg, "hidden_size"));
	assert_non_null(strstr(err.msg, "num_attention_heads"));
	assert_non_null(strstr(err.msg, "vocab_size"));
	assert_null(strstr(err.msg, "num_hidden_layers"));
	assert_non_null(strstr(err.msg, "mamba"));
}

static void test_hf_not_object_and_bad_values(void **state)
{
	static const char arr[] = "[1, 2, 3]";
	static const char neg[] =
		"{\"hidden_size\": -4096, \"num_hidden_layers\": 2, \"num_attention_heads\": 2, \"vocab_size\": 10}";
	static const char str[] =
		"{\"hidden_size\": \"big\", \"num_hidden_layers\": 2, \"num_attention_heads\": 2, \"vocab_size\": 10}";
	static const char heads[] =
		"{\"hidden_size\": 100, \"num_hidden_layers\": 2, \"num_attention_heads\": 3, \"vocab_size\": 10}";
	struct workload w;
	struct diag err;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_from_hf_json(&w, "a.json", arr, strlen(arr), &err), -1);
	assert_non_null(strstr(err.msg, "JSON object"));
	assert_int_equal(workload_from_hf_json(&w, "n.json", neg, strlen(neg), &err), -1);
	assert_string_equal(err.field, "hidden_size");
	assert_int_equal(workload_from_hf_json(&w, "s.json", str, strlen(str), &err), -1);
	assert_string_equal(err.field, "hidden_size");
	assert_int_equal(workload_from_hf_json(&w, "h.json", heads, strlen(heads), &err), -1);
	assert_string_equal(err.field, "heads");
}

static void test_dims_errors(void **state)
{
	struct workload w;
	struct workload_dims d;
	struct diag err;
	(void)state;
	memset(&d, 0, sizeof(d));
	d.layers = 4;
	d.hidden = 512;
	d.heads = 8;
	d.kv_heads = 3;
	d.ffn_hidden = 2048;
	d.vocab = 1000;
	diag_clear(&err);
	assert_int_equal(workload_from_dims(&w, "t", &d, &err), -1);
	assert_string_equal(err.field, "kv-heads");
	d.kv_heads = 2;
	assert_int_equal(workload_from_dims(&w, "t", &d, &err), 0);
	assert_int_equal(w.kv_dim, 2 * 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llama2_7b_params),
		cmocka_unit_test(test_llama3_8b_gqa),
		cmocka_unit_test(test_mixtral_moe),
		cmocka_unit_test(test_presets_match_published),
		cmocka_unit_test(test_preset_names_and_aliases),
		cmocka_unit_test(test_hf_llama_matches_preset),
		cmocka_unit_test(test_hf_gpt2),
		cmocka_unit_test(test_hf_mixtral_experts),
		cmocka_unit_test(test_hf_bad_json_located),
		cmocka_unit_test(test_hf_missing_keys_named),
		cmocka_unit_test(test_hf_not_object_and_bad_values),
		cmocka_unit_test(test_dims_errors),
		cmocka_unit_test(test_deepseek_v3_mla),
		cmocka_unit_test(test_llama4_interleaved),
		cmocka_unit_test(test_hf_deepseek_v3),
		cmocka_unit_test(test_hf_llama4_text_config),
		cmocka_unit_test(test_arch_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
