/*
 * The search space of `plan`: which kinds of node may be used (catalog
 * servers, generic builds, cloud instances), how they connect, what an hour
 * of them costs, and which node counts and fabrics are tried.  Everything
 * here is computed once per plan, so the search loop only copies numbers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plan/plan_int.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Hardware left out, by reason; composed into plan->skipped at the end. */
enum skip_reason {
	SKIP_HW_PRICE,
	SKIP_GPU_PRICE,
	SKIP_GPU_HOST,
	SKIP_TIER_PRICE,
	SKIP_END_OF_SALE,
	SKIP_UNSUPPORTED,
	SKIP_NREASONS
};
static const char *const skip_words[SKIP_NREASONS] = {
	"servers or instances without a price",
	"GPUs without a price (no generic build)",
	"GPUs without a catalog server to take a host share from (no generic build)",
	"instances without a price at the --price-tier asked",
	"past their end of sale (--include-eol keeps them)",
	"dropped by current CUDA or PyTorch releases (--include-eol keeps them)",
};
_Static_assert(sizeof(((struct plan *)0)->skip_lists) / sizeof(struct strbuf) == SKIP_NREASONS,
	       "plan.skip_lists holds one list per reason");
_Static_assert(sizeof(((struct plan *)0)->skip_detail) / sizeof(struct strbuf) == SKIP_NREASONS,
	       "plan.skip_detail holds one detail per reason");

/* Closes the run of keys that share the list's detail: "a, b (2023-03)". */
static void skip_close(struct plan *p, enum skip_reason r)
{
	if (p->skip_detail[r].len)
		strbuf_addf(&p->skip_lists[r], " (%s)", strbuf_str(&p->skip_detail[r]));
	strbuf_reset(&p->skip_detail[r]);
}

/* Adds key to reason r's list; keys in a row with the same detail ("2024-08") are said once after them. */
static void skip_note_detail(struct plan *p, enum skip_reason r, const char *key, const char *detail)
{
	struct strbuf *l = &p->skip_lists[r];
	detail = detail ? detail : "";
	if (strcmp(strbuf_str(&p->skip_detail[r]), detail))
		skip_close(p, r);
	if (l->len)
		strbuf_addstr(l, ", ");
	strbuf_addstr(l, key);
	strbuf_addstr(&p->skip_detail[r], p->skip_detail[r].len ? "" : detail);
}

static void skip_note(struct plan *p, enum skip_reason r, const char *key)
{
	skip_note_detail(p, r, key, NULL);
}

/* "REASON: KEY, KEY; REASON: KEY" into p->skipped (NULL when nothing was left out). */
static void compose_skipped(struct plan *p)
{
	struct strbuf sb = STRBUF_INIT;
	size_t r;
	for (r = 0; r < SKIP_NREASONS; r++) {
		skip_close(p, (enum skip_reason)r);
		strbuf_release(&p->skip_detail[r]);
		if (!p->skip_lists[r].len)
			continue;
		strbuf_addf(&sb, "%s%s: %s", sb.len ? "; " : "", skip_words[r], strbuf_str(&p->skip_lists[r]));
		strbuf_release(&p->skip_lists[r]);
	}
	free(p->skipped);
	p->skipped = sb.len ? strbuf_detach(&sb, NULL) : NULL;
	strbuf_release(&sb);
}

/*
 * The lifecycle that keeps a part out of the search: its own end of sale
 * and its GPU's (owning only: an instance is rented, not bought) and its
 * GPU's architecture dropped by current CUDA or PyTorch (catalog/life.c).
 */
static unsigned part_life(const struct plan *p, const struct cat_gpu *g, const struct cat_server *s, int rented)
{
	unsigned life = s ? cat_server_life(p->cat, s, p->req.now_month) : cat_gpu_life(g, p->req.now_month);
	return rented ? life & CAT_LIFE_UNSUPPORTED : life;
}

/*
 * Whether a part of that life is left out: then it is named under each of
 * its reasons, with its end of sale ("2024-08") or its GPU's last releases
 * ("volta: the last CUDA 12, PyTorch 2.14").  With --include-eol nothing is.
 */
static int left_out_for_life(struct plan *p, const char *key, unsigned life, const struct cat_gpu *g,
			     const struct cat_server *s)
{
	struct strbuf d = STRBUF_INIT;
	if (!life || p->req.include_eol)
		return 0;
	if (life & CAT_LIFE_END_OF_SALE) {
		int own = s && cat_month_parse(s->end_of_sale) >= 0 &&
			  cat_month_parse(s->end_of_sale) <= p->req.now_month;
		strbuf_addstr(&d, own ? s->end_of_sale : g && g->end_of_sale ? g->end_of_sale : "");
		if (!own && s && g)
			strbuf_addf(&d, " %s", g->row.key);
		skip_note_detail(p, SKIP_END_OF_SALE, key, strbuf_str(&d));
	}
	if ((life & CAT_LIFE_UNSUPPORTED) && g) {
		strbuf_reset(&d);
		strbuf_addf(&d, "%s: the last", g->arch ? g->arch : g->row.key);
		if (cat_has(g->cuda_last))
			strbuf_addf(&d, " CUDA %.0f%s", g->cuda_last, g->pytorch_last ? "," : "");
		if (g->pytorch_last)
			strbuf_addf(&d, " PyTorch %s", g->pytorch_last);
		skip_note_detail(p, SKIP_UNSUPPORTED, key, strbuf_str(&d));
	}
	strbuf_release(&d);
	return 1;
}

