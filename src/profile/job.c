/*
 * A job traced on several ranks (profile.h; docs/profile.md, "Several
 * ranks").  Each trace is analysed alone, as `profile TRACE` does; then the
 * ranks are compared on what each one's GPU did per step apart from
 * communication.  In a data-parallel job every rank meets the others in each
 * collective, so the rank with the most of that work sets the pace: the
 * others wait for it inside their collectives, which is where their exposed
 * communication grows.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* A straggler is a rank whose compute differs this much from the others' (max - min over the mean). */
#define STRAGGLER_SPREAD 0.10
/* Exposed communication above this share of the step is named when no rank straggles. */
#define COMM_SHARE 0.20

#define PROFILE_RANK_FIELDS(F) \
	F(rank, INT, NULL, "distributedInfo.rank, or the file's position when the traces lack distinct ranks", \
	  (double)k->rank) \
	F(file, TEXT, NULL, "the rank's trace", k->r->file) \
	F(steps, INT, NULL, "steps of the rank's trace", (double)k->r->nsteps) \
	F(step_s, NUM, "s", "mean wall time per step", k->step_s) \
	F(gpu_busy_s, NUM, "s", "mean GPU busy time per step", k->busy_s) \
	F(compute_s, NUM, "s", "mean GPU time per step running other work than communication", k->compute_s) \
	F(comm_exposed_s, NUM, "s", "mean exposed communication per step", k->comm_exposed_s) \
	F(gpu_idle, NUM, "fraction", "the rank's GPU idle share over its steps", k->idle_frac) \
	F(vs_mean, NUM, "fraction", "compute_s against the ranks' mean compute_s, minus 1", k->vs_mean) \
	F(bottleneck, TEXT, NULL, "the rank's own bottleneck over its steps", k->bottleneck)

REPORT_DEFINE(profile_rank_schema, profile_rank_row, "profile-rank", struct profile_rank, k, PROFILE_RANK_FIELDS)

#define PROFILE_JOB_FIELDS(F) \
	F(ranks, INT, NULL, "traces read, one per rank", (double)j->nranks) \
	F(world_size, INT, NULL, "distributedInfo.world_size; null when the traces do not say", \
	  j->world_size < 0 ? NAN : (double)j->world_size) \
	F(ranks_from_files, BOOL, NULL, "ranks numbered by file position (the traces lack distinct ranks)", \
	  j->ranks_from_files) \
	F(step_mean_s, NUM, "s", "mean over the ranks of their mean step", j->step_mean_s) \
	F(step_max_s, NUM, "s", "the slowest rank's mean step", j->step_max_s) \
	F(slowest_rank, INT, NULL, "the rank with the longest mean step", (double)j->slowest_rank) \
	F(compute_mean_s, NUM, "s", "mean over the ranks of compute_s", j->compute_mean_s) \
	F(compute_spread, NUM, "fraction", "(max - min) / mean of the ranks' compute_s", j->compute_spread) \
	F(straggler_rank, INT, NULL, "the rank with the most compute per step: the others wait for it", \
	  (double)j->straggler_rank) \
	F(straggler_wait_s, NUM, "s", "mean over ranks of (max compute_s - own compute_s) per step", j->wait_s) \
	F(verdict, TEXT, NULL, "straggler, exposed communication, or balanced", j->verdict) \
	F(advice, TEXT, NULL, "what to look at next", j->advice)

