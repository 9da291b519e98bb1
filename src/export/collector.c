/*
 * The collector threads (see collector.h).
 */
#include "export/collector.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "export/clockev.h"
#include "export/kube.h"
#include "export/procinfo.h"
#include "export/sanity.h"
#include "export/xid.h"
#include "host/host.h"
#include "util/error.h"
#include "util/xalloc.h"

/* Fast readings: everything but the two 20 ms PCIe throughput windows. */
#define WHAT_FAST (GPU_SAMPLE_BASIC | GPU_SAMPLE_HEALTH | GPU_SAMPLE_THROTTLE | GPU_SAMPLE_NVLINK)
/* Static facts (MIG mode, ECC mode, power limit) can change; read them again this often. */
#define STATIC_REFRESH_S 60.0
/*
 * Worker threads: one per GPU up to this many; 72 GPUs share 8 (a fast
 * pass is a few ms per GPU, a PCIe pass 40 ms: 72 x 45 ms / 8 = 0.4 s of
 * the 1 s interval).  Each thread stuck in a call that does not return
 * gets a stand-in, up to WORKERS_SPARE of them, so a hung GPU never holds
 * the others' collection; a stuck thread that comes back leaves again.
 */
#define WORKERS_MAX 8
#define WORKERS_SPARE 8
/* A lost GPU is looked for again (a new handle by UUID) this often, in seconds. */
#define REVIVE_S 5.0
/* The second GPM sample after a first one, in seconds: the first readings average this long. */
#define GPM_AGAIN_S 0.1

/* What a worker does with the slot it takes. */
enum job {
	JOB_FAST, /* the readings */
	JOB_GPM,  /* the second GPM sample after a first one */
	JOB_SLOW, /* the PCIe throughput windows */
};

/* What a worker read; guarded by the collector's lock once stored. */
struct result {
	int have; /* a sample() call has finished */
	int have_static;
	struct gpu_static st;
	int rc;
	struct gpu_sample s;
	struct gpu_mig_instance *mig;
	size_t nmig;
	struct gpu_gpm gpm;
	struct gpu_gpm *mig_gpm; /* parallel to mig */
	int gpm_rc;              /* GPU_OK, or why there are no profiling metrics */
	char gpm_why[160];
	struct xproc *procs;
	size_t nprocs;
};

struct slot {
	struct collector *c;
	unsigned idx;
	struct gpu_device *dev;
	/* guarded by c->lock */
	uint64_t job_gen, done_gen;
	int busy;     /* a worker holds it: no other may call the library for this GPU */
	int slow_due; /* the PCIe pass waits for a worker */
	int gpm_due;  /* the second GPM sample is wanted at gpm_at (CLOCK_MONOTONIC) */
	double gpm_at;
	double busy_since;
	int stalled;
	int lost;              /* reported by status() or the event thread */
	double revive_at;      /* CLOCK_MONOTONIC of the next look for a lost GPU */
	uint64_t revived;      /* times the GPU came back */
	struct clockev *clock; /* its clock-event reasons over time */
	int *p2p; /* NVLink P2P status toward each GPU (GPU_P2P_*; -1 unread), read with the static facts */
	int *p2p_scratch; /* the holding worker's */
	struct result res;
	int pcie_valid;
	uint64_t pcie_tx, pcie_rx;
	double slow_duration_s;
	uint64_t errors;
	/* the holding worker's scratch */
	struct gpu_sample scratch;
	struct gpu_static scratch_st;
	double static_at;
	/* publisher-private: the previous NVLink totals, for dcgm's rate */
	double prev_kib, prev_t;
	int prev_valid;
};

struct worker {
	struct collector *c;
	pthread_t thread;
	int started; /* guarded by c->lock from here on */
	int exited;
};

struct collector {
	struct collector_opts o;
	struct worker workers[WORKERS_MAX + WORKERS_SPARE];
	unsigned nworkers; /* running: started and not exited */
	unsigned pool;     /* the workers wanted while none is stuck */
	unsigned next_job; /* round robin over the slots */
	pthread_mutex_t lock;
	pthread_cond_t work;  /* workers wait for jobs */
	pthread_cond_t done;  /* the publisher waits for workers */
	pthread_cond_t tick;  /* the publisher's and others' sleeps; stop wakes them */
	pthread_cond_t first; /* the first snapshot was published */
	int stop;
	uint64_t gen;
	struct slot *slots;
	unsigned nslots;
	struct xid_book *xids;
	pthread_t publisher, events, kmsg;
	int publisher_started, events_started, kmsg_started;
	int events_exited, kmsg_exited;
	atomic_int events_up, kmsg_up;
	atomic_ullong xid_unmatched;
	uint64_t collections, stalled_calls;
	double start_wall;
	double process_start_s;
	double collect_duration_s;
	double last_stall_s; /* CLOCK_MONOTONIC of the last collection with a stall; 0: none */
	char last_stall_why[512];
	struct snapshot *current; /* guarded by lock */
	size_t size_hint[EXPO_NFORMATS];
	struct collector *next_abandoned;
	struct export_bench *bench; /* --bench-file; only the publishing thread touches it */
};

/* Collectors stopped while a call hung: their threads may still touch them. */
static struct collector *abandoned;
static pthread_mutex_t abandoned_lock = PTHREAD_MUTEX_INITIALIZER;

