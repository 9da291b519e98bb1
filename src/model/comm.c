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
 * NCCL's latency model (src/graph/tuning.cc of NVIDIA/nccl: its baseLat and
 * hwLat tables), in us.  A ring collective advances one step per chunk and
 * pays one hop latency per step, at the rate of the link the step crosses;
 * a tree pays its depth.  Two protocols matter for training messages: LL
 * (8-byte flag+data stores, a quarter of the bandwidth across servers, the
 * lowest latency) and Simple (full bandwidth, 256 kB chunks).  Hops inside a
 * server: NVLink 0.47 (LL, x1.8 when the job spans servers) and 3.4 (Simple),
 * PCIe 1.0 (x1.8) and 5.7; between servers 2.7 and 9.6.  Tree hops: 0.52 (x1.8)
 * and 28 inside a server (PCIe 1.0 x1.8, 28), 5.0 and 50 between servers.
 */
struct nccl_proto {
	double nvl_us, pci_us, net_us; /* ring hop latencies */
	double tree_nvl_us, tree_pci_us, tree_net_us;
	double bw_share; /* of the ring's bus bandwidth */
};
static const struct nccl_proto nccl_protos[2] = {
	{0.47 * 1.8, 1.0 * 1.8, 2.7, 0.52 * 1.8, 1.0 * 1.8, 5.0, 0.25}, /* LL */
	{3.4, 5.7, 9.6, 28, 28, 50, 1.0},                               /* Simple */
};

/*
 * Latency and bandwidth of one collective over n ranks on N = ceil(n/g)
 * servers, the cheaper of NCCL's choices (docs/model.md, "Collectives at
 * scale").  A ring takes s steps, s_net of them between servers:
 *   all-reduce s = 2(n - 1), s_net = 2(N - 1) (x1.9 for a large message,
 *   NCCL's ring plateau); all-gather, reduce-scatter s = n - 1, s_net = N - 1
 *   ring = (s - s_net) x hop_intra + s_net x hop_net + factor x bytes / (B x share)
 * An all-reduce may instead take the double binary tree (NCCL has no tree
 * for the others): depth g - 1 inside each server and ceil(log2 N) between
 * them, each way, at 0.9 of the ring's bandwidth:
 *   tree = 2 ((g - 1) x tree_intra + ceil(log2 N) x tree_net) + factor x bytes / (0.9 B x share)
 * At 1,024 ranks on 128 servers a ring all-gather of a 100 MB bucket pays
 * 896 x 3.4 + 127 x 9.6 = 4.3 ms of hops, a ring all-reduce twice that and
 * 1.9x more, the tree 2 (7 x 28 + 7 x 50) = 1.1 ms.  bytes per rank, B in
 * B/s; returns s without the launch base.
 */
static double nccl_multi_node_s(const struct model_config *c, enum coll k, double bytes, int n, int g, double B,
				double factor)
{
	int servers = (n + g - 1) / g;
	int pcie = c->intra_kind == MODEL_LINK_PCIE;
	double s = k == COLL_AR ? 2.0 * (n - 1) : n - 1.0;
	double s_net = k == COLL_AR ? 2.0 * (servers - 1) : servers - 1.0;
	double best = INFINITY;
	int p;

	for (p = 0; p < 2; p++) {
		const struct nccl_proto *q = &nccl_protos[p];
		double hops = ((s - s_net) * (pcie ? q->pci_us : q->nvl_us) + s_net * q->net_us) * 1e-6;
		double ring = (k == COLL_AR && p == 1 ? 1.9 : 1) * hops + factor * bytes / (B * q->bw_share);
		if (ring < best)
			best = ring;
		if (k == COLL_AR) {
			double depth = (g - 1) * (pcie ? q->tree_pci_us : q->tree_nvl_us) +
				       ceil_log2(servers) * q->tree_net_us;
			double tree = 2 * depth * 1e-6 + factor * bytes / (0.9 * B * q->bw_share);
			if (tree < best)
				best = tree;
		}
	}
	return best;
}

/*
 * One collective of `bytes` per rank over n ranks, g of them per server:
 *   t = base + factor(n) x bytes / B + 2 ceil(log2 n) x latency   (one server)
 *   t = base + nccl_multi_node_s()                                  (several)
 * with the NCCL bus factors (2(n-1)/n all-reduce, (n-1)/n all-gather,
 * reduce-scatter, all-to-all; 1 for a send) and B the bottleneck bus
 * bandwidth: the server link when the group fits in one server, else
 * min(server link, g x per-GPU scale-out rate x efficiency): a ring that
 * crosses servers uses the NICs of the g GPUs of the group on each server
 * (nccl-tests: 2 x 8 A100 on 4 x HDR per node reach 86 GB/s busbw, S8-045).
 * All-gathers and reduce-scatters ride the same rings: NCCL builds one ring
 * (channel) per NIC, each crossing every server once, so a group with g
 * GPUs on each server moves its traffic over g NICs there, ZeRO-3's
 * parameter gathers included.  Sends and all-to-alls across servers keep the
 * tree-like latency term (a send is one hop; an all-to-all's sends go out at
 * once).
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
	if (g < n && (k == COLL_AR || k == COLL_AG || k == COLL_RS))
		return TUNE_COLL_BASE_S + nccl_multi_node_s(c, k, bytes, n, g, bw, factor);
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
