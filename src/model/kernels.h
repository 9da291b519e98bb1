/*
 * Kernels by shape: what share of its ceiling one matrix multiply or
 * convolution reaches given its dimensions and the GPU it runs on.  Pure
 * arithmetic; the time model multiplies the GPU's achievable peak by these.
 */
#ifndef GPUSCOPE_MODEL_KERNELS_H
#define GPUSCOPE_MODEL_KERNELS_H

/*
 * Share of the large-GEMM ceiling an m x n x k multiply reaches: tiles left
 * partly empty by small dimensions, x / (x + x0) for each of m, n, k, times
 * the wave quantisation of its output tiles over the GPU's SMs (a last wave
 * that fills a third of the SMs costs a whole wave).  In (0, 1].
 */
double model_gemm_shape_eff(double sms, double m, double n, double k);

/*
 * Wave quantisation alone: pieces / (ceil(pieces / sms) x sms) for the
 * TUNE_GEMM_TILE x TUNE_GEMM_TILE output tiles of an m x n product over
 * `sms` streaming multiprocessors; 1 for fewer tiles than SMs (split along k
 * to fill them; their small dimensions are priced by the s(x) terms) and
 * when the SM count is unknown (0).  k is for the split and kept for the
 * callers' symmetry.
 */
double model_gemm_wave_eff(double sms, double m, double n, double k);

/* How cuDNN runs a network's 3D convolutions (docs/model.md, "3D convolutions"). */
enum model_conv3d_path {
	MODEL_CONV3D_NCDHW,  /* channels-first tensors, transposed around cuDNN 8's NDHWC kernels */
	MODEL_CONV3D_NDHWC,  /* channels_last_3d tensors (or a graph compiler's layout) */
	MODEL_CONV3D_LEGACY, /* a stack without those kernels: cuDNN before 8.0.2, TensorFlow 1.x */
};

/*
 * Share of the tensor-core (or, at 32-bit without TF32, the CUDA-core)
 * ceiling cuDNN reaches on a network's convolutions, by their spatial
 * dimensions (2: images, 3: volumes, 1: audio), whether they run on tensor
 * cores, and, for volumes on tensor cores, the path they take (2D and 1D
 * convolutions ignore it).  The NCDHW share is the NDHWC one over
 * TUNE_CONV3D_NCDHW_COST.
 */
double model_conv_eff(int dims, int tensor_cores, enum model_conv3d_path path);

#endif
