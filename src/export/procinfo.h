/*
 * Who a GPU process belongs to: its container and pod, from the cgroup the
 * kernel lists in /proc/PID/cgroup.  Used by `export --processes` and `top`.
 */
#ifndef GPUSCOPE_EXPORT_PROCINFO_H
#define GPUSCOPE_EXPORT_PROCINFO_H

#include <stddef.h>

struct proc_container {
	char id[65];      /* container id (64 hex digits), "" outside a container */
	char pod_uid[37]; /* Kubernetes pod UID, "" outside a pod */
};

/*
 * Parses the text of /proc/PID/cgroup: the docker, containerd, CRI-O and
 * podman spellings, under the cgroupfs and systemd drivers.  Returns 1 when
 * a container id was found, else 0 (out zeroed).
 */
int proc_parse_cgroup(const char *text, struct proc_container *out);

/* Reads ROOT/proc/PID/cgroup (root "" or NULL: the host).  As proc_parse_cgroup(); -1 unreadable. */
int proc_container_of(const char *root, unsigned pid, struct proc_container *out);

#endif
