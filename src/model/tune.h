/*
 * Calibration constants of the performance model, in one place.  Each says
 * where its value comes from; those fitted to data were fitted only against
 * data/cases/calibration.csv (the "calibration-cases" set) and the figures
 * named beside them.  docs/model.md lists them with their sources.
 */
#ifndef GPUSCOPE_MODEL_TUNE_H
#define GPUSCOPE_MODEL_TUNE_H

/* GEMM best fraction of dense peak and HBM stream efficiency: per generation, model/vendor.c */
/* GEMM dimension at which a tile grid is half used (shape roofline) */
#define TUNE_GEMM_X0_DEFAULT 96.0
/* training GEMMs sustain less than a microbenchmark loop (fitted: S1-*) */
#define TUNE_TRAIN_GEMM_DEFAULT 0.86
/* usable fraction of the nominal memory (ECC, driver reservations) */
#define TUNE_USABLE_MEM 0.985
/* pinned host-to-device copies reach 0.81-0.83 of PCIe x16 (S8-008/022/032) */
#define TUNE_H2D_EFF_DEFAULT 0.82
/* NCCL bus bandwidth / link rate: NVLink/NVSwitch 0.77 (S8-011/012/044), NVLS all-reduce 1.065 (S8-025/026/033/042/046/047) */
#define TUNE_NVLINK_EFF_DEFAULT 0.77
#define TUNE_NVLS_EFF_DEFAULT 1.065
#define TUNE_PCIE_COLL_EFF 0.70
/* scale-out: busbw / NIC line rate (86 of 100 GB/s per node, S8-045) */
#define TUNE_INTER_EFF_DEFAULT 0.86
/* fixed cost of one NCCL collective launch */
#define TUNE_COLL_BASE_S 10e-6
/* cuBLAS/cuDNN workspaces and temporary buffers */
#define TUNE_WORKSPACE_BYTES (128.0 * 1048576)
/* DDP gradient buckets in flight (2 x 25 MiB) */
#define TUNE_BUCKET_BYTES (50.0 * 1048576)
/* inference activations of a per-sample network relative to its training set */
#define TUNE_INFER_ACT_FRACTION 0.1
/* segment checkpointing of a CNN keeps about a quarter of its activations */
#define TUNE_CNN_CKPT_FRACTION 0.25
/* extra workspace cudnn.benchmark may pick */
#define TUNE_CUDNN_BENCH_BYTES (256.0 * 1048576)
/*
 * caching-allocator fragmentation, share of allocated bytes: reserved /
 * allocated is 1.03-1.05 in four runs of peft issue #1469 and 1.01 in
 * torchtune issue #1398 (unsharded; small models above 1.1 left out)
 */
#define TUNE_RESERVE_FRACTION 0.04
/*
 * ... and the extra reserve of FSDP/ZeRO-3 (gathered layers freed across
 * streams): reserved/allocated is 1.12-1.24 in AnswerDotAI fsdp_qlora
 * benchmarks (7B LoRA), 1.27 and 1.31 in llama-cookbook PRs #41 and #165,
 * 1.27-1.36 in torchtitan PR #165; 0.15, 0.20 and 0.25 were tried on the
 * fit set of data/cases/memory.csv, 0.15 fitted best
 */
#define TUNE_RESERVE_SHARDED_DEFAULT 0.15
/*
 * fp32 bytes per logit beside the 16-bit logits when the loss upcasts them:
 * the fp32 logits and their log-softmax (8, as Megatron's loss keeps them)
 * and part of the shifted copy Hugging Face's causal-LM loss makes; 8, 10
 * and 12 were tried on the fit set of data/cases/memory.csv, 10 fitted best
 * (docs/model.md §2, logits and loss)
 */