/* A part --include-eol let in says so in its label: "b100-sxm nvs (eos)". */
static void mark_life(struct plan_hw *h, unsigned life)
{
	size_t n = strlen(h->label);
	h->life = life;
	if (life)
		snprintf(h->label + n, sizeof(h->label) - n, " (%s)", cat_life_marks(life));
}

/*
 * When every GPU asked for lacks every precision asked for (--gpu
 * h100-sxm5-80gb --precision nvfp4), says so naming the first GPU and the
 * precisions it has; 0 when some asked GPU has one.
 */
static int no_precision_asked(const struct plan *p, struct diag *err)
{
	char asked[96] = "", has[96];
	size_t i, at = 0;
	for (i = 0; i < p->req.ngpus; i++)
		if (plan_gpu_precisions(p, p->req.gpus[i], NULL, 0) > 0)
			return 0;
	if (!p->req.ngpus)
		return 0;
	for (i = 0; i < MODEL_PRECISION_COUNT && at < sizeof(asked); i++)
		if (p->precisions & (1u << i)) {
			int n = snprintf(asked + at, sizeof(asked) - at, "%s%s", at ? ", " : "",
					 model_precision_name((enum model_precision)i));
			at = n < 0 ? sizeof(asked) : at + (size_t)n;
		}
	return diag_set(err, "", 0, 0, "precision", "%s has none of the precisions asked for (%s); it has %s",
			p->req.gpus[0]->row.key, asked,
			model_gpu_precisions_text(p->req.gpus[0], has, sizeof(has)));
}

static int gpu_wanted(const struct plan *p, const struct cat_gpu *g)
{
	size_t i;
	if (!g)
		return 0;
	if (p->req.ngpus) {
		for (i = 0; i < p->req.ngpus; i++)
			if (p->req.gpus[i] == g)
				break;
		if (i == p->req.ngpus)
			return 0;
	}
	if (p->req.ecosystem && strcasecmp(p->req.ecosystem, "any") &&
	    (!g->ecosystem || strcasecmp(g->ecosystem, p->req.ecosystem)))
		return 0;
	return plan_gpu_precisions(p, g, NULL, 0) > 0;
}

static double peak_at(const struct cat_gpu *g, enum model_precision pr)
{
	switch (pr) {
	case MODEL_FP32:
		return g->fp32_tflops;
	case MODEL_TF32:
		return g->tf32_tflops;
	case MODEL_FP16:
		return g->fp16_tflops;
	case MODEL_BF16:
		return g->bf16_tflops;
	case MODEL_FP8:
		return g->fp8_tflops;
	case MODEL_NVFP4:
	case MODEL_MXFP4:
		/* Blackwell's one FP4 rate: a GPU without it is never tried at fp4 */
		return g->fp4_tflops;
	default:
		return NAN;
	}
}

size_t plan_gpu_precisions(const struct plan *p, const struct cat_gpu *g, enum model_precision *out, size_t max)
{
	static const enum model_precision order[] = {MODEL_BF16,  MODEL_FP16, MODEL_FP8, MODEL_NVFP4,
						     MODEL_MXFP4, MODEL_TF32, MODEL_FP32};
	size_t i, n = 0;
	unsigned want = p->precisions;
	/* bf16 falls back to fp16 on GPUs that lack it (V100, T4: fp16 + loss scaling) */
	if ((want & (1u << MODEL_BF16)) && !(cat_has(g->bf16_tflops) && g->bf16_tflops > 0))
		want |= 1u << MODEL_FP16;
	else if ((want & (1u << MODEL_BF16)) && (p->precisions & (1u << MODEL_FP16)) == 0)
		want &= ~(1u << MODEL_FP16);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		double peak;
		if (!(want & (1u << order[i])))
			continue;
		peak = peak_at(g, order[i]);
		if (!cat_has(peak) || peak <= 0)
			continue;
		if (out && n < max)
			out[n] = order[i];
		n++;
	}
	return n;
}

/*
 * CPU cores per GPU of a generic build: the mean of the catalog servers
 * whose GPUs have the same form factor (the same servers tco takes the
 * host's share of price and power from).  0 when none: loading is then
 * reported, not limited.
 */
static double generic_cores_per_gpu(const struct catalog *cat, const struct cat_gpu *g)
{
	size_t i, n = catalog_count(cat, CAT_SERVERS), used = 0;
	double sum = 0;
	for (i = 0; i < n; i++) {
		const struct cat_server *s = catalog_server_at(cat, i);
		const struct cat_gpu *sg = s->gpu ? catalog_get(cat, CAT_GPUS, s->gpu) : NULL;
		double c;
		if (!sg || !sg->form_factor || !g->form_factor || strcmp(sg->form_factor, g->form_factor))
			continue;
		c = cat_server_cores_per_gpu(cat, s);
		if (c > 0) {
			sum += c;
			used++;
		}
	}
	return used ? sum / (double)used : 0;
}

static void owned_overrides(const struct plan *p, struct tco_inputs *in)
{
	if (p->req.utilisation_pct > 0)
		tco_inputs_set_flag(in, TCO_IN_UTILISATION, p->req.utilisation_pct);
	if (p->req.years > 0)
		tco_inputs_set_flag(in, TCO_IN_YEARS, p->req.years);
}

