/*
 * Processes (who holds a GPU) and containers (is the NVIDIA container
 * toolkit there and wired into the runtimes), read under the root.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host.h"
#include "util/csv.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Value after "Key:" in a /proc status text, first token; 0 when found. */
static int status_field(const char *text, const char *key, char *out, size_t len)
{
	size_t n = strlen(key);
	const char *p = text;
	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ':') {
			const char *v = p + n + 1;
			size_t k;
			while (*v == ' ' || *v == '\t')
				v++;
			k = strcspn(v, "\t\n");
			if (k >= len)
				k = len - 1;
			memcpy(out, v, k);
			out[k] = '\0';
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static void user_name(const char *root, long uid, char *user, size_t ulen)
{
	char *buf, *p;
	snprintf(user, ulen, "uid %ld", uid);
	if (host_read(root, "/etc/passwd", 4 << 20, &buf) < 0)
		return;
	for (p = buf; p && *p;) {
		char *end = strchr(p, '\n'), *c1 = strchr(p, ':'), *c2;
		if (end)
			*end = '\0';
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c1 && c2 && strtol(c2 + 1, NULL, 10) == uid && isdigit((unsigned char)c2[1])) {
			size_t k = (size_t)(c1 - p);
			if (k >= ulen)
				k = ulen - 1;
			memcpy(user, p, k);
			user[k] = '\0';
			utf8_scrub(user);
			text_scrub_controls(user);
			break;
		}
		p = end ? end + 1 : NULL;
	}
	free(buf);
}

int host_proc_user(const char *root, unsigned pid, char *user, size_t ulen, char *comm, size_t clen)
{
	char rel[64], uid[64], *buf;
	if (ulen)
		user[0] = '\0';
	if (clen)
		comm[0] = '\0';
	snprintf(rel, sizeof(rel), "/proc/%u/status", pid);
	if (host_read(root, rel, 1 << 16, &buf) < 0)
		return -1; /* errno from host_read() */
	status_field(buf, "Name", comm, clen);
	/* any user can name a process with any bytes, ESC included */
	utf8_scrub(comm);
	text_scrub_controls(comm);
	if (status_field(buf, "Uid", uid, sizeof(uid)) == 0) {
		/* the real uid, in decimal: anything else is unknown, never uid 0 */
		char *end;
		long id;
		errno = 0;
		id = strtol(uid, &end, 10);
		if (isdigit((unsigned char)uid[0]) && !errno && (*end == '\0' || *end == ' ' || *end == '\t'))
			user_name(root, id, user, ulen);
		else if (ulen)
			snprintf(user, ulen, "?");
	}
	free(buf);
	return 0;
}

static int cmp_holder(const void *a, const void *b)
{
	const struct host_holder *x = a, *y = b;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

size_t host_dev_holders(const char *root, struct host_holder **out, size_t *unreadable, struct host_unreadable *u)
{
	char *full = host_path(root, "/proc");
	DIR *d = opendir(full);
	struct dirent *e;
	size_t n = 0, cap = 0;
	free(full);
	*out = NULL;
	if (unreadable)
		*unreadable = 0;
	if (!d) {
		if (host_note_unreadable(u, "/proc", errno) && unreadable)
			*unreadable = 1;
		return 0;
	}
	while ((e = readdir(d))) {
		char rel[64];
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);
		DIR *fd;
		struct dirent *fe;
		struct host_holder h;
		struct strbuf devices = STRBUF_INIT;
		int any = 0;
		if (!isdigit((unsigned char)e->d_name[0]) || *end || pid == 0 || pid > 0xffffffffUL)
			continue;
		snprintf(rel, sizeof(rel), "/proc/%lu/fd", pid);
		full = host_path(root, rel);
		fd = opendir(full);
		if (!fd) {
			/* another user's process, when not root: it may hold a GPU all the same */
			if (host_note_unreadable(u, rel, errno) && unreadable)
				(*unreadable)++;
			free(full);
			continue;
		}
		memset(&h, 0, sizeof(h));
		h.pid = (unsigned)pid;
		{
			char names[32][24];
			size_t nn = 0, a, b;
			while ((fe = readdir(fd))) {
				char link[600], target[256];
				ssize_t r;
				if (fe->d_name[0] == '.')
					continue;
				snprintf(link, sizeof(link), "%s/%s", full, fe->d_name);
				r = readlink(link, target, sizeof(target) - 1);
				if (r <= 0)
					continue;
				target[r] = '\0';
				if (strncmp(target, "/dev/nvidia", 11))
					continue;
				any = 1;
				for (a = 0; a < nn; a++)
					if (!strcmp(names[a], target + 5))
						break;
				if (a == nn && nn < 32)
					snprintf(names[nn++], sizeof(names[0]), "%.23s", target + 5);
			}
			/* sorted, so the list reads the same on every run */
			for (a = 1; a < nn; a++)
				for (b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
					char t[24];
					memcpy(t, names[b], sizeof(t));
					memcpy(names[b], names[b - 1], sizeof(t));
					memcpy(names[b - 1], t, sizeof(t));
				}
			for (a = 0; a < nn; a++)
				strbuf_addf(&devices, "%s%s", a ? " " : "", names[a]);
		}
		closedir(fd);
		free(full);
		if (!any)
			continue;
		h.devices = strbuf_detach(&devices, NULL);
		host_proc_user(root, h.pid, h.user, sizeof(h.user), h.comm, sizeof(h.comm));
		XGROW(*out, cap, n + 1);
		(*out)[n++] = h;
	}
	closedir(d);
	if (n > 1)
		qsort(*out, n, sizeof(**out), cmp_holder);
	return n;
}