#define TUNE_LOGITS_FP32_BYTES_DEFAULT 10.0
/* CUDA context with cuBLAS/cuDNN handles; NCCL buffers per process group */
#define TUNE_CONTEXT_BYTES (512.0 * 1048576)
#define TUNE_NCCL_BYTES (256.0 * 1048576)
/* flash attention forward: fraction of peak at large head dims (FlashAttention-2 paper, 50-73 % on A100); backward relative */
#define TUNE_FLASH_EFF 0.72
/*
 * HBM bytes per element of a Transformer Engine FP8 cast: read the 16-bit
 * tensor (2), write it in fp8 (1) and its transpose (1), as TE's fused
 * cast-transpose kernel does (docs/model.md, "FP8 casts").
 */
#define TUNE_FP8_CAST_BYTES 4.0
#define TUNE_FLASH_BWD_REL 0.8
/* kernels per transformer layer forward with fused norms and attention */
#define TUNE_KERNELS_PER_LAYER 14
/* share of the last backward that hides the DDP gradient all-reduce */
#define TUNE_DP_OVERLAP 0.8
/*
 * the share of the SMs a hidden ZeRO-3 gather or reduce-scatter takes from
 * the compute beside it: NCCL runs one CTA per channel, up to 32 channels
 * of an A100's 108 or a Hopper's 132 SMs (0.24-0.3), and its copies take
 * HBM bandwidth too, so a layer whose collectives the compute covers still
 * pays this share of their time (src/model/shard.c).  Fitted: 0 to 0.4 in
 * steps of 0.05 on the FSDP fit rows of data/cases/published.csv
 * (P10-001..005, P14-*:fit), lowest fit median (7.4 %) at 0.35.
 */
#define TUNE_ZERO3_SM_SHARE_DEFAULT 0.35
/*
 * relative spread (standard deviation) of one server's busy time in a
 * step, whose maximum over S servers the step waits for:
 * sigma sqrt(2 ln S) (src/model/scale.c, docs/model.md "Stragglers").
 * Fitted: 0 to 0.05 on the runs of 1,000 GPUs and more of the fit sets
 * (published.csv P16-006..009, P21-*; calibration.csv S1-006..010,
 * S1-019, S1-021, S1-022), lowest median at 0.
 */
#define TUNE_STRAGGLER_SIGMA_DEFAULT 0.0
/*
 * share of the tensor-parallel collectives that Megatron-Core's
 * --tp-comm-overlap (Transformer Engine's chunked all-gather and
 * reduce-scatter beside the GEMMs) hides, when a run says it used it
 * (--comm-overlap grad+param+tp; docs/model.md "Overlap").  Fitted: 0 to
 * 0.9 in steps of 0.1 on the Megatron-LM README rows with TP > 1
 * (published.csv P16-002..009, which state the flag), lowest median
 * (3.0 %) at 0.7.
 */
#define TUNE_TP_OVERLAP_DEFAULT 0.7
/* DeepSpeed CPU Adam, parameters updated per second per GPU's share of host cores (estimate) */
#define TUNE_CPU_ADAM_PARAMS_PER_S 1e9
/*
 * convolutions: fraction of the tensor-core GEMM ceiling cuDNN reaches on
 * ResNet-style layers (fitted: S6-002/006, the geometric mean of A100 and
 * V100 AMP); TF32 convolutions relative to that (fitted: S6-001); FP32
 * convolutions on CUDA cores relative to the FP32 peak, above the direct
 * count because Winograd kernels do fewer multiplies for 3x3 layers
 * (fitted: S6-005)
 */
#define TUNE_CONV_EFF_DEFAULT 0.59
#define TUNE_TF32_CONV_REL_DEFAULT 0.57
#define TUNE_CONV_EFF_FP32_DEFAULT 1.0
/*
 * what cudnn.benchmark's algorithm search gains on convolutions: half the
 * "up to 20%" nnU-Net once gave for it (nnunet/run/run_training.py), an
 * estimate
 */
#define TUNE_CUDNN_BENCH_GAIN 1.1
/*
 * INT8 compute under TensorRT (docs/model.md, "INT8 inference").  The
 * IMMA GEMMs' share of the dense INT8 peak relative to the 16-bit GEMMs'
 * share of theirs: 1, a prior (the same tiles at twice the rate), that no
 * case row tests yet.
 */
