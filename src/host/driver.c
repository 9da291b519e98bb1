/*
 * The NVIDIA kernel driver: its version file, the loaded modules and the
 * places that keep nouveau from binding the GPUs.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "util/xalloc.h"

/* A driver version: digits, dots, digits ("550.54.15", "535.104.05", "470.82"). */
static size_t version_len(const char *s)
{
	size_t i = 0, dots = 0;
	while (isdigit((unsigned char)s[i]) || (s[i] == '.' && isdigit((unsigned char)s[i + 1]) && i > 0)) {
		if (s[i] == '.')
			dots++;
		i++;
	}
	return dots ? i : 0;
}

int host_parse_driver_version(const char *text, struct host_driver *out)
{
	const char *p, *line_end;
	memset(out, 0, sizeof(*out));
	out->open_module = -1;
	if (!text)
		return -1;
	p = strstr(text, "NVRM version:");
	if (!p)
		return -1;
	line_end = strchr(p, '\n');
	if (!line_end)
		line_end = p + strlen(p);
	out->open_module = 0;
	{
		const char *o = strstr(p, "Open Kernel Module");
		if (o && o < line_end)
			out->open_module = 1;
	}
	/* the version is the first digits.digits token after "Kernel Module" */
	{
		const char *k = strstr(p, "Kernel Module");
		if (!k || k > line_end)
			k = p;
		for (; k < line_end; k++) {
			size_t n;
			if (k > text && (isalnum((unsigned char)k[-1]) || k[-1] == '_' || k[-1] == '.'))
				continue;
			n = version_len(k);
			if (n && n < sizeof(out->version) &&
			    (k + n == line_end || !isalnum((unsigned char)k[n]))) {
				memcpy(out->version, k, n);
				out->version[n] = '\0';
				return 0;
			}
		}
	}
	out->open_module = -1;
	return -1;
}

void host_read_driver(const char *root, struct host_driver *out)
{
	char *buf;
	memset(out, 0, sizeof(*out));
	out->open_module = -1;
	if (host_read(root, "/proc/driver/nvidia/version", 64 * 1024, &buf) < 0) {
		out->error = errno;
		return;
	}
	host_parse_driver_version(buf, out);
	out->present = 1;
	free(buf);
}

