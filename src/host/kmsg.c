/*
 * Xid records of the NVIDIA driver in the kernel log, and the catalogue
 * that explains them (data/compat/xid.csv).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/embedded.h"
#include "host/host.h"
#include "util/csv.h"
#include "util/xalloc.h"

static const char *find_n(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle));
}

/*
 * Digits at p (not past end) as a number; returns the first byte after
 * them, or p when there are none.  The line is not NUL-terminated, so the
 * libc conversions cannot be used on it.
 */
static const char *digits(const char *p, const char *end, unsigned long long *out)
{
	const char *q = p;
	*out = 0;
	while (q < end && isdigit((unsigned char)*q) && *out < 100000000000000000ull)
		*out = *out * 10 + (unsigned long long)(*q++ - '0');
	return q;
}

/* [p, q) into the field dst of `size` bytes, cut to fit and NUL-terminated. */
static void copy_cut(char *dst, size_t size, const char *p, const char *q)
{
	size_t n = (size_t)(q - p);
	if (n >= size)
		n = size - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
}

/* Keeps a field printable: C0 controls as spaces, bad UTF-8, then DEL and C1 (CSI), for a terminal. */
static void scrub(char *s)
{
	char *c;
	for (c = s; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = ' ';
	utf8_scrub(s);
	text_scrub_controls(s);
}

int host_parse_xid(const char *line, size_t len, struct host_xid *out)
{
	const char *end = line + len, *p, *q;
	long code = 0;

	memset(out, 0, sizeof(*out));
	out->pid = -1;
	out->uptime_s = -1;
	out->first_uptime_s = -1;
	out->count = 1;
	p = find_n(line, len, "NVRM: Xid (");
	if (!p)
		return 0;
	/* the prefix: "PRI,SEQ,USEC,FLAGS;" (kmsg) or "[ SEC.USEC]" (dmesg) */
	if (line[0] == '[') {
		/* "[ SECONDS.MICROS]" */
		const char *b = memchr(line, ']', (size_t)(p - line)), *d = line + 1, *e;
		unsigned long long sec, frac;
		if (b) {
			while (d < b && *d == ' ')
				d++;
			e = digits(d, b, &sec);
			if (e > d && e < b && *e == '.') {
				const char *f = e + 1, *g = digits(f, b, &frac);
				if (g == b && g > f) {
					double scale = 1;
					for (; f < g; f++)
						scale *= 10;
					out->uptime_s = (double)sec + (double)frac / scale;
				}
			} else if (e == b && e > d) {
				out->uptime_s = (double)sec;
			}
		}
	} else if (isdigit((unsigned char)line[0])) {
		const char *semi = memchr(line, ';', (size_t)(p - line));
		if (semi) {
			/* third field: microseconds since boot */
			const char *c1 = memchr(line, ',', (size_t)(semi - line));
			const char *c2 = c1 ? memchr(c1 + 1, ',', (size_t)(semi - c1 - 1)) : NULL;
			if (c2) {
				unsigned long long us;
				const char *e = digits(c2 + 1, semi, &us);
				if (e > c2 + 1)
					out->uptime_s = (double)us / 1e6;
			}
		}
	}
	p += strlen("NVRM: Xid (");
	q = memchr(p, ')', (size_t)(end - p));
	if (!q)
		return 0;
	if ((size_t)(q - p) > 4 && !strncmp(p, "PCI:", 4))
		p += 4;
	copy_cut(out->pci, sizeof(out->pci), p, q);
	p = q + 1;
	if (p < end && *p == ':')
		p++;
	while (p < end && *p == ' ')
		p++;
	if (p >= end || !isdigit((unsigned char)*p))
		return 0;
	while (p < end && isdigit((unsigned char)*p) && code < 100000)
		code = code * 10 + (*p++ - '0');
	if (code >= 100000)
		return 0;
	out->code = (int)code;
	/* ", pid=1234, name=python3, rest" (pid and name are optional) */
	while (p < end && (*p == ',' || *p == ' '))
		p++;
	if (end - p > 4 && !strncmp(p, "pid=", 4)) {
		unsigned long long pid;
		const char *e;
		p += 4;
		e = digits(p, end, &pid);
		if (e > p && pid <= 0x7fffffffull)
			out->pid = (long)pid;
		while (p < end && *p != ',')
			p++;
		while (p < end && (*p == ',' || *p == ' '))
			p++;
	}
	if (end - p > 5 && !strncmp(p, "name=", 5)) {
		p += 5;
		q = p;
		while (q < end && *q != ',')
			q++;
		copy_cut(out->process, sizeof(out->process), p, q);
		p = q;
		while (p < end && (*p == ',' || *p == ' '))
			p++;
	}
	q = end;
	while (q > p && (q[-1] == '\n' || q[-1] == '\r' || q[-1] == ' '))
		q--;
	out->detail = xstrndup(p, (size_t)(q - p));
	scrub(out->detail);
	scrub(out->process);
	scrub(out->pci);
	out->first_uptime_s = out->uptime_s;
	return 1;
}

/* Xid records counted per (pci, code), with an index to find a pair in constant time. */
struct xid_groups {
	struct host_xid *g;
	size_t n, cap;
	size_t slot[2 * HOST_XID_GROUPS]; /* group index + 1; 0 empty */
	size_t dropped;
};

static size_t group_hash(const struct host_xid *x)
{
	size_t h = (size_t)x->code * 2654435761u;
	const char *p;
	for (p = x->pci; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

static void add(struct xid_groups *gs, const char *line, size_t len)
{
	struct host_xid x;
	size_t i, m = sizeof(gs->slot) / sizeof(gs->slot[0]) - 1;
	if (!host_parse_xid(line, len, &x))
		return;
	for (i = group_hash(&x) & m; gs->slot[i]; i = (i + 1) & m) {
		struct host_xid *g = &gs->g[gs->slot[i] - 1];
		if (g->code == x.code && !strcmp(g->pci, x.pci)) {
			x.count = g->count + 1;
			x.first_uptime_s = g->first_uptime_s;
			host_xid_release(g);
			*g = x;
			return;
		}
	}
	if (gs->n >= HOST_XID_GROUPS) {
		host_xid_release(&x);
		gs->dropped++;
		return;
	}
	XGROW(gs->g, gs->cap, gs->n + 1);
	gs->g[gs->n] = x;
	gs->slot[i] = ++gs->n;
}

/* /dev/kmsg records begin "PRI,SEQ,USEC,FLAGS;": a device that gives other bytes is no kernel log. */
static int kmsg_record(const char *rec, size_t len)
{
	const char *semi = memchr(rec, ';', len);
	return len > 0 && isdigit((unsigned char)rec[0]) && semi && memchr(rec, ',', (size_t)(semi - rec));
}

static int read_device(int fd, const char *path, struct xid_groups *gs, struct diag *err)
{
	/* one record per read(); EAGAIN at the end, EPIPE when overwritten */
	char rec[8192];
	size_t total = 0;
	while (total < HOST_KMSG_MAX_BYTES) {
		ssize_t r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && (errno == EINTR || errno == EPIPE))
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r < 0)
			return diag_set(err, path, 0, 0, "", "cannot read %s: %s", path, strerror(errno));
		if (r == 0)
			break;
		if (!kmsg_record(rec, (size_t)r))
			return diag_set(err, path, 0, 0, "",
					"cannot read %s: a device that is not a kernel "
					"log (its records do not look like /dev/kmsg's)",
					path);
		total += (size_t)r;
		rec[r] = '\0';
		add(gs, rec, (size_t)r);
	}
	return 0;
}

/* Line by line through a window, so a log of millions of lines needs no more memory than one. */
static int read_text(int fd, const char *path, struct xid_groups *gs, struct diag *err)
{
	enum {
		WINDOW = 1 << 20
	};
	char *buf = xmalloc(WINDOW + 1);
	size_t len = 0, total = 0;
	for (;;) {
		ssize_t r = read(fd, buf + len, WINDOW - len);
		char *p = buf, *end;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			return diag_set(err, path, 0, 0, "", "cannot read %s: %s", path, strerror(e));
		}
		len += (size_t)r;
		total += (size_t)r;
		end = buf + len;
		for (;;) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			/* the last piece waits for the rest of its line, unless it fills the window */
			if (!nl && r > 0 && (p > buf || len < WINDOW))
				break;
			if (p == end)
				break;
			add(gs, p, nl ? (size_t)(nl - p) : (size_t)(end - p));
			p = nl ? nl + 1 : end;
		}
		memmove(buf, p, (size_t)(end - p));
		len = (size_t)(end - p);
		if (r == 0 || total > HOST_KMSG_MAX_TEXT_BYTES)
			break;
	}
	free(buf);
	return 0;
}