static struct plan_hw *new_hw(struct plan *p, size_t *cap)
{
	struct plan_hw *h;
	XGROW(p->hw, *cap, p->nhw);
	h = &p->hw[p->nhw];
	memset(h, 0, sizeof(*h));
	return h;
}

/* Copies the link fields model_links_from_catalog() chose into h. */
static void take_links(struct plan_hw *h, const struct model_config *cfg)
{
	h->intra_kind = cfg->intra_kind;
	h->intra_gbps = cfg->intra_gbps;
	h->intra_lat_us = cfg->intra_lat_us;
	h->intra_nvls = cfg->intra_nvls;
	h->host_gbps = cfg->host_gbps;
}

/*
 * cfg for nodes of gpn GPUs g (in server s, or NULL for a generic build or
 * an instance) as estimate completes it: the defaults and the catalog's
 * links.  0, or -1 when the catalog gives the node no links.
 */
static int node_config(const struct plan *p, const struct cat_gpu *g, int gpn, const struct cat_server *s,
		       struct model_config *cfg)
{
	struct diag err;
	model_config_defaults(cfg);
	cfg->gpu = g;
	cfg->gpus_per_node = gpn;
	cfg->gpus = gpn;
	diag_clear(&err);
	return model_links_from_catalog(cfg, p->cat, s, NULL, &err);
}

/* A catalog server or instance as a hardware option: its catalog key names it in the tables too. */
static void catalog_hw(struct plan_hw *h, enum plan_hw_kind kind, const char *key, const struct cat_gpu *g,
		       const struct model_config *cfg)
{
	h->kind = kind;
	snprintf(h->key, sizeof(h->key), "%s", key);
	snprintf(h->label, sizeof(h->label), "%s", key);
	h->gpu = g;
	h->gpus_per_node = cfg->gpus_per_node;
	take_links(h, cfg);
}

/*
 * GPUs of a catalog server of n that train when the rest are held as
 * spares: the largest power of two below n for an NVLink domain of more
 * than 8 GPUs whose size is not a power of two (GB200 NVL72: 64, 16 of its
 * 18 compute trays, the other two hot spares), else 0 (no spare variant).
 * Layouts split GPUs into tp x cp x pp x dp and the global batch into dp
 * replicas, and with model dimensions and batches in powers of two a
 * domain of 9 x 8 GPUs lays out nothing (docs/plan.md, "Spares").  Not for
 * inference, nor for generic builds (estimate runs a generic node of the
 * sizes it can be bought in, so the spares need the server's row).
 */
static int spare_active(const struct plan *p, int n)
{
	int a = 1;
	/* serving fills nodes with whole replicas of any count: spares would only idle */
	if (p->req.no_spares || p->base.task == MODEL_TASK_INFER || n <= 8 || (n & (n - 1)) == 0)
		return 0;
	while (a * 2 < n)
		a *= 2;
	return a;
}

/* Whether s is a server the user already owns (--have): searched whatever its lifecycle or GPU. */
static int is_had(const struct plan *p, const struct cat_server *s)
{
	size_t k;
	for (k = 0; k < p->req.nhave; k++)
		if (p->req.have[k].server == s)
			return 1;
	return 0;
}

static int add_server(struct plan *p, size_t *cap, const struct cat_server *s, int active)
{
	const struct cat_gpu *g = s->gpu ? catalog_get(p->cat, CAT_GPUS, s->gpu) : NULL;
	struct tco_inputs in;
	struct model_config cfg;
	struct diag err;
	struct plan_hw *h;
	unsigned life;
	int had;

	had = !active && is_had(p, s);
	if ((!had && !gpu_wanted(p, g)) || !g || !cat_has(s->gpu_count) || s->gpu_count < 1)
		return 0;
	life = part_life(p, g, s, 0);
	/* the spare variant of a rack is the rack: it was named already */
	if (life && !p->req.include_eol && !had) {
		if (!active)
			left_out_for_life(p, s->row.key, life, g, s);
		return 0;
	}
	diag_clear(&err);
	if (tco_inputs_init(&in, p->cat, &err) || tco_inputs_server(&in, p->cat, s, &err))
		goto no_price;
	owned_overrides(p, &in);
	h = new_hw(p, cap);
	if (cost_basis_owned(&h->cost, &in, &err))
		goto no_price;
	/* the spare variant's links as estimate reads them for --gpus-per-node ACTIVE --server S */
	if (node_config(p, g, active > 0 ? active : (int)s->gpu_count, s, &cfg))
		return 0;
	catalog_hw(h, PLAN_HW_SERVER, s->row.key, g, &cfg);
	h->server = s;
	h->own_inter_gbps_per_gpu = cfg.inter_gbps_per_gpu;
	h->own_inter_lat_us = cfg.inter_lat_us;
	if (s->nic && cat_has(s->nic_count) && cat_has(s->nic_gbps))
		snprintf(h->own_network, sizeof(h->own_network), "%gx %s %g Gb/s", s->nic_count, s->nic,
			 s->nic_gbps);
	h->max_nodes = cfg.inter_gbps_per_gpu > 0 ? 1 << 30 : 1;
	h->cpu_cores_per_gpu = cat_server_cores_per_gpu(p->cat, s);
	h->node_power_kw = in.value[TCO_IN_POWER];
	h->rack_units = in.value[TCO_IN_RACK_UNITS];
	h->cooling = s->cooling;
	h->tco = xmalloc(sizeof(*h->tco));
	*h->tco = in;
	if (s->nic && cat_has(s->nic_count)) {
		h->own_link = catalog_get(p->cat, CAT_LINKS, s->nic);
		h->own_ports_per_node = s->nic_count;
	}
	if (active > 0) {
		/* the same rack with spares: key and label say how many */
		h->spare_per_node = (int)s->gpu_count - active;
		snprintf(h->key, sizeof(h->key), "%.40s/%d+%d", s->row.key, active, h->spare_per_node);
		snprintf(h->label, sizeof(h->label), "%.60s +%d", s->row.key, h->spare_per_node);
	}
	mark_life(h, life);
	p->nhw++;
	return 0;
no_price:
	if (!active)
		skip_note(p, SKIP_HW_PRICE, s->row.key);
	return 0;
}

