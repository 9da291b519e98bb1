/*
 * Runbooks for the faults PyTorch users meet, walked against a check report:
 * each step looks at the host, says what it found and what to do.  The
 * steps follow the fault-handling chapters of gpuscope's source documents
 * (CUDA_ERROR_LAUNCH_FAILED, a GPU held by a process, CUDA out of memory)
 * and NVIDIA's Xid guidance, with the host's own readings in place of
 * "run nvidia-smi and look".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/check.h"
#include "util/names.h"
#include "util/xalloc.h"

#define GIB 1073741824.0

static const char *const symptom_names[SYMPTOM_COUNT] = {"launch-failed", "oom", "busy", "slow", "lost"};

const char *check_symptom_name(enum check_symptom s)
{
	return (unsigned)s < SYMPTOM_COUNT ? symptom_names[s] : "?";
}

int check_symptom_from_name(const char *s)
{
	return names_index(symptom_names, SYMPTOM_COUNT, s);
}

struct steps {
	struct check_step *v;
	size_t n;
};

static void step(struct steps *s, const char *title, enum check_status st, char *finding, char *action)
{
	struct check_step *p;
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	p = &s->v[s->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->title, sizeof(p->title), "%s", title);
	p->status = st;
	p->finding = finding;
	p->action = action;
}

/*
 * The items of the given ids (and GPU, -1 any) summed into one step: the
 * worst status, the findings of the non-ok items ("gpu 2: ...") or a count
 * of ok ones, and the remedy of the worst.
 */
static void from_items(struct steps *s, const struct check_report *r, const char *title, const char *const *ids,
		       int gpu, const char *if_none)
{
	enum check_status worst = CHECK_OK;
	char finding[1024] = "";
	const char *remedy = NULL;
	size_t i, k, nok = 0, nany = 0;
	for (i = 0; i < r->nitems; i++) {
		const struct check_item *it = &r->items[i];
		int match = 0;
		for (k = 0; ids[k]; k++)
			if (!strcmp(it->id, ids[k]))
				match = 1;
		if (!match || (gpu >= 0 && it->gpu != gpu && it->gpu >= 0))
			continue;
		nany++;
		if (it->status == CHECK_SKIP)
			continue;
		if (it->status == CHECK_OK) {
			nok++;
			continue;
		}
		if (it->status > worst) {
			worst = it->status;
			remedy = it->remedy;
		}
		{
			size_t used = strlen(finding);
			if (used < sizeof(finding) - 4) {
				if (it->gpu >= 0)
					snprintf(finding + used, sizeof(finding) - used, "%sgpu %d: %s",
						 used ? "; " : "", it->gpu, it->finding);
				else
					snprintf(finding + used, sizeof(finding) - used, "%s%s", used ? "; " : "",
						 it->finding);
			}
		}
	}
	if (!nany) {
		step(s, title, CHECK_SKIP, xstrdup(if_none), NULL);
		return;
	}
	if (worst == CHECK_OK) {
		if (!nok) {
			step(s, title, CHECK_SKIP, xstrdup(if_none), NULL);
			return;
		}
		/* one ok item: its own words; several: how many */
		for (i = 0; i < r->nitems && nok == 1; i++) {
			const struct check_item *it = &r->items[i];
			for (k = 0; ids[k]; k++)
				if (!strcmp(it->id, ids[k]) && it->status == CHECK_OK &&
				    (gpu < 0 || it->gpu == gpu || it->gpu < 0)) {
					step(s, title, CHECK_OK, xstrdup(it->finding), NULL);
					return;
				}
		}
		step(s, title, CHECK_OK, xasprintf("ok on all %zu readings", nok), NULL);
		return;
	}
	step(s, title, worst, xstrdup(finding), remedy ? xstrdup(remedy) : NULL);
}

