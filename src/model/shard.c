/*
 * ZeRO-3 / FSDP: each layer's parameter all-gathers and gradient
 * reduce-scatters over the shard group, the replicas' all-reduce under
 * hybrid sharding, and what of them the compute beside them hides.
 * docs/model.md, "ZeRO-3 and FSDP, layer by layer".
 */

#include <math.h>

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
/*
 * DeepSpeed's ZeRO-3 of 2021 (v0.3-0.5): one unit of `bytes` in `tensors`
 * weight matrices, sharded over all N = dp x cp ranks (g a server).  Each
 * matrix is gathered alone (parameters under stage3_param_persistence_
 * threshold, 1e5 elements, stay whole and are not gathered): its all-gather
 * coll_s(AG, bytes/tensors), the host's launch, and the N views and copies
 * of the list all-gather's output; its gradients are all-reduced, not
 * reduce-scattered, in buckets of reduce_bucket_size:
 *   ag = tensors [AG(bytes/tensors) + t_host + N t_rank]
 *   ar = b AR(bytes/b),  b = ceil(bytes / bucket).
 */
void zero3_deepspeed_unit(const struct model_config *c, double bytes, double tensors, double *ag_s, double *ar_s)
{
	int n = dp_cp(c), g = per_node(c, n, c->tp);
	double k = tensors >= 1 ? tensors : 1, b = ceil(bytes / TUNE_DS_BUCKET_BYTES);
	*ag_s = *ar_s = 0;
	if (n <= 1 || !(bytes > 0))
		return;
	*ag_s = k * (coll_s(c, COLL_AG, bytes / k, n, g) + TUNE_DS_GATHER_HOST_S + n * TUNE_DS_RANK_COPY_S);
	*ar_s = b * coll_s(c, COLL_AR, bytes / b, n, g);
}

/*
 * The micro-batch under DeepSpeed's ZeRO-3 of 2021: each gather follows a
 * torch.cuda.synchronize(), which waits for every stream of the device (the
 * compute and the gradients' all-reduce alike), so no collective runs beside
 * compute and all of them are exposed (DeepSpeed PR #1188: "the async version
 * is not async at all").  Forward gathers every layer, backward again when
 * resharded after forward, and all-reduces every layer's gradients; the
 * root (embedding, head) is one more unit of one matrix.
 */
static void zero3_deepspeed(const struct model_config *c, const struct zero3_layers *z, struct zero3_time *o)
{
	double L = z->layers > 1 ? z->layers : 1, rag, rar;
	zero3_deepspeed_unit(c, z->layer_bytes, z->tensors, &o->ag_s, &o->ar_s);
	zero3_deepspeed_unit(c, z->root_bytes, 1, &rag, &rar);
	o->rs_s = 0;
	o->total_s = L * (o->ag_s * (c->reshard_after_forward ? 2 : 1) + o->ar_s) +
		     rag * (c->reshard_after_forward ? 2 : 1) + rar;
	o->exposed_s = o->total_s;
}

void zero3_time(const struct model_config *c, const struct zero3_layers *z, struct zero3_time *o)
{
	int n = dp_cp(c), ns = shard_ranks(c), nr = n / (ns > 0 ? ns : 1);
	int g = per_node(c, ns, c->tp), gr = per_node(c, nr, c->tp * ns);
	double L = z->layers > 1 ? z->layers : 1, sigma = TUNE_ZERO3_SM_SHARE;
	double rag = coll_s(c, COLL_AG, z->root_bytes, ns, g);
	double rrs = coll_s(c, COLL_RS, z->root_bytes, ns, g);
	double rar = nr > 1 ? coll_s(c, COLL_AR, z->root_bytes / ns, nr, gr) : 0;
	double ag_b, fwd_c, bwd_c;

	if (c->zero3_impl == MODEL_ZERO3_DEEPSPEED_2021) {
		zero3_deepspeed(c, z, o);
		return;
	}

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
