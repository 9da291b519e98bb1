/*
 * Shapes that can be bought: which GPU counts a node of a GPU holds, which
 * fabric joins them, how fast a NIC its host can feed, and the parts a
 * cluster is priced from.  The facts are catalog cells (gpus.csv node_gpus,
 * links.csv domain_gpus / switch_link / max_nic_gbps, parts.csv); this file
 * only reads them, so a user's catalog can add a shape without a rebuild.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

/* "4;8", "36;72", "1-10", "1;2-4": single counts and inclusive ranges. */
size_t cat_node_sizes(const struct cat_gpu *g, int *out, size_t max)
{
	const char *p = g ? g->node_gpus : NULL;
	size_t n = 0;
	if (!p || !*p)
		return 0;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p)
			break;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1)
				b = a;
			p = end;
		}
		for (; a <= b && a < 100000; a++)
			if (a > 0 && n < max)
				out[n++] = (int)a;
		while (*p == ';' || *p == ' ' || *p == ',')
			p++;
	}
	if (n > 1)
		qsort(out, n, sizeof(*out), cmp_int);
	return n;
}

static const char *form_words(const struct cat_gpu *g)
{
	const char *ff = g->form_factor ? g->form_factor : "";
	if (!strcmp(ff, "sxm"))
		return "an SXM baseboard";
	if (!strcmp(ff, "oam"))
		return "an OAM baseboard";
	if (!strcmp(ff, "superchip"))
		return "a superchip NVLink domain";
	if (!strcmp(ff, "pcie"))
		return "a PCIe server";
	return "a node";
}

int cat_node_shape_ok(const struct catalog *c, const struct cat_gpu *g, int n, char *why, size_t why_len)
{
	int sizes[64];
	size_t k, ns = cat_node_sizes(g, sizes, sizeof(sizes) / sizeof(sizes[0]));
	const struct cat_link *gl = g->gpu_link ? catalog_get(c, CAT_LINKS, g->gpu_link) : NULL;
	const struct cat_link *sw = gl && gl->switch_link ? catalog_get(c, CAT_LINKS, gl->switch_link) : NULL;

	if (ns) {
		char list[256];
		size_t o = 0;
		for (k = 0; k < ns && sizes[k] != n; k++)
			;
		if (k < ns)
			goto fabric;
		list[0] = 0;
		/* runs of three or more print as ranges: "1-10", "4 or 8", "36 or 72" */
		{
			char piece[16][24];
			size_t np = 0, j;
			for (k = 0; k < ns && np < 16;) {
				size_t e = k;
				while (e + 1 < ns && sizes[e + 1] == sizes[e] + 1)
					e++;
				if (e >= k + 2) {
					snprintf(piece[np++], sizeof(piece[0]), "%d-%d", sizes[k], sizes[e]);
					k = e + 1;
				} else {
					snprintf(piece[np++], sizeof(piece[0]), "%d", sizes[k]);
					k++;
				}
			}
			for (j = 0; j < np && o < sizeof(list); j++)
				o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%.23s",
						      j == 0      ? "" :
						      j + 1 == np ? " or " :
								    ", ",
						      piece[j]);
		}
		snprintf(why, why_len, "%s of %s holds %s GPUs, not %d (gpus.csv node_gpus)", form_words(g),
			 g->row.key, list, n);
		return 0;
	}
fabric:
	if (n > 1 && gl && cat_has(gl->domain_gpus) && n > gl->domain_gpus) {
		const struct cat_link *big = sw && cat_has(sw->domain_gpus) ? sw : NULL;
		if (sw && !cat_has(sw->domain_gpus))
			return 1;
		if (!big || n > big->domain_gpus) {
			snprintf(why, why_len, "%s joins at most %.0f GPUs, not %d (links.csv domain_gpus)",
				 big ? big->row.key : gl->row.key, big ? big->domain_gpus : gl->domain_gpus, n);
			return 0;
		}
	}
	return 1;
}

double cat_host_max_nic_gbps(const struct catalog *c, const struct cat_gpu *g)
{
	char key[16];
	const struct cat_link *l;
	if (cat_has(g->pcie_gen)) {
		snprintf(key, sizeof(key), "pcie%d", (int)g->pcie_gen);
		l = catalog_get(c, CAT_LINKS, key);
	} else {
		/* superchips: the NICs hang off the CPU's PCIe, reached over NVLink-C2C */
		l = catalog_get(c, CAT_LINKS, "nvlink-c2c");
	}
	return l ? l->max_nic_gbps : NAN;
}

double cat_server_cores_per_gpu(const struct catalog *c, const struct cat_server *s)
{
	const struct cat_cpu *cpu = s->cpu ? catalog_get(c, CAT_CPUS, s->cpu) : NULL;
	if (!cpu || !cat_has(cpu->cores) || !cat_has(s->cpu_count) || !cat_has(s->gpu_count) || s->gpu_count < 1)
		return 0;
	return cpu->cores * s->cpu_count / s->gpu_count;
}

const struct cat_part *cat_part_for(const struct catalog *c, const char *kind, const char *link)
{
	size_t i, n = catalog_count(c, CAT_PARTS);
	for (i = 0; i < n; i++) {
		const struct cat_part *p = catalog_part_at(c, i);
		if (!p->kind || strcmp(p->kind, kind))
			continue;
		if (link && (!p->link || strcmp(p->link, link)))
			continue;
		return p;
	}
	return NULL;
}