int host_read_xids_counted(const char *path, struct host_xid **out, size_t *n, size_t *dropped, struct diag *err)
{
	struct xid_groups *gs;
	struct stat st = {0};
	int fd, rc;

	*out = NULL;
	*n = 0;
	if (dropped)
		*dropped = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		diag_set(err, path, 0, 0, "", "cannot read %s: %s%s", path, strerror(e),
			 e == EPERM || e == EACCES ? " (reading it needs root when kernel.dmesg_restrict=1; "
						     "or pass --kmsg FILE with 'dmesg' output)" :
						     "");
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) || !(S_ISCHR(st.st_mode) || S_ISREG(st.st_mode))) {
		int isdir = S_ISDIR(st.st_mode);
		close(fd);
		diag_set(err, path, 0, 0, "", "cannot read %s: %s", path,
			 isdir ? "a directory" : "not a kernel log device or a regular file");
		errno = EINVAL;
		return -1;
	}
	gs = xcalloc(1, sizeof(*gs));
	rc = S_ISCHR(st.st_mode) ? read_device(fd, path, gs, err) : read_text(fd, path, gs, err);
	close(fd);
	if (rc) {
		host_xids_free(gs->g, gs->n);
		free(gs);
		errno = EIO;
		return -1;
	}
	*out = gs->g;
	*n = gs->n;
	if (dropped)
		*dropped = gs->dropped;
	free(gs);
	return 0;
}