/* Xids of the kernel log and NVML events split into application faults and the rest. */
static void xid_step(struct steps *s, const struct check_report *r, int gpu, const int *app, size_t napp,
		     const char *title)
{
	char hw[512] = "", ap[512] = "";
	size_t i, k;
	enum check_status worst = CHECK_OK;
	const char *action = NULL;
	if (r->kmsg_rc < 0 && !r->nevents) {
		step(s, title, CHECK_SKIP, xstrdup(r->kmsg_error), xstrdup("run as root or pass --kmsg FILE"));
		return;
	}
	for (i = 0; i < r->nitems; i++) {
		const struct check_item *it = &r->items[i];
		int code = 0, is_app = 0;
		if (strcmp(it->id, "kernel.xid") && strcmp(it->id, "nvml.xid"))
			continue;
		if (sscanf(it->finding, "Xid %d", &code) != 1)
			continue;
		if (gpu >= 0 && it->gpu >= 0 && it->gpu != gpu)
			continue;
		for (k = 0; k < napp; k++)
			if (app[k] == code)
				is_app = 1;
		{
			char *dst = is_app ? ap : hw;
			size_t used = strlen(dst);
			if (used < 400)
				snprintf(dst + used, 512 - used, "%s%s", used ? "; " : "", it->finding);
		}
		if (!is_app && it->status > worst) {
			worst = it->status;
			action = it->remedy;
		}
	}
	if (!hw[0] && !ap[0]) {
		step(s, title, CHECK_OK, xstrdup("no Xid logged"), NULL);
		return;
	}
	if (hw[0])
		step(s, title, worst, xasprintf("%s%s%s", hw, ap[0] ? "; application faults: " : "", ap),
		     action ? xstrdup(action) : NULL);
	else
		step(s, title, CHECK_WARN, xasprintf("application faults: %s", ap),
		     xstrdup("the GPU is healthy: the kernel accessed memory it does not own or ran an illegal "
			     "instruction; debug the program (next steps)"));
}

static void runbook_launch_failed(struct steps *s, const struct check_report *r, int gpu)
{
	static const char *const ecc[] = {"gpu.ecc_errors", "gpu.remapped_rows", "gpu.retired_pages", NULL};
	static const char *const status[] = {"gpu.status", NULL};
	static const char *const drv[] = {"nvml.library", "driver.version_match", "driver.modules",
					  "cuda.libcuda", "cuda.runtime",         "pytorch.cuda_build",
					  "pytorch.arch", "cuda.gpu_arch",        NULL};
	static const int app[] = {13, 31, 43, 45};
	from_items(s, r, "gpu health", status, gpu, "no GPU to inspect");
	from_items(s, r, "ecc error counts", ecc, gpu, "ECC counters not reported");
	xid_step(s, r, gpu, app, 4, "xids in the kernel log");
	step(s, "kernel launch parameters", CHECK_SKIP, xstrdup("not visible from the host"),
	     xstrdup("rerun with CUDA_LAUNCH_BLOCKING=1 to see the failing kernel; check its grid and block "
		     "(at most 1024 threads per block, grid y/z <= 65535) and shared memory per block"));
	step(s, "out-of-bounds accesses", CHECK_SKIP, xstrdup("not visible from the host"),
	     xstrdup("compute-sanitizer --tool memcheck python train.py (cuda-memcheck before CUDA 12)"));
	from_items(s, r, "driver and cuda stack", drv, gpu, "no driver information");
}

