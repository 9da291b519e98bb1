/*
 * The scenario resolver (model.h): a workload plus what the user gave,
 * completed into one checked configuration.  Every default of estimate,
 * validate, plan and check is decided here or in model_config_complete(),
 * which it calls; no command keeps one of its own.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_int.h"
#include "util/strbuf.h"

void model_request_init(struct model_request *q)
{
	memset(q, 0, sizeof(*q));
	q->gpus = q->gpus_per_node = MODEL_UNSET;
	q->task = q->precision = q->kv_precision = q->recompute = q->optimizer = q->offload = MODEL_UNSET;
	q->flash = q->loader = q->cudnn_benchmark = q->channels_last = q->conv3d_legacy = MODEL_UNSET;
	q->master = q->optimizer_in_backward = q->activation_offload = q->lora_targets = MODEL_UNSET;
	q->logits = q->mlm_head = q->autocast = MODEL_UNSET;
	q->tp = q->pp = q->dp = q->ep = q->vpp = q->cp = q->zero = q->seq_parallel = q->etp = MODEL_UNSET;
	q->hsdp = q->reshard_after_forward = q->zero3_impl = q->overlap = q->fp8_saved_weights = MODEL_UNSET;
	q->micro_batch = q->global_batch = q->seq_len = q->lora_rank = MODEL_UNSET;
	q->batch = q->prompt_len = q->output_len = q->cuda_graphs = MODEL_UNSET;
	q->engine = q->weight_precision = q->mig = MODEL_UNSET;
	q->quant_kernel = MODEL_QUANT_DEFAULT;
	q->cpu_cores_per_node = MODEL_UNSET;
}

static void note(struct model_notes *n, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	if (!n || n->n >= MODEL_NOTES_MAX)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	n->text[n->n++] = strbuf_detach(&sb, NULL);
}

void model_notes_release(struct model_notes *n)
{
	int i;
	for (i = 0; i < n->n; i++)
		free(n->text[i]);
	memset(n, 0, sizeof(*n));
}

/* ---- layouts ---- */

int model_tp_valid(const struct workload *w, int tp)
{
	if (tp < 1)
		return 0;
	if (w->kind != WORKLOAD_TRANSFORMER)
		return tp == 1;
	return w->d.heads % tp == 0 && w->d.ffn_hidden % tp == 0;
}

int model_pp_valid(const struct workload *w, int pp, int vpp, int even)
{
	if (pp < 1 || vpp < 1)
		return 0;
	if (w->kind != WORKLOAD_TRANSFORMER)
		return pp == 1 && vpp == 1;
	if (pp > w->d.layers)
		return 0;
	/* interleaved stages are equal chunks; plain stages may be uneven */
	if (vpp > 1 || even)
		return w->d.layers % (pp * vpp) == 0;
	return 1;
}

double model_stage_layers(const struct workload *w, const struct model_config *c)
{
	return c->pp > 1 ? ceil((double)w->d.layers / c->pp) : w->d.layers;
}

void model_layout_begin(struct model_layout_iter *it, const struct workload *w, int gpus, int max_tp, int even)
{
	it->w = w;
	it->gpus = gpus;
	it->max_tp = max_tp;
	it->even = even;
	it->tp = 1;
	it->pp = 0;
	it->dp = 0;
}

int model_layout_next(struct model_layout_iter *it)
{
	for (; it->tp <= it->gpus && (!it->max_tp || it->tp <= it->max_tp); it->tp++, it->pp = 0) {
		if (!model_tp_valid(it->w, it->tp) || it->gpus % it->tp)
			continue;
		while (++it->pp <= it->gpus / it->tp) {
			if (it->gpus % (it->tp * it->pp) || !model_pp_valid(it->w, it->pp, 1, it->even))
				continue;
			it->dp = it->gpus / (it->tp * it->pp);
			return 1;
		}
	}
	return 0;
}

/* ---- defaults that depend on the GPU ---- */

static enum model_precision default_precision(const struct workload *w, const struct cat_gpu *g)
{
	if (w->dtype >= 0 && w->dtype < MODEL_INT8 && peak_of(g, (enum model_precision)w->dtype) > 0)
		return (enum model_precision)w->dtype;
	return g->bf16_tflops > 0 ? MODEL_BF16 : g->fp16_tflops > 0 ? MODEL_FP16 : MODEL_FP32;
}

