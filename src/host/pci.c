/*
 * PCI devices, their links and their place in the PCIe tree, from sysfs;
 * InfiniBand/RoCE ports from /sys/class/infiniband.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "util/xalloc.h"

int host_pcie_gen(const char *speed)
{
	/* transfer rate per lane of each generation, GT/s (PCI-SIG) */
	static const struct {
		double gts;
		int gen;
	} gens[] = {{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}, {128.0, 7}};
	char *e;
	double v;
	size_t i;
	if (!speed)
		return 0;
	v = strtod(speed, &e);
	if (e == speed)
		return 0;
	for (i = 0; i < sizeof(gens) / sizeof(gens[0]); i++)
		if (v > gens[i].gts - 0.01 && v < gens[i].gts + 0.01)
			return gens[i].gen;
	return 0;
}

/* An attribute as a number, dflt when absent or not a number; an unreadable one is noted in *u. */
static long read_long(const char *root, const char *dir, const char *attr, long dflt, struct host_unreadable *u)
{
	char rel[600], line[128];
	char *e;
	long v;
	snprintf(rel, sizeof(rel), "%s/%s", dir, attr);
	if (host_read_line(root, rel, line, sizeof(line)) < 0) {
		host_note_unreadable(u, rel, errno);
		return dflt;
	}
	v = strtol(line, &e, 0);
	return e == line ? dflt : v;
}

/* AER counters: lines "NAME COUNT", the total on "TOTAL_ERR_* N". */
static long read_aer(const char *root, const char *dir, const char *attr, struct host_unreadable *u)
{
	char rel[600], *buf, *p;
	long total = -1;
	snprintf(rel, sizeof(rel), "%s/%s", dir, attr);
	if (host_read(root, rel, 1 << 16, &buf) < 0) {
		host_note_unreadable(u, rel, errno);
		return -1;
	}
	p = strstr(buf, "TOTAL_ERR_");
	if (p) {
		p = strchr(p, ' ');
		if (p)
			total = strtol(p + 1, NULL, 10);
	}
	free(buf);
	return total;
}

/* The resolved path of ROOT+rel, relative to the resolved root; NULL with errno if absent or unreadable. */
static char *resolve_under(const char *root, const char *rel)
{
	char *full = host_path(root, rel), *res, *rroot, *out;
	size_t n;
	res = realpath(full, NULL);
	free(full);
	if (!res)
		return NULL;
	if (!root || !*root || !strcmp(root, "/"))
		return res;
	rroot = realpath(root, NULL);
	if (!rroot) {
		free(res);
		return NULL;
	}
	n = strlen(rroot);
	if (strncmp(res, rroot, n) || (res[n] != '/' && res[n] != '\0')) {
		/* a link that leaves the root: not part of this tree */
		free(res);
		free(rroot);
		errno = ENOENT;
		return NULL;
	}
	out = xstrdup(res + n);
	free(res);
	free(rroot);
	return out;
}

int host_pci_read(const char *root, const char *sysfs_id, struct host_pci *out)
{
	char dir[256];
	char *real;
	const char *p;

	memset(out, 0, sizeof(*out));
	out->numa_node = -1;
	out->aer_fatal = out->aer_nonfatal = out->aer_correctable = -1;
	if (!sysfs_id || !*sysfs_id || strchr(sysfs_id, '/'))
		return -1;
	snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", sysfs_id);
	real = resolve_under(root, dir);
	if (!real) {
		host_note_unreadable(&out->unreadable, dir, errno);
		return -1;
	}
	out->present = 1;
	p = strstr(real, "/sys/devices/");
	if (p)
		out->path = xstrdup(p + strlen("/sys/devices/"));
	free(real);
	{
		char cs[64] = "", ms[64] = "", rel[320];
		int ok;
		snprintf(rel, sizeof(rel), "%s/current_link_speed", dir);
		ok = host_read_line(root, rel, cs, sizeof(cs)) == 0;
		if (!ok)
			host_note_unreadable(&out->unreadable, rel, errno);
		snprintf(rel, sizeof(rel), "%s/max_link_speed", dir);
		if (host_read_line(root, rel, ms, sizeof(ms)) < 0) {
			host_note_unreadable(&out->unreadable, rel, errno);
			ok = 0;
		}
		out->cur_gen = host_pcie_gen(cs);
		out->max_gen = host_pcie_gen(ms);
		out->cur_width = (int)read_long(root, dir, "current_link_width", 0, &out->unreadable);
		out->max_width = (int)read_long(root, dir, "max_link_width", 0, &out->unreadable);
		out->link_valid = ok && out->cur_width > 0 && out->max_width > 0;
	}
	out->numa_node = (int)read_long(root, dir, "numa_node", -1, &out->unreadable);
	if (out->numa_node < -1)
		out->numa_node = -1;
	{
		char rel[320];
		snprintf(rel, sizeof(rel), "%s/local_cpulist", dir);
		if (host_read(root, rel, 64 * 1024, &out->cpulist) < 0)
			host_note_unreadable(&out->unreadable, rel, errno);
		else
			out->cpulist[strcspn(out->cpulist, "\n")] = '\0'; /* the first line: the attribute */
	}
	out->vendor = (unsigned)read_long(root, dir, "vendor", 0, &out->unreadable);
	out->device = (unsigned)read_long(root, dir, "device", 0, &out->unreadable);
	out->class_code = (unsigned)read_long(root, dir, "class", 0, &out->unreadable);
	out->aer_fatal = read_aer(root, dir, "aer_dev_fatal", &out->unreadable);
	out->aer_nonfatal = read_aer(root, dir, "aer_dev_nonfatal", &out->unreadable);
	out->aer_correctable = read_aer(root, dir, "aer_dev_correctable", &out->unreadable);
	return 0;
}

