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
 * tensor-core GEMM ceiling (fitted: calibration S6-002/006); its 3D kernels
 * far less: implicit GEMM over 27-tap 3x3x3 windows with 32-64 channels
 * gathers each input element many times and uses few tiles per SM.  The 3D
 * constants are fitted to 3D U-Net on V100 (published.csv P8-001/002/005/006,
 * P8-009..011; P8-004/008/012 held out).  A graph compiler (XLA,
 * torch.compile with Inductor's layout optimisation, TensorRT) hands cuDNN
 * channels-last (NDHWC) tensors, for which cuDNN 8 has implicit-GEMM
 * tensor-core kernels that read each window contiguously: about three
 * times the channels-first share (fitted: nnU-Net 3D with XLA, published.csv
 * P11-* fit rows; every third held out).  FP32 2D convolutions exceed the
 * direct count (Winograd, calibration S6-005); 3D ones do not.
 */
#include <math.h>

#include "model/kernels.h"
#include "model/tune.h"

#define TUNE_GEMM_TILE 128.0
#define TUNE_CONV3D_EFF 0.14
#define TUNE_CONV3D_EFF_FP32 0.45
#define TUNE_CONV3D_EFF_CL 0.45

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

double model_conv_eff(int dims, int tensor_cores, int channels_last)
{
	if (dims == 3 && tensor_cores && channels_last)
		return TUNE_CONV3D_EFF_CL;
	if (dims == 3)
		return tensor_cores ? TUNE_CONV3D_EFF : TUNE_CONV3D_EFF_FP32;
	return tensor_cores ? TUNE_CONV_EFF : TUNE_CONV_EFF_FP32;
}
