/*
 * Fuzzes the Kineto trace reader and the analysis behind `gpuscope profile`:
 * any input must give a result or a located error, never a crash, and an
 * accepted trace's figures must be finite and consistent (busy time within
 * the sum of the event durations, exposed communication within the
 * communication time), and the replay of --target with the trace's own
 * durations must give back the measured wall time.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "profile/profile.h"
#include "profile/profile_int.h"
#include "util/xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag err;
	char msg[1024];
	struct profile_result *r;
	size_t i;

	diag_clear(&err);
	r = profile_run_mem("fuzz.json", (const char *)data, size, &err);
	if (!r) {
		diag_format(&err, msg, sizeof(msg));
		return 0;
	}
	for (i = 0; i <= r->nsteps; i++) {
		const struct profile_step *s = i < r->nsteps ? &r->steps[i] : &r->total;
		if (isnan(s->busy_s) || s->busy_s > s->kernel_sum_s * (1 + 1e-9) + 1e-12 ||
		    s->comm_exposed_s > s->comm_s * (1 + 1e-9) + 1e-12 || s->idle_s < 0)
			abort();
	}
	{
		const struct profile_data *d = r->data;
		double *dur = xcalloc(d->nev ? d->nev : 1, sizeof(*dur)), wall, want;
		for (i = 0; i < d->nev; i++)
			dur[i] = d->ev[i].end - d->ev[i].ts;
		wall = profile_replay(d, dur, NULL) * 1e-6;
		want = r->total.wall_s;
		if (!(fabs(wall - want) <= 1e-6 * fabs(want) + 1e-9) && isfinite(want) && fabs(want) < 1e12)
			abort();
		free(dur);
	}
	profile_result_free(r);
	return 0;
}
