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

int host_parse_xid(const char *line, size_t len, struct host_xid *out)
{
	const char *end = line + len, *p, *q;
	long code = 0;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->pid = -1;
	out->uptime_s = -1;
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
	n = (size_t)(q - p);
	if (n >= sizeof(out->pci))
		n = sizeof(out->pci) - 1;
	memcpy(out->pci, p, n);
	out->pci[n] = '\0';
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
		n = (size_t)(q - p);
		if (n >= sizeof(out->process))
			n = sizeof(out->process) - 1;
		memcpy(out->process, p, n);
		out->process[n] = '\0';
		p = q;
		while (p < end && (*p == ',' || *p == ' '))
			p++;
	}
	q = end;
	while (q > p && (q[-1] == '\n' || q[-1] == '\r' || q[-1] == ' '))
		q--;
	n = (size_t)(q - p);
	if (n >= sizeof(out->detail))
		n = sizeof(out->detail) - 1;
	memcpy(out->detail, p, n);
	out->detail[n] = '\0';
	/* keep the text printable */
	for (n = 0; out->detail[n]; n++)
		if ((unsigned char)out->detail[n] < 0x20)
			out->detail[n] = ' ';
	for (n = 0; out->process[n]; n++)
		if ((unsigned char)out->process[n] < 0x20)
			out->process[n] = ' ';
	for (n = 0; out->pci[n]; n++)
		if ((unsigned char)out->pci[n] < 0x20)
			out->pci[n] = ' ';
	return 1;
}

static void add(struct host_xid **out, size_t *n, size_t *cap, const char *line, size_t len)
{
	struct host_xid x;
	if (!host_parse_xid(line, len, &x))
		return;
	XGROW(*out, *cap, *n + 1);
	(*out)[(*n)++] = x;
}

int host_read_xids(const char *path, struct host_xid **out, size_t *n, struct diag *err)
{
	struct stat st;
	size_t cap = 0;
	int fd;

	*out = NULL;
	*n = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		diag_set(err, path, 0, 0, "", "cannot read the kernel log '%s': %s%s", path, strerror(e),
			 e == EPERM || e == EACCES ? " (reading it needs root when kernel.dmesg_restrict=1; "
						     "or pass --kmsg FILE with 'dmesg' output)" : "");
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode)) {
		/* /dev/kmsg: one record per read(); EAGAIN at the end, EPIPE when overwritten */
		char rec[8192];
		for (;;) {
			ssize_t r = read(fd, rec, sizeof(rec) - 1);
			if (r < 0 && (errno == EINTR || errno == EPIPE))
				continue;
			if (r <= 0)
				break;
			rec[r] = '\0';
			add(out, n, &cap, rec, (size_t)r);
		}
	} else {
		char *buf = NULL, *p;
		size_t len = 0, bcap = 0;
		for (;;) {
			ssize_t r;
			if (len + 65536 > bcap) {
				bcap = bcap ? bcap * 2 : 65536 * 2;
				buf = xrealloc(buf, bcap + 1);
			}
			r = read(fd, buf + len, bcap - len);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			len += (size_t)r;
			if (len > (256u << 20))
				break;
		}
		if (buf) {
			buf[len] = '\0';
			p = buf;
			while (p < buf + len) {
				char *e = memchr(p, '\n', (size_t)(buf + len - p));
				size_t l = e ? (size_t)(e - p) : (size_t)(buf + len - p);
				add(out, n, &cap, p, l);
				p += l + 1;
			}
			free(buf);
		}
	}
	close(fd);
	return 0;
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