double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct timespec abs_mono(double t)
{
	struct timespec ts;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* Waits on cond (with c->lock held) until CLOCK_MONOTONIC time t. */
static void wait_until(struct collector *c, pthread_cond_t *cond, double t)
{
	struct timespec ts = abs_mono(t);
	pthread_cond_timedwait(cond, &c->lock, &ts);
}

static void init_cond(pthread_cond_t *cv)
{
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
}

static void result_free(struct result *r)
{
	free(r->mig);
	free(r->mig_gpm);
	free(r->procs);
	r->mig = NULL;
	r->mig_gpm = NULL;
	r->procs = NULL;
	r->nmig = r->nprocs = 0;
}

/* ---- per-GPU worker ---- */

static void read_comm(unsigned pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * Profiling metrics (GPM): one sample per collection, so each reading
 * averages exactly one interval.  With MIG on, one per GPU instance (its
 * compute instances share the GI's counters) instead of the whole GPU.
 */
/*
 * gpm() of one device or GPU instance.  Its first call only takes a
 * sample: *again says so, and a GPM pass GPM_AGAIN_S later (another job,
 * so no worker sleeps) gives the collection its readings.
 */
static int gpm_call(const struct gpu_backend *b, struct gpu_device *dev, unsigned gi, struct gpu_gpm *out,
		    int *again)
{
	int rc = b->gpm(dev, gi, out);
	if (rc == GPU_OK && !GPU_GPM_HAS(out, interval_s))
		*again = 1;
	return rc;
}

/* The profiling readings of r's GPU (or of each of its MIG GPU instances); *again as gpm_call(). */
static void worker_gpm(struct slot *sl, struct result *r, int *again)
{
	const struct gpu_backend *b = sl->c->o.backend;
	size_t i, k;
	if (!b->gpm) {
		r->gpm_rc = GPU_ERR_NOT_SUPPORTED;
		snprintf(r->gpm_why, sizeof(r->gpm_why), "the %s backend has no profiling metrics", b->name);
		return;
	}
	if (!r->nmig) {
		r->gpm_rc = gpm_call(b, sl->dev, GPU_NO_INSTANCE, &r->gpm, again);
		if (r->gpm_rc != GPU_OK)
			snprintf(r->gpm_why, sizeof(r->gpm_why), "%s", b->last_error());
		return;
	}
	r->mig_gpm = xcalloc(r->nmig, sizeof(*r->mig_gpm));
	r->gpm_rc = GPU_ERR_NOT_SUPPORTED;
	for (i = 0; i < r->nmig; i++) {
		int rc;
		for (k = 0; k < i && r->mig[k].gpu_instance != r->mig[i].gpu_instance; k++)
			;
		if (k < i) {
			r->mig_gpm[i] = r->mig_gpm[k];
			continue;
		}
		rc = gpm_call(b, sl->dev, r->mig[i].gpu_instance, &r->mig_gpm[i], again);
		if (rc == GPU_OK)
			r->gpm_rc = GPU_OK;
		else
			snprintf(r->gpm_why, sizeof(r->gpm_why), "%s", b->last_error());
	}
	if (r->gpm_rc == GPU_OK)
		r->gpm_why[0] = '\0';
}

/*
 * The GPU's NVLink P2P status toward every other GPU, into p2p_scratch
 * (-1 where the library cannot say); 0 when the backend has no such call.
 * With the static facts: it changes with a reset or a driver setting only.
 */
static int read_p2p(struct slot *sl)
{
	const struct gpu_backend *b = sl->c->o.backend;
	unsigned j;
	if (!b->p2p_status || sl->c->nslots < 2)
		return 0;
	for (j = 0; j < sl->c->nslots; j++) {
		int st = -1;
		if (j == sl->idx || b->p2p_status(sl->dev, sl->c->slots[j].dev, &st) != GPU_OK)
			st = -1;
		sl->p2p_scratch[j] = st;
	}
	return 1;
}

static void worker_fast(struct slot *sl, struct result *r, uint64_t *errors, int *gpm_again)
{
	const struct gpu_backend *b = sl->c->o.backend;
	double now = mono_now();
	int rc;

	memset(r, 0, sizeof(*r));
	if (!sl->static_at || now - sl->static_at >= STATIC_REFRESH_S) {
		rc = b->static_info(sl->dev, &sl->scratch_st);
		sanity_static(&sl->scratch_st);
		sl->static_at = now;
		/* a GPU lost half-way still told who it is: keep what was read */
		if (rc == GPU_OK ||
		    (rc == GPU_ERR_LOST && !sl->res.have_static && GPU_STATIC_HAS(&sl->scratch_st, uuid))) {
			/* stored now, so a GPU whose next call hangs is still named */
			int p2p = rc == GPU_OK && read_p2p(sl);
			pthread_mutex_lock(&sl->c->lock);
			sl->res.st = sl->scratch_st;
			sl->res.have_static = 1;
			if (p2p)
				memcpy(sl->p2p, sl->p2p_scratch, sl->c->nslots * sizeof(*sl->p2p));
			pthread_mutex_unlock(&sl->c->lock);
		} else {
			(*errors)++;
		}
	}
	r->rc = b->sample(sl->dev, WHAT_FAST, &sl->scratch);
	sanity_sample(&sl->scratch);
	r->s = sl->scratch;
	r->have = 1;
	if (r->rc != GPU_OK) {
		/* a lost GPU's calls fail too: counted, so an alert on errors sees it */
		(*errors)++;
		return;
	}
	if (sl->c->o.processes && b->processes) {
		struct gpu_process *p = NULL;
		size_t n = 0, i;
		if (b->processes(sl->dev, &p, &n) == GPU_OK && n) {
			r->procs = xcalloc(n, sizeof(*r->procs));
			for (i = 0; i < n; i++) {
				r->procs[i].pid = p[i].pid;
				r->procs[i].used_valid = p[i].used_bytes_valid;
				r->procs[i].used_bytes = p[i].used_bytes;
				r->procs[i].gpu_instance = p[i].gpu_instance;
				r->procs[i].compute_instance = p[i].compute_instance;
				read_comm(p[i].pid, r->procs[i].comm, sizeof(r->procs[i].comm));
				{
					struct proc_container pc;
					if (proc_container_of(NULL, p[i].pid, &pc) == 1)
						snprintf(r->procs[i].container, sizeof(r->procs[i].container),
							 "%.12s", pc.id);
				}
			}
			r->nprocs = n;
		}
		free(p);
	}
	{
		/* MIG instances, when the static facts say MIG is on (only this thread writes them) */
		const struct gpu_static *st = sl->res.have_static ? &sl->res.st : NULL;
		if (st && GPU_STATIC_HAS(st, mig_mode) && st->mig_mode == 1 && b->mig_instances) {
			if (b->mig_instances(sl->dev, &r->mig, &r->nmig) != GPU_OK) {
				free(r->mig);
				r->mig = NULL;
				r->nmig = 0;
				(*errors)++;
			}
		}
	}
	worker_gpm(sl, r, gpm_again);
}

/*
 * The next slot with work (lock held), round robin: every fast pass, then
 * the GPM passes that are due, then the PCIe passes, so the slow calls never
 * delay a GPU's readings; NULL when none.  *wake: the earliest GPM pass not
 * yet due (0: none).  A slot a worker holds is never given to another.
 */
static struct slot *take_job(struct collector *c, enum job *job, double *wake)
{
	double now = mono_now();
	unsigned k, i;
	*wake = 0;
	for (k = JOB_FAST; k <= JOB_SLOW; k++)
		for (i = 0; i < c->nslots; i++) {
			struct slot *sl = &c->slots[(c->next_job + i) % c->nslots];
			int due = k == JOB_FAST ? sl->job_gen != sl->done_gen :
				  k == JOB_GPM  ? sl->gpm_due && sl->gpm_at <= now :
						  sl->slow_due;
			if (k == JOB_GPM && sl->gpm_due && sl->gpm_at > now && !sl->busy &&
			    (!*wake || sl->gpm_at < *wake))
				*wake = sl->gpm_at;
			if (sl->busy || !due)
				continue;
			c->next_job = (sl->idx + 1) % c->nslots;
			*job = (enum job)k;
			return sl;
		}
	return NULL;
}

/* Workers inside a call that has run past the timeout (lock held). */
static unsigned stuck_workers(const struct collector *c)
{
	unsigned i, n = 0;
	for (i = 0; i < c->nslots; i++)
		n += c->slots[i].busy && c->slots[i].stalled;
	return n;
}

/*
 * A lost GPU that may have come back (a reset, a re-seated board): a new
 * handle by its UUID.  Called without the lock, by the slot's worker.
 */
static int revive(struct slot *sl, const char *uuid)
{
	const struct gpu_backend *b = sl->c->o.backend;
	if (!b->revive || b->revive(sl->dev, uuid) != GPU_OK)
		return 0;
	sl->static_at = 0; /* read who it is again */
	return 1;
}

/* The fast readings of a slot the worker holds (lock held on entry and on return). */
static void fast_pass(struct slot *sl, struct result *r)
{
	struct collector *c = sl->c;
	uint64_t gen = sl->job_gen, errors = 0;
	double now = mono_now();
	int try_revive = sl->lost && now >= sl->revive_at, revived = 0, gpm_again = 0;
	char uuid[GPU_UUID_LEN] = "";

	if (try_revive) {
		sl->revive_at = now + REVIVE_S;
		if (sl->res.have_static)
			memcpy(uuid, sl->res.st.uuid, sizeof(uuid));
	}
	pthread_mutex_unlock(&c->lock);
	if (try_revive)
		revived = revive(sl, uuid);
	worker_fast(sl, r, &errors, &gpm_again);
	pthread_mutex_lock(&c->lock);
	sl->gpm_due = gpm_again && !c->stop;
	sl->gpm_at = mono_now() + GPM_AGAIN_S;
	if (revived) {
		sl->lost = 0;
		sl->revived++;
	}
	/* the readings replace the last ones; the static facts stay */
	result_free(&sl->res);
	sl->res.have = r->have;
	sl->res.rc = r->rc;
	sl->res.s = r->s;
	sl->res.mig = r->mig;
	sl->res.nmig = r->nmig;
	sl->res.gpm = r->gpm;
	sl->res.mig_gpm = r->mig_gpm;
	sl->res.gpm_rc = r->gpm_rc;
	memcpy(sl->res.gpm_why, r->gpm_why, sizeof(sl->res.gpm_why));
	sl->res.procs = r->procs;
	sl->res.nprocs = r->nprocs;
	memset(r, 0, sizeof(*r));
	if (sl->res.rc == GPU_ERR_LOST ||
	    (c->o.backend->status && c->o.backend->status(sl->dev) == GPU_STATUS_LOST))
		sl->lost = 1;
	if (sl->res.have && sl->res.rc == GPU_OK && GPU_SAMPLE_HAS(&sl->res.s, clock_event_reasons))
		clockev_note(sl->clock, mono_now(), sl->res.s.clock_event_reasons);
	sl->errors += errors;
	sl->done_gen = gen;
	sl->busy = 0;
	sl->stalled = 0;
	/* the slow call, once the fast readings are in */
	sl->slow_due = c->o.pcie_throughput && !sl->lost && sl->res.rc == GPU_OK && !c->stop;
	pthread_cond_broadcast(&c->done);
}

/* The second GPM sample of a slot the worker holds (lock held): the profiling readings. */
static void gpm_pass(struct slot *sl, struct result *r)
{
	struct collector *c = sl->c;
	int again = 0;
	sl->gpm_due = 0;
	memset(r, 0, sizeof(*r));
	/* the MIG list is the slot's own: only its holder writes it */
	r->mig = sl->res.mig;
	r->nmig = sl->res.nmig;
	pthread_mutex_unlock(&c->lock);
	worker_gpm(sl, r, &again);
	pthread_mutex_lock(&c->lock);
	free(sl->res.mig_gpm);
	sl->res.gpm = r->gpm;
	sl->res.mig_gpm = r->mig_gpm;
	sl->res.gpm_rc = r->gpm_rc;
	memcpy(sl->res.gpm_why, r->gpm_why, sizeof(sl->res.gpm_why));
	memset(r, 0, sizeof(*r));
	sl->busy = 0;
	sl->stalled = 0;
	pthread_cond_broadcast(&c->done);
}

/* The PCIe throughput pass (two 20 ms windows) of a slot the worker holds (lock held). */
static void slow_pass(struct slot *sl)
{
	struct collector *c = sl->c;
	double t0 = mono_now();
	int rc;
	sl->slow_due = 0;
	pthread_mutex_unlock(&c->lock);
	rc = c->o.backend->sample(sl->dev, GPU_SAMPLE_PCIE_THROUGHPUT, &sl->scratch);
	pthread_mutex_lock(&c->lock);
	sl->busy = 0;
	sl->stalled = 0;
	sl->slow_duration_s = mono_now() - t0;
	if (rc == GPU_OK && GPU_SAMPLE_HAS(&sl->scratch, pcie_tx_bytes_per_s) &&
	    GPU_SAMPLE_HAS(&sl->scratch, pcie_rx_bytes_per_s)) {
		sl->pcie_valid = 1;
		sl->pcie_tx = sl->scratch.pcie_tx_bytes_per_s;
		sl->pcie_rx = sl->scratch.pcie_rx_bytes_per_s;
	} else {
		sl->pcie_valid = 0;
		if (rc == GPU_ERR_LOST)
			sl->lost = 1;
	}
	pthread_cond_broadcast(&c->done);
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct collector *c = wk->c;
	struct result *r = xcalloc(1, sizeof(*r));

	pthread_mutex_lock(&c->lock);
	while (!c->stop) {
		enum job job = JOB_FAST;
		double wake;
		struct slot *sl = take_job(c, &job, &wake);
		if (!sl) {
			/* a stand-in leaves once the worker it stood in for is back */
			if (c->nworkers > c->pool + stuck_workers(c))
				break;
			if (wake > 0)
				wait_until(c, &c->work, wake);
			else
				pthread_cond_wait(&c->work, &c->lock);
			continue;
		}
		sl->busy = 1;
		sl->busy_since = mono_now();
		if (job == JOB_SLOW)
			slow_pass(sl);
		else if (job == JOB_GPM)
			gpm_pass(sl, r);
		else
			fast_pass(sl, r);
	}
	wk->exited = 1;
	c->nworkers--;
	pthread_cond_broadcast(&c->done);
	pthread_mutex_unlock(&c->lock);
	free(r);
	return NULL;
}

/* ---- process figures (/proc/self) ---- */

static void process_stats(struct collector *c, struct xstats *s)
{
	char buf[1024], *p;
	FILE *f = fopen("/proc/self/stat", "r");
	long ticks = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	struct rlimit rl;
	DIR *d;

	s->cpu_seconds = s->resident_bytes = s->virtual_bytes = s->open_fds = s->max_fds = NAN;
	s->threads = NAN;
	s->start_time_s = c->process_start_s;
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		/* fields after the command name, which may hold spaces: from the last ')' */
		p = strrchr(buf, ')');
		if (p) {
			unsigned long utime = 0, stime = 0, vsize = 0;
			long rss = 0, threads = 0;
			if (sscanf(p + 2,
				   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %*d %*d %*d %*d "
				   "%ld %*d %*u %lu %ld",
				   &utime, &stime, &threads, &vsize, &rss) == 5 &&
			    ticks > 0) {
				s->cpu_seconds = (double)(utime + stime) / (double)ticks;
				s->virtual_bytes = (double)vsize;
				s->resident_bytes = (double)rss * (double)page;
				s->threads = (double)threads;
			}
		}
	}
	d = opendir("/proc/self/fd");
	if (d) {
		struct dirent *e;
		double n = 0;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				n++;
		closedir(d);
		s->open_fds = n - 1; /* the directory stream's own descriptor */
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		s->max_fds = rl.rlim_cur == RLIM_INFINITY ? INFINITY : (double)rl.rlim_cur;
}

/* Process start time: boot time (btime, /proc/stat) + start ticks (/proc/self/stat field 22). */
static double read_process_start(void)
{
	char buf[1024], *p;
	FILE *f = fopen("/proc/stat", "r");
	double btime = NAN;
	unsigned long long start = 0;
	long ticks = sysconf(_SC_CLK_TCK);
	if (f) {
		while (fgets(buf, sizeof(buf), f))
			if (!strncmp(buf, "btime ", 6)) {
				btime = strtod(buf + 6, NULL);
				break;
			}
		fclose(f);
	}
	f = fopen("/proc/self/stat", "r");
	if (!f)
		return wall_now();
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return wall_now();
	}
	fclose(f);
	p = strrchr(buf, ')');
	if (!p || isnan(btime) || ticks <= 0 ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &start) != 1)
		return wall_now();
	return btime + (double)start / (double)ticks;
}

/* ---- publisher ---- */

static void snapshot_free(struct snapshot *s)
{
	int f;
	for (f = 0; f < EXPO_NFORMATS; f++)
		free(s->body[f]);
	free(s);
}

void snapshot_release(struct snapshot *s)
{
	if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0)
		snapshot_free(s);
}