static void runbook_oom(struct steps *s, const struct check_report *r, int gpu, double need)
{
	static const char *const mem[] = {"gpu.memory", NULL};
	char buf[1024] = "";
	size_t used;
	unsigned i;
	size_t k;

	/* 1: memory per GPU (nvidia-smi -q -d MEMORY) */
	for (i = 0; i < r->ngpus; i++) {
		const struct gpu_sample *sm = &r->gpus[i].s;
		if ((gpu >= 0 && (int)i != gpu) || !GPU_SAMPLE_HAS(sm, fb_used_bytes))
			continue;
		used = strlen(buf);
		if (used < sizeof(buf) - 80)
			snprintf(buf + used, sizeof(buf) - used, "%sgpu %u: %.1f used, %.1f free of %.1f GiB",
				 used ? "; " : "", i, sm->fb_used_bytes / GIB, sm->fb_free_bytes / GIB,
				 GPU_SAMPLE_HAS(sm, fb_total_bytes) ? sm->fb_total_bytes / GIB : 0.0);
	}
	step(s, "memory per gpu", buf[0] ? CHECK_OK : CHECK_SKIP, xstrdup(buf[0] ? buf : "no memory reading"),
	     NULL);

	/* 2: who holds it */
	buf[0] = '\0';
	for (i = 0; i < r->ngpus; i++) {
		const struct check_gpu *g = &r->gpus[i];
		if (gpu >= 0 && (int)i != gpu)
			continue;
		for (k = 0; k < g->nprocs; k++) {
			const struct check_proc *p = &g->procs[k];
			used = strlen(buf);
			if (used < sizeof(buf) - 100)
				snprintf(buf + used, sizeof(buf) - used, "%sgpu %u: pid %u %s (%s) %.1f GiB",
					 used ? "; " : "", i, p->pid, p->visible ? p->comm : "?",
					 p->visible         ? p->user :
					 p->error == ENOENT ? "other namespace" :
							      "unreadable",
					 p->used_valid ? p->used_bytes / GIB : 0.0);
		}
	}
	step(s, "processes holding memory", buf[0] ? CHECK_WARN : CHECK_OK,
	     xstrdup(buf[0] ? buf : "no process holds GPU memory"),
	     buf[0] ? xstrdup("if one of them is not your job, it takes memory your job needs: stop it "
			      "(kill PID) or run on another GPU (CUDA_VISIBLE_DEVICES)") :
		      NULL);

	/* 3: memory nobody accounts for */
	from_items(s, r, "memory without a process", mem, gpu, "no memory reading");

	/* 4: MIG slices cap the memory */
	buf[0] = '\0';
	for (i = 0; i < r->ngpus; i++) {
		const struct check_gpu *g = &r->gpus[i];
		if ((gpu >= 0 && (int)i != gpu) || !GPU_STATIC_HAS(&g->st, mig_mode) || !g->st.mig_mode)
			continue;
		used = strlen(buf);
		snprintf(buf + used, sizeof(buf) - used, "%sgpu %u: MIG on, %zu instances", used ? "; " : "", i,
			 g->nmig);
	}
	if (buf[0])
		step(s, "mig slices", CHECK_WARN, xstrdup(buf),
		     xstrdup("a MIG instance only has its slice's memory: use a larger profile or turn MIG off"));

	/* 5: the workload's needs from the model */
	if (need > 0) {
		enum check_status st = CHECK_OK;
		buf[0] = '\0';
		for (i = 0; i < r->ngpus; i++) {
			const struct gpu_sample *sm = &r->gpus[i].s;
			if ((gpu >= 0 && (int)i != gpu) || !GPU_SAMPLE_HAS(sm, fb_free_bytes))
				continue;
			if (need > (double)sm->fb_free_bytes) {
				st = CHECK_FAIL;
				used = strlen(buf);
				if (used < sizeof(buf) - 80)
					snprintf(buf + used, sizeof(buf) - used, "%sgpu %u has %.1f GiB free",
						 used ? ", " : "", i, sm->fb_free_bytes / GIB);
			}
		}
		if (st == CHECK_FAIL)
			step(s, "workload estimate", st,
			     xasprintf("the workload needs %.1f GiB per GPU; %s", need / GIB, buf),
			     xstrdup("free the GPU, or shrink the need: activation checkpointing, a smaller micro-batch, "
				     "ZeRO/FSDP sharding, mixed precision (gpuscope estimate --fit names the cheapest)"));
		else
			step(s, "workload estimate", st,
			     xasprintf("the workload needs %.1f GiB per GPU, and it fits in the free memory",
				       need / GIB),
			     xstrdup("if it still runs out, the allocator is fragmented (next step)"));
	} else {
		step(s, "workload estimate", CHECK_SKIP, xstrdup("no workload given"),
		     xstrdup("give the workload (--workload NAME) to compare the model's memory need with the free memory"));
	}
	step(s, "allocator fragmentation", CHECK_SKIP, xstrdup("not visible from the host"),
	     xstrdup("torch.cuda.memory_summary() shows reserved vs allocated; "
		     "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True reduces fragmentation; "
		     "torch.cuda.empty_cache() only returns cached blocks to other processes"));
}