int host_parse_modules(const char *text, struct host_modules *out)
{
	static const struct {
		const char *name;
		size_t off;
	} mods[] = {
		{"nvidia", offsetof(struct host_modules, nvidia)},
		{"nvidia_uvm", offsetof(struct host_modules, nvidia_uvm)},
		{"nvidia_drm", offsetof(struct host_modules, nvidia_drm)},
		{"nvidia_modeset", offsetof(struct host_modules, nvidia_modeset)},
		{"nvidia_peermem", offsetof(struct host_modules, nvidia_peermem)},
		{"nouveau", offsetof(struct host_modules, nouveau)},
		{"ib_core", offsetof(struct host_modules, ib_core)},
		{"nvidia_fs", offsetof(struct host_modules, nvidia_fs)},
	};
	const char *p = text;
	memset(out, 0, sizeof(*out));
	if (!text)
		return -1;
	out->readable = 1;
	while (*p) {
		const char *end = strchr(p, '\n');
		size_t n = strcspn(p, " \t\n"), k;
		if (!end)
			end = p + strlen(p);
		for (k = 0; k < sizeof(mods) / sizeof(mods[0]); k++)
			if (strlen(mods[k].name) == n && !strncmp(p, mods[k].name, n))
				*(int *)((char *)out + mods[k].off) = 1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

void host_read_modules(const char *root, struct host_modules *out)
{
	char *buf;
	memset(out, 0, sizeof(*out));
	if (host_read(root, "/proc/modules", 4 << 20, &buf) < 0) {
		out->error = errno;
		return;
	}
	host_parse_modules(buf, out);
	free(buf);
}

/* Does a whitespace-separated word list contain `w` (for "blacklist=a,b" use ',' too)? */
static int has_word(const char *s, size_t len, const char *w)
{
	size_t n = strlen(w), i = 0;
	while (i < len) {
		size_t j;
		while (i < len && (s[i] == ',' || isspace((unsigned char)s[i])))
			i++;
		j = i;
		while (j < len && s[j] != ',' && !isspace((unsigned char)s[j]))
			j++;
		if (j - i == n && !strncmp(s + i, w, n))
			return 1;
		i = j;
	}
	return 0;
}

/*
 * The words after "KEYWORD nouveau" of the modprobe.d line [p, end), or NULL
 * when the line is no such directive.
 */
static const char *nouveau_directive(const char *p, const char *end, const char *keyword)
{
	size_t k = strlen(keyword);
	const char *q = p + k;
	if ((size_t)(end - p) <= k + 1 || strncmp(p, keyword, k) || !isspace((unsigned char)*q))
		return NULL;
	while (q < end && isspace((unsigned char)*q))
		q++;
	if ((size_t)(end - q) <= 8 || strncmp(q, "nouveau", 7) || !isspace((unsigned char)q[7]))
		return NULL;
	return q + 7;
}

void host_parse_modprobe(const char *text, struct host_blacklist *out)
{
	const char *p = text;
	while (p && *p) {
		const char *end = strchr(p, '\n'), *q;
		size_t len;
		if (!end)
			end = p + strlen(p);
		while (p < end && isspace((unsigned char)*p))
			p++;
		len = (size_t)(end - p);
		if (len > 10 && !strncmp(p, "blacklist", 9) && isspace((unsigned char)p[9]) &&
		    has_word(p + 9, len - 9, "nouveau"))
			out->nouveau_blacklisted = 1;
		/* "install nouveau /bin/false" keeps it from loading as well */
		q = nouveau_directive(p, end, "install");
		if (q && (memmem(q, (size_t)(end - q), "/bin/false", 10) ||
			  memmem(q, (size_t)(end - q), "/bin/true", 9)))
			out->nouveau_blacklisted = 1;
		q = nouveau_directive(p, end, "options");
		if (q && has_word(q, (size_t)(end - q), "modeset=0"))
			out->nouveau_modeset0 = 1;
		p = *end ? end + 1 : end;
	}
}

void host_parse_cmdline(const char *text, struct host_blacklist *out)
{
	const char *p = text;
	while (p && *p) {
		size_t n;
		while (*p && isspace((unsigned char)*p))
			p++;
		n = strcspn(p, " \t\n");
		if (!n)
			break;
		if (n > 19 && !strncmp(p, "modprobe.blacklist=", 19) && has_word(p + 19, n - 19, "nouveau"))
			out->nouveau_blacklisted = 1;
		if (n > 22 && !strncmp(p, "rd.driver.blacklist=", 20) && has_word(p + 20, n - 20, "nouveau"))
			out->nouveau_blacklisted = 1;
		if (n == 17 && !strncmp(p, "nouveau.modeset=0", 17))
			out->nouveau_modeset0 = 1;
		p += n;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void host_read_blacklist(const char *root, struct host_blacklist *out)
{
	static const char *const dirs[] = {"/etc/modprobe.d", "/run/modprobe.d", "/usr/lib/modprobe.d",
					   "/lib/modprobe.d"};
	size_t d;
	char *buf;
	memset(out, 0, sizeof(*out));
	for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char *full = host_path(root, dirs[d]);
		DIR *dir = opendir(full);
		struct dirent *e;
		char **names = NULL;
		size_t n = 0, cap = 0, i;
		free(full);
		if (!dir) {
			host_note_unreadable(&out->unreadable, dirs[d], errno);
			continue;
		}
		while ((e = readdir(dir))) {
			size_t l = strlen(e->d_name);
			if (l > 5 && !strcmp(e->d_name + l - 5, ".conf")) {
				XGROW(names, cap, n + 1);
				names[n++] = xstrdup(e->d_name);
			}
		}
		closedir(dir);
		if (n > 1) /* names is NULL in a directory without a .conf, which qsort() must not get */
			qsort(names, n, sizeof(*names), cmp_str);
		for (i = 0; i < n; i++) {
			char *rel = xasprintf("%s/%s", dirs[d], names[i]);
			int before = out->nouveau_blacklisted + out->nouveau_modeset0;
			if (host_read(root, rel, 1 << 20, &buf) >= 0) {
				host_parse_modprobe(buf, out);
				free(buf);
				if (out->nouveau_blacklisted + out->nouveau_modeset0 > before && !out->where)
					out->where = xstrdup(rel);
			} else {
				host_note_unreadable(&out->unreadable, rel, errno);
			}
			free(rel);
			free(names[i]);
		}
		free(names);
	}
	if (host_read(root, "/proc/cmdline", 64 * 1024, &buf) >= 0) {
		int before = out->nouveau_blacklisted + out->nouveau_modeset0;
		host_parse_cmdline(buf, out);
		if (out->nouveau_blacklisted + out->nouveau_modeset0 > before && !out->where)
			out->where = xstrdup("/proc/cmdline");
		free(buf);
	} else {
		host_note_unreadable(&out->unreadable, "/proc/cmdline", errno);
	}
}

void host_blacklist_release(struct host_blacklist *b)
{
	free(b->where);
	host_unreadable_release(&b->unreadable);
	memset(b, 0, sizeof(*b));
}