static const struct cat_link *pcie_link(const struct catalog *cat, const struct cat_gpu *g)
{
	char key[16];
	int gen = cat_has(g->pcie_gen) ? (int)g->pcie_gen : 4;
	snprintf(key, sizeof(key), "pcie%d", gen);
	return catalog_get(cat, CAT_LINKS, key);
}

/*
 * A GPU's key without its memory suffix ("h100-sxm5-80gb" -> "h100-sxm5")
 * when no other catalog GPU shares the rest, for narrow tables.
 */
static void short_gpu_name(const struct catalog *cat, const struct cat_gpu *g, char *buf, size_t len)
{
	const char *key = g->row.key, *dash = strrchr(key, '-');
	size_t stem, i, n = catalog_count(cat, CAT_GPUS);
	snprintf(buf, len, "%s", key);
	if (!dash || dash == key || !strchr("0123456789", dash[1]) ||
	    strcmp(dash + 1 + strspn(dash + 1, "0123456789"), "gb"))
		return;
	stem = (size_t)(dash - key);
	for (i = 0; i < n; i++) {
		const char *o = catalog_gpu_at(cat, i)->row.key;
		if (o != key && strlen(o) > stem && !strncmp(o, key, stem) && o[stem] == '-')
			return;
	}
	snprintf(buf, len, "%.*s", (int)stem, key);
}

static const char *link_tag(enum model_link k, const struct cat_gpu *g)
{
	int amd = g->vendor && !strcasecmp(g->vendor, "amd");
	int intel = g->vendor && !strcasecmp(g->vendor, "intel");
	switch (k) {
	case MODEL_LINK_NONE:
		return "";
	case MODEL_LINK_PCIE:
		return ""; /* cards sit on PCIe unless the label says otherwise */
	/* the same model classes carry other vendors' fabrics: name them right */
	case MODEL_LINK_NVLINK:
		return amd ? "xgmi" : intel ? "roce" : "nvl";
	case MODEL_LINK_NVSWITCH:
		return amd ? "xgmi" : intel ? "roce" : "nvs";
	default:
		return "?";
	}
}

/*
 * The node sizes a generic build of g is tried at: the counts the catalog
 * says a node of it holds (gpus.csv node_gpus: SXM/OAM baseboards of 4 or
 * 8, GB200 NVLink domains of 36 or 72, PCIe servers of 1-10), of which PCIe
 * servers are tried at 1, 2, 4 and 8 (the counts their layouts divide
 * into); each size must also be joined by the GPU's fabric
 * (cat_node_shape_ok).  A GPU without node_gpus keeps the former sizes.
 */
static size_t generic_sizes(const struct plan *p, const struct cat_gpu *g, int *out, size_t max)
{
	static const int tried[] = {1, 2, 4, 8, 16, 36, 72};
	int allowed[64];
	size_t na = cat_node_sizes(g, allowed, sizeof(allowed) / sizeof(allowed[0])), i, k, n = 0;
	char why[256];
	for (i = 0; i < sizeof(tried) / sizeof(tried[0]) && n < max; i++) {
		int size = tried[i];
		if (na) {
			for (k = 0; k < na && allowed[k] != size; k++)
				;
			if (k == na)
				continue;
		} else if (size > 8) {
			continue;
		}
		if (!cat_node_shape_ok(p->cat, g, size, why, sizeof(why)))
			continue;
		out[n++] = size;
	}
	return n;
}

/*
 * Whether a generic node of n GPUs of g would only repeat a catalog server.
 * A GPU sold only in rack-scale NVLink domains (every node size above 8:
 * GB200 in NVL36 and NVL72 racks) is bought as the vendor's rack, so where
 * the catalog has that rack it stands for the size; a generic build of it
 * would be the same rack under another name and price.
 */
static int rack_in_catalog(const struct plan *p, const struct cat_gpu *g, int n)
{
	int sizes[8];
	size_t i, ns = cat_node_sizes(g, sizes, 8), count = catalog_count(p->cat, CAT_SERVERS);
	if (!ns || sizes[0] <= 8)
		return 0;
	for (i = 0; i < count; i++) {
		const struct cat_server *s = catalog_server_at(p->cat, i);
		if (s->gpu && !strcmp(s->gpu, g->row.key) && cat_has(s->gpu_count) && (int)s->gpu_count == n)
			return 1;
	}
	return 0;
}