int model_default_weight_precision(const struct workload *w, enum model_task task, int given)
{
	if (given != MODEL_UNSET)
		return given;
	/* a quantised checkpoint (config.json quantization_config) is served as it is stored */
	return w->weight_quant != MODEL_FP32 && task == MODEL_TASK_INFER ? (int)w->weight_quant : -1;
}

/* The KV cache at the working precision; fp8 and fp4 runs keep a bf16 cache, fp32/tf32 an fp32 one. */
static enum model_precision default_kv(enum model_precision p)
{
	return p == MODEL_FP32 || p == MODEL_TF32 ? MODEL_FP32 : low_precision(p) ? MODEL_BF16 : p;
}

/*
 * The scale-out fabric a multi-node run of this GPU most likely has: the
 * NICs of the catalog's servers built around it (or around a GPU of its
 * architecture), else by its launch year InfiniBand EDR (before 2019), HDR
 * (2019-2021), NDR (2022-2024) or XDR, one port per GPU.
 */
static void usual_network(const struct catalog *cat, const struct cat_gpu *g, int gpn, char *spec, size_t len,
			  char *why, size_t why_len)
{
	size_t i, n = catalog_count(cat, CAT_SERVERS);
	int pass;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			const struct cat_server *s = catalog_row(cat, CAT_SERVERS, i);
			const struct cat_gpu *sg;
			if (!s->gpu || !s->nic || !(s->nic_count > 0) || !(s->nic_gbps > 0))
				continue;
			sg = catalog_get(cat, CAT_GPUS, s->gpu);
			if (!sg || (pass == 0 ? sg != g : !(sg->arch && g->arch && !strcmp(sg->arch, g->arch))))
				continue;
			/* the server's NICs per GPU, scaled to this node's GPUs */
			snprintf(spec, len, "%s-%.0fx%g", s->nic,
				 fmax(1, round(s->nic_count * gpn / (s->gpu_count > 0 ? s->gpu_count : gpn))),
				 s->nic_gbps);
			snprintf(why, why_len, "the fabric of the catalog's %s servers", s->row.key);
			return;
		}
	{
		double y = cat_has(g->launch_year) ? g->launch_year : 2020;
		const char *f = y < 2019 ? "ib-edr" : y < 2022 ? "ib-hdr" : y < 2025 ? "ib-ndr" : "ib-xdr";
		double gbit = y < 2019 ? 100 : y < 2022 ? 200 : y < 2025 ? 400 : 800;
		snprintf(spec, len, "%s-%dx%g", f, gpn, gbit);
		snprintf(why, why_len, "the usual fabric of GPUs launched in %.0f, one port per GPU", y);
	}
}

/* ---- the resolver ---- */

int model_channels_last_check(const struct workload *w, int given, struct diag *err)
{
	if (given == MODEL_UNSET || given == -1 || (w->kind == WORKLOAD_PER_SAMPLE && w->s.input_dims == 3))
		return 0;
	return diag_set(err, "", 0, 0, "channels-last",
			"--channels-last applies to the 3D convolutions of a volume network (unet3d); %s has none",
			w->name);
}

int model_channels_last(const struct model_config *cfg)
{
	if (cfg->channels_last == 0 || cfg->channels_last == 1)
		return cfg->channels_last;
	/* a graph compiler hands cuDNN NDHWC tensors; eager PyTorch keeps the NCDHW it was given */
	return cfg->engine == MODEL_ENGINE_COMPILE || cfg->engine == MODEL_ENGINE_TENSORRT;
}

#define PICK(field, def) ((q->field) != MODEL_UNSET ? (q->field) : (def))

/* --hsdp, --reshard-after-forward or --zero3-impl given: the ZeRO-3 options, which fix the stage at 3 */
static int sharding_given(const struct model_request *q)
{
	return q->hsdp != MODEL_UNSET || q->reshard_after_forward != MODEL_UNSET || q->zero3_impl != MODEL_UNSET;
}