struct snapshot *collector_acquire(struct collector *c)
{
	struct snapshot *s;
	pthread_mutex_lock(&c->lock);
	s = c->current;
	if (s)
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&c->lock);
	return s;
}

static void copy_pod(struct xpod *p, const struct kube_device *d)
{
	p->valid = 1;
	snprintf(p->pod, sizeof(p->pod), "%s", d->pod);
	snprintf(p->namespace_, sizeof(p->namespace_), "%s", d->namespace_);
	snprintf(p->container, sizeof(p->container), "%s", d->container);
}

/*
 * The pods holding a GPU and its MIG devices, from the kubelet thread's last
 * answer (no call here).  Device plugins name a GPU by UUID or, under
 * --kubernetes-gpu-id-type device-name, as nvidiaN.
 */
static void attach_pods(struct collector *c, struct xgpu *g)
{
	struct kube_device d;
	char name[32];
	size_t i;
	if (!c->o.kube || !g->have_static)
		return;
	snprintf(name, sizeof(name), "nvidia%u",
		 GPU_STATIC_HAS(&g->st, minor_number) ? g->st.minor_number : g->index);
	if (kube_lookup(c->o.kube, g->st.uuid, &d) || kube_lookup(c->o.kube, name, &d))
		copy_pod(&g->pod, &d);
	if (!g->nmig)
		return;
	g->mig_pod = xcalloc(g->nmig, sizeof(*g->mig_pod));
	for (i = 0; i < g->nmig; i++)
		if (kube_lookup(c->o.kube, g->mig[i].uuid, &d))
			copy_pod(&g->mig_pod[i], &d);
}