void host_holders_free(struct host_holder *h, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(h[i].devices);
	free(h);
}

/* Is ROOT+path there?  A directory on the way that cannot be searched is noted in *u. */
static int exists(const char *root, const char *path, struct host_unreadable *u)
{
	char *full = host_path(root, path);
	int ok = access(full, F_OK) == 0;
	if (!ok)
		host_note_unreadable(u, path, errno);
	free(full);
	return ok;
}

static int file_has(const char *root, const char *path, const char *needle, struct host_unreadable *u)
{
	char *buf;
	int found;
	if (host_read(root, path, 4 << 20, &buf) < 0) {
		host_note_unreadable(u, path, errno);
		return 0;
	}
	found = strstr(buf, needle) != NULL;
	free(buf);
	return found;
}

void host_probe_container(const char *root, struct host_container *out)
{
	struct host_unreadable *u = &out->unreadable;
	char *buf;
	long n;
	memset(out, 0, sizeof(*out));
	out->in_container = exists(root, "/.dockerenv", u) || exists(root, "/run/.containerenv", u) ||
			    file_has(root, "/proc/1/cgroup", "docker", u) ||
			    file_has(root, "/proc/1/cgroup", "kubepods", u) ||
			    file_has(root, "/proc/1/cgroup", "containerd", u) ||
			    file_has(root, "/proc/1/cgroup", "/lxc/", u);
	/* this process's environment, as the container runtime set it */
	n = host_read(root, "/proc/self/environ", 1 << 20, &buf);
	if (n > 0) {
		const char *p = buf;
		while (p < buf + n) {
			if (!strncmp(p, "NVIDIA_VISIBLE_DEVICES=", 23)) {
				free(out->visible_devices);
				out->visible_devices = xstrdup(p + 23);
			} else if (!strncmp(p, "NVIDIA_DRIVER_CAPABILITIES=", 27)) {
				free(out->driver_caps);
				out->driver_caps = xstrdup(p + 27);
			}
			p += strlen(p) + 1;
		}
	}
	free(buf);
	out->toolkit_cli = exists(root, "/usr/bin/nvidia-container-cli", u);
	out->runtime_hook = exists(root, "/usr/bin/nvidia-container-runtime", u) ||
			    exists(root, "/usr/bin/nvidia-container-runtime-hook", u) ||
			    exists(root, "/usr/bin/nvidia-container-toolkit", u) ||
			    exists(root, "/usr/bin/nvidia-ctk", u);
	out->toolkit_config = exists(root, "/etc/nvidia-container-runtime/config.toml", u);
	if (host_read(root, "/etc/docker/daemon.json", 1 << 20, &buf) >= 0) {
		json_t *o = json_loads(buf, 0, NULL);
		json_t *rt = o ? json_object_get(o, "runtimes") : NULL;
		const char *def = o ? json_string_value(json_object_get(o, "default-runtime")) : NULL;
		out->docker_runtime = (rt && json_object_get(rt, "nvidia")) || (def && !strcmp(def, "nvidia"));
		json_decref(o);
		free(buf);
	} else {
		host_note_unreadable(u, "/etc/docker/daemon.json", errno);
	}
	out->containerd_runtime = file_has(root, "/etc/containerd/config.toml", "nvidia-container-runtime", u) ||
				  file_has(root, "/etc/containerd/config.toml", "runtimes.nvidia", u);
	out->cdi_spec = exists(root, "/etc/cdi/nvidia.yaml", u) || exists(root, "/var/run/cdi/nvidia.yaml", u) ||
			exists(root, "/etc/cdi/nvidia.json", u) || exists(root, "/var/run/cdi/nvidia.json", u);
	out->docker_installed = exists(root, "/usr/bin/dockerd", u) || exists(root, "/usr/bin/docker", u);
	out->containerd_installed = exists(root, "/usr/bin/containerd", u);
}

void host_container_release(struct host_container *c)
{
	free(c->visible_devices);
	free(c->driver_caps);
	host_unreadable_release(&c->unreadable);
	memset(c, 0, sizeof(*c));
}
