/*
 * Kernels by shape.
 *
 * GEMM: cuBLAS/CUTLASS tile the m x n output into thread-block tiles
 * (128 x 128 on Ampere and Hopper for large 16-bit problems), one tile per SM
 * at a time; a product of T tiles on S SMs runs ceil(T / S) waves, the last
 * partly idle: efficiency T / (ceil(T / S) S) ("wave quantization", NVIDIA
 * Deep Learning Performance guide, "Matrix Multiplication Background").
 * Fewer tiles than SMs (decode GEMMs with m = a few tokens): cuBLAS splits
 * k (split-K, stream-K) to occupy the idle SMs, so such products are priced
 * by their small dimensions, s(x), alone and not twice.
 * Dimensions smaller than a tile leave the tile's lanes idle; the smooth
 * x / (x + x0) per dimension stands for that and for the K loop's prologue
 * (x0 = 96 was fitted with the Megatron runs, calibration S1-*).
 *
 * Convolutions: cuDNN's 2D kernels on ResNet-style layers reach 0.59 of the
 * tensor-core GEMM ceiling (fitted: calibration S6-002/006).  3D ones
 * (docs/model.md, "3D convolutions"): cuDNN 8 has implicit-GEMM
 * tensor-core kernels for NDHWC tensors, which read each 3x3x3 window
 * contiguously (TUNE_CONV3D_EFF_CL, fitted on nnU-Net 3D under XLA,
 * published.csv P11-* fit rows); NCDHW tensors, eager PyTorch's default,
 * are transposed around the same kernels, TUNE_CONV3D_NCDHW_COST times
 * slower (derived from a microbenchmark, tune.h); stacks without those
 * kernels (cuDNN before 8.0.2, TensorFlow 1.x, which hands cuDNN NCDHW)
 * gather each input element many times and use few tiles per SM
 * (TUNE_CONV3D_EFF_LEGACY, fitted to 3D U-Net on V100: published.csv
 * P8-001/002/005/006, P8-009..011).  FP32 2D convolutions exceed the direct
 * count (Winograd, calibration S6-005); 3D ones do not.
 */
#include <math.h>

#include "model/kernels.h"
#include "model/tune.h"

#define TUNE_GEMM_TILE 128.0

double model_gemm_wave_eff(double sms, double m, double n, double k)
{
	double tiles, waves;
	if (!(sms > 0) || m <= 0 || n <= 0)
		return 1;
	tiles = ceil(m / TUNE_GEMM_TILE) * ceil(n / TUNE_GEMM_TILE);
	(void)k;
	if (tiles < sms)
		return 1;
	waves = ceil(tiles / sms);
	return tiles / (waves * sms);
}

double model_gemm_shape_eff(double sms, double m, double n, double k)
{
	double x0 = TUNE_GEMM_X0;
	if (m <= 0 || n <= 0 || k <= 0)
		return 1;
	return m / (m + x0) * n / (n + x0) * k / (k + x0) * model_gemm_wave_eff(sms, m, n, k);
}

double model_conv_eff(int dims, int tensor_cores, enum model_conv3d_path path)
{
	if (dims != 3)
		return tensor_cores ? TUNE_CONV_EFF : TUNE_CONV_EFF_FP32;
	if (!tensor_cores)
		return TUNE_CONV3D_EFF_FP32;
	switch (path) {
	case MODEL_CONV3D_NDHWC:
		return TUNE_CONV3D_EFF_CL;
	case MODEL_CONV3D_LEGACY:
		return TUNE_CONV3D_EFF_LEGACY;
	case MODEL_CONV3D_NCDHW:
	default:
		return TUNE_CONV3D_EFF_CL / TUNE_CONV3D_NCDHW_COST;
	}
}