/*
 * Generic nodes of n GPUs of one type, n from generic_sizes().  PCIe cards
 * sit on PCIe, or are paired by NVLink bridges where the card has them
 * (model_links_from_catalog decides which fabric a node of n such GPUs
 * has; the PCIe variant is added beside it).  GPUs with on-die network
 * ports (Gaudi) bring their own scale-out network: links.csv
 * scaleout_ports of scaleout_link per GPU, and no NICs.  Sizes a catalog
 * rack covers are left to it (rack_in_catalog).
 */
static int add_generic(struct plan *p, size_t *cap, const struct cat_gpu *g)
{
	int is_card = g->form_factor && !strcasecmp(g->form_factor, "pcie");
	int sizes[8];
	size_t nsizes = generic_sizes(p, g, sizes, 8), i;
	const struct cat_link *gl = g->gpu_link ? catalog_get(p->cat, CAT_LINKS, g->gpu_link) : NULL;
	const struct cat_link *ondie = gl && gl->scaleout_link && cat_has(gl->scaleout_ports) ?
					       catalog_get(p->cat, CAT_LINKS, gl->scaleout_link) :
					       NULL;
	int variant;
	char short_name[64];
	unsigned life = part_life(p, g, NULL, 0);

	if (left_out_for_life(p, g->row.key, life, g, NULL))
		return 0;
	for (i = 0; i < nsizes; i++) {
		int n = sizes[i];
		struct tco_inputs in;
		struct cost_basis cb;
		struct diag err;
		char why[512];
		struct model_config cfg;

		if (n > p->req.max_gpus)
			break;
		if (rack_in_catalog(p, g, n))
			continue;
		diag_clear(&err);
		if (tco_inputs_init(&in, p->cat, &err) ||
		    tco_inputs_generic(&in, p->cat, g, n, why, sizeof(why), &err)) {
			skip_note(p, !cat_has(g->price_usd) ? SKIP_GPU_PRICE : SKIP_GPU_HOST, g->row.key);
			return 0;
		}
		owned_overrides(p, &in);
		if (cost_basis_owned(&cb, &in, &err)) {
			skip_note(p, SKIP_GPU_PRICE, g->row.key);
			return 0;
		}
		if (node_config(p, g, n, NULL, &cfg))
			continue;
		for (variant = 0; variant < 2; variant++) {
			struct plan_hw *h;
			if (variant == 1) {
				/* the same cards on PCIe only: for cards whose default is a bridge */
				const struct cat_link *l = pcie_link(p->cat, g);
				if (n == 1 || cfg.intra_kind == MODEL_LINK_PCIE || !is_card || !l)
					break;
				cfg.intra_kind = MODEL_LINK_PCIE;
				cfg.intra_gbps = l->bw_gbps_per_dir;
				/* as links.c times a PCIe node: the link's latency plus a host-bridge hop */
				cfg.intra_lat_us = (cat_has(l->latency_us) ? l->latency_us : 1.0) + 1.0;
				cfg.intra_nvls = 0;
			}
			h = new_hw(p, cap);
			h->kind = PLAN_HW_GENERIC;
			h->gpu = g;
			h->gpus_per_node = n;
			take_links(h, &cfg);
			snprintf(h->key, sizeof(h->key), "%s/%d/%s", g->row.key, n,
				 n == 1 ? "single" : model_link_name(cfg.intra_kind));
			short_gpu_name(p->cat, g, short_name, sizeof(short_name));
			snprintf(h->label, sizeof(h->label), "%s%s%s", short_name,
				 n == 1 || !*link_tag(cfg.intra_kind, g) ? "" : " ",
				 n == 1 ? "" : link_tag(cfg.intra_kind, g));
			mark_life(h, life);
			h->cost = cb;
			/* whole cores per node, so the estimate line (--cpu-cores N) times the same */
			h->cpu_cores_per_gpu = floor(generic_cores_per_gpu(p->cat, g) * n + 1e-9) / n;
			h->max_nodes = 1 << 30;
			h->node_power_kw = in.value[TCO_IN_POWER];
			h->rack_units = in.value[TCO_IN_RACK_UNITS];
			h->max_nic_gbps = cat_host_max_nic_gbps(p->cat, g);
			h->tco = xmalloc(sizeof(*h->tco));
			*h->tco = in;
			if (ondie && cat_has(ondie->bw_gbps_per_dir)) {
				h->own_inter_gbps_per_gpu = gl->scaleout_ports * ondie->bw_gbps_per_dir;
				h->own_inter_lat_us = cat_has(ondie->latency_us) ? ondie->latency_us : 2.0;
				h->own_link = ondie;
				h->own_ports_per_node = gl->scaleout_ports * n;
				snprintf(h->own_network, sizeof(h->own_network), "%gx %s on-die",
					 gl->scaleout_ports * n, ondie->row.key);
			}
			p->nhw++;
		}
	}
	return 0;
}

/*
 * Inference can run on a slice of a GPU: MIG instances (1g and 3g of a
 * 7-slice part, 1g of a 4-slice one) as hardware of one "GPU" each, at
 * their share of a one-GPU node's cost (the other slices serve other
 * work: the seeds' recommender-sharing-a-GPU case).  Searched after the
 * whole GPUs, so a small model that fits a slice can take one.
 */