/* The request's own choices, before the layout and the links. */
static void fill_choices(const struct workload *w, const struct model_request *q, struct model_config *c)
{
	c->task = (enum model_task)PICK(task, MODEL_TASK_PRETRAIN);
	c->precision = q->precision != MODEL_UNSET ? (enum model_precision)q->precision :
						     default_precision(w, c->gpu);
	c->kv_precision = q->kv_precision != MODEL_UNSET ? (enum model_precision)q->kv_precision :
							   default_kv(c->precision);
	c->recompute = (enum model_recompute)PICK(recompute, MODEL_RECOMPUTE_NONE);
	c->optimizer = (enum model_optimizer)PICK(optimizer, MODEL_OPTIM_ADAMW);
	c->offload = (enum model_offload)PICK(offload, MODEL_OFFLOAD_NONE);
	c->master = (enum model_master)PICK(master, MODEL_MASTER_FP32);
	c->optimizer_in_backward = PICK(optimizer_in_backward, 0);
	c->activation_offload = PICK(activation_offload, 0);
	c->lora_targets = (enum model_lora_targets)PICK(lora_targets, MODEL_LORA_ATTN_MLP);
	c->logits = (enum model_logits)PICK(logits, MODEL_LOGITS_FP32);
	c->mlm_head = (enum model_mlm_head)PICK(mlm_head, MODEL_MLM_HEAD_MASKED);
	c->autocast = PICK(autocast, 0);
	/* parameter offload, hybrid sharding and resharding are ZeRO-3's: they imply it */
	c->zero = PICK(zero, c->offload == MODEL_OFFLOAD_PARAMS || sharding_given(q) ? 3 : 0);
	c->hsdp = PICK(hsdp, 0);
	c->reshard_after_forward = PICK(reshard_after_forward, 1);
	c->zero3_impl = (enum model_zero3_impl)PICK(zero3_impl, MODEL_ZERO3_FSDP);
	c->overlap = (enum model_overlap)PICK(overlap, MODEL_OVERLAP_GRAD);
	c->fp8_saved_weights = PICK(fp8_saved_weights, 0);
	c->loader = (enum model_loader)PICK(loader, MODEL_LOADER_CPU);
	c->cudnn_benchmark = PICK(cudnn_benchmark, 1);
	c->cuda_graphs = PICK(cuda_graphs, 0);
	c->engine = (enum model_engine)PICK(engine, MODEL_ENGINE_EAGER);
	c->channels_last = -1;
	c->channels_last = PICK(channels_last, model_channels_last(c));
	c->conv3d_legacy = PICK(conv3d_legacy, 0);
	c->weight_precision = model_default_weight_precision(w, c->task, q->weight_precision);
	c->quant_kernel = q->quant_kernel; /* the default is model_config_complete()'s */
	c->mig = PICK(mig, 0);
	c->input_elems = q->input_elems;
	c->input_dims = q->input_dims;
	c->seq_parallel = PICK(seq_parallel, 0);
	/* flash attention: where PyTorch's SDPA has flash kernels (flash_on's rule) */
	c->flash = -1;
	c->flash = q->flash != MODEL_UNSET ? q->flash : flash_on(c);
	c->micro_batch = PICK(micro_batch, 0);
	c->global_batch = PICK(global_batch, 0);
	c->seq_len = PICK(seq_len, 0);
	c->lora_rank = PICK(lora_rank, 0);
	c->batch = PICK(batch, 0);
	c->prompt_len = PICK(prompt_len, 0);
	c->output_len = q->output_len; /* MODEL_UNSET: model_config_complete decides */
	c->train_tokens = q->train_tokens;
	c->train_samples = q->train_samples;
	c->epochs = q->epochs;
}