/* Copies the slots' results into v (lock held); the arrays are duplicated. */
static void build_view(struct collector *c, struct xview *v, double now_wall)
{
	unsigned i;
	v->ngpus = c->nslots;
	v->gpus = xcalloc(c->nslots ? c->nslots : 1, sizeof(*v->gpus));
	v->hostname = c->o.hostname;
	v->hostname_label = c->o.hostname_label ? c->o.hostname_label : "Hostname";
	v->xid_window_s = c->o.xid_window_s;
	v->clock_events_window_s = c->o.clock_events_window_s;
	v->processes = c->o.processes;
	v->counters = c->o.counters;
	for (i = 0; i < c->nslots; i++) {
		struct slot *sl = &c->slots[i];
		struct xgpu *g = &v->gpus[i];
		g->index = i;
		g->have_static = sl->res.have_static;
		if (g->have_static) {
			g->st = sl->res.st;
			if (GPU_STATIC_HAS(&g->st, index))
				g->index = g->st.index;
		}
		g->lost = sl->lost;
		g->stalled = sl->stalled;
		g->clock_tracked = clockev_counts(sl->clock, mono_now(), g->clock_in_window, g->clock_edges);
		if (c->nslots > 1) {
			g->p2p = xmalloc(c->nslots * sizeof(*g->p2p));
			memcpy(g->p2p, sl->p2p, c->nslots * sizeof(*g->p2p));
			g->np2p = c->nslots;
		}
		g->rc = sl->res.rc;
		g->answered = sl->res.have && sl->res.rc == GPU_OK;
		if (g->answered) {
			g->s = sl->res.s;
			if (sl->pcie_valid) {
				GPU_SAMPLE_SET(&g->s, pcie_tx_bytes_per_s, sl->pcie_tx);
				GPU_SAMPLE_SET(&g->s, pcie_rx_bytes_per_s, sl->pcie_rx);
			}
			if (sl->res.nmig) {
				g->mig = xmalloc(sl->res.nmig * sizeof(*g->mig));
				memcpy(g->mig, sl->res.mig, sl->res.nmig * sizeof(*g->mig));
				g->nmig = sl->res.nmig;
				if (sl->res.mig_gpm) {
					g->mig_gpm = xmalloc(sl->res.nmig * sizeof(*g->mig_gpm));
					memcpy(g->mig_gpm, sl->res.mig_gpm, sl->res.nmig * sizeof(*g->mig_gpm));
				}
			}
			g->gpm = sl->res.gpm;
			if (sl->res.nprocs) {
				g->procs = xmalloc(sl->res.nprocs * sizeof(*g->procs));
				memcpy(g->procs, sl->res.procs, sl->res.nprocs * sizeof(*g->procs));
				g->nprocs = sl->res.nprocs;
			}
		}
		/* dcgm's NVLink throughput: the change of the data counters over time */
		if (g->answered && g->s.nlinks) {
			double kib = 0, t = (double)g->s.timestamp_ns * 1e-9;
			unsigned l, any = 0;
			for (l = 0; l < g->s.nlinks && l < GPU_MAX_NVLINKS; l++) {
				const struct gpu_link_sample *ls = &g->s.links[l];
				if (GPU_LINK_HAS(ls, tx_kib) && GPU_LINK_HAS(ls, rx_kib)) {
					kib += (double)ls->tx_kib + (double)ls->rx_kib;
					any = 1;
				}
			}
			if (any && sl->prev_valid && t > sl->prev_t && kib >= sl->prev_kib) {
				g->nvlink_rate_valid = 1;
				g->nvlink_kib_per_s = (kib - sl->prev_kib) / (t - sl->prev_t);
			}
			if (any && t > sl->prev_t) {
				sl->prev_kib = kib;
				sl->prev_t = t;
				sl->prev_valid = 1;
			}
		}
		attach_pods(c, g);
		g->nxids = xid_book_view(c->xids, i, now_wall, &g->xids, &g->has_last_xid, &g->last_xid,
					 &g->last_xid_time_s);
	}
}