static void add_mig(struct plan *p, size_t *cap)
{
	size_t i, n = p->nhw;
	for (i = 0; i < n; i++) {
		static const int profiles[] = {1, 3};
		const struct plan_hw *whole = &p->hw[i];
		size_t k;
		if (whole->kind != PLAN_HW_GENERIC || whole->gpus_per_node != 1 || whole->mig ||
		    !(whole->gpu->mig_slices > 0))
			continue;
		for (k = 0; k < sizeof(profiles) / sizeof(profiles[0]); k++) {
			double cs, ms;
			struct plan_hw *h;
			/* p->hw[i], not whole: new_hw below may have moved the array */
			if (model_mig_share(p->hw[i].gpu, profiles[k], &cs, &ms) || cs >= 1)
				continue;
			h = new_hw(p, cap);
			*h = p->hw[i]; /* new_hw may move p->hw */
			if (p->hw[i].tco) {
				/* each option owns its TCO inputs (freed one by one) */
				h->tco = xmalloc(sizeof(*h->tco));
				*h->tco = *p->hw[i].tco;
			}
			h->mig = profiles[k];
			snprintf(h->key, sizeof(h->key), "%s/mig-%dg", p->hw[i].gpu->row.key, profiles[k]);
			snprintf(h->label, sizeof(h->label), "%.60s %dg.%.0fgb", p->hw[i].label, profiles[k],
				 p->hw[i].gpu->memory_gib * ms);
			h->cost.usd_per_gpu_hour *= cs;
			h->cost.usd_per_hour *= cs;
			h->node_power_kw *= cs;
			h->max_nodes = 1;
			p->nhw++;
		}
	}
}

static int provider_wanted(const struct plan *p, const struct cat_cloud *c)
{
	if (!p->req.provider || !strcasecmp(p->req.provider, "any"))
		return 1;
	return c->provider && !strcasecmp(c->provider, p->req.provider);
}

/*
 * Cloud instances bring their own network: network_gbps Gb/s for the
 * instance, shared by its GPUs.  Latency is the catalog's RoCE figure
 * (providers' fabrics, EFA included, publish none comparable).  An instance
 * without a network figure, or a one-GPU instance on a general-purpose
 * network, is used alone.
 */
static int add_cloud(struct plan *p, size_t *cap, const struct cat_cloud *c)
{
	const struct cat_gpu *g = c->gpu ? catalog_get(p->cat, CAT_GPUS, c->gpu) : NULL;
	const struct cat_link *roce = catalog_get(p->cat, CAT_LINKS, "roce-400");
	struct model_config cfg;
	struct diag err;
	struct plan_hw *h;
	double net;

	unsigned life;

	if (!provider_wanted(p, c) || !gpu_wanted(p, g) || !cat_has(c->gpu_count) || c->gpu_count < 1)
		return 0;
	life = part_life(p, g, NULL, 1);
	if (left_out_for_life(p, c->row.key, life, g, NULL))
		return 0;
	h = new_hw(p, cap);
	diag_clear(&err);
	if (cost_basis_rented_at(&h->cost, c, (enum cat_tier)p->req.price_tier, &err)) {
		skip_note(p, cat_has(c->usd_per_hour) ? SKIP_TIER_PRICE : SKIP_HW_PRICE, c->row.key);
		return 0;
	}
	if (node_config(p, g, (int)c->gpu_count, NULL, &cfg))
		return 0;
	catalog_hw(h, PLAN_HW_CLOUD, c->row.key, g, &cfg);
	mark_life(h, life);
	h->cloud = c;
	/* NaN: no network, or one GPU behind a general-purpose one (cat_cloud_cluster_gbps()) */
	net = cat_cloud_cluster_gbps(p->cat, c);
	if (cat_has(net)) {
		h->own_inter_gbps_per_gpu = net / 8 / c->gpu_count;
		h->own_inter_lat_us = roce && cat_has(roce->latency_us) ? roce->latency_us : 2.0;
		h->max_nodes = 1 << 30;
		snprintf(h->own_network, sizeof(h->own_network), "%g Gb/s", net);
	} else {
		h->max_nodes = 1;
	}
	h->node_power_kw = cat_has(g->tdp_w) ? g->tdp_w * c->gpu_count / 1000 : 0;
	p->nhw++;
	return 0;
}

static int cmp_fabric(const void *a, const void *b)
{
	const struct plan_fabric *x = a, *y = b;
	if (x->gbps_per_gpu != y->gbps_per_gpu)
		return x->gbps_per_gpu < y->gbps_per_gpu ? -1 : 1;
	if (x->lat_us != y->lat_us)
		return x->lat_us > y->lat_us ? -1 : 1;
	return strcmp(x->link->row.key, y->link->row.key);
}

/* Every scale-out link of the catalog, one adapter per GPU, slowest first. */
static void build_fabrics(struct plan *p)
{
	size_t i, n = catalog_count(p->cat, CAT_LINKS), cap = 0;
	for (i = 0; i < n; i++) {
		const struct cat_link *l = catalog_link_at(p->cat, i);
		if (!l->kind || strcmp(l->kind, "scaleout") || !cat_has(l->bw_gbps_per_dir) ||
		    l->bw_gbps_per_dir <= 0)
			continue;
		XGROW(p->fab, cap, p->nfab);
		p->fab[p->nfab].link = l;
		p->fab[p->nfab].gbps_per_gpu = l->bw_gbps_per_dir;
		p->fab[p->nfab].lat_us = cat_has(l->latency_us) ? l->latency_us : 1.0;
		p->nfab++;
	}
	if (p->nfab)
		qsort(p->fab, p->nfab, sizeof(*p->fab), cmp_fabric);
}