/* GPUs per node and the links; a multi-node run without a network gets the usual one. */
static int fill_links(const struct catalog *cat, const struct model_request *q, struct model_config *c,
		      struct model_notes *notes, struct diag *err)
{
	const char *network = q->network;
	char spec[96], why[160];
	if (q->gpus_per_node != MODEL_UNSET)
		c->gpus_per_node = q->gpus_per_node;
	else if (q->server && q->server->gpu_count > 0)
		c->gpus_per_node = (int)q->server->gpu_count;
	else {
		/*
		 * Eight GPUs a server, or the NVLink domain for parts that come
		 * only in larger ones (GB200: racks of 36 or 72, gpus.csv node_gpus)
		 */
		int sizes[64], dflt = 8;
		size_t ns = cat_node_sizes(c->gpu, sizes, 64);
		if (ns && sizes[0] > 8)
			dflt = sizes[ns - 1];
		c->gpus_per_node = c->gpus < dflt ? c->gpus : dflt;
	}
	if (c->gpus_per_node > c->gpus)
		c->gpus_per_node = c->gpus;
	/* data loading: the cores given, else the server's share per GPU (what plan assumes) */
	c->cpu_cores_per_gpu = q->cpu_cores_per_node > 0 ? q->cpu_cores_per_node / c->gpus_per_node :
			       q->server                 ? cat_server_cores_per_gpu(cat, q->server) :
							   0;
	if (!network && c->gpus > c->gpus_per_node && !(q->server && q->server->nic && q->server->nic_count > 0)) {
		usual_network(cat, c->gpu, c->gpus_per_node, spec, sizeof(spec), why, sizeof(why));
		network = spec;
		note(notes, "no --network for %d GPUs on %d servers: assumed %s, %s", c->gpus,
		     (c->gpus + c->gpus_per_node - 1) / c->gpus_per_node, spec, why);
	}
	return model_links_from_catalog(c, cat, q->server, network, err);
}

/* Rounds a global batch that micro-batch x dp does not divide, as DeepSpeed derives its accumulation steps. */
static void round_batch(const struct model_request *q, struct model_config *c, struct model_notes *notes)
{
	long per = (long)c->micro_batch * c->dp;
	long g;
	if (c->task == MODEL_TASK_INFER || q->global_batch == MODEL_UNSET || per <= 0 ||
	    c->global_batch % per == 0)
		return;
	g = c->global_batch / per * per;
	if (g < per)
		g = per;
	note(notes,
	     "global batch %d is not a multiple of micro-batch x dp = %ld: rounded to %ld "
	     "(%ld accumulation steps)",
	     c->global_batch, per, g, g / per);
	c->global_batch = (int)g;
}

/* Time per sample of a completed config; INFINITY when it does not fit or is invalid. */
static double per_sample_s(const struct workload *w, const struct model_config *c, double *mem_bytes)
{
	struct model_result r;
	struct diag e;
	*mem_bytes = INFINITY;
	diag_clear(&e);
	if (model_config_check(w, c, &e) || model_estimate(w, c, &r))
		return INFINITY;
	*mem_bytes = r.mem.total_bytes;
	if (!r.mem.fits)
		return INFINITY;
	if (c->task == MODEL_TASK_INFER)
		return r.infer.request_s / (c->batch * c->dp);
	return r.time.step_s / c->global_batch;
}

/* The fastest configuration per sample that fits, and the one needing least memory. */
struct pick {
	struct model_config best, least;
	double best_s, least_b, second_s;
	int nfit, ntried;
};

static void pick_init(struct pick *p, const struct model_config *c)
{
	p->best = p->least = *c;
	p->best_s = p->least_b = p->second_s = INFINITY;
	p->nfit = p->ntried = 0;
}

static void pick_consider(struct pick *p, const struct workload *w, const struct model_config *t)
{
	double b, s = per_sample_s(w, t, &b);
	p->ntried++;
	if (b < p->least_b) {
		p->least_b = b;
		p->least = *t;
	}
	if (s < INFINITY)
		p->nfit++;
	if (s < p->best_s) {
		p->second_s = p->best_s;
		p->best_s = s;
		p->best = *t;
	} else if (s < p->second_s) {
		p->second_s = s;
	}
}

/* "x.x% ahead of the next" when a runner-up fits */
static const char *pick_lead(const struct pick *p, char *buf, size_t len)
{
	buf[0] = '\0';
	if (p->second_s < INFINITY)
		snprintf(buf, len, ", %.1f%% ahead of the next", 100 * (p->second_s / p->best_s - 1));
	return buf;
}

/* The highest ZeRO stage the resolver tries: 3 for data-parallel full training, else 0. */
static int zero_max(const struct model_config *c, int dp)
{
	int lora = c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA;
	return dp > 1 && !lora && c->task != MODEL_TASK_INFER ? 3 : 0;
}

/*
 * --gpus without --tp/--pp/--dp: every layout the rules admit (tensor
 * parallelism inside a server), with the ZeRO stage and recompute when
 * those were not given either; the fastest per sample that fits wins, else
 * the one needing least memory.
 */