static void view_free(struct xview *v)
{
	unsigned i;
	for (i = 0; i < v->ngpus; i++) {
		free(v->gpus[i].mig);
		free(v->gpus[i].mig_gpm);
		free(v->gpus[i].mig_pod);
		free(v->gpus[i].procs);
		free(v->gpus[i].xids);
		free(v->gpus[i].p2p);
	}
	free(v->gpus);
}

/*
 * What the served metrics lack and why (lock held): GPUs without profiling
 * metrics, one line per distinct reason.
 */
static void collect_notes(struct collector *c, const struct kube_health *kh, char *out, size_t len)
{
	unsigned i, k;
	size_t l = 0;
	out[0] = '\0';
	for (i = 0; i < c->nslots; i++) {
		const struct result *r = &c->slots[i].res;
		char gpus[128];
		size_t gl = 0;
		if (!r->have || r->rc != GPU_OK || r->gpm_rc == GPU_OK || !r->gpm_why[0])
			continue;
		for (k = 0; k < i; k++) {
			const struct result *q = &c->slots[k].res;
			if (q->have && q->rc == GPU_OK && q->gpm_rc != GPU_OK && !strcmp(q->gpm_why, r->gpm_why))
				break;
		}
		if (k < i)
			continue; /* listed with an earlier GPU */
		gpus[0] = '\0';
		for (k = i; k < c->nslots; k++) {
			const struct result *q = &c->slots[k].res;
			if (q->have && q->rc == GPU_OK && q->gpm_rc != GPU_OK && !strcmp(q->gpm_why, r->gpm_why) &&
			    gl < sizeof(gpus) - 8)
				gl += (size_t)snprintf(gpus + gl, sizeof(gpus) - gl, "%s%u", gl ? "," : "", k);
		}
		if (l < len)
			l += (size_t)snprintf(out + l, len - l, "no profiling metrics on gpu %s: %s\n", gpus,
					      r->gpm_why);
	}
	if (c->o.kube && !kh->up && l < len)
		l += (size_t)snprintf(out + l, len - l, "no pod labels: %s\n", kh->why);
	if (c->o.kube && kh->dropped && l < len)
		snprintf(
			out + l, len - l,
			"pod labels on %zu NVIDIA devices only: the kubelet assigns %zu more, past the bound of %d\n",
			kh->devices, kh->dropped, KUBE_MAX_DEVICES);
}

/*
 * One collection: jobs out, results in (up to the deadline), render, publish.
 * With `whole`, also wait for the slow PCIe pass (the first collection, so
 * the first scrape has every reading).
 */
static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg, char *err, size_t len, const char *what);

/*
 * Starts one more worker (lock held) in a free entry, joining one that
 * left; 0, or -1 when every entry is taken or the thread cannot start.
 */
static int spawn_worker(struct collector *c)
{
	unsigned i;
	char err[256];
	for (i = 0; i < WORKERS_MAX + WORKERS_SPARE; i++) {
		struct worker *w = &c->workers[i];
		if (w->started && !w->exited)
			continue;
		if (w->started)
			pthread_join(w->thread, NULL); /* it has let go of the lock and is returning */
		w->c = c;
		w->started = w->exited = 0;
		if (start_thread(&w->thread, worker_main, w, err, sizeof(err), "gpu worker")) {
			warning("export: %s", err);
			return -1;
		}
		w->started = 1;
		c->nworkers++;
		return 0;
	}
	return -1;
}