void host_xid_release(struct host_xid *x)
{
	free(x->detail);
	x->detail = NULL;
}

void host_xids_free(struct host_xid *x, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		host_xid_release(&x[i]);
	free(x);
}

int host_read_xids(const char *path, struct host_xid **out, size_t *n, struct diag *err)
{
	return host_read_xids_counted(path, out, n, NULL, err);
}

/* ---- the catalogue ---- */

static struct xid_info *xids;
static size_t nxids;
static pthread_once_t xid_once = PTHREAD_ONCE_INIT;

static void xid_load(void)
{
	const struct embedded_file *f = embedded_find("compat/xid.csv");
	struct csv_reader *r;
	struct csv_record rec;
	struct diag err;
	size_t cap = 0;
	int header = 1;

	if (!f)
		return;
	r = csv_open("data/compat/xid.csv", f->data, f->len, CSV_COMMENTS);
	while (csv_next(r, &rec, &err) > 0) {
		struct xid_info *x;
		char *e;
		long code;
		if (header) {
			header = 0;
			continue;
		}
		if (rec.nfields < 7)
			continue;
		code = strtol(rec.fields[0], &e, 10);
		if (*e || code < 0)
			continue;
		XGROW(xids, cap, nxids + 1);
		x = &xids[nxids++];
		x->code = (int)code;
		x->name = xstrdup(rec.fields[1]);
		x->bucket = xstrdup(rec.fields[2]);
		x->description = xstrdup(rec.fields[4]);
		x->action = xstrdup(rec.fields[5]);
		x->source = xstrdup(rec.fields[6]);
		x->severity = !strcmp(rec.fields[3], "fail") ? 2 : !strcmp(rec.fields[3], "warn") ? 1 : 0;
	}
	csv_free(r);
}

const struct xid_info *xid_lookup(int code)
{
	size_t i;
	pthread_once(&xid_once, xid_load);
	for (i = 0; i < nxids; i++)
		if (xids[i].code == code)
			return &xids[i];
	return NULL;
}

int xid_severity(const struct xid_info *x)
{
	return x ? x->severity : 1;
}