void host_pci_release(struct host_pci *p)
{
	free(p->path);
	free(p->cpulist);
	host_unreadable_release(&p->unreadable);
	memset(p, 0, sizeof(*p));
}

static int cmp_id(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

size_t host_pci_nvidia(const char *root, char (*out)[16], size_t max, struct host_unreadable *u)
{
	char *full = host_path(root, "/sys/bus/pci/devices");
	DIR *d = opendir(full);
	struct dirent *e;
	size_t n = 0;
	free(full);
	if (!d) {
		host_note_unreadable(u, "/sys/bus/pci/devices", errno);
		return 0;
	}
	while ((e = readdir(d)) && n < max) {
		char dir[300];
		long vendor, cls;
		if (e->d_name[0] == '.' || strlen(e->d_name) >= 16)
			continue;
		snprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", e->d_name);
		vendor = read_long(root, dir, "vendor", 0, u);
		cls = read_long(root, dir, "class", 0, u);
		/* display controllers: VGA 0x0300xx, 3D 0x0302xx */
		if (vendor == 0x10de && (cls >> 16) == 0x03)
			snprintf(out[n++], 16, "%.15s", e->d_name);
	}
	closedir(d);
	qsort(out, n, sizeof(out[0]), cmp_id);
	return n;
}

static size_t split_path(const char *path, const char *comp[], size_t max)
{
	size_t n = 0;
	const char *p = path;
	while (*p && n < max) {
		comp[n++] = p;
		p = strchr(p, '/');
		if (!p)
			break;
		p++;
	}
	return n;
}

static size_t comp_len(const char *c)
{
	const char *s = strchr(c, '/');
	return s ? (size_t)(s - c) : strlen(c);
}

enum host_topo host_topo_pci(const struct host_pci *a, const struct host_pci *b)
{
	const char *ca[32], *cb[32];
	size_t na, nb, cp = 0;
	if (!a->present || !b->present || !a->path || !a->path[0] || !b->path || !b->path[0])
		return HOST_TOPO_UNKNOWN;
	if (!strcmp(a->path, b->path))
		return HOST_TOPO_X;
	na = split_path(a->path, ca, 32);
	nb = split_path(b->path, cb, 32);
	while (cp < na - 1 && cp < nb - 1 && comp_len(ca[cp]) == comp_len(cb[cp]) &&
	       !strncmp(ca[cp], cb[cp], comp_len(ca[cp])))
		cp++;
	if (cp == 0) {
		/* different host bridges: the same NUMA node or across the CPU interconnect */
		if ((a->numa_node < 0 && a->unreadable.error) || (b->numa_node < 0 && b->unreadable.error))
			return HOST_TOPO_UNKNOWN; /* a node that could not be read is not "the same" */
		return a->numa_node == b->numa_node ? HOST_TOPO_NODE : HOST_TOPO_SYS;
	}
	if (cp == 1)
		return HOST_TOPO_PHB;
	/* below one root port: one switch (up + down ports) or several */
	if (na - cp <= 2 && nb - cp <= 2)
		return HOST_TOPO_PIX;
	return HOST_TOPO_PXB;
}

const char *host_topo_name(enum host_topo t)
{
	static const char *const names[] = {"X", "PIX", "PXB", "PHB", "NODE", "SYS", "?"};
	return (unsigned)t <= HOST_TOPO_UNKNOWN ? names[t] : "?";
}

/* "4: ACTIVE" -> "ACTIVE" */
static void after_colon(char *s)
{
	char *c = strchr(s, ':');
	if (c) {
		c++;
		while (*c == ' ')
			c++;
		memmove(s, c, strlen(c) + 1);
	}
}

/* Reads PORTS/PORT/NAME of a port into out ("" when absent); an unreadable one is noted in *u. */
static void port_attr(const char *root, const char *ports, long port, const char *name, char *out, size_t len,
		      struct host_unreadable *u)
{
	char attr[400];
	snprintf(attr, sizeof(attr), "%s/%ld/%s", ports, port, name);
	if (host_read_line(root, attr, out, len) < 0)
		host_note_unreadable(u, attr, errno);
}

static int cmp_port(const void *a, const void *b)
{
	const struct host_ib_port *x = a, *y = b;
	int c = strcmp(x->device, y->device);
	return c ? c : x->port - y->port;
}

size_t host_ib_ports(const char *root, struct host_ib_port **out, struct host_unreadable *u)
{
	char *full = host_path(root, "/sys/class/infiniband");
	DIR *d = opendir(full);
	struct dirent *e;
	size_t n = 0, cap = 0;
	free(full);
	*out = NULL;
	if (!d) {
		host_note_unreadable(u, "/sys/class/infiniband", errno);
		return 0;
	}
	while ((e = readdir(d))) {
		char rel[300], pci[16] = "";
		struct host_unreadable dev_u = {0};
		char *real;
		DIR *pd;
		struct dirent *pe;
		if (e->d_name[0] == '.' || strlen(e->d_name) >= 32)
			continue;
		snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/device", e->d_name);
		real = resolve_under(root, rel);
		if (real) {
			const char *base = strrchr(real, '/');
			snprintf(pci, sizeof(pci), "%.15s", base ? base + 1 : real);
			free(real);
		} else {
			host_note_unreadable(&dev_u, rel, errno);
		}
		snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/ports", e->d_name);
		full = host_path(root, rel);
		pd = opendir(full);
		free(full);
		if (!pd) {
			host_note_unreadable(u, rel, errno);
			host_unreadable_release(&dev_u);
			continue;
		}
		while ((pe = readdir(pd))) {
			struct host_ib_port *p;
			char *end;
			long port = strtol(pe->d_name, &end, 10);
			if (pe->d_name[0] == '.' || *end || port < 0 || port > 1024)
				continue;
			XGROW(*out, cap, n + 1);
			p = &(*out)[n++];
			memset(p, 0, sizeof(*p));
			snprintf(p->device, sizeof(p->device), "%.31s", e->d_name);
			p->port = (int)port;
			/* the state first: it is what the port's check depends on */
			port_attr(root, rel, port, "state", p->state, sizeof(p->state), &p->unreadable);
			after_colon(p->state);
			port_attr(root, rel, port, "phys_state", p->phys_state, sizeof(p->phys_state),
				  &p->unreadable);
			after_colon(p->phys_state);
			port_attr(root, rel, port, "link_layer", p->link_layer, sizeof(p->link_layer),
				  &p->unreadable);
			port_attr(root, rel, port, "rate", p->rate, sizeof(p->rate), &p->unreadable);
			p->rate_gbps = strtod(p->rate, NULL);
			snprintf(p->pci, sizeof(p->pci), "%s", pci);
			if (pci[0]) {
				host_pci_read(root, pci, &p->pcidev);
			} else {
				p->pcidev.numa_node = -1;
				host_note_unreadable(&p->pcidev.unreadable, dev_u.path, dev_u.error);
			}
		}
		closedir(pd);
		host_unreadable_release(&dev_u);
	}
	closedir(d);
	if (n > 1)
		qsort(*out, n, sizeof(**out), cmp_port);
	return n;
}

void host_ib_ports_free(struct host_ib_port *ports, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		host_pci_release(&ports[i].pcidev);
		host_unreadable_release(&ports[i].unreadable);
	}
	free(ports);
}