static void collect_once(struct collector *c, double deadline_s, int whole)
{
	double t0 = mono_now(), now;
	struct xview v;
	struct snapshot *snap, *old;
	uint64_t gen, errors = 0;
	unsigned i, stalled = 0, lost = 0;
	int f, healthy;
	char why[512] = "", notes[512];
	double slow = NAN;
	struct kube_health kh;

	pthread_mutex_lock(&c->lock);
	gen = ++c->gen;
	for (i = 0; i < c->nslots; i++)
		c->slots[i].job_gen = gen;
	pthread_cond_broadcast(&c->work);
	for (;;) {
		unsigned pending = 0;
		for (i = 0; i < c->nslots; i++) {
			struct slot *sl = &c->slots[i];
			if ((sl->done_gen != gen || (whole && (sl->busy || sl->slow_due || sl->gpm_due))) &&
			    !sl->stalled)
				pending++;
		}
		now = mono_now();
		if (!pending || now >= t0 + deadline_s || c->stop)
			break;
		wait_until(c, &c->done, t0 + deadline_s);
	}
	now = mono_now();
	for (i = 0; i < c->nslots; i++) {
		struct slot *sl = &c->slots[i];
		/*
		 * a call still running when the round ends, begun at least half
		 * the timeout ago: a healthy call returns in milliseconds, and
		 * on a loaded host a worker may pick the GPU up tens of
		 * milliseconds after the round began.  A slot that is busy only
		 * because it waited for a free worker began late and is not
		 * stalled.
		 */
		if (sl->busy && !sl->stalled && now - sl->busy_since >= c->o.timeout_s / 2) {
			sl->stalled = 1;
			c->stalled_calls++;
		}
		if (sl->stalled) {
			size_t l = strlen(why);
			stalled++;
			snprintf(why + l, sizeof(why) - l, "%sgpu %u: a library call has not returned for %.1f s",
				 l ? "; " : "", i, now - sl->busy_since);
		}
		errors += sl->errors;
		lost += sl->lost != 0;
		if (!isnan(sl->slow_duration_s) && sl->slow_duration_s > 0)
			slow = isnan(slow) ? sl->slow_duration_s : fmax(slow, sl->slow_duration_s);
	}
	/*
	 * /health: a stall now, or one within the hold time, fails it; so a
	 * GPU whose calls keep running past --collect-timeout keeps /health
	 * failed instead of flapping between its stalls.  Every GPU lost fails
	 * it too: the exporter then has nothing left to serve.
	 */
	/* a stand-in for each worker stuck in a call, so the other GPUs keep their readings */
	while (c->nworkers < c->pool + stuck_workers(c) && spawn_worker(c) == 0)
		;
	if (stalled) {
		c->last_stall_s = now;
		snprintf(c->last_stall_why, sizeof(c->last_stall_why), "%s", why);
	}
	healthy = !stalled;
	if (healthy && c->last_stall_s > 0 && now - c->last_stall_s < 3 * c->o.interval_s + c->o.timeout_s) {
		healthy = 0;
		snprintf(why, sizeof(why), "%.1f s ago: %.400s", now - c->last_stall_s, c->last_stall_why);
	}
	if (c->nslots && lost == c->nslots) {
		size_t l = strlen(why);
		healthy = 0;
		snprintf(why + l, sizeof(why) - l, "%severy GPU is lost (%u of %u)", l ? "; " : "", lost,
			 c->nslots);
	}
	/* once, so the notes and the metrics tell the same */
	kube_health(c->o.kube, &kh);
	collect_notes(c, &kh, notes, sizeof(notes));
	c->collections++;
	memset(&v, 0, sizeof(v));
	build_view(c, &v, wall_now());
	v.bench = c->bench;
	v.stats.collections = c->collections;
	v.stats.stalled_calls = c->stalled_calls;
	v.stats.collect_duration_s = c->collect_duration_s;
	pthread_mutex_unlock(&c->lock);

	/* one stat a collection, read again only when it changed; outside the lock (it may read a file) */
	if (c->bench)
		export_bench_poll(c->bench, wall_now());
	v.stats.interval_s = c->o.interval_s;
	v.stats.slow_duration_s = slow;
	v.stats.collect_errors = errors;
	v.stats.backend_up = c->o.backend != NULL;
	v.stats.backend = c->o.backend ? c->o.backend->name : NULL;
	v.stats.nvml_events_up = atomic_load(&c->events_up);
	v.stats.kmsg_up = atomic_load(&c->kmsg_up);
	v.stats.pod_resources = c->o.kube != NULL;
	v.stats.pod_resources_up = kh.up;
	v.stats.pod_resources_devices = kh.devices;
	v.stats.pod_resources_dropped = kh.dropped;
	v.stats.xid_unmatched = atomic_load(&c->xid_unmatched);
	v.stats.xid_duplicates = xid_book_duplicates(c->xids);
	v.stats.last_collect_time_s = wall_now();
	process_stats(c, &v.stats);
	if (isnan(v.stats.collect_duration_s))
		v.stats.collect_duration_s = mono_now() - t0;

	snap = xcalloc(1, sizeof(*snap));
	for (f = 0; f < EXPO_NFORMATS; f++) {
		struct strbuf b;
		strbuf_init(&b, c->size_hint[f]);
		families_render(&v, c->o.names, (enum expo_format)f, &b);
		snap->body[f] = strbuf_detach(&b, &snap->len[f]);
		c->size_hint[f] = snap->len[f] + snap->len[f] / 8 + 256;
	}
	view_free(&v);
	snap->healthy = healthy;
	snprintf(snap->health, sizeof(snap->health), "%s", healthy ? "ok" : why);
	memcpy(snap->notes, notes, sizeof(snap->notes));
	snap->refs = 1;

	pthread_mutex_lock(&c->lock);
	snap->mono_s = mono_now();
	c->collect_duration_s = snap->mono_s - t0;
	old = c->current;
	c->current = snap;
	pthread_cond_broadcast(&c->first);
	pthread_mutex_unlock(&c->lock);
	snapshot_release(old);
}

