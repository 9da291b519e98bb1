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
	int kkey = -1, kpub = -1, first = 1, rows = 0;
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
		rows++;
	}
	csv_free(r);
	assert_true(rows >= 16);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
