/*
 * Reading files under a root directory (the host, or a fixture tree).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host.h"
#include "util/xalloc.h"

char *host_path(const char *root, const char *path)
{
	size_t n;
	if (!root || !*root || !strcmp(root, "/"))
		return xstrdup(path);
	n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	return xasprintf("%.*s%s%s", (int)n, root, path[0] == '/' ? "" : "/", path);
}

long host_read(const char *root, const char *path, size_t max_bytes, char **buf)
{
	char *full = host_path(root, path);
	int fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	size_t len = 0, cap = 4096;
	char *b;
	int saved;

	free(full);
	*buf = NULL;
	if (fd < 0)
		return -1;
	b = xmalloc(cap + 1);
	for (;;) {
		ssize_t r;
		if (len == cap) {
			if (cap >= max_bytes)
				break;
			cap = cap * 2 > max_bytes ? max_bytes : cap * 2;
			b = xrealloc(b, cap + 1);
		}
		r = read(fd, b + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			saved = errno;
			close(fd);
			free(b);
			errno = saved;
			return -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	b[len] = '\0';
	*buf = b;
	return (long)len;
}

int host_read_line(const char *root, const char *path, char *out, size_t len)
{
	char *buf;
	long n = host_read(root, path, 64 * 1024, &buf);
	size_t k;
	if (len)
		out[0] = '\0';
	if (n < 0)
		return -1;
	for (k = 0; k < (size_t)n && buf[k] != '\n' && buf[k] != '\0'; k++)
		;
	if (len) {
		if (k >= len)
			k = len - 1;
		memcpy(out, buf, k);
		out[k] = '\0';
	}
	free(buf);
	return 0;
}

int host_is_unreadable(int err)
{
	return err && err != ENOENT && err != ENOTDIR;
}

int host_note_unreadable(struct host_unreadable *u, const char *path, int err)
{
	if (!host_is_unreadable(err))
		return 0;
	if (u && !u->error) {
		u->error = err;
		u->path = xstrdup(path);
	}
	return 1;
}

void host_unreadable_release(struct host_unreadable *u)
{
	free(u->path);
	memset(u, 0, sizeof(*u));
}

char *host_unreadable_text(const struct host_unreadable *u)
{
	int perm = u->error == EACCES || u->error == EPERM;
	return xasprintf("cannot read %s: %s%s", u->path, strerror(u->error),
			 perm ? "; run as root to check it" : "");
}
