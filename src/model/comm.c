/*
 * Collectives: the time of one NCCL collective over a group of ranks placed
 * on servers, and the bus bandwidth nccl-tests would report.
 */

#include <math.h>
#include <string.h>

#include "model/model_int.h"
#include "model/vendor.h"

/* ------------------------------------------------------------------------- */
/* Collectives                                                                */

/*
 * Achieved bus bandwidth inside a server, B/s per GPU: the per-direction
 * link rate times the NCCL efficiency (nccl-tests busbw on DGX A100 is
 * 228-233 GB/s of 300, 0.77; calibration-cases.csv S8-011/012/044).  With
 * in-switch reduction (NVLS, NVSwitch gen 3) all-reduce busbw exceeds the
 * link rate: 466-480 GB/s on 450 GB/s H100/H200 links, 215 on H800's 200
 * (S8-025/026/033/042/046/047).  PCIe all-reduce goes through host bridges.
 */
static double intra_busbw(const struct model_config *c, enum coll k)
{
	double bw = c->intra_gbps * 1e9;
	switch (c->intra_kind) {
	case MODEL_LINK_NVSWITCH:
		return bw * (k == COLL_AR && c->intra_nvls ? TUNE_NVLS_EFF : TUNE_NVLINK_EFF);
	case MODEL_LINK_NVLINK:
		return bw * TUNE_NVLINK_EFF;
	case MODEL_LINK_PCIE:
		return bw * TUNE_PCIE_COLL_EFF;
	default:
		return bw * TUNE_PCIE_COLL_EFF;
	}
}

/*
 * Share of a GPU's direct links that a group of g GPUs of one server can use.
 * Boards that join every pair of GPUs by links of their own (AMD Infinity
 * Fabric on MI300X/MI325X platforms: 7 x 64 GB/s, one link to each peer;
 * HLS-Gaudi 2/3: 21 ports, 3 to each peer) give a collective of g GPUs only
 * the g - 1 links to its peers: g - 1 of `mesh_links`.  Switch fabrics and
 * NVLink boards give any group the whole rate.
 */
static double mesh_share(const struct model_config *c, int g)
{
	int links;
	if (c->intra_kind != MODEL_LINK_NVLINK || !c->gpu)
		return 1;
	links = model_vendor_eff(c->gpu)->mesh_links;
	if (links <= 0 || g - 1 >= links)
		return 1;
	return g > 1 ? (double)(g - 1) / links : 1;
}

/* ceil(log2(n)) for n >= 1, without libm: tree depth of a collective */
static double ceil_log2(int n)
{
	int d = 0;
	unsigned v = (unsigned)(n - 1);
	while (v) {
		d++;
		v >>= 1;
	}
	return d;
}

/*
 * One collective of `bytes` per rank over n ranks, g of them per server:
 *   t = base + factor(n) x bytes / B + 2 ceil(log2 n) x latency
 * with the NCCL bus factors (2(n-1)/n all-reduce, (n-1)/n all-gather,
 * reduce-scatter, all-to-all; 1 for a send) and B the bottleneck bus
 * bandwidth: the server link when the group fits in one server, else
 * min(server link, g x per-GPU scale-out rate x efficiency): a ring that
 * crosses servers uses the NICs of the g GPUs of the group on each server
 * (nccl-tests: 2 x 8 A100 on 4 x HDR per node reach 86 GB/s busbw, S8-045).
 * All-gathers and reduce-scatters ride the same rings: NCCL builds one ring
 * (channel) per NIC, each crossing every server once, so a group with g
 * GPUs on each server moves its traffic over g NICs there, ZeRO-3's
 * parameter gathers included.
 */
double coll_s(const struct model_config *c, enum coll k, double bytes, int n, int g)
{
	double factor, bw, lat, intra;
	if (n <= 1 || bytes <= 0)
		return 0;
	switch (k) {
	case COLL_AR:
		factor = 2.0 * (n - 1) / n;
		break;
	case COLL_P2P:
		factor = 1;
		break;
	default:
		factor = (double)(n - 1) / n;
		break;
	}
	if (g > n)
		g = n;
	if (g < 1)
		g = 1;
	intra = intra_busbw(c, k) * mesh_share(c, g);
	if (g >= n) {
		bw = intra;
		lat = c->intra_lat_us * 1e-6;
	} else {
		double nic = (c->inter_gbps_per_gpu > 0 ? c->inter_gbps_per_gpu : 0.01) * 1e9 * TUNE_INTER_EFF;
		bw = nic * g;
		if (g > 1 && intra > 0 && intra < bw)
			bw = intra;
		lat = c->inter_lat_us > 0 ? c->inter_lat_us * 1e-6 : 2e-6;
	}
	if (!(bw > 0))
		bw = 1e9;
	if (!(lat >= 0))
		lat = 0;
	return TUNE_COLL_BASE_S + factor * bytes / bw + 2 * ceil_log2(n) * lat;
}

double model_allreduce_busbw_gbps(const struct model_config *c)
{
	/* a large message (8 GiB) makes the fixed terms vanish, as in nccl-tests */
	double bytes = 8.0 * 1073741824.0;
	int n = c->gpus, g = c->gpus_per_node > 0 ? c->gpus_per_node : n;
	double t;
	if (n <= 1)
		return NAN;
	t = coll_s(c, COLL_AR, bytes, n, g);
	return bytes / t * (2.0 * (n - 1) / n) / 1e9;
}

double model_collective_s(const struct model_config *c, const char *collective, double bytes, int n)
{
	enum coll k = !strcmp(collective, "allreduce")     ? COLL_AR :
		      !strcmp(collective, "allgather")     ? COLL_AG :
		      !strcmp(collective, "reducescatter") ? COLL_RS :
		      !strcmp(collective, "alltoall")      ? COLL_A2A :
							     COLL_P2P;
	return coll_s(c, k, bytes, n, c->gpus_per_node > 0 ? c->gpus_per_node : n);
}

/* GPUs of a group of n ranks spaced `stride` apart that share one server. */
int per_node(const struct model_config *c, int n, int stride)
{
	int gpn = c->gpus_per_node > 0 ? c->gpus_per_node : 1;
	int g;
	if (stride >= gpn)
		return 1;
	g = gpn / stride;
	return g < n ? g : n;
}