static void pick_layout(const struct workload *w, const struct model_request *q, struct model_config *c,
			struct model_notes *notes)
{
	struct model_layout_iter it;
	struct pick p;
	char next[64];

	pick_init(&p, c);
	/* a --cp given with --gpus alone splits each replica's GPUs first */
	model_layout_begin(&it, w, c->gpus / c->cp, c->gpus_per_node, 1);
	while (model_layout_next(&it)) {
		int z, z0 = q->zero != MODEL_UNSET ? q->zero : sharding_given(q) ? 3 : 0;
		int z1 = q->zero != MODEL_UNSET || sharding_given(q) ? z0 : zero_max(c, it.dp);
		int r, r1 = q->recompute == MODEL_UNSET && c->task != MODEL_TASK_INFER ? 1 : 0;
		if (q->seq_parallel == 1 && it.tp == 1)
			continue;
		for (z = z0; z <= z1; z++)
			for (r = 0; r <= r1; r++) {
				struct model_config t = *c;
				t.tp = it.tp;
				t.pp = it.pp;
				t.dp = it.dp;
				t.zero = z;
				if (r1)
					t.recompute = r ? MODEL_RECOMPUTE_FULL : MODEL_RECOMPUTE_NONE;
				if (q->global_batch == MODEL_UNSET)
					t.global_batch = 0;
				if (q->micro_batch == MODEL_UNSET)
					t.micro_batch = 0;
				model_config_complete(w, &t);
				pick_consider(&p, w, &t);
			}
	}
	if (p.best_s < INFINITY) {
		*c = p.best;
		note(notes,
		     "--gpus %d without --tp/--pp/--dp: tp %d pp %d dp %d zero %d recompute %s, the fastest "
		     "of %d layouts that fit (of %d tried)%s",
		     c->gpus, c->tp, c->pp, c->dp, c->zero, model_recompute_name(c->recompute), p.nfit, p.ntried,
		     pick_lead(&p, next, sizeof(next)));
	} else if (p.least_b < INFINITY) {
		*c = p.least;
		note(notes,
		     "--gpus %d without --tp/--pp/--dp: no layout fits; tp %d pp %d dp %d zero %d needs the "
		     "least memory",
		     c->gpus, c->tp, c->pp, c->dp, c->zero);
	}
}

/*
 * A transformer's layout given without --zero: the stage by pick_layout's
 * rule, stages 0-3 for data-parallel full training (0 otherwise), the
 * fastest per sample that fits, else the one needing least memory.
 * Parameter offload needs stage 3 and keeps it; other networks keep DDP
 * (stage 0), as pick_layout leaves them.
 */
static void pick_zero(const struct workload *w, const struct model_request *q, struct model_config *c,
		      struct model_notes *notes)
{
	struct pick p;
	char next[64];
	int z, z1 = zero_max(c, dp_cp(c));
	if (q->zero != MODEL_UNSET || c->offload == MODEL_OFFLOAD_PARAMS || sharding_given(q) || z1 == 0 ||
	    w->kind != WORKLOAD_TRANSFORMER)
		return;
	pick_init(&p, c);
	for (z = 0; z <= z1; z++) {
		struct model_config t = *c;
		t.zero = z;
		pick_consider(&p, w, &t);
	}
	if (p.best_s < INFINITY) {
		*c = p.best;
		note(notes, "no --zero: stage %d, the fastest of %d stages that fit%s", c->zero, p.nfit,
		     pick_lead(&p, next, sizeof(next)));
	} else if (p.least_b < INFINITY) {
		*c = p.least;
		note(notes, "no --zero: no stage fits; stage %d needs the least memory", c->zero);
	}
}

int model_resolve(const struct workload *w, const struct catalog *cat, const struct model_request *q,
		  struct model_config *c, struct model_notes *notes, struct diag *err)
{
	int auto_layout;
	const struct cat_gpu *g = q->gpu;

	if (notes)
		memset(notes, 0, sizeof(*notes));
	model_config_defaults(c);
	if (!g && q->server && q->server->gpu)
		g = catalog_get(cat, CAT_GPUS, q->server->gpu);
	if (!g)
		return diag_set(err, "", 0, 0, "gpu",
				"no GPU given; use --gpu NAME (see 'gpuscope catalog gpus')");
	c->gpu = g;
	if (model_channels_last_check(w, q->channels_last, err))
		return -1;
	if (q->conv3d_legacy == 1 && model_channels_last_check(w, 1, err))
		return diag_set(
			err, "", 0, 0, "conv3d",
			"conv3d legacy applies to the 3D convolutions of a volume network (unet3d); %s has none",
			w->name);
	fill_choices(w, q, c);