static void runbook_busy(struct steps *s, const struct check_report *r, int gpu)
{
	static const char *const status[] = {"gpu.status", "gpu.mig", NULL};
	struct host_holder *h = NULL;
	struct host_unreadable u = {0};
	size_t unread = 0;
	size_t nh = host_dev_holders(r->root, &h, &unread, &u), k;
	char buf[1024] = "";
	unsigned i;
	int other = 0;

	from_items(s, r, "gpu state", status, gpu, "no GPU to inspect");
	for (i = 0; i < r->ngpus; i++) {
		const struct check_gpu *g = &r->gpus[i];
		if (gpu >= 0 && (int)i != gpu)
			continue;
		for (k = 0; k < g->nprocs; k++) {
			size_t used = strlen(buf);
			if (used < sizeof(buf) - 100)
				snprintf(buf + used, sizeof(buf) - used, "%sgpu %u: pid %u %s (%s)",
					 used ? "; " : "", i, g->procs[k].pid,
					 g->procs[k].visible ? g->procs[k].comm : "?",
					 g->procs[k].visible         ? g->procs[k].user :
					 g->procs[k].error == ENOENT ? "another PID namespace" :
								       "unreadable");
		}
	}
	step(s, "processes using the gpus", buf[0] ? CHECK_WARN : CHECK_OK,
	     xstrdup(buf[0] ? buf : "NVML lists no process on the GPUs"),
	     buf[0] ? xstrdup("stop them gracefully (kill PID; kill -9 only if SIGTERM is ignored), or use "
			      "another GPU") :
		      NULL);
	buf[0] = '\0';
	for (k = 0; k < nh; k++) {
		size_t used = strlen(buf);
		/* the persistence daemon holds the devices by design */
		if (strcmp(h[k].comm, "nvidia-persiste") && strcmp(h[k].comm, "nvidia-persistenced"))
			other = 1;
		if (used < sizeof(buf) - 120)
			snprintf(buf + used, sizeof(buf) - used, "%spid %u %s (%s): %s", used ? "; " : "",
				 h[k].pid, h[k].comm, h[k].user, h[k].devices);
	}
	if (unread && !(nh && other)) {
		/* the processes that could not be looked at may be the ones holding the GPU */
		char *t = host_unreadable_text(&u);
		size_t used = strlen(buf);
		snprintf(buf + used, sizeof(buf) - used, "%s%zu process%s not inspected (%s)", used ? "; " : "",
			 unread, unread == 1 ? "" : "es", t);
		free(t);
		step(s, "open device files", CHECK_SKIP, xstrdup(buf),
		     xstrdup("run as root to see every process's open files (sudo fuser -v /dev/nvidia*)"));
	} else {
		step(s, "open device files", nh && other ? CHECK_WARN : CHECK_OK,
		     xstrdup(nh ? buf : "no process has /dev/nvidia* open"),
		     nh && other ? xstrdup("these processes block a GPU reset and driver unload (the fuser -v "
					   "/dev/nvidia* view); stop them before nvidia-smi -r") :
				   NULL);
	}
	step(s, "what not to do", CHECK_SKIP, xstrdup("advice"),
	     xstrdup("do not add udev rules that remove the GPU from the PCI bus: the device is gone until a "
		     "rescan or reboot"));
	host_holders_free(h, nh);
	host_unreadable_release(&u);
}

static void runbook_slow(struct steps *s, const struct check_report *r, int gpu)
{
	static const char *const thr[] = {"gpu.throttle", NULL};
	static const char *const temp[] = {"gpu.temperature", NULL};
	static const char *const pwr[] = {"gpu.power", NULL};
	static const char *const pcie[] = {"gpu.pcie_link", "gpu.pcie_errors", NULL};
	static const char *const nvl[] = {"gpu.nvlink", NULL};
	static const char *const pers[] = {"gpu.persistence", NULL};
	static const char *const net[] = {"topo.gpudirect", "net.nccl_transport", "net.rdma_port", NULL};
	static const char *const lat[] = {"gpu.nvml_latency", NULL};
	char buf[1024] = "";
	enum check_status st = CHECK_OK;
	unsigned i;

	from_items(s, r, "clock throttling", thr, gpu, "throttle reasons not reported");
	from_items(s, r, "temperature", temp, gpu, "temperature not reported");
	from_items(s, r, "power limit", pwr, gpu, "power not reported");
	/* clocks against their maximum while busy: below 80 % means held down */
	for (i = 0; i < r->ngpus; i++) {
		const struct check_gpu *g = &r->gpus[i];
		size_t used = strlen(buf);
		if ((gpu >= 0 && (int)i != gpu) || !GPU_SAMPLE_HAS(&g->s, clock_sm_mhz) ||
		    !GPU_STATIC_HAS(&g->st, clock_max_sm_mhz) || !g->st.clock_max_sm_mhz)
			continue;
		if (GPU_SAMPLE_HAS(&g->s, util_gpu_pct) && g->s.util_gpu_pct >= 50 &&
		    g->s.clock_sm_mhz * 10 < g->st.clock_max_sm_mhz * 8) {
			st = CHECK_WARN;
			if (used < sizeof(buf) - 80)
				snprintf(buf + used, sizeof(buf) - used,
					 "%sgpu %u: SM %u of %u MHz while %u%% busy", used ? "; " : "", i,
					 g->s.clock_sm_mhz, g->st.clock_max_sm_mhz, g->s.util_gpu_pct);
		}
	}
	step(s, "sm clocks", st, xstrdup(buf[0] ? buf : "busy GPUs run at >= 80% of their maximum SM clock"),
	     st == CHECK_OK ? NULL : xstrdup("see the throttle, power and temperature steps"));
	/* utilisation: an idle GPU in a slow job waits for its input */
	buf[0] = '\0';
	st = CHECK_OK;
	for (i = 0; i < r->ngpus; i++) {
		const struct check_gpu *g = &r->gpus[i];
		size_t used = strlen(buf);
		if ((gpu >= 0 && (int)i != gpu) || !GPU_SAMPLE_HAS(&g->s, util_gpu_pct) || !g->nprocs)
			continue;
		if (g->s.util_gpu_pct < 50) {
			st = CHECK_WARN;
			if (used < sizeof(buf) - 60)
				snprintf(buf + used, sizeof(buf) - used, "%sgpu %u: %u%% busy with a job on it",
					 used ? "; " : "", i, g->s.util_gpu_pct);
		}
	}
	step(s, "utilisation", st, xstrdup(buf[0] ? buf : "GPUs with jobs are busy"),
	     st == CHECK_OK ? NULL :
			      xstrdup("the job waits on input or the host: more DataLoader workers, pinned "
				      "memory, GPU decoding (DALI), or profile with Nsight Systems"));
	from_items(s, r, "pcie link", pcie, gpu, "PCIe link not reported");
	from_items(s, r, "nvlink", nvl, gpu, "no NVLink");
	from_items(s, r, "persistence mode", pers, gpu, "persistence mode not reported");
	from_items(s, r, "network for nccl", net, -1, "no RDMA NIC");
	from_items(s, r, "driver responsiveness", lat, gpu, "NVML answers promptly");
}