static void *publisher_main(void *arg)
{
	struct collector *c = arg;
	double next = mono_now() + c->o.interval_s;
	/* wait at most this long for the workers; later results go into the next collection */
	double deadline = fmin(c->o.timeout_s, fmax(c->o.interval_s * 0.9, 0.05));

	pthread_mutex_lock(&c->lock);
	while (!c->stop) {
		double now = mono_now();
		if (now < next) {
			wait_until(c, &c->tick, next);
			continue;
		}
		/* keep the phase; skip ticks missed while a collection ran long */
		while (next <= now)
			next += c->o.interval_s;
		pthread_mutex_unlock(&c->lock);
		collect_once(c, deadline, 0);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* ---- XID sources ---- */

static void *events_main(void *arg)
{
	struct collector *c = arg;
	struct gpu_event ev[64];
	int failures = 0;
	for (;;) {
		int n, i;
		pthread_mutex_lock(&c->lock);
		if (c->stop) {
			pthread_mutex_unlock(&c->lock);
			break;
		}
		pthread_mutex_unlock(&c->lock);
		/* a short wait keeps stopping quick */
		n = c->o.backend->events(ev, sizeof(ev) / sizeof(ev[0]), 250);
		if (n < 0) {
			atomic_store(&c->events_up, 0);
			if (++failures == 1)
				warning("export: nvml events: %s", c->o.backend->last_error());
			pthread_mutex_lock(&c->lock);
			if (!c->stop)
				wait_until(c, &c->tick, mono_now() + 5.0);
			pthread_mutex_unlock(&c->lock);
			continue;
		}
		failures = 0;
		atomic_store(&c->events_up, 1);
		for (i = 0; i < n; i++) {
			unsigned g = ev[i].gpu_index;
			if (g >= c->nslots)
				continue;
			if (ev[i].type == GPU_EVENT_XID)
				xid_book_add(c->xids, g, (unsigned)ev[i].code, (double)ev[i].time_ns * 1e-9,
					     XID_FROM_NVML);
			else if (ev[i].type == GPU_EVENT_LOST) {
				pthread_mutex_lock(&c->lock);
				c->slots[g].lost = 1;
				pthread_mutex_unlock(&c->lock);
			}
		}
	}
	pthread_mutex_lock(&c->lock);
	c->events_exited = 1;
	pthread_cond_broadcast(&c->done);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* The GPU slot whose PCI domain:bus:device is "dddd:bb:dd" (hex), or -1. */
static int slot_by_pci(struct collector *c, const char *pci)
{
	unsigned dom, bus, dev, i;
	int found = -1;
	if (sscanf(pci, "%x:%x:%x", &dom, &bus, &dev) != 3) {
		dom = 0;
		if (sscanf(pci, "%x:%x", &bus, &dev) != 2)
			return -1;
	}
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nslots && found < 0; i++) {
		const struct result *r = &c->slots[i].res;
		if (r->have_static && GPU_STATIC_HAS(&r->st, pci_bus) && r->st.pci_bus == bus &&
		    (!GPU_STATIC_HAS(&r->st, pci_domain) || r->st.pci_domain == dom) &&
		    (!GPU_STATIC_HAS(&r->st, pci_device) || r->st.pci_device == dev))
			found = (int)i;
	}
	pthread_mutex_unlock(&c->lock);
	return found;
}

static void kmsg_line(struct collector *c, const char *line)
{
	struct host_xid x;
	int slot;
	double t;
	if (!host_parse_xid(line, strlen(line), &x))
		return;
	host_xid_release(&x); /* the code, the GPU and the time are booked, not the text */
	if (x.code < 0)
		return;
	slot = slot_by_pci(c, x.pci);
	if (slot < 0) {
		atomic_fetch_add(&c->xid_unmatched, 1);
		return;
	}
	/* the kernel's time stamp is CLOCK_MONOTONIC-like seconds since boot */
	t = x.uptime_s >= 0 ? wall_now() - (mono_now() - x.uptime_s) : wall_now();
	xid_book_add(c->xids, (unsigned)slot, (unsigned)x.code, t, XID_FROM_KMSG);
}

static void *kmsg_main(void *arg)
{
	struct collector *c = arg;
	char buf[8192], line[8192];
	size_t have = 0;
	int fd = open(c->o.kmsg_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0) {
		warning("export: cannot read the kernel log '%s': %s (XIDs from NVML events only)", c->o.kmsg_path,
			strerror(errno));
		goto out;
	}
	/*
	 * The only character device that is a kernel log is /dev/kmsg (1:11);
	 * /dev/zero or /dev/urandom would be read forever at full speed.
	 */
	if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && !(major(st.st_rdev) == 1 && minor(st.st_rdev) == 11)) {
		warning("export: '%s' is a device but not the kernel log (/dev/kmsg); "
			"XIDs from NVML events only",
			c->o.kmsg_path);
		close(fd);
		goto out;
	}
	atomic_store(&c->kmsg_up, 1);
	for (;;) {
		ssize_t n;
		pthread_mutex_lock(&c->lock);
		if (c->stop) {
			pthread_mutex_unlock(&c->lock);
			break;
		}
		pthread_mutex_unlock(&c->lock);
		n = read(fd, buf, sizeof(buf) - 1);
		if (n > 0 && memchr(buf, '\0', (size_t)n)) {
			/* kernel log records are text: this is not one */
			warning("export: '%s' holds binary data, not kernel log lines; "
				"XIDs from NVML events only",
				c->o.kmsg_path);
			atomic_store(&c->kmsg_up, 0);
			break;
		}
		if (n > 0) {
			/* /dev/kmsg gives one record per read; a file gives lines */
			ssize_t i;
			for (i = 0; i < n; i++) {
				if (buf[i] == '\n' || have == sizeof(line) - 1) {
					line[have] = '\0';
					if (have && line[0] != ' ')
						kmsg_line(c, line);
					have = 0;
					if (buf[i] == '\n')
						continue;
				}
				line[have++] = buf[i];
			}
			continue;
		}
		if (n < 0 && errno == EPIPE)
			continue; /* records were overwritten before we read them */
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN) {
			warning("export: reading '%s': %s", c->o.kmsg_path, strerror(errno));
			atomic_store(&c->kmsg_up, 0);
			break;
		}
		if (n == 0 && have) {
			/* a file's last line without a newline */
			line[have] = '\0';
			kmsg_line(c, line);
			have = 0;
		}
		if (n < 0) {
			struct pollfd p = {fd, POLLIN, 0};
			poll(&p, 1, 250);
		} else {
			/* end of a regular file: look for appended lines now and then */
			pthread_mutex_lock(&c->lock);
			if (!c->stop)
				wait_until(c, &c->tick, mono_now() + 0.25);
			pthread_mutex_unlock(&c->lock);
		}
	}
	close(fd);
out:
	pthread_mutex_lock(&c->lock);
	c->kmsg_exited = 1;
	pthread_cond_broadcast(&c->done);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* ---- lifecycle ---- */

static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg, char *err, size_t len, const char *what)
{
	int rc = pthread_create(t, NULL, fn, arg);
	if (rc) {
		/* EAGAIN: the process is at its task limit, which names the fix */
		snprintf(
			err, len, "cannot start the %s thread: %s%s", what, strerror(rc),
			rc == EAGAIN ?
				" (the task limit: systemd's TasksMax, the cgroup's pids.max or ulimit -u; "
				"the exporter runs one thread per GPU up to 8, --http-threads more, and about 6 others)" :
				"");
		return -1;
	}
	return 0;
}

