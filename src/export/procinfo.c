/*
 * Container ids from cgroup paths.  The runtimes name a container's cgroup
 * after its 64-hex-digit id:
 *   0::/system.slice/docker-<id>.scope                  docker, systemd driver
 *   0::/docker/<id>                                     docker, cgroupfs driver
 *   0::/kubepods.slice/.../kubepods-burstable-pod<uid with _>.slice/cri-containerd-<id>.scope
 *   0::/kubepods/burstable/pod<uid>/<id>                kubelet, cgroupfs driver
 *   0::/machine.slice/libpod-<id>.scope                 podman
 *   0::/.../crio-<id>.scope                             CRI-O
 * so the last run of exactly 64 hex digits in the path is the id, and a
 * "pod" followed by a UUID (with '-' or '_') is the pod.
 */
#include "export/procinfo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t hex_run(const char *p)
{
	size_t n = 0;
	while (isxdigit((unsigned char)p[n]))
		n++;
	return n;
}

/* A UUID spelt with '-' or '_' at p (36 characters); copies it with '-'. */
static int take_uuid(const char *p, char *out)
{
	static const int dash[] = {8, 13, 18, 23};
	int i, k = 0;
	for (i = 0; i < 36; i++) {
		if (k < 4 && i == dash[k]) {
			if (p[i] != '-' && p[i] != '_')
				return 0;
			out[i] = '-';
			k++;
		} else if (!isxdigit((unsigned char)p[i])) {
			return 0;
		} else {
			out[i] = (char)tolower((unsigned char)p[i]);
		}
	}
	out[36] = '\0';
	return 1;
}

int proc_parse_cgroup(const char *text, struct proc_container *out)
{
	const char *line = text;
	memset(out, 0, sizeof(*out));
	while (line && *line) {
		const char *end = strchr(line, '\n');
		const char *path = line, *p;
		size_t len = end ? (size_t)(end - line) : strlen(line);
		int colons = 0;
		/* hierarchy-ID:controllers:path */
		while (path < line + len && colons < 2)
			if (*path++ == ':')
				colons++;
		for (p = path; colons == 2 && p < line + len; p++) {
			size_t n;
			if (!out->pod_uid[0] && !strncmp(p, "pod", 3) && (size_t)(line + len - p) >= 39) {
				char uid[37];
				if (take_uuid(p + 3, uid))
					memcpy(out->pod_uid, uid, sizeof(uid));
			}
			if (p > path && isxdigit((unsigned char)p[-1]))
				continue;
			n = hex_run(p);
			if (n == 64 && p + n <= line + len) {
				memcpy(out->id, p, 64);
				out->id[64] = '\0';
			}
			if (n)
				p += n - 1;
		}
		line = end ? end + 1 : NULL;
	}
	if (!out->id[0]) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	return 1;
}

int proc_container_of(const char *root, unsigned pid, struct proc_container *out)
{
	char path[4200], buf[8192];
	size_t n;
	FILE *f;
	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/proc/%u/cgroup", root && strcmp(root, "/") ? root : "", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return proc_parse_cgroup(buf, out);
}
