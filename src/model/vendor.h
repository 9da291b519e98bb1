/*
 * What each GPU generation and software stack achieves of its datasheet
 * peaks: the best large-GEMM fraction of dense peak per precision class and
 * the HBM stream fraction.  One row per architecture (the catalog's `arch`),
 * falling back by ecosystem (cuda, rocm, synapseai).  docs/model.md
 * "Vendors and generations" lists each row with its source.
 */
#ifndef GPUSCOPE_MODEL_VENDOR_H
#define GPUSCOPE_MODEL_VENDOR_H

#include "catalog/catalog.h"

struct model_vendor_eff {
	const char *arch; /* catalog arch, or "*cuda" ... for an ecosystem's fallback */
	double gemm16;    /* fp16/bf16 large GEMM, fraction of dense peak */
	double gemm_tf32;
	double gemm_fp32; /* CUDA cores / vector units */
	double gemm_fp8;
	double gemm_fp4; /* nvfp4/mxfp4 block-scaled GEMM (Blackwell); the fp8 fraction until measured */
	double hbm;      /* stream bandwidth, fraction of the datasheet's */
	double fw_bw;    /* what framework kernels reach of that stream rate */
	double paged_kv; /* paged-attention decode reads of the KV cache, fraction of hbm */
	/*
	 * what a serving engine's inference reaches of the GEMM and flash
	 * attention rates above (1: all of it)
	 */
	double serve_compute;
	int mesh_links;   /* the 8-GPU board joins every pair by its own links (a full mesh with
	                              this many peers); 0: a switch or a ring-friendly topology */
	double tp_hidden; /* share of the tensor-parallel collectives that runs under compute */
	int fp8_casts;    /* fp8 training casts each linear's inputs in kernels of their own
	                              (Transformer Engine on CUDA and ROCm); 0: inside the matrix engine */
};

/* The row for g (never NULL: an unknown part gets the CUDA fallback).  Static. */
const struct model_vendor_eff *model_vendor_eff(const struct cat_gpu *g);

/*
 * For `validate --refit` only (one thread, no model running beside it):
 * sets one fraction ("gemm16", "gemm_tf32", "gemm_fp32", "gemm_fp8", "gemm_fp4", "hbm",
 * "fw_bw", "paged_kv", "serve_compute", "tp_hidden") of the rows named in `archs` (comma-
 * separated arch keys, or "*" for every row) to v; -1 when a name is not a
 * row or a field.  model_vendor_reset() puts every row back as shipped.
 */
int model_vendor_set(const char *archs, const char *field, double v);
void model_vendor_reset(void);

#endif
