/*
 * What a step on many servers pays that one server's step does not: the
 * wait for the slowest server at every synchronisation.  docs/model.md,
 * "Stragglers".
 */

#include <math.h>

#include "model/model_int.h"

/*
 * A synchronous step ends when the slowest rank arrives.  If each of S
 * servers takes its busy time b times (1 + x), x drawn with mean 0 and
 * standard deviation sigma (clocks under power and thermal limits, host
 * noise, a congested link), the step waits for the largest of S draws,
 * whose expectation grows like sigma sqrt(2 ln S) for Gaussian tails
 * (the asymptotic maximum of S normal draws; Cramer 1946, sec. 28.6):
 *   wait = sigma x sqrt(2 ln S) x b,   0 for one server.
 * The ranks of one server share its clock domain, power budget and host,
 * and the fitted constants of the single-server rows hold their spread
 * already, so S counts servers, not GPUs.  b in s; returns s.
 */
double straggler_s(const struct model_config *c, double busy_s)
{
	int gpn = c->gpus_per_node > 0 ? c->gpus_per_node : 1;
	double servers = ceil((double)c->gpus / gpn);
	if (servers <= 1 || !(busy_s > 0))
		return 0;
	return TUNE_STRAGGLER_SIGMA * sqrt(2 * log(servers)) * busy_s;
}
