/*
 * Execution engines: names round-trip, fused engines launch fewer kernels
 * and cost the host less than eager code, and inference-only engines refuse
 * training.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "model/engine.h"

static void test_names_round_trip(void **state)
{
	int e;
	(void)state;
	for (e = 0; e < MODEL_ENGINE_COUNT; e++)
		assert_int_equal(model_engine_from_name(model_engine_name(e)), e);
	assert_int_equal(model_engine_from_name("pytorch"), -1);
	assert_int_equal(model_engine_from_name(NULL), -1);
}

static void test_fusion_and_host_cost(void **state)
{
	int e;
	double eager = model_engine_layer_kernels(MODEL_ENGINE_EAGER, 1, 1);
	double eager_host = model_engine_host_s(MODEL_ENGINE_EAGER, 32 * eager, 1);
	(void)state;
	/* an unfused Llama layer: 20 + 12 (RMSNorm) + 2 (gated MLP) + 12 (rotary) */
	assert_true(eager == 46);
	assert_true(model_engine_layer_kernels(MODEL_ENGINE_EAGER, 0, 0) < eager);
	/* transformers generate launches as eager code does and adds its Python per layer */
	assert_true(model_engine_layer_kernels(MODEL_ENGINE_HF, 1, 1) == eager);
	assert_true(*model_engine_info(MODEL_ENGINE_HF)->host_per_layer_s > 0);
	assert_true(*model_engine_info(MODEL_ENGINE_EAGER)->host_per_layer_s == 0);
	assert_true(model_engine_sample_kernels(MODEL_ENGINE_HF, 175) == 175);
	for (e = 1; e < MODEL_ENGINE_COUNT; e++) {
		double k;
		if (e == MODEL_ENGINE_HF)
			continue;
		k = model_engine_layer_kernels(e, 1, 1);
		assert_true(k < eager);
		/* a 32-layer model, one sequence: no engine costs the host more than eager launching */
		assert_true(model_engine_host_s(e, 32 * k, 1) < eager_host);
		assert_true(model_engine_sample_kernels(e, 175) < 175);
	}
	assert_true(model_engine_sample_kernels(MODEL_ENGINE_EAGER, 175) == 175);
	/* a CNN's eager operations are module calls, dearer than a bare launch; fused engines beat them */
	assert_true(model_engine_sample_host_s(MODEL_ENGINE_EAGER, 175, 1) >
		    model_engine_host_s(MODEL_ENGINE_EAGER, 175, 1));
	for (e = 1; e < MODEL_ENGINE_COUNT; e++)
		if (e != MODEL_ENGINE_HF)
			assert_true(model_engine_sample_host_s(e, 175, 1) <
				    model_engine_sample_host_s(MODEL_ENGINE_EAGER, 175, 1));
	/* serving engines say how they size the KV cache */
	assert_true(model_engine_info(MODEL_ENGINE_VLLM)->serving);
	assert_true(model_engine_info(MODEL_ENGINE_VLLM)->kv_block_tokens == 16);
	assert_true(model_engine_info(MODEL_ENGINE_VLLM)->mem_fraction > 0.5);
}

static void test_training_engines(void **state)
{
	struct diag err;
	(void)state;
	diag_clear(&err);
	assert_int_equal(model_engine_check(MODEL_ENGINE_EAGER, 1, &err), 0);
	assert_int_equal(model_engine_check(MODEL_ENGINE_COMPILE, 1, &err), 0);
	assert_int_equal(model_engine_check(MODEL_ENGINE_TENSORRT, 0, &err), 0);
	assert_int_equal(model_engine_check(MODEL_ENGINE_TENSORRT, 1, &err), -1);
	assert_string_equal(err.field, "engine");
	assert_non_null(strstr(err.msg, "inference only"));
	assert_int_equal(model_engine_check(MODEL_ENGINE_VLLM, 1, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_fusion_and_host_cost),
		cmocka_unit_test(test_training_engines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