#define TUNE_INT8_GEMM_REL 1.0
/*
 * TensorRT's int8 convolutions (conv+bias+ReLU(+add) fused, NHWC/NC32HW32,
 * input and output quantised) relative to the 16-bit convolution share
 * TUNE_CONV_EFF; and a per-sample network's memory traffic under TensorRT,
 * a share of the preset's (which counts about 5 accesses per convolution
 * output element: eager convolution write, BN read/write, ReLU, residual
 * add).  Fused kernels write each output once and the next reads it once
 * (2 of 5, 0.4), less what stays in L2 between them (ResNet-50's largest
 * int8 activation is 0.8 MB an image).  Fitted together on MLPerf
 * Inference v3.1 and v4.0 ResNet-50 Offline (published.csv P35-001
 * P35-002 P36-001; v3.0, P37-*, held aside whole): at 0.4 no share of the
 * convolution rate reaches the L4's 12,882 images/s (the traffic alone
 * takes longer), so the traffic share sits at 0.1, its least physical
 * value tried (0.1-0.4), and 1.21 of the 16-bit share is then least in
 * the worst fit row (+14.3 % H100 SXM, -14.3 % L4).
 */
#define TUNE_INT8_CONV_REL 1.21
#define TUNE_TRT_SAMPLE_TRAFFIC 0.1
#define TUNE_INT8_CONV_REL 1.21
/*
 * 3D convolutions (docs/model.md, "3D convolutions"), shares of the
 * tensor-core GEMM ceiling: on NDHWC tensors with cuDNN 8's implicit-GEMM
 * kernels (fitted: nnU-Net 3D under XLA, published.csv P11-* fit rows);
 * on a stack without them (cuDNN before 8.0.2, TensorFlow 1.x; fitted:
 * P8-001/002/005/006, P8-009..011); FP32 on CUDA cores relative to the FP32
 * peak, either layout (fitted: the same P8 rows); TF32 relative to 16-bit
 * on the current kernels (fitted: P11-002 P11-004 P11-008 P11-010 P11-025
 * P11-026)
 */
#define TUNE_CONV3D_EFF_CL_DEFAULT 0.45
#define TUNE_CONV3D_EFF_LEGACY_DEFAULT 0.14
#define TUNE_CONV3D_EFF_FP32_DEFAULT 0.45
#define TUNE_TF32_CONV3D_REL_DEFAULT 0.78
/*
 * NCDHW 3D convolutions cost this many times their NDHWC time: cuDNN 8
 * transposes NCDHW operands to NDHWC around the same kernels.  Derived
 * from a microbenchmark, not from the cases: the fp16 forward + backward
 * times of a 128^3 3D U-Net's 28 convolution shapes, contiguous against
 * channels_last_3d, on an A100 with cuDNN 8.0.5 (xwang233/code-snippet
 * conv3d-channels-last/a100, the benchmark of PyTorch PR #48430): 96.0 ms
 * against 73.8 ms, 1.30 (1.19 on a V100)
 */
#define TUNE_CONV3D_NCDHW_COST 1.30
/*
 * Unfused (eager) memory-bound layers of a 3D network reach this share of
 * the HBM stream rate: PyTorch's InstanceNorm3d runs as a batch norm over
 * N x C planes of a whole volume each, a few dozen thread blocks for
 * the GPU's hundred SMs (fitted: P19-*:fit, nnU-Net v1's epoch times)
 */
#define TUNE_EAGER_MEM3D_EFF_DEFAULT 0.20
/*
 * Eager channels_last_3d: PyTorch has no NDHWC instance norm (issue #59168),
 * so each one converts its input to NCDHW and the next convolution converts
 * back, two copies (four passes) beside the five passes of a norm and an
 * activation: 4/5 more memory-bound traffic, at TUNE_EAGER_MEM3D_EFF too
 * (estimate)
 */
