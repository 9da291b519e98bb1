/*
 * Links from the catalog: how the GPUs of one server talk to each other and
 * how servers talk, as the numbers the model needs (GB/s per direction per
 * GPU, latency).  Not on the hot path: estimate, validate and plan call it
 * once per hardware candidate.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static double pcie_x16_gbps(double gen)
{
	if (isnan(gen))
		return 31.5;
	return gen >= 6 ? 121 : gen >= 5 ? 63 : gen >= 4 ? 31.5 : 15.75;
}

/* "8x200" at the end of spec: sets *n and *gbit, returns the offset of the '-' before it, or -1. */
static int split_rate(const char *spec, int *n, double *gbit)
{
	const char *dash = strrchr(spec, '-');
	char *end;
	long k;
	double g;
	if (!dash || !isdigit((unsigned char)dash[1]))
		return -1;
	k = strtol(dash + 1, &end, 10);
	if (*end != 'x' && *end != 'X')
		return -1;
	g = strtod(end + 1, &end);
	if (*end && strcmp(end, "g") && strcmp(end, "G") && strcasecmp(end, "gbps") && strcasecmp(end, "gb"))
		return -1;
	if (k < 1 || k > 1024 || !(g > 0) || g > 100000)
		return -1;
	*n = (int)k;
	*gbit = g;
	return (int)(dash - spec);
}

int model_parse_network(const struct catalog *cat, const char *spec, int *adapters, double *gbit_per_adapter,
			const struct cat_link **fabric, char *why, size_t why_len)
{
	char name[128], alt[160], why2[512];
	const struct cat_link *l;
	int n = 0, cut;
	double gbit = 0;

	*adapters = 0;
	*gbit_per_adapter = 0;
	*fabric = NULL;
	if (!spec || !*spec || strlen(spec) >= sizeof(name)) {
		snprintf(why, why_len, "network '%s' is not FABRIC or FABRIC-NxGBPS (e.g. ib-hdr-8x200)",
			 spec ? spec : "");
		return -1;
	}
	cut = split_rate(spec, &n, &gbit);
	snprintf(name, sizeof(name), "%.*s", cut >= 0 ? cut : (int)strlen(spec), spec);
	l = catalog_link(cat, name, why, why_len);
	/* "roce-8x400": the fabric generic, the rate picks the row (roce-400) */
	if ((!l || strcmp(l->kind ? l->kind : "", "scaleout")) && cut >= 0) {
		snprintf(alt, sizeof(alt), "%s-%.0f", name, gbit);
		l = catalog_link(cat, alt, why2, sizeof(why2));
	}
	if (!l) {
		if (!why[0])
			snprintf(why, why_len, "unknown network '%s'", name);
		return -1;
	}
	if (!l->kind || strcmp(l->kind, "scaleout")) {
		snprintf(
			why, why_len,
			"'%s' is a %s link, not a scale-out network (ib-edr, ib-hdr, ib-ndr, ib-xdr, roce-100 ... roce-800)",
			name, l->kind ? l->kind : "?");
		return -1;
	}
	*fabric = l;
	*adapters = n;
	*gbit_per_adapter = cut >= 0 ? gbit : l->bw_gbps_per_dir * 8;
	why[0] = '\0';
	return 0;
}

static double link_latency(const struct catalog *cat, const char *key, double dflt)
{
	const struct cat_link *l = key ? catalog_get(cat, CAT_LINKS, key) : NULL;
	return l && l->latency_us > 0 ? l->latency_us : dflt;
}

/* Generation number of a link row ("4" for nvlink4/nvswitch3 style rows); 0 when unknown. */
static int link_generation(const struct cat_link *l)
{
	return l && l->generation ? atoi(l->generation) : 0;
}