/*
 * The model's own reading of each fabric for each generic option, so the
 * search uses exactly what `estimate --network KEY` would.
 */
static void build_nets(struct plan *p)
{
	size_t h, f;
	p->net = xcalloc(p->nhw * (p->nfab ? p->nfab : 1), sizeof(*p->net));
	for (h = 0; h < p->nhw; h++) {
		const struct plan_hw *hw = &p->hw[h];
		if (hw->kind != PLAN_HW_GENERIC)
			continue;
		for (f = 0; f < p->nfab; f++) {
			struct model_config cfg;
			struct diag err;
			struct plan_net *n = &p->net[h * p->nfab + f];
			model_config_defaults(&cfg);
			cfg.gpu = hw->gpu;
			cfg.gpus_per_node = hw->gpus_per_node;
			cfg.gpus = hw->gpus_per_node * 2;
			diag_clear(&err);
			if (model_links_from_catalog(&cfg, p->cat, NULL, p->fab[f].link->row.key, &err) ||
			    !(cfg.inter_gbps_per_gpu > 0)) {
				n->gbps_per_gpu = p->fab[f].gbps_per_gpu;
				n->lat_us = p->fab[f].lat_us;
			} else {
				n->gbps_per_gpu = cfg.inter_gbps_per_gpu;
				n->lat_us = cfg.inter_lat_us;
			}
		}
	}
}

/* Node counts: 1, 2, 3, 4, 6, 8, 12, 16 ... (2^k and 3 x 2^k). */
static int next_count(int n)
{
	/* 2^k -> 3 x 2^(k-1) (between 2^k and 2^(k+1)); 3 x 2^k -> 2^(k+2) */
	if (n < 2)
		return n + 1;
	if ((n & (n - 1)) == 0)
		return n + n / 2;
	return n / 3 * 4;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * Slots: every (hardware option, node count) in hardware order.  Items:
 * the slots grouped by (GPU type, total GPUs), in order of first slot.
 */
static void build_slots(struct plan *p)
{
	size_t h, cap = 0, icap = 0, i;
	int *item_of = NULL;               /* temporary: for each slot, its item */
	size_t item_cap = 0, nslot, *slot; /* slot: item index + 1, 0 empty */

	for (h = 0; h < p->nhw; h++) {
		const struct plan_hw *hw = &p->hw[h];
		int n;
		for (n = 1; n <= hw->max_nodes && (long)n * hw->gpus_per_node <= p->req.max_gpus;
		     n = next_count(n)) {
			struct plan_choice *c;
			if (p->base.task == MODEL_TASK_INFER && n > 1)
				break; /* inference: one slot per option; the search sizes it */
			XGROW(p->all, cap, p->nall);
			c = &p->all[p->nall++];
			memset(c, 0, sizeof(*c));
			c->hw = (uint32_t)h;
			c->nodes = (uint32_t)n;
			c->gpus = n * hw->gpus_per_node;
			c->fabric = -1;
			c->min_bytes = INFINITY;
		}
	}
	XGROW(item_of, item_cap, p->nall);
	/* items by (GPU, count) in an open-addressing index: a fleet catalog has thousands */
	nslot = 64;
	while (nslot < 2 * (p->nall + 1))
		nslot *= 2;
	slot = xcalloc(nslot, sizeof(*slot));
	for (i = 0; i < p->nall; i++) {
		const struct plan_hw *hw = &p->hw[p->all[i].hw];
		size_t k, hk = ((size_t)(uintptr_t)hw->gpu / sizeof(void *) * 31 + (size_t)p->all[i].gpus) *
				       0x9e3779b9u &
			       (nslot - 1);
		for (; slot[hk]; hk = (hk + 1) & (nslot - 1))
			if (p->items[slot[hk] - 1].gpu == hw->gpu && p->items[slot[hk] - 1].gpus == p->all[i].gpus)
				break;
		k = slot[hk] ? slot[hk] - 1 : p->nitems;
		if (k == p->nitems) {
			slot[hk] = k + 1;
			XGROW(p->items, icap, p->nitems);
			memset(&p->items[k], 0, sizeof(p->items[k]));
			p->items[k].gpu = hw->gpu;
			p->items[k].gpus = p->all[i].gpus;
			p->nitems++;
		}
		item_of[i] = (int)k;
		p->items[k].nslots++;
		if (hw->gpus_per_node > p->items[k].max_gpn)
			p->items[k].max_gpn = hw->gpus_per_node;
	}
	for (i = 0; i < p->nitems; i++) {
		p->items[i].slots = xcalloc(p->items[i].nslots, sizeof(size_t));
		p->items[i].nslots = 0;
	}
	for (i = 0; i < p->nall; i++) {
		struct plan_item *it = &p->items[item_of[i]];
		it->slots[it->nslots++] = i;
	}
	for (i = 0; i < p->nitems; i++) {
		struct plan_item *it = &p->items[i];
		qsort(it->slots, it->nslots, sizeof(size_t), cmp_size);
		/* layouts grow with the divisors of the count; slots with fabrics cost more */
		it->work = (double)it->nslots * (1 + log2(it->gpus + 1));
	}
	free(slot);
	free(item_of);
}

int plan_fabric_allowed(const struct plan *p, size_t hw, size_t f)
{
	const struct plan_hw *h = &p->hw[hw];
	double gbit = p->fab[f].link->bw_gbps_per_dir * 8;
	/* a NIC faster than the host's x16 slot feeds cannot be bought for it */
	return !(cat_has(h->max_nic_gbps) && gbit > h->max_nic_gbps * 1.001);
}

int plan_pick_fabric(const struct plan *p, size_t hw, uint32_t nodes, const double *step_s,
		     const unsigned char *ok, size_t nfab)
{
	double fastest = INFINITY, best_usd = INFINITY;
	size_t f;
	int pick = -1;
	for (f = 0; f < nfab; f++)
		if (ok[f] && step_s[f] < fastest)
			fastest = step_s[f];
	for (f = 0; f < nfab; f++) {
		double usd;
		if (!ok[f] || !(step_s[f] <= fastest * PLAN_FABRIC_SLACK))
			continue;
		usd = plan_fabric_capex(p, hw, nodes, (int)f);
		if (pick < 0 || usd < best_usd) {
			pick = (int)f;
			best_usd = usd;
		}
	}
	return pick;
}

void plan_slot_config(const struct plan *p, const struct plan_choice *c, int fabric, struct model_config *cfg)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	*cfg = p->base;
	cfg->gpu = hw->gpu;
	cfg->gpus = c->gpus;
	cfg->gpus_per_node = hw->gpus_per_node;
	cfg->intra_kind = hw->gpus_per_node > 1 ? hw->intra_kind : MODEL_LINK_NONE;
	cfg->intra_gbps = hw->intra_gbps;
	cfg->intra_lat_us = hw->intra_lat_us;
	cfg->intra_nvls = hw->intra_nvls;
	cfg->host_gbps = hw->host_gbps;
	cfg->cpu_cores_per_gpu = hw->cpu_cores_per_gpu;
	cfg->mig = hw->mig;
	cfg->inter_gbps_per_gpu = 0;
	cfg->inter_lat_us = 0;
	if (c->nodes > 1) {
		if (hw->kind == PLAN_HW_GENERIC && fabric >= 0 && (size_t)fabric < p->nfab) {
			const struct plan_net *n = &p->net[(size_t)c->hw * p->nfab + (size_t)fabric];
			cfg->inter_gbps_per_gpu = n->gbps_per_gpu;
			cfg->inter_lat_us = n->lat_us;
		} else {
			cfg->inter_gbps_per_gpu = hw->own_inter_gbps_per_gpu;
			cfg->inter_lat_us = hw->own_inter_lat_us;
		}
	}
}