	c->tp = PICK(tp, 1);
	c->pp = PICK(pp, 1);
	c->ep = PICK(ep, 1);
	c->etp = PICK(etp, 0);
	c->vpp = PICK(vpp, 1);
	c->cp = PICK(cp, 1);
	c->dp = PICK(dp, 0);
	c->gpus = PICK(gpus, 0);
	{
		const char *low = config_low_degree(c, 0);
		if (low || c->gpus < 0)
			return diag_set(err, "", 0, 0, low ? low : "gpus", "parallel degrees must be at least 1");
	}
	/* products of degrees in long: tp x pp of 65536 x 65536 does not fit an int */
	if ((long)c->tp * c->pp > MODEL_MAX_GPUS || (long)c->tp * c->pp * (c->dp ? c->dp : 1) > MODEL_MAX_GPUS)
		return diag_set(err, "", 0, 0, (long)c->tp * c->pp > MODEL_MAX_GPUS ? "tp" : "dp",
				"tp x pp%s = %d x %d%s%.0d is more than %d GPUs", c->dp ? " x dp" : "", c->tp,
				c->pp, c->dp ? " x " : "", c->dp, MODEL_MAX_GPUS);
	if ((long)c->tp * c->pp * c->cp * (c->dp ? c->dp : 1) > MODEL_MAX_GPUS)
		return diag_set(err, "", 0, 0, "cp", "tp x cp x pp%s = %d x %d x %d%s%.0d is more than %d GPUs",
				c->dp ? " x dp" : "", c->tp, c->cp, c->pp, c->dp ? " x " : "", c->dp,
				MODEL_MAX_GPUS);
	auto_layout = q->gpus != MODEL_UNSET && q->tp == MODEL_UNSET && q->pp == MODEL_UNSET &&
		      q->dp == MODEL_UNSET && w->kind == WORKLOAD_TRANSFORMER && q->gpus > 1;
	if (!c->gpus)
		c->gpus = c->tp * c->pp * c->cp * (c->dp ? c->dp : 1);
	if (c->cp > 1 && c->gpus % c->cp)
		return diag_set(err, "", 0, 0, "cp",
				"--cp %d does not divide --gpus %d: each sequence is split over "
				"cp GPUs of every replica",
				c->cp, c->gpus);
	if (!c->dp && !auto_layout && c->gpus % (c->tp * c->pp * c->cp))
		return diag_set(err, "", 0, 0, "gpus",
				"--gpus %d is not a multiple of tp x %spp = %d x %d; use --gpus %d "
				"or a layout that divides it",
				c->gpus, c->cp > 1 ? "cp x " : "", c->tp * c->cp, c->pp,
				(c->gpus / (c->tp * c->pp * c->cp) + 1) * c->tp * c->pp * c->cp);
	if (fill_links(cat, q, c, notes, err))
		return -1;
	if (auto_layout) {
		c->tp = c->pp = 1;
		c->dp = c->gpus / c->cp;
	}
	model_config_complete(w, c);
	if (auto_layout)
		pick_layout(w, q, c, notes);
	else
		pick_zero(w, q, c, notes);
	round_batch(q, c, notes);
	return model_config_check(w, c, err);
}

#undef PICK

/* ---- serialising ---- */