int model_links_from_catalog(struct model_config *cfg, const struct catalog *cat, const struct cat_server *server,
			     const char *network, struct diag *err)
{
	const struct cat_gpu *g = cfg->gpu;
	int gpn;
	if (!g)
		return diag_set(err, "", 0, 0, "gpu", "no GPU given; use --gpu NAME");
	if (cfg->gpus_per_node <= 0)
		cfg->gpus_per_node = server && server->gpu_count > 0 ? (int)server->gpu_count :
				     cfg->gpus < 8                   ? cfg->gpus :
								       8;
	gpn = cfg->gpus_per_node;

	/* host link (offload, data) */
	if (!isnan(g->pcie_gen))
		cfg->host_gbps = pcie_x16_gbps(g->pcie_gen);
	else if (g->form_factor && !strcmp(g->form_factor, "superchip"))
		cfg->host_gbps = 450; /* NVLink-C2C to Grace, per direction */
	else
		cfg->host_gbps = 31.5;

	/* inside the server */
	cfg->intra_nvls = 0;
	if (gpn <= 1) {
		cfg->intra_kind = MODEL_LINK_NONE;
		cfg->intra_gbps = 0;
		cfg->intra_lat_us = 1;
	} else if (server && server->gpu_link) {
		const struct cat_link *l = catalog_get(cat, CAT_LINKS, server->gpu_link);
		const char *kind = l && l->kind ? l->kind : "host";
		double per_gpu = g->gpu_link_gbps > 0 ? g->gpu_link_gbps : NAN;
		cfg->intra_lat_us = l && l->latency_us > 0 ? l->latency_us : 1.5;
		if (!strcmp(kind, "switch")) {
			cfg->intra_kind = MODEL_LINK_NVSWITCH;
			cfg->intra_gbps = l->bw_gbps_per_dir;
			/* a GPU with fewer links than the switch offers (H800) is the bottleneck */
			if (per_gpu > 0 && per_gpu < cfg->intra_gbps)
				cfg->intra_gbps = per_gpu;
			cfg->intra_nvls = link_generation(l) >= 3;
		} else if (!strcmp(kind, "gpu")) {
			cfg->intra_kind = MODEL_LINK_NVLINK;
			cfg->intra_gbps = per_gpu > 0 ? per_gpu : l->bw_gbps_per_dir;
		} else {
			cfg->intra_kind = MODEL_LINK_PCIE;
			cfg->intra_gbps = l && l->bw_gbps_per_dir > 0 ? l->bw_gbps_per_dir :
									pcie_x16_gbps(g->pcie_gen);
		}
	} else {
		const char *ff = g->form_factor ? g->form_factor : "";
		int socketed = !strcmp(ff, "sxm") || !strcmp(ff, "oam") || !strcmp(ff, "superchip");
		const struct cat_link *gl = g->gpu_link ? catalog_get(cat, CAT_LINKS, g->gpu_link) : NULL;
		/* the catalog says which boards add a switch: links.csv switch_link beyond domain_gpus */
		const struct cat_link *sw = gl && gl->switch_link ? catalog_get(cat, CAT_LINKS, gl->switch_link) :
								    NULL;
		if (socketed && g->gpu_link_gbps > 0 && sw && !(gpn <= gl->domain_gpus)) {
			/* HGX/DGX boards of 8, NVL72: NVLink through NVSwitch; gen 3 switches (Hopper on) reduce in-network */
			cfg->intra_kind = MODEL_LINK_NVSWITCH;
			cfg->intra_gbps = g->gpu_link_gbps;
			cfg->intra_nvls = link_generation(sw) >= 3;
			cfg->intra_lat_us = sw->latency_us > 0 ? sw->latency_us : 1.5;
		} else if (g->gpu_link_gbps > 0 &&
			   (socketed || gpn <= 2 || (gpn <= 4 && g->gpu_link && strstr(g->gpu_link, "h200nvl")))) {
			/* direct links: 4-GPU SXM boards, xGMI meshes, NVLink bridges joining pairs */
			cfg->intra_kind = MODEL_LINK_NVLINK;
			cfg->intra_gbps = g->gpu_link_gbps;
			cfg->intra_lat_us = gl && gl->latency_us > 0 ? gl->latency_us : 1;
		} else {
			cfg->intra_kind = MODEL_LINK_PCIE;
			cfg->intra_gbps = pcie_x16_gbps(g->pcie_gen);
			cfg->intra_lat_us = link_latency(cat, "pcie4", 1.0) + 1.0;
		}
	}

	/* between servers */
	cfg->inter_gbps_per_gpu = 0;
	cfg->inter_lat_us = 2;
	if (network && *network) {
		const struct cat_link *fab;
		int n;
		double gbit;
		char why[512];
		if (model_parse_network(cat, network, &n, &gbit, &fab, why, sizeof(why)))
			return diag_set(err, "", 0, 0, "network", "%s", why);
		/* N adapters per server shared by its GPUs; a bare fabric: one per GPU */
		cfg->inter_gbps_per_gpu = n > 0 ? n * gbit / 8 / gpn : gbit / 8;
		cfg->inter_lat_us = fab->latency_us > 0 ? fab->latency_us : 1;
	} else if (server && server->nic && server->nic_count > 0 && server->nic_gbps > 0) {
		double per_node = server->gpu_count > 0 ? server->gpu_count : gpn;
		cfg->inter_gbps_per_gpu = server->nic_count * server->nic_gbps / 8 / per_node;
		cfg->inter_lat_us = link_latency(cat, server->nic, 1);
	}
	return 0;
}