#define TUNE_CL3D_CONVERT 0.8
/* host cost per kernel launch: eager PyTorch, and replayed from a CUDA Graph */
#define TUNE_LAUNCH_S 6e-6
#define TUNE_LAUNCH_GRAPH_S 0.6e-6
/*
 * Transformer Engine under fp8 (delayed scaling), eager: host seconds per
 * fp8 linear module (te.Linear, LayerNormLinear, LayerNormMLP's two GEMMs)
 * and micro-batch, forward and backward, besides the kernels it launches:
 * the Python side of each call (fp8 meta tensors, amax-history and scale
 * bookkeeping, the autocast state, workspace and quantizer set-up).
 * NVIDIA/TransformerEngine issue #445 times one te.Linear under
 * fp8_autocast on an H100 at 2.07 ms an iteration against 0.57 ms in bf16,
 * flat from 1,024 to 10,240 tokens (host-bound); fitted on P12-001,
 * P13-001/002/004/005 (GPT-2 XL on one GPU at batch 8-14, where the step
 * grows 23 % for 75 % more tokens): docs/model.md, "FP8 host cost".
 */
#define TUNE_TE_FP8_MODULE_S_DEFAULT 1.3e-3
/* shortest GPU time of one kernel, however small its work (launch latency, ramp, drain) */
#define TUNE_KERNEL_MIN_S 2.5e-6
/* idle gap between dependent kernels in a latency-bound forward pass (estimate) */
#define TUNE_KERNEL_GAP_S 1.0e-6
/*
 * The engines' fitted host costs (model/engine.c holds the others).  Host
 * time to launch one kernel from eager PyTorch (Python, dispatcher, CUDA
 * launch): a Llama 3.1 8B decode step on one H100 takes 8.4 ms eager and
 * 5.1 ms replayed from a CUDA Graph with the same GPU work, about 1,460
 * launches, so about 5.8 us each (published.csv P7-003/004; P7-004 held out).
 */
#define TUNE_EAGER_LAUNCH_S_DEFAULT 6e-6
/*
 * Host time of one operation of a per-sample network in eager PyTorch.  Such
 * networks are built of one nn.Module per operation (Conv2d, BatchNorm2d,
 * ReLU, ...), so each costs a module call (hooks, forward dispatch), the
 * dispatcher, and for convolutions and normalisations cuDNN's host side
 * (descriptors, plan-cache lookup): several times a bare elementwise launch.
 * A ResNet-50 forward is 175 such operations (docs/model.md counts them).
 * Fitted to eager ResNet-50 at batch 1-32 on A100, V100 and T4, where the
 * latency stays at 6-8 ms whatever the GPU and batch (published.csv E5-*
 * fit rows; every third row held out): 40 us.
 */
#define TUNE_EAGER_MODULE_OP_S_DEFAULT 40e-6
/*
 * Hugging Face transformers generate, eager (engine "hf").  Besides the
 * kernels it launches, a decoder layer of its modelling code spends host time
 * in Python that launches nothing (module calls and hooks, the cache object's
 * update, mask and position bookkeeping, shape checks): fitted to batch-1
 * decoding in 16 bits that no GPU term explains, where the step stays flat
 * as the batch grows (published.csv P24-001/004/015/018/021, P26-001/004/007:
 * Llama 3.1 8B on an H100 24.4 ms a token at batch 1 and 25.5 ms at 8 with
 * 5 ms of weights to read; Llama 2 13B on an A100 37.0-37.9 ms at batch 1-4
 * with 13 ms): 0.5 ms a layer (0.4-0.6 tried; the median over those
 * sources' fit rows is least at 0.5).
 */
#define TUNE_HF_LAYER_S_DEFAULT 0.5e-3
/* DALI: CPU work left per sample (reading, batching) relative to a full decode, and GPU time share of decoding */
#define TUNE_DALI_CPU_RELIEF 10.0
#define TUNE_DALI_GPU_SHARE 0.1