void model_config_flags(const struct workload *w, const struct model_config *c, struct strbuf *out)
{
	if (c->engine != MODEL_ENGINE_EAGER)
		strbuf_addf(out, "--engine %s ", model_engine_name(c->engine));
	strbuf_addf(out, "--task %s --gpus %d --gpus-per-node %d --precision %s --tp %d --pp %d --dp %d",
		    model_task_name(c->task), c->gpus, c->gpus_per_node, model_precision_name(c->precision), c->tp,
		    c->pp, c->dp);
	if (w->kind == WORKLOAD_TRANSFORMER)
		strbuf_addf(out, " --seq-len %d --flash-attention %s --tie-embeddings %s", c->seq_len,
			    flash_on(c) ? "on" : "off", w->d.tied_embeddings ? "on" : "off");
	if (c->weight_precision >= 0)
		strbuf_addf(out, " --weight-precision %s",
			    model_precision_name((enum model_precision)c->weight_precision));
	if (c->task == MODEL_TASK_INFER && model_quant_kernel_at(c->quant_kernel))
		strbuf_addf(out, " --quant-kernel %s", model_quant_kernel_at(c->quant_kernel)->name);
	if (c->task == MODEL_TASK_INFER) {
		/* batch 0: none to give (a serving engine's scheduler sets it as requests come) */
		if (c->batch > 0)
			strbuf_addf(out, " --batch %d", c->batch);
		strbuf_addf(out, " --prompt-len %d --output-len %d --kv-cache-precision %s", c->prompt_len,
			    c->output_len, model_precision_name(c->kv_precision));
		if (c->cuda_graphs)
			strbuf_addf(out, " --cuda-graphs");
		if (c->mig > 0)
			strbuf_addf(out, " --mig %d", c->mig);
	} else {
		if (c->vpp > 1)
			strbuf_addf(out, " --vpp %d", c->vpp);
		if (c->cp > 1)
			strbuf_addf(out, " --cp %d", c->cp);
		if (c->ep > 1)
			strbuf_addf(out, " --ep %d", c->ep);
		if (c->etp > 0 && c->etp != c->tp)
			strbuf_addf(out, " --etp %d", c->etp);
		strbuf_addf(out, " --zero %d --recompute %s", c->zero, model_recompute_name(c->recompute));
		if (c->zero >= 3 && c->hsdp > 0)
			strbuf_addf(out, " --hsdp %d", c->hsdp);
		if (c->zero >= 3 && !c->reshard_after_forward)
			strbuf_addf(out, " --reshard-after-forward off");
		if (c->zero >= 3 && c->zero3_impl != MODEL_ZERO3_FSDP)
			strbuf_addf(out, " --zero3-impl %s", model_zero3_impl_name(c->zero3_impl));
		if (c->overlap != MODEL_OVERLAP_GRAD)
			strbuf_addf(out, " --comm-overlap %s", model_overlap_name(c->overlap));
		if (c->fp8_saved_weights)
			strbuf_addf(out, " --fp8-saved-weights on");
		if (c->seq_parallel)
			strbuf_addf(out, " --seq-parallel");
		strbuf_addf(out, " --micro-batch %d --global-batch %d --optimizer %s", c->micro_batch,
			    c->global_batch, model_optimizer_name(c->optimizer));
		if (c->offload != MODEL_OFFLOAD_NONE)
			strbuf_addf(out, " --offload %s", model_offload_name(c->offload));
		if (c->master != MODEL_MASTER_FP32)
			strbuf_addf(out, " --master-weights %s", model_master_name(c->master));
		if (c->optimizer_in_backward)
			strbuf_addf(out, " --optimizer-in-backward");
		if (c->activation_offload)
			strbuf_addf(out, " --activation-offload");
		if (c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA)
			strbuf_addf(out, " --lora-rank %d --lora-targets %s", c->lora_rank,
				    model_lora_targets_name(c->lora_targets));
		if (w->kind == WORKLOAD_TRANSFORMER && c->logits != MODEL_LOGITS_FP32)
			strbuf_addf(out, " --logits %s", model_logits_name(c->logits));
		if (c->mlm_head != MODEL_MLM_HEAD_MASKED)
			strbuf_addf(out, " --mlm-head %s", model_mlm_head_name(c->mlm_head));
		if (c->autocast)
			strbuf_addf(out, " --autocast on");
		if (w->kind == WORKLOAD_PER_SAMPLE) {
			if (c->loader == MODEL_LOADER_DALI)
				strbuf_addf(out, " --data-loader dali");
			if (!c->cudnn_benchmark)
				strbuf_addf(out, " --cudnn-benchmark off");
		}
	}
	if (w->kind == WORKLOAD_PER_SAMPLE && c->channels_last >= 0) {
		struct model_config as_engine = *c;
		as_engine.channels_last = -1;
		if (c->channels_last != model_channels_last(&as_engine))
			strbuf_addf(out, " --channels-last %s", c->channels_last ? "on" : "off");
	}
}
