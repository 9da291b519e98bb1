/*
 * Child processes with a time limit: the PyTorch probe and the Slurm
 * health-check mode's scontrol calls run through host_run(), so a child
 * that hangs costs at most its limit and never the caller's own deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/host.h"
#include "util/xalloc.h"

/* stdout kept from a child: more is read and dropped, so it never blocks on a full pipe */
#define CHILD_OUT_MAX (1u << 20)

static uint64_t ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Reads the child's stdout until EOF or the deadline; 1 when the deadline passed. */
static int read_until(int fd, uint64_t deadline, struct host_child *c)
{
	size_t cap = 0;
	char drop[4096];
	for (;;) {
		struct pollfd pf = {fd, POLLIN, 0};
		uint64_t now = ms_now();
		ssize_t r;
		int pr;
		if (now >= deadline)
			return 1;
		pr = poll(&pf, 1, (int)(deadline - now));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return pr == 0;
		if (c->len >= CHILD_OUT_MAX) {
			r = read(fd, drop, sizeof(drop));
		} else {
			if (c->len + 4096 > cap) {
				cap = cap ? cap * 2 : 8192;
				c->out = xrealloc(c->out, cap + 1);
			}
			r = read(fd, c->out + c->len, cap - c->len);
			if (r > 0)
				c->len += (size_t)r;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
	}
}

int host_run(const char *const argv[], unsigned timeout_ms, int with_stderr, struct host_child *c)
{
	int fds[2];
	pid_t pid;
	memset(c, 0, sizeof(*c));
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(fds[1], 1);
		if (null >= 0)
			dup2(null, 0);
		dup2(with_stderr ? fds[1] : null, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	c->timed_out = read_until(fds[0], ms_now() + timeout_ms, c);
	close(fds[0]);
	if (c->timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
		;
	if (c->out)
		c->out[c->len] = '\0';
	return 0;
}

int host_child_exited(const struct host_child *c, int code)
{
	return !c->timed_out && WIFEXITED(c->status) && WEXITSTATUS(c->status) == code;
}

void host_child_release(struct host_child *c)
{
	free(c->out);
	memset(c, 0, sizeof(*c));
}
