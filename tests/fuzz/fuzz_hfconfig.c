/*
 * Fuzzes the Hugging Face config.json reader.  Any input must give a
 * workload or a located error, never a crash; an accepted workload is then
 * sized and timed on a fixed GPU, so the derived constants cannot drive the
 * model into undefined arithmetic either.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct workload w;
	struct model_config c;
	struct model_result r;
	struct cat_gpu g;
	struct diag err;
	char msg[1024];

	diag_clear(&err);
	if (workload_from_hf_json(&w, "config.json", (const char *)data, size, &err)) {
		diag_format(&err, msg, sizeof(msg));
		return 0;
	}
	/* an H100-like GPU without the catalog */
	memset(&g, 0, sizeof(g));
	g.row.key = "fuzz-gpu";
	g.memory_gib = 80;
	g.mem_bw_gbps = 3350;
	g.fp32_tflops = 67;
	g.tf32_tflops = 495;
	g.fp16_tflops = g.bf16_tflops = 989;
	g.fp8_tflops = 1979;
	g.tdp_w = 700;
	g.idle_w = 70;
	g.pcie_gen = 5;
	g.gpu_link_gbps = 450;
	g.fp64_tflops = g.int8_tops = g.fp4_tflops = NAN;
	model_config_defaults(&c);
	c.gpu = &g;
	c.gpus = 8;
	c.gpus_per_node = 8;
	c.tp = w.d.heads % 8 == 0 && w.d.ffn_hidden % 8 == 0 ? 8 : 1;
	c.dp = 8 / c.tp;
	c.intra_kind = MODEL_LINK_NVSWITCH;
	c.intra_gbps = 450;
	model_config_complete(&w, &c);
	if (model_config_check(&w, &c, &err) == 0) {
		model_estimate(&w, &c, &r);
		c.task = MODEL_TASK_INFER;
		model_config_complete(&w, &c);
		if (model_config_check(&w, &c, &err) == 0)
			model_estimate(&w, &c, &r);
	}
	return 0;
}
