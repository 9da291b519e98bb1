/*
 * ZeRO-3 / FSDP: each layer's parameter all-gathers and gradient
 * reduce-scatters over the shard group, the replicas' all-reduce under
 * hybrid sharding, and what of them the compute beside them hides.
 * docs/model.md, "ZeRO-3 and FSDP, layer by layer".
 */

#include "model/model_int.h"

/*
 * What a collective of c_s seconds run beside t_s seconds of compute adds
 * to them.  The compute keeps 1 - sigma of the SMs while the collective's
 * kernels hold the rest (one CTA per NCCL channel), so in c_s it does
 * (1 - sigma) c_s of its work: when that covers all of it the pair takes
 * c_s (adds c_s - t_s), else t_s + sigma c_s (adds sigma c_s), i.e.
 *   added = max(c_s - t_s, sigma c_s).
 */
double zero3_hide_s(double c_s, double t_s, double sigma)
{
	double bare = c_s - t_s, stolen = sigma * c_s;
	if (!(c_s > 0))
		return 0;
	return bare > stolen ? bare : stolen;
}

/*
 * One micro-batch on one GPU.  Every layer is one FSDP unit (PyTorch
 * FSDP's transformer auto-wrap, DeepSpeed's per-module gathers); the
 * embedding, head and final norm are the root unit.  N = shard_ranks(c)
 * ranks shard the states (dp x cp, or --hsdp N); they lie tp apart, g of
 * them on a server, and their rings cross servers over those g GPUs' NICs
 * (coll_s).  Per layer of W bytes (16-bit, gradients reduced in the
 * parameters' type as FSDP's mixed precision and DeepSpeed's fp16 do):
 *   ag = AG(W over N), rs = RS(W over N), ar = AR(W/N over dp cp / N),
 *   the last only with replicas (HSDP: each shard's gradient all-reduced
 *   across the replicas, ranks N tp apart).
 * Forward: layer l+1's gather runs during layer l's forward (forward
 * prefetch); the first layer's cannot.  Backward: layer l-1's gather (again
 * only when --reshard-after-forward freed it) and layer l+1's reduce run
 * during layer l's backward, with its recompute under full recompute: the
 * checkpointed layer recomputes inside its own unit, on the parameters
 * its backward gathered, so no gather is counted twice.  The last reduce
 * has nothing left to hide under.  So, with hide() above,
 *   exposed = ag + rs + ar + root's ag + rs + ar
 *           + (L - 1) [hide(ag, fwd) + hide(ag_b + rs + ar, bwd)],
 * ag_b = ag when resharded after forward, else 0, and
 *   total = L (ag + ag_b + rs + ar) + root's.
 */
void zero3_time(const struct model_config *c, const struct zero3_layers *z, struct zero3_time *o)
{
	int n = dp_cp(c), ns = shard_ranks(c), nr = n / (ns > 0 ? ns : 1);
	int g = per_node(c, ns, c->tp), gr = per_node(c, nr, c->tp * ns);
	double L = z->layers > 1 ? z->layers : 1, sigma = TUNE_ZERO3_SM_SHARE;
	double rag = coll_s(c, COLL_AG, z->root_bytes, ns, g);
	double rrs = coll_s(c, COLL_RS, z->root_bytes, ns, g);
	double rar = nr > 1 ? coll_s(c, COLL_AR, z->root_bytes / ns, nr, gr) : 0;
	double ag_b, fwd_c, bwd_c;

	o->ag_s = coll_s(c, COLL_AG, z->layer_bytes, ns, g);
	o->rs_s = coll_s(c, COLL_RS, z->layer_bytes, ns, g);
	o->ar_s = nr > 1 ? coll_s(c, COLL_AR, z->layer_bytes / ns, nr, gr) : 0;
	ag_b = c->reshard_after_forward ? o->ag_s : 0;
	fwd_c = o->ag_s;
	bwd_c = ag_b + o->rs_s + o->ar_s;
	o->total_s = L * (fwd_c + bwd_c) + rag + rrs + rar;
	o->exposed_s = o->ag_s + o->rs_s + o->ar_s + rag + rrs + rar +
		       (L - 1) * (zero3_hide_s(fwd_c, z->fwd_s, sigma) + zero3_hide_s(bwd_c, z->bwd_s, sigma));
}