struct collector *collector_start(const struct collector_opts *o, char *err, size_t err_len)
{
	struct collector *c = xcalloc(1, sizeof(*c));
	unsigned i;

	c->o = *o;
	pthread_mutex_init(&c->lock, NULL);
	init_cond(&c->work);
	init_cond(&c->done);
	init_cond(&c->tick);
	init_cond(&c->first);
	c->start_wall = wall_now();
	c->process_start_s = read_process_start();
	c->collect_duration_s = NAN;
	c->nslots = o->backend ? o->ndevs : 0;
	c->slots = xcalloc(c->nslots ? c->nslots : 1, sizeof(*c->slots));
	c->xids = xid_book_new(c->nslots, o->xid_window_s, c->start_wall);
	for (i = 0; i < c->nslots; i++) {
		struct slot *sl = &c->slots[i];
		unsigned j;
		sl->clock = clockev_new(o->clock_events_window_s, o->interval_s);
		sl->p2p = xmalloc(c->nslots * sizeof(*sl->p2p));
		sl->p2p_scratch = xmalloc(c->nslots * sizeof(*sl->p2p_scratch));
		for (j = 0; j < c->nslots; j++)
			sl->p2p[j] = -1;
	}
	for (i = 0; i < c->nslots; i++) {
		struct slot *sl = &c->slots[i];
		sl->c = c;
		sl->idx = i;
		sl->dev = o->devs[i];
		sl->slow_duration_s = NAN;
		if (o->backend->status && o->backend->status(sl->dev) == GPU_STATUS_LOST)
			sl->lost = 1;
	}
	if (o->bench_file)
		c->bench = export_bench_new(o->bench_file);
	c->pool = c->nslots < WORKERS_MAX ? c->nslots : WORKERS_MAX;
	for (i = 0; i < c->pool; i++) {
		struct worker *w = &c->workers[i];
		w->c = c;
		if (start_thread(&w->thread, worker_main, w, err, err_len, "gpu worker"))
			goto fail;
		pthread_mutex_lock(&c->lock);
		w->started = 1;
		c->nworkers++;
		pthread_mutex_unlock(&c->lock);
	}
	/* the first collection, before anything is served */
	collect_once(c, c->o.timeout_s, 1);
	if (start_thread(&c->publisher, publisher_main, c, err, err_len, "collector"))
		goto fail;
	c->publisher_started = 1;
	if (o->backend && o->backend->events && o->events) {
		if (start_thread(&c->events, events_main, c, err, err_len, "event"))
			goto fail;
		c->events_started = 1;
	}
	if (o->kmsg_path && *o->kmsg_path) {
		if (start_thread(&c->kmsg, kmsg_main, c, err, err_len, "kernel log"))
			goto fail;
		c->kmsg_started = 1;
	}
	return c;
fail:
	collector_stop(c, 1.0);
	return NULL;
}

/* Joins t if it exits by the deadline (its `exited` flag, under the lock). */
static int join_by(struct collector *c, pthread_t t, int *exited, double deadline)
{
	pthread_mutex_lock(&c->lock);
	while (!*exited && mono_now() < deadline)
		wait_until(c, &c->done, fmin(deadline, mono_now() + 0.1));
	pthread_mutex_unlock(&c->lock);
	if (!*exited) {
		pthread_detach(t);
		return 0;
	}
	pthread_join(t, NULL);
	return 1;
}

int collector_stop(struct collector *c, double grace_s)
{
	double deadline = mono_now() + grace_s;
	int clean = 1;
	unsigned i;

	pthread_mutex_lock(&c->lock);
	c->stop = 1;
	pthread_cond_broadcast(&c->work);
	pthread_cond_broadcast(&c->tick);
	pthread_cond_broadcast(&c->done);
	pthread_mutex_unlock(&c->lock);
	if (c->publisher_started)
		pthread_join(c->publisher, NULL);
	if (c->kmsg_started)
		clean &= join_by(c, c->kmsg, &c->kmsg_exited, deadline);
	if (c->events_started)
		clean &= join_by(c, c->events, &c->events_exited, deadline);
	for (i = 0; i < WORKERS_MAX + WORKERS_SPARE; i++) {
		struct worker *w = &c->workers[i];
		int started;
		pthread_mutex_lock(&c->lock);
		started = w->started;
		pthread_mutex_unlock(&c->lock);
		if (started)
			clean &= join_by(c, w->thread, &w->exited, deadline);
	}
	if (!clean) {
		/* threads still inside the library use c: keep it, reachable, until exit */
		pthread_mutex_lock(&abandoned_lock);
		c->next_abandoned = abandoned;
		abandoned = c;
		pthread_mutex_unlock(&abandoned_lock);
		return 0;
	}
	for (i = 0; i < c->nslots; i++) {
		result_free(&c->slots[i].res);
		clockev_free(c->slots[i].clock);
		free(c->slots[i].p2p);
		free(c->slots[i].p2p_scratch);
	}
	free(c->slots);
	xid_book_free(c->xids);
	export_bench_free(c->bench);
	snapshot_release(c->current);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->work);
	pthread_cond_destroy(&c->done);
	pthread_cond_destroy(&c->tick);
	pthread_cond_destroy(&c->first);
	free(c);
	return 1;
}