REPORT_DEFINE(profile_job_schema, profile_job_row, "profile-job", struct profile_job, j, PROFILE_JOB_FIELDS)

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n > m && !strcmp(s + n - m, suf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **profile_dir_traces(const char *dir, size_t *n, struct diag *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **paths = NULL;
	size_t cap = 0;
	*n = 0;
	if (!d) {
		diag_set(err, dir, 0, 0, NULL, "cannot read the directory: %s", strerror(errno));
		return NULL;
	}
	while ((e = readdir(d))) {
		struct strbuf sb = STRBUF_INIT;
		if (e->d_name[0] == '.' || !(has_suffix(e->d_name, ".json") || has_suffix(e->d_name, ".json.gz")))
			continue;
		if (*n + 2 > cap) {
			cap = cap ? 2 * cap : 16;
			paths = xrealloc(paths, cap * sizeof(*paths));
		}
		strbuf_addf(&sb, "%s/%s", dir, e->d_name);
		paths[(*n)++] = strbuf_detach(&sb, NULL);
	}
	closedir(d);
	if (!*n) {
		free(paths);
		diag_set(err, dir, 0, 0, NULL,
			 "the directory holds no trace (no file ending in .json or .json.gz)");
		return NULL;
	}
	qsort(paths, *n, sizeof(*paths), cmp_str);
	paths[*n] = NULL;
	return paths;
}

void profile_paths_free(char **paths)
{
	size_t i;
	if (!paths)
		return;
	for (i = 0; paths[i]; i++)
		free(paths[i]);
	free(paths);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct profile_rank *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Ranks from the traces when each names a distinct one; else by position. */
static void number_ranks(struct profile_job *j)
{
	size_t i;
	for (i = 0; i < j->nranks; i++)
		j->ranks[i].rank = j->results[i]->rank;
	qsort(j->ranks, j->nranks, sizeof(*j->ranks), cmp_rank);
	for (i = 0; i < j->nranks; i++)
		if (j->ranks[i].rank < 0 || (i && j->ranks[i].rank == j->ranks[i - 1].rank))
			j->ranks_from_files = 1;
	if (!j->ranks_from_files)
		return;
	for (i = 0; i < j->nranks; i++) {
		j->ranks[i].r = j->results[i];
		j->ranks[i].rank = (long long)i;
	}
}

static void rank_figures(struct profile_rank *k)
{
	const struct profile_step *t = &k->r->total;
	double n = (double)k->r->nsteps;
	k->step_s = t->wall_s / n;
	k->busy_s = t->busy_s / n;
	k->comm_exposed_s = t->comm_exposed_s / n;
	k->compute_s = (t->busy_s - t->comm_exposed_s) / n;
	k->idle_frac = t->idle_frac;
	k->bottleneck = t->bottleneck;
}

static void judge(struct profile_job *j)
{
	const struct profile_rank *slow = &j->ranks[0], *strag = &j->ranks[0];
	double lo = INFINITY, comm = 0;
	size_t i;
	for (i = 0; i < j->nranks; i++) {
		const struct profile_rank *k = &j->ranks[i];
		j->step_mean_s += k->step_s / (double)j->nranks;
		j->compute_mean_s += k->compute_s / (double)j->nranks;
		comm += k->comm_exposed_s / (double)j->nranks;
		lo = fmin(lo, k->compute_s);
		if (k->step_s > slow->step_s)
			slow = k;
		if (k->compute_s > strag->compute_s)
			strag = k;
	}
	j->step_max_s = slow->step_s;
	j->slowest_rank = slow->rank;
	j->straggler_rank = strag->rank;
	j->compute_spread = j->compute_mean_s > 0 ? (strag->compute_s - lo) / j->compute_mean_s : 0;
	for (i = 0; i < j->nranks; i++) {
		struct profile_rank *k = &j->ranks[i];
		k->vs_mean = j->compute_mean_s > 0 ? k->compute_s / j->compute_mean_s - 1 : 0;
		j->wait_s += (strag->compute_s - k->compute_s) / (double)j->nranks;
	}
	if (j->nranks > 1 && j->compute_spread > STRAGGLER_SPREAD) {
		j->verdict = "straggler";
		j->advice =
			"Compare the straggler's inputs (sequence lengths, batch composition), its data loading and its "
			"GPU's clocks, power and temperature (gpuscope check) with the other ranks'";
	} else if (j->step_mean_s > 0 && comm / j->step_mean_s > COMM_SHARE) {
		j->verdict = "exposed communication";
		j->advice =
			"The ranks compute alike and the wait is the collectives themselves: overlap them "
			"with compute (gradient bucketing, FSDP prefetch), a larger batch per GPU, or a "
			"faster fabric";
	} else {
		j->verdict = "balanced";
		j->advice = "The ranks compute alike: each rank's own bottleneck is the place to start";
	}
}

struct profile_job *profile_job_run(const char *const *paths, size_t n, struct diag *err)
{
	struct profile_job *j = xcalloc(1, sizeof(*j));
	size_t i;
	j->results = xcalloc(n, sizeof(*j->results));
	j->ranks = xcalloc(n, sizeof(*j->ranks));
	for (i = 0; i < n; i++) {
		j->results[i] = profile_run(paths[i], err);
		if (!j->results[i]) {
			profile_job_free(j);
			return NULL;
		}
		j->nranks++;
		j->ranks[i].r = j->results[i];
	}
	j->world_size = n ? j->results[0]->world_size : -1;
	number_ranks(j);
	for (i = 0; i < j->nranks; i++)
		rank_figures(&j->ranks[i]);
	judge(j);
	return j;
}

void profile_job_free(struct profile_job *j)
{
	size_t i;
	if (!j)
		return;
	for (i = 0; i < j->nranks; i++)
		profile_result_free(j->results[i]);
	free(j->results);
	free(j->ranks);
	free(j);
}