/*
 * Memory as frameworks hold it (docs/model.md, "Memory"):
 * NF4 with double quantisation, bits per weight (Dettmers et al. 2023 sec. 3:
 * 4 + 32/64 for the first-level absmax, 8/64 + 32/(64 x 256) with DQ);
 * GPTQ/AWQ int4 with one fp16 scale and zero per group of 128 (4 + 32/128).
 */
#define TUNE_NF4_BITS 4.127
#define TUNE_INT4_BITS 4.25
/* Adafactor's factored second moment: a row and a column of fp32 per matrix, about 4 (1/h + 1/f) B per parameter */
#define TUNE_ADAFACTOR_BYTES 0.002
/* PyTorch per-op selective checkpointing ("op" policy): every other matmul output kept, about half a layer */
#define TUNE_SELECTIVE_OP_KEEP 0.5
/* chunked cross-entropy: the output split in 8 chunks (torchtune's CEWithChunkedOutputLoss default) */
#define TUNE_LOGIT_CHUNKS 8.0

/*
 * The constants above fitted to published cases (src/model/fitted.c names
 * the cases of each) are read through tune_fitted[], which holds their
 * _DEFAULT values, so that `gpuscope validate --refit` can refit each one
 * without a source and predict that source with it.  Only that command
 * writes the table, from one thread, and it restores the defaults.
 */
enum tune_fitted_id {
	TUNE_K_GEMM_X0,
	TUNE_K_TRAIN_GEMM,
	TUNE_K_H2D_EFF,
	TUNE_K_NVLINK_EFF,
	TUNE_K_NVLS_EFF,
	TUNE_K_INTER_EFF,
	TUNE_K_RESERVE_SHARDED,
	TUNE_K_LOGITS_FP32_BYTES,
	TUNE_K_ZERO3_SM_SHARE,
	TUNE_K_CONV_EFF,
	TUNE_K_TF32_CONV_REL,
	TUNE_K_CONV_EFF_FP32,
	TUNE_K_STRAGGLER_SIGMA,
	TUNE_K_CONV3D_EFF_CL,
	TUNE_K_CONV3D_EFF_LEGACY,
	TUNE_K_CONV3D_EFF_FP32,
	TUNE_K_TF32_CONV3D_REL,
	TUNE_K_EAGER_MEM3D_EFF,
	TUNE_K_TP_OVERLAP,
	TUNE_K_EAGER_LAUNCH_S,
	TUNE_K_EAGER_MODULE_OP_S,
	TUNE_K_HF_LAYER_S,
	TUNE_K_DS_RANK_COPY_S,
	TUNE_K_TE_FP8_MODULE_S,
	TUNE_NFITTED
};
extern double tune_fitted[TUNE_NFITTED];
/* their shipped values, in the order of enum tune_fitted_id */
#define TUNE_FITTED_DEFAULTS \
	TUNE_GEMM_X0_DEFAULT, TUNE_TRAIN_GEMM_DEFAULT, TUNE_H2D_EFF_DEFAULT, TUNE_NVLINK_EFF_DEFAULT, \
		TUNE_NVLS_EFF_DEFAULT, TUNE_INTER_EFF_DEFAULT, TUNE_RESERVE_SHARDED_DEFAULT, \
		TUNE_LOGITS_FP32_BYTES_DEFAULT, TUNE_ZERO3_SM_SHARE_DEFAULT, TUNE_CONV_EFF_DEFAULT, \
		TUNE_TF32_CONV_REL_DEFAULT, TUNE_CONV_EFF_FP32_DEFAULT, TUNE_STRAGGLER_SIGMA_DEFAULT, \
		TUNE_CONV3D_EFF_CL_DEFAULT, TUNE_CONV3D_EFF_LEGACY_DEFAULT, TUNE_CONV3D_EFF_FP32_DEFAULT, \
		TUNE_TF32_CONV3D_REL_DEFAULT, TUNE_EAGER_MEM3D_EFF_DEFAULT, TUNE_TP_OVERLAP_DEFAULT, \
		TUNE_EAGER_LAUNCH_S_DEFAULT, TUNE_EAGER_MODULE_OP_S_DEFAULT, TUNE_HF_LAYER_S_DEFAULT, \
		TUNE_DS_RANK_COPY_S_DEFAULT, TUNE_TE_FP8_MODULE_S_DEFAULT
