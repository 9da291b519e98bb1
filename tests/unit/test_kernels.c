/*
 * Kernels by shape: wave quantisation counts whole waves, small dimensions
 * lose efficiency, and 3D convolutions reach less of the ceiling than 2D,
 * by the path cuDNN takes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "model/kernels.h"

static void test_wave_quantisation(void **state)
{
	(void)state;
	/* 108 tiles of 128 x 128 on 108 SMs: one full wave */
	assert_true(fabs(model_gemm_wave_eff(108, 128 * 12, 128 * 9, 4096) - 1) < 1e-12);
	/* one tile more: a second wave with one tile in it */
	assert_true(fabs(model_gemm_wave_eff(108, 128 * 109, 128, 4096) - 109.0 / 216) < 1e-12);
	/* a part of a tile still costs the tile */
	assert_true(fabs(model_gemm_wave_eff(108, 128 * 108 + 1, 128, 4096) - 109.0 / 216) < 1e-12);
	/* fewer tiles than SMs: split along k, left to the small-dimension term */
	assert_true(model_gemm_wave_eff(108, 1, 128 * 80, 8192) == 1);
	/* unknown SM count: no quantisation */
	assert_true(model_gemm_wave_eff(0, 1e5, 1e5, 1e5) == 1);
}

static void test_shape_efficiency(void **state)
{
	double x, prev = 0, sms = 132;
	(void)state;
	for (x = 16; x <= 65536; x *= 2) {
		double e = model_gemm_shape_eff(sms, x, 8192, 8192);
		assert_true(e > 0 && e <= 1);
		if (x >= 128 * 132) /* past one wave the quantisation loss only shrinks */
			assert_true(e >= prev * 0.999);
		prev = e;
	}
	/* a decode GEMM (m = one token) reaches a small share */
	assert_true(model_gemm_shape_eff(sms, 1, 8192, 8192) < 0.02);
	assert_true(model_gemm_shape_eff(sms, 0, 1, 1) == 1);
}

static void test_conv_by_dimensions(void **state)
{
	(void)state;
	assert_true(model_conv_eff(3, 1, MODEL_CONV3D_NCDHW) < model_conv_eff(2, 1, MODEL_CONV3D_NCDHW));
	assert_true(model_conv_eff(3, 0, MODEL_CONV3D_NCDHW) < model_conv_eff(2, 0, MODEL_CONV3D_NCDHW));
	assert_true(model_conv_eff(1, 1, MODEL_CONV3D_NCDHW) == model_conv_eff(2, 1, MODEL_CONV3D_NCDHW));
	assert_true(model_conv_eff(2, 1, MODEL_CONV3D_NCDHW) > 0 && model_conv_eff(2, 1, MODEL_CONV3D_NCDHW) <= 1);
}

/*
 * 3D tensor-core convolutions: NCDHW costs 1.30 times NDHWC (cuDNN 8
 * transposes around the same kernels; an A100 microbenchmark of a 3D
 * U-Net's shapes, 96.0 ms against 73.8 ms), and a stack without those
 * kernels reaches far less than either.
 */
static void test_conv3d_paths(void **state)
{
	double cl = model_conv_eff(3, 1, MODEL_CONV3D_NDHWC), cf = model_conv_eff(3, 1, MODEL_CONV3D_NCDHW);
	double legacy = model_conv_eff(3, 1, MODEL_CONV3D_LEGACY);
	(void)state;
	assert_float_equal(cl / cf, 96.0 / 73.8, 0.005);
	assert_true(legacy < 0.5 * cf);
	assert_true(cl <= model_conv_eff(2, 1, MODEL_CONV3D_NDHWC));
	/* 2D kernels and CUDA-core ones do not change with the path */
	assert_true(model_conv_eff(2, 1, MODEL_CONV3D_NDHWC) == model_conv_eff(2, 1, MODEL_CONV3D_LEGACY));
	assert_true(model_conv_eff(3, 0, MODEL_CONV3D_NDHWC) == model_conv_eff(3, 0, MODEL_CONV3D_LEGACY));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wave_quantisation),
		cmocka_unit_test(test_shape_efficiency),
		cmocka_unit_test(test_conv_by_dimensions),
		cmocka_unit_test(test_conv3d_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
