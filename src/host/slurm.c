/*
 * Slurm's HealthCheckProgram: slurmd runs `gpuscope check --format slurm`
 * every HealthCheckInterval (and kills it after 60 s); a critical finding
 * drains the node with a reason that starts "gpuscope:", and a clean run
 * resumes only a drain gpuscope set, never one an administrator set.
 * docs/check.md says how to configure it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/check.h"
#include "util/xalloc.h"

const char *check_slurm_done_name(enum check_slurm_done d)
{
	static const char *const names[] = {"healthy", "drained", "still drained", "drained by someone else",
					    "resumed"};
	return (unsigned)d < sizeof(names) / sizeof(names[0]) ? names[d] : "?";
}

const char *check_slurm_node_name(const char *given, struct strbuf *buf)
{
	const char *env = getenv("SLURMD_NODENAME");
	char host[256];
	if (given)
		return given;
	if (env && *env)
		return env;
	if (gethostname(host, sizeof(host)))
		return NULL;
	host[sizeof(host) - 1] = '\0';
	strbuf_add(buf, host, strcspn(host, "."));
	return strbuf_str(buf);
}

/* The value of KEY= at the start of the text or after a space; NULL when absent. */
static const char *field_at(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;
	if (!text)
		return NULL;
	while ((p = strstr(p, key))) {
		if ((p == text || p[-1] == ' ' || p[-1] == '\n') && p[kl] == '=')
			return p + kl + 1;
		p += kl;
	}
	return NULL;
}

int check_slurm_parse_node(const char *text, struct check_slurm_node *out)
{
	const char *st = field_at(text, "State"), *re = field_at(text, "Reason"), *end, *stamp;
	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	out->state = xstrndup(st, strcspn(st, " \n"));
	out->drain = strstr(out->state, "DRAIN") != NULL;
	if (!re)
		return 0;
	/* the reason runs to the end of its line, where slurmctld stamps "[user@time]" */
	end = re + strcspn(re, "\n");
	stamp = NULL;
	if (end > re && end[-1] == ']')
		for (stamp = end - 1; stamp > re && !(stamp[0] == '[' && stamp[-1] == ' '); stamp--)
			;
	if (stamp && stamp > re && memchr(stamp, '@', (size_t)(end - stamp)))
		end = stamp - 1;
	if (end > re && strncmp(re, "(null)", 6))
		out->reason = xstrndup(re, (size_t)(end - re));
	return 0;
}

void check_slurm_node_release(struct check_slurm_node *n)
{
	free(n->state);
	free(n->reason);
	memset(n, 0, sizeof(*n));
}

/* Runs scontrol ARGS...; 0 when it exited 0, else -1 with err saying why (and stdout set when wanted). */
static int scontrol(const struct check_slurm_opts *o, const char *const args[], char **stdout_text,
		    struct diag *err)
{
	const char *argv[8] = {o->scontrol};
	struct strbuf cmd = STRBUF_INIT;
	struct host_child c;
	size_t i;
	strbuf_addstr(&cmd, o->scontrol);
	for (i = 0; args[i] && i + 2 < sizeof(argv) / sizeof(argv[0]); i++) {
		argv[i + 1] = args[i];
		strbuf_addf(&cmd, " %s", args[i]);
	}
	if (host_run(argv, o->timeout_ms, 1, &c)) {
		diag_set(err, "", 0, 0, "", "cannot run '%s': %s", o->scontrol, strerror(errno));
		strbuf_release(&cmd);
		return -1;
	}
	if (!host_child_exited(&c, 0)) {
		size_t len = c.out ? strcspn(c.out, "\n") : 0;
		if (c.timed_out)
			diag_set(err, "", 0, 0, "", "'%s' did not finish in %u ms", strbuf_str(&cmd),
				 o->timeout_ms);
		else if (host_child_exited(&c, 127) && !c.len)
			diag_set(err, "", 0, 0, "", "cannot run '%s': not found", o->scontrol);
		else
			diag_set(err, "", 0, 0, "", "'%s' failed (status %d): %.*s", strbuf_str(&cmd),
				 WIFEXITED(c.status) ? WEXITSTATUS(c.status) : 128 + WTERMSIG(c.status), (int)len,
				 c.out ? c.out : "");
	} else if (stdout_text) {
		*stdout_text = c.out ? c.out : xstrdup("");
		c.out = NULL;
	}
	strbuf_release(&cmd);
	i = host_child_exited(&c, 0);
	host_child_release(&c);
	return i ? 0 : -1;
}

static int is_ours(const struct check_slurm_node *n)
{
	return n->reason && !strncmp(n->reason, CHECK_SLURM_REASON_PREFIX, strlen(CHECK_SLURM_REASON_PREFIX));
}

int check_slurm_apply(const struct check_slurm_opts *o, const char *reason, enum check_slurm_done *done,
		      struct diag *err)
{
	char *node_arg = xasprintf("nodename=%s", o->node), *text = NULL, *reason_arg = NULL;
	const char *show[] = {"-o", "show", "node", o->node, NULL};
	struct check_slurm_node n;
	int rc = -1;

	diag_clear(err);
	*done = SLURM_HEALTHY;
	if (scontrol(o, show, &text, err))
		goto out;
	if (check_slurm_parse_node(text, &n)) {
		diag_set(err, "", 0, 0, "", "'%s show node %s' printed no State=", o->scontrol, o->node);
		goto out;
	}
	rc = 0;
	if (reason && n.drain && !is_ours(&n)) {
		*done = SLURM_NOT_OURS;
	} else if (reason && n.drain && !strcmp(n.reason, reason)) {
		*done = SLURM_STILL;
	} else if (reason) {
		const char *drain[] = {"update", node_arg, "state=drain", NULL, NULL};
		drain[3] = reason_arg = xasprintf("reason=%s", reason);
		rc = scontrol(o, drain, NULL, err);
		*done = SLURM_DRAINED;
	} else if (n.drain && is_ours(&n)) {
		const char *resume[] = {"update", node_arg, "state=resume", NULL};
		rc = scontrol(o, resume, NULL, err);
		*done = SLURM_RESUMED;
	} else if (n.drain) {
		*done = SLURM_NOT_OURS;
	}
	check_slurm_node_release(&n);
out:
	free(text);
	free(node_arg);
	free(reason_arg);
	return rc;
}