#define TUNE_GEMM_X0 (tune_fitted[TUNE_K_GEMM_X0])
#define TUNE_TRAIN_GEMM (tune_fitted[TUNE_K_TRAIN_GEMM])
#define TUNE_H2D_EFF (tune_fitted[TUNE_K_H2D_EFF])
#define TUNE_NVLINK_EFF (tune_fitted[TUNE_K_NVLINK_EFF])
#define TUNE_NVLS_EFF (tune_fitted[TUNE_K_NVLS_EFF])
#define TUNE_INTER_EFF (tune_fitted[TUNE_K_INTER_EFF])
#define TUNE_RESERVE_SHARDED (tune_fitted[TUNE_K_RESERVE_SHARDED])
#define TUNE_LOGITS_FP32_BYTES (tune_fitted[TUNE_K_LOGITS_FP32_BYTES])
#define TUNE_ZERO3_SM_SHARE (tune_fitted[TUNE_K_ZERO3_SM_SHARE])
#define TUNE_CONV_EFF (tune_fitted[TUNE_K_CONV_EFF])
#define TUNE_TF32_CONV_REL (tune_fitted[TUNE_K_TF32_CONV_REL])
#define TUNE_CONV_EFF_FP32 (tune_fitted[TUNE_K_CONV_EFF_FP32])
#define TUNE_STRAGGLER_SIGMA (tune_fitted[TUNE_K_STRAGGLER_SIGMA])
#define TUNE_CONV3D_EFF_CL (tune_fitted[TUNE_K_CONV3D_EFF_CL])
#define TUNE_CONV3D_EFF_LEGACY (tune_fitted[TUNE_K_CONV3D_EFF_LEGACY])
#define TUNE_CONV3D_EFF_FP32 (tune_fitted[TUNE_K_CONV3D_EFF_FP32])
#define TUNE_TF32_CONV3D_REL (tune_fitted[TUNE_K_TF32_CONV3D_REL])
#define TUNE_EAGER_MEM3D_EFF (tune_fitted[TUNE_K_EAGER_MEM3D_EFF])
#define TUNE_TP_OVERLAP (tune_fitted[TUNE_K_TP_OVERLAP])
#define TUNE_EAGER_LAUNCH_S (tune_fitted[TUNE_K_EAGER_LAUNCH_S])
#define TUNE_EAGER_MODULE_OP_S (tune_fitted[TUNE_K_EAGER_MODULE_OP_S])
#define TUNE_HF_LAYER_S (tune_fitted[TUNE_K_HF_LAYER_S])
#define TUNE_DS_RANK_COPY_S (tune_fitted[TUNE_K_DS_RANK_COPY_S])
#define TUNE_TE_FP8_MODULE_S (tune_fitted[TUNE_K_TE_FP8_MODULE_S])

/*
 * DeepSpeed's ZeRO-3 of 2021 (v0.3-0.5, --zero3-impl deepspeed-2021).  Host
 * time of one parameter's all-gather: 130 us before the launch and 250 us
 * for it, each gather after a torch.cuda.synchronize() (DeepSpeed issue
 * #1069, v0.3.16 on 8 A100).
 */
#define TUNE_DS_GATHER_HOST_S 380e-6
/* gradients all-reduced (issue #1173) in buckets of reduce_bucket_size, 5e8 16-bit elements by default */
#define TUNE_DS_BUCKET_BYTES (5e8 * 2)
/*
 * the time per rank of the group that each gather spends splitting its
 * output into one tensor per rank and copying them out (the list form of
 * torch.distributed.all_gather; PR #1188 removed it): fitted on
 * S1-011..016, 40, 50, 55, 60 and 80 us tried, 60 best (median 8.5 %)
 */
#define TUNE_DS_RANK_COPY_S_DEFAULT 60e-6
#endif