int plan_build_space(struct plan *p, struct diag *err)
{
	size_t i, cap = 0;
	const struct catalog *cat = p->cat;

	if (p->req.buy != PLAN_BUY_CLOUD) {
		size_t n = catalog_count(cat, CAT_SERVERS);
		for (i = 0; i < n; i++) {
			const struct cat_server *s = catalog_server_at(cat, i);
			int active = cat_has(s->gpu_count) ? spare_active(p, (int)s->gpu_count) : 0;
			add_server(p, &cap, s, 0);
			if (active)
				add_server(p, &cap, s, active);
		}
		if (!p->req.servers_only) {
			n = catalog_count(cat, CAT_GPUS);
			for (i = 0; i < n; i++) {
				const struct cat_gpu *g = catalog_gpu_at(cat, i);
				if (gpu_wanted(p, g))
					add_generic(p, &cap, g);
			}
			if (p->base.task == MODEL_TASK_INFER)
				add_mig(p, &cap);
		}
	}
	if (p->req.buy != PLAN_BUY_OWN) {
		size_t n = catalog_count(cat, CAT_CLOUDS);
		int any_provider = 0;
		for (i = 0; i < n; i++) {
			const struct cat_cloud *c = catalog_cloud_at(cat, i);
			any_provider |= provider_wanted(p, c);
			add_cloud(p, &cap, c);
		}
		if (!any_provider)
			return diag_set(err, "", 0, 0, "buy",
					"no cloud instances from provider '%s' in the catalog",
					p->req.provider ? p->req.provider : "any");
	}
	compose_skipped(p);
	if (!p->nhw && no_precision_asked(p, err))
		return -1;
	if (!p->nhw) {
		if (p->req.ecosystem && strcasecmp(p->req.ecosystem, "any"))
			return diag_set(err, "", 0, 0, "ecosystem",
					"no hardware with ecosystem '%s' to search%s%s", p->req.ecosystem,
					p->skipped ? "; left out: " : "", plan_skipped(p));
		return diag_set(err, "", 0, 0, p->req.ngpus ? "gpu" : "buy",
				"no %s hardware to search with the GPUs asked for%s%s",
				p->req.buy == PLAN_BUY_CLOUD ? "rentable" :
				p->req.buy == PLAN_BUY_OWN   ? "priced" :
							       "priced or rentable",
				p->skipped ? "; left out: " : "", plan_skipped(p));
	}
	build_fabrics(p);
	build_nets(p);
	build_slots(p);
	if (!p->nall)
		return diag_set(err, "", 0, 0, "max-gpus", "no hardware option fits within --max-gpus %d",
				p->req.max_gpus);
	return 0;
}
