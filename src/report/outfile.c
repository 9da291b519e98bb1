#include "report/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

static void release(struct outfile *o)
{
	free(o->path);
	free(o->target);
	free(o->tmp);
	o->path = o->target = o->tmp = NULL;
	o->f = NULL;
}

/* In place: a device, FIFO or socket is written, never replaced. */
static int open_in_place(struct outfile *o, const char *path, struct diag *err)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		release(o);
		return diag_set(err, path, 0, 0, NULL, "cannot write '%s': %s", path, strerror(e));
	}
	return 0;
}

int outfile_open(struct outfile *o, const char *path, struct diag *err)
{
	struct stat st;
	const char *slash;
	char *dir;
	int fd;
	mode_t mask, mode;

	memset(o, 0, sizeof(*o));
	if (!path || !*path)
		return diag_set(err, "", 0, 0, NULL, "no file name given");
	o->path = xstrdup(path);
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		char *real = realpath(path, NULL);
		if (!real) {
			int e = errno;
			release(o);
			return diag_set(err, path, 0, 0, NULL,
					"cannot write '%s': a symbolic link that "
					"cannot be followed: %s",
					path, strerror(e));
		}
		o->target = real;
	} else {
		o->target = xstrdup(path);
	}
	if (!stat(o->target, &st)) {
		if (S_ISDIR(st.st_mode)) {
			release(o);
			return diag_set(err, path, 0, 0, NULL, "cannot write '%s': a directory", path);
		}
		if (!S_ISREG(st.st_mode)) {
			free(o->target);
			o->target = NULL;
			return open_in_place(o, path, err);
		}
	} else if (errno != ENOENT) {
		int e = errno;
		release(o);
		return diag_set(err, path, 0, 0, NULL, "cannot write '%s': %s", path, strerror(e));
	}

	slash = strrchr(o->target, '/');
	dir = slash ? xstrndup(o->target, (size_t)(slash - o->target) + 1) : xstrdup("");
	o->tmp = xasprintf("%s.%s.XXXXXX", dir, slash ? slash + 1 : o->target);
	free(dir);
	fd = mkstemp(o->tmp); /* O_CREAT | O_EXCL: never follows what is there */
	if (fd < 0) {
		int e = errno;
		diag_set(err, path, 0, 0, NULL, "cannot create a file beside '%s': %s", path, strerror(e));
		release(o);
		return -1;
	}
	/* mkstemp makes it 0600: give what a plain create would, or keep the old file's mode */
	mask = umask(0);
	umask(mask);
	mode = !stat(o->target, &st) ? st.st_mode & 07777 : 0666 & ~mask;
	if (fchmod(fd, mode) || !(o->f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		diag_set(err, path, 0, 0, NULL, "cannot write '%s': %s", o->tmp, strerror(e));
		release(o);
		return -1;
	}
	return 0;
}

int outfile_commit(struct outfile *o, struct diag *err)
{
	int e = 0, rc = 0;
	if (!o->f)
		return diag_set(err, "", 0, 0, NULL, "no file open");
	errno = 0;
	if (fflush(o->f) || ferror(o->f) || (o->tmp && fsync(fileno(o->f))))
		e = errno ? errno : EIO;
	if (fclose(o->f) && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	if (e) {
		rc = diag_set(err, o->path, 0, 0, NULL, "cannot write '%s': %s", o->path, strerror(e));
	} else if (o->tmp && rename(o->tmp, o->target)) {
		e = errno;
		rc = diag_set(err, o->path, 0, 0, NULL, "cannot replace '%s': %s", o->target, strerror(e));
	}
	if (rc && o->tmp)
		unlink(o->tmp);
	release(o);
	return rc;
}

void outfile_abort(struct outfile *o)
{
	if (o->f)
		fclose(o->f);
	if (o->tmp)
		unlink(o->tmp);
	release(o);
}