static void runbook_lost(struct steps *s, const struct check_report *r, int gpu)
{
	static const char *const status[] = {"gpu.status", NULL};
	static const char *const count[] = {"gpu.count", "nvml.library", NULL};
	static const char *const pcie[] = {"gpu.pcie_errors", "gpu.pcie_link", NULL};
	char buf[512] = "";
	size_t k;
	unsigned i;
	int missing = 0;

	from_items(s, r, "nvml view", status, gpu, "no GPU to inspect");
	from_items(s, r, "gpu count", count, -1, "no GPU library");
	xid_step(s, r, gpu, NULL, 0, "xids in the kernel log");
	/* GPUs on the PCI bus that NVML did not list */
	for (k = 0; k < r->n_nvidia_pci; k++) {
		int found = 0;
		for (i = 0; i < r->ngpus; i++)
			if (GPU_STATIC_HAS(&r->gpus[i].st, pci_sysfs_id) &&
			    !strcmp(r->gpus[i].st.pci_sysfs_id, r->nvidia_pci[k]))
				found = 1;
		if (!found && r->backend_rc == GPU_OK) {
			size_t used = strlen(buf);
			missing = 1;
			if (used < sizeof(buf) - 20)
				snprintf(buf + used, sizeof(buf) - used, "%s%s", used ? " " : "",
					 r->nvidia_pci[k]);
		}
	}
	step(s, "pci bus", missing ? CHECK_FAIL : CHECK_OK,
	     missing ? xasprintf("on the PCI bus but not in NVML: %s", buf) :
		       xasprintf("%zu NVIDIA GPU%s on the PCI bus", r->n_nvidia_pci,
				 r->n_nvidia_pci == 1 ? "" : "s"),
	     missing ? xstrdup("read dmesg for RmInitAdapter errors on those devices; power-cycle the node") :
		       NULL);
	from_items(s, r, "pcie errors", pcie, gpu, "PCIe errors not reported");
	step(s, "recovery", CHECK_SKIP, xstrdup("advice"),
	     xstrdup("a GPU that fell off the bus needs a node power-cycle (not a reboot); check seating, power "
		     "cables and cooling; two occurrences on one GPU: RMA"));
}

size_t check_runbook(const struct check_report *r, enum check_symptom sym, int gpu, double need_bytes,
		     struct check_step **steps)
{
	struct steps s = {NULL, 0};
	switch (sym) {
	case SYMPTOM_LAUNCH_FAILED:
		runbook_launch_failed(&s, r, gpu);
		break;
	case SYMPTOM_OOM:
		runbook_oom(&s, r, gpu, need_bytes);
		break;
	case SYMPTOM_BUSY:
		runbook_busy(&s, r, gpu);
		break;
	case SYMPTOM_SLOW:
		runbook_slow(&s, r, gpu);
		break;
	default:
		runbook_lost(&s, r, gpu);
		break;
	}
	*steps = s.v;
	return s.n;
}

void check_steps_free(struct check_step *steps, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(steps[i].finding);
		free(steps[i].action);
	}
	free(steps);
}
