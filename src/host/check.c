/*
 * gpuscope check's rules: read the host and the GPUs, then grade each
 * finding ok / warn / fail with a one-line remedy.  The thresholds and the
 * reason for each are next to the rule; docs/check.md lists them all.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/check.h"
#include "util/xalloc.h"

#define GIB 1073741824.0

const char *check_status_name(enum check_status s)
{
	switch (s) {
	case CHECK_OK:
		return "ok";
	case CHECK_SKIP:
		return "skip";
	case CHECK_WARN:
		return "warn";
	default:
		return "fail";
	}
}

static char *fmt(const char *f, ...) GS_PRINTF(1, 2);
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		abort();
	va_end(ap);
	return s;
}

/* Adds an item; takes ownership of finding and remedy. */
static void add(struct check_item **items, size_t *n, const char *id, const char *title, int gpu,
		enum check_status st, char *finding, char *remedy)
{
	struct check_item *it;
	*items = xrealloc(*items, (*n + 1) * sizeof(**items));
	it = &(*items)[(*n)++];
	memset(it, 0, sizeof(*it));
	snprintf(it->id, sizeof(it->id), "%s", id);
	snprintf(it->title, sizeof(it->title), "%s", title);
	it->gpu = gpu;
	it->status = st;
	it->finding = finding;
	it->remedy = remedy;
}

#define ADD(r, id, title, gpu, st, finding, remedy) \
	add(&(r)->items, &(r)->nitems, id, title, gpu, st, finding, remedy)

/* An owned text of the report as it reads: NULL (not there) is "". */
static const char *text_of(const char *s)
{
	return s ? s : "";
}

static const char *cuda_str(int v, char *buf, size_t len)
{
	if (v <= 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
	return buf;
}

/* The driver version NVML reports (the same for every GPU), or "". */
static const char *nvml_driver(const struct check_report *r)
{
	unsigned i;
	for (i = 0; i < r->ngpus; i++)
		if (GPU_STATIC_HAS(&r->gpus[i].st, driver_version))
			return r->gpus[i].st.driver_version;
	return "";
}

/* The CUDA version the driver supports: NVML's, else libcuda's; -1 unknown. */
static int driver_cuda(const struct check_report *r)
{
	unsigned i;
	for (i = 0; i < r->ngpus; i++)
		if (GPU_STATIC_HAS(&r->gpus[i].st, cuda_driver_version))
			return r->gpus[i].st.cuda_driver_version;
	if (r->libs_probed && r->libs[HOST_LIB_CUDA].found && r->libs[HOST_LIB_CUDA].raw > 0)
		return r->libs[HOST_LIB_CUDA].raw;
	return -1;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static int gpu_usable(const struct check_gpu *g)
{
	return g->status == GPU_STATUS_OK && g->static_rc == GPU_OK;
}

/* "550.54.15" from ".../libnvidia-ml.so.550.54.15" (symlinks resolved). */
static void library_file_version(const char *path, char *out, size_t len)
{
	char *real = path[0] ? realpath(path, NULL) : NULL;
	const char *base, *v;
	size_t dots = 0;
	out[0] = '\0';
	if (!real)
		return;
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	v = strstr(base, ".so.");
	if (v) {
		const char *p;
		v += 4;
		for (p = v; *p; p++)
			if (*p == '.')
				dots++;
		if (dots >= 1)
			snprintf(out, len, "%s", v);
	}
	free(real);
}

/* "LEAD; cannot read PATH: why" (LEAD may be NULL) for a check skipped on an unreadable input. */
static char *skip_text(const char *lead, const struct host_unreadable *u)
{
	char *t = host_unreadable_text(u), *s;
	if (!lead)
		return t;
	s = fmt("%s; %s", lead, t);
	free(t);
	return s;
}

/* ---- reading ---- */

static void read_gpus(struct check_report *r, const struct gpu_backend *b, const struct check_opts *o)
{
	struct gpu_device *const *devs;
	struct gpu_event ev[64];
	unsigned n = 0, i;
	int got;

	if (b->enumerate(&devs, &n) != GPU_OK) {
		free(r->backend_error);
		r->backend_error = xstrdup(b->last_error());
		r->backend_rc = GPU_ERR;
		return;
	}
	r->ngpus = n;
	r->gpus = xcalloc(n ? n : 1, sizeof(*r->gpus));
	/* identities first, so a GPU lost during the check is still named */
	for (i = 0; i < n; i++) {
		r->gpus[i].index = i;
		r->gpus[i].static_rc = b->static_info(devs[i], &r->gpus[i].st);
	}
	/* registers for events; events raised from now on are delivered */
	got = b->events(ev, 64, 0);
	if (got > 0) {
		r->events = xrealloc(r->events, (r->nevents + (size_t)got) * sizeof(*r->events));
		memcpy(r->events + r->nevents, ev, (size_t)got * sizeof(*ev));
		r->nevents += (size_t)got;
	}
	for (i = 0; i < n; i++) {
		struct check_gpu *g = &r->gpus[i];
		struct gpu_process *p = NULL;
		size_t np = 0, k;
		g->sample_rc = b->sample(devs[i], GPU_SAMPLE_DEFAULT, &g->s);
		g->procs_rc = b->processes(devs[i], &p, &np);
		if (g->procs_rc == GPU_OK && np) {
			g->procs = xcalloc(np, sizeof(*g->procs));
			g->nprocs = np;
			for (k = 0; k < np; k++) {
				struct check_proc *cp = &g->procs[k];
				cp->pid = p[k].pid;
				cp->type = p[k].type;
				cp->used_valid = p[k].used_bytes_valid;
				cp->used_bytes = p[k].used_bytes;
				cp->visible = host_proc_user(o->root, p[k].pid, cp->user, sizeof(cp->user),
							     cp->comm, sizeof(cp->comm)) == 0;
				cp->error = cp->visible ? 0 : errno;
			}
		}
		free(p);
		if (b->mig_instances && GPU_STATIC_HAS(&g->st, mig_mode) && g->st.mig_mode == 1)
			b->mig_instances(devs[i], &g->mig, &g->nmig);
		if (GPU_STATIC_HAS(&g->st, pci_sysfs_id))
			host_pci_read(o->root, g->st.pci_sysfs_id, &g->pci);
		else
			g->pci.numa_node = -1;
		g->status = b->status(devs[i]);
	}
	got = b->events(ev, 64, o->events_wait_ms);
	if (got > 0) {
		r->events = xrealloc(r->events, (r->nevents + (size_t)got) * sizeof(*r->events));
		memcpy(r->events + r->nevents, ev, (size_t)got * sizeof(*ev));
		r->nevents += (size_t)got;
	}
	for (i = 0; i < n; i++)
		r->gpus[i].status = b->status(devs[i]);
}

/* ---- host rules ---- */

static void rules_driver(struct check_report *r)
{
	const char *nv = nvml_driver(r);
	int have_gpus_on_bus = r->n_nvidia_pci > 0 || r->ngpus > 0;

	/* the NVML library */
	switch (r->backend_rc) {
	case GPU_OK:
		ADD(r, "nvml.library", "nvml library", -1, CHECK_OK,
		    fmt("%s%s%s", base_name(r->nvml_library), nv[0] ? ", driver " : "", nv), NULL);
		break;
	case GPU_ERR_NO_LIBRARY:
		ADD(r, "nvml.library", "nvml library", -1, have_gpus_on_bus ? CHECK_FAIL : CHECK_SKIP,
		    fmt("%s", r->backend_error),
		    have_gpus_on_bus ? xstrdup("install the NVIDIA driver for these GPUs (its user-space part "
					       "provides libnvidia-ml.so.1) or put it on the library path") :
				       NULL);
		break;
	case GPU_ERR_NO_DRIVER:
		ADD(r, "nvml.library", "nvml library", -1, CHECK_FAIL, fmt("%s", r->backend_error),
		    xstrdup("load the driver (modprobe nvidia) and read 'dmesg | grep NVRM' if it refuses"));
		break;
	case GPU_ERR_VERSION_MISMATCH:
		ADD(r, "nvml.library", "nvml library", -1, CHECK_FAIL, fmt("%s", r->backend_error),
		    xstrdup("reboot, or unload and reload the nvidia modules, so the kernel module matches "
			    "the upgraded libraries"));
		break;
	case GPU_ERR_NO_PERMISSION:
		ADD(r, "nvml.library", "nvml library", -1, CHECK_FAIL, fmt("%s", r->backend_error),
		    xstrdup("give this user access to /dev/nvidia* (device cgroup, or the group owning them)"));
		break;
	default:
		ADD(r, "nvml.library", "nvml library", -1, CHECK_FAIL, fmt("%s", r->backend_error),
		    xstrdup("read 'dmesg | grep NVRM' for the driver's own message"));
		break;
	}

	/* the kernel module */
	if (r->driver.present && r->driver.version[0])
		ADD(r, "driver.kernel_module", "kernel module", -1, CHECK_OK,
		    fmt("NVIDIA %s kernel module %s", r->driver.open_module == 1 ? "open" : "proprietary",
			r->driver.version),
		    NULL);
	else if (r->driver.present)
		ADD(r, "driver.kernel_module", "kernel module", -1, CHECK_WARN,
		    xstrdup("/proc/driver/nvidia/version names no version"), NULL);
	else if (r->driver.error && r->driver.error != ENOENT)
		/* unreadable is not absent: no verdict, and no remedy that reinstalls a working driver */
		ADD(r, "driver.kernel_module", "kernel module", -1, CHECK_SKIP,
		    fmt("cannot read %s: %s", "/proc/driver/nvidia/version", strerror(r->driver.error)), NULL);
	else if (r->backend_rc == GPU_OK && r->ngpus)
		ADD(r, "driver.kernel_module", "kernel module", -1, CHECK_SKIP,
		    fmt("/proc/driver/nvidia/version is absent, but NVML sees %u GPU%s, so a module is loaded",
			r->ngpus, r->ngpus == 1 ? "" : "s"),
		    NULL);
	else if (have_gpus_on_bus)
		ADD(r, "driver.kernel_module", "kernel module", -1, CHECK_FAIL,
		    fmt("%zu NVIDIA GPU%s on the PCI bus but no NVIDIA kernel module loaded",
			r->n_nvidia_pci ? r->n_nvidia_pci : (size_t)r->ngpus,
			(r->n_nvidia_pci ? r->n_nvidia_pci : r->ngpus) == 1 ? "" : "s"),
		    xstrdup("install the NVIDIA driver and reboot; if it is installed, 'modprobe nvidia' "
			    "and read dmesg"));
	else if (r->pci_unreadable.error)
		/* no GPU seen on a bus that could not be read is no "no GPU" */
		ADD(r, "driver.kernel_module", "kernel module", -1, CHECK_SKIP,
		    host_unreadable_text(&r->pci_unreadable), NULL);
	else
		ADD(r, "driver.kernel_module", "kernel module", -1, CHECK_SKIP,
		    xstrdup("no NVIDIA kernel module and no NVIDIA GPU on the PCI bus"), NULL);

	/* one driver version everywhere */
	/*
	 * When NVML initialised, its driver version is the kernel module's
	 * (NVML refuses to start otherwise); when it refused, the library
	 * file's name carries the user-space version.
	 */
	if (r->backend_rc == GPU_ERR_VERSION_MISMATCH ||
	    (r->driver.version[0] && nv[0] && strcmp(nv, r->driver.version))) {
		const char *lib = nv[0] ? nv : r->nvml_file_version[0] ? r->nvml_file_version : "?";
		ADD(r, "driver.version_match", "driver versions", -1, CHECK_FAIL,
		    fmt("kernel module %s, NVML library %s: driver/library version mismatch",
			r->driver.version[0] ? r->driver.version : "?", lib),
		    fmt("reboot (or unload and reload the nvidia modules) so the %s kernel module loads; "
			"a driver upgrade without a reboot leaves the old one running",
			lib));
	} else if (r->driver.version[0] && nv[0]) {
		ADD(r, "driver.version_match", "driver versions", -1, CHECK_OK,
		    fmt("kernel module and NVML library are both %s", r->driver.version), NULL);
	}

	/* kernel modules */
	if (!r->modules.readable) {
		ADD(r, "driver.modules", "kernel modules", -1, CHECK_SKIP,
		    fmt("cannot read /proc/modules: %s", strerror(r->modules.error ? r->modules.error : EIO)),
		    NULL);
	} else if (!r->modules.nvidia) {
		if (have_gpus_on_bus || r->backend_rc != GPU_ERR_NO_LIBRARY)
			ADD(r, "driver.modules", "kernel modules", -1, CHECK_FAIL,
			    xstrdup("nvidia module not loaded"),
			    xstrdup("modprobe nvidia; if it fails, reinstall the driver for this kernel (DKMS)"));
	} else if (!r->modules.nvidia_uvm) {
		ADD(r, "driver.modules", "kernel modules", -1, CHECK_FAIL,
		    xstrdup("nvidia loaded, nvidia_uvm not: CUDA programs cannot start"),
		    xstrdup("modprobe nvidia-uvm (nvidia-modprobe -u -c=0 does it at boot)"));
	} else {
		ADD(r, "driver.modules", "kernel modules", -1, CHECK_OK,
		    fmt("nvidia, nvidia_uvm%s%s%s loaded", r->modules.nvidia_modeset ? ", nvidia_modeset" : "",
			r->modules.nvidia_drm ? ", nvidia_drm" : "",
			r->modules.nvidia_peermem ? ", nvidia_peermem" : ""),
		    NULL);
	}

	/* nouveau */
	if (!r->modules.readable)
		ADD(r, "driver.nouveau", "nouveau", -1, CHECK_SKIP,
		    fmt("cannot read /proc/modules: %s", strerror(r->modules.error ? r->modules.error : EIO)),
		    NULL);
	else if (r->modules.nouveau)
		ADD(r, "driver.nouveau", "nouveau", -1, CHECK_FAIL,
		    xstrdup("the nouveau module is loaded and can hold the GPUs"),
		    xstrdup("echo 'blacklist nouveau' > /etc/modprobe.d/blacklist-nouveau.conf, "
			    "'options nouveau modeset=0', update-initramfs -u, reboot"));
	else if (r->blacklist.nouveau_blacklisted || r->blacklist.nouveau_modeset0)
		ADD(r, "driver.nouveau", "nouveau", -1, CHECK_OK,
		    fmt("not loaded, %s in %s", r->blacklist.nouveau_blacklisted ? "blacklisted" : "modeset=0",
			text_of(r->blacklist.where)),
		    NULL);
	else if (have_gpus_on_bus && r->blacklist.unreadable.error)
		ADD(r, "driver.nouveau", "nouveau", -1, CHECK_SKIP,
		    skip_text("not loaded", &r->blacklist.unreadable), NULL);
	else if (have_gpus_on_bus)
		ADD(r, "driver.nouveau", "nouveau", -1, CHECK_WARN,
		    xstrdup("not loaded, but not blacklisted either"),
		    xstrdup("blacklist it in /etc/modprobe.d so a kernel or initramfs update cannot let it "
			    "claim the GPUs"));
}

static void rules_count(struct check_report *r)
{
	if (r->backend_rc != GPU_OK)
		return;
	if (r->ngpus == 0) {
		ADD(r, "gpu.count", "gpus", -1, CHECK_FAIL, xstrdup("the driver is loaded but sees no GPU"),
		    xstrdup(r->container.in_container ?
				    "start the container with GPUs (docker run --gpus all, or a nvidia.com/gpu limit)" :
				    "check that the GPUs are on the PCI bus (lspci -d 10de:) and read dmesg"));
		return;
	}
	if (r->n_nvidia_pci > r->ngpus && !r->container.in_container)
		ADD(r, "gpu.count", "gpus", -1, CHECK_WARN,
		    fmt("%zu NVIDIA GPUs on the PCI bus, NVML sees %u", r->n_nvidia_pci, r->ngpus),
		    xstrdup("read dmesg for the GPUs the driver did not initialise (RmInitAdapter failed)"));
	else
		ADD(r, "gpu.count", "gpus", -1, CHECK_OK, fmt("%u GPU%s", r->ngpus, r->ngpus == 1 ? "" : "s"),
		    NULL);
}

/* Runtime CUDA `rt` against the driver's CUDA `drv`, naming versions and the fix. */
static void rule_runtime_vs_driver(struct check_report *r, const char *id, const char *title, const char *what,
				   int rt, int drv)
{
	char a[16], b[16];
	const struct compat_cuda *row = compat_cuda_row(rt);
	const char *drvver = nvml_driver(r);
	if (drv <= 0) {
		ADD(r, id, title, -1, CHECK_SKIP,
		    fmt("%s CUDA %s; the driver's CUDA version is unknown", what, cuda_str(rt, a, sizeof(a))),
		    NULL);
		return;
	}
	if (rt <= drv) {
		ADD(r, id, title, -1, CHECK_OK,
		    fmt("%s CUDA %s, driver supports %s", what, cuda_str(rt, a, sizeof(a)),
			cuda_str(drv, b, sizeof(b))),
		    NULL);
	} else if (rt / 1000 == drv / 1000) {
		ADD(r, id, title, -1, CHECK_WARN,
		    fmt("%s CUDA %s on a driver for %s: runs by minor-version compatibility, "
			"but PTX JIT and newer features fail",
			what, cuda_str(rt, a, sizeof(a)), cuda_str(drv, b, sizeof(b))),
		    row ? fmt("upgrade the driver to >= %s (CUDA %s) or use a CUDA %s build", row->min_driver,
			      cuda_str(rt, a, sizeof(a)), cuda_str(drv, b, sizeof(b))) :
			  fmt("use a CUDA %s build or upgrade the driver", cuda_str(drv, b, sizeof(b))));
	} else {
		ADD(r, id, title, -1, CHECK_FAIL,
		    fmt("%s CUDA %s needs a newer driver than %s (CUDA %s)", what, cuda_str(rt, a, sizeof(a)),
			drvver[0] ? drvver : "this one", cuda_str(drv, b, sizeof(b))),
		    row ? fmt("upgrade the driver to >= %s, or install a CUDA %d.x build", row->min_driver,
			      drv / 1000) :
			  fmt("upgrade the driver, or install a CUDA %d.x build", drv / 1000));
	}
}

/* Distinct compute capabilities of the usable GPUs (at most 8), with a GPU name each. */
static size_t distinct_cc(const struct check_report *r, int cc[][2], const char *names[], size_t max)
{
	size_t n = 0, k;
	unsigned i;
	for (i = 0; i < r->ngpus; i++) {
		const struct gpu_static *st = &r->gpus[i].st;
		if (!GPU_STATIC_HAS(st, cc_major))
			continue;
		for (k = 0; k < n; k++)
			if (cc[k][0] == st->cc_major && cc[k][1] == st->cc_minor)
				break;
		if (k == n && n < max) {
			cc[n][0] = st->cc_major;
			cc[n][1] = st->cc_minor;
			names[n] = GPU_STATIC_HAS(st, name) ? st->name : "GPU";
			n++;
		}
	}
	return n;
}

/*
 * A library of the CUDA stack that PyTorch wheels may bring themselves: a
 * skip when it is not on the library path, a warning when its version call
 * failed.  1 when it loaded and read, for the caller's own rule.
 */
static int lib_loaded(struct check_report *r, const struct host_lib *l, const char *id)
{
	if (!l->found)
		ADD(r, id, l->name, -1, CHECK_SKIP,
		    fmt("no %s on the library path (PyTorch wheels bring their own)", l->name), NULL);
	else if (l->error)
		ADD(r, id, l->name, -1, CHECK_WARN, fmt("%s: %s", text_of(l->path), l->error), NULL);
	else
		return 1;
	return 0;
}

/* Whether the container runtime mounts the driver's CUDA library: the NVIDIA
 * runtime mounts libcuda only for the 'compute' capability (or 'all'), and an
 * exporter's image asks for 'utility' (NVML) alone.  Outside a container, or
 * where the variable is unset, the answer is yes: libcuda should be there. */
static int container_has_compute(const struct host_container *c)
{
	const char *p;
	size_t n;
	if (!c->in_container || !c->driver_caps)
		return 1;
	for (p = c->driver_caps; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		if ((n == 7 && !strncmp(p, "compute", 7)) || (n == 3 && !strncmp(p, "all", 3)))
			return 1;
	}
	return 0;
}

static void rules_libs(struct check_report *r)
{
	const struct host_lib *cuda = &r->libs[HOST_LIB_CUDA], *rt = &r->libs[HOST_LIB_CUDART];
	const struct host_lib *dnn = &r->libs[HOST_LIB_CUDNN], *nccl = &r->libs[HOST_LIB_NCCL];
	int drv = driver_cuda(r);
	char a[16], b[16];

	if (!r->libs_probed)
		return;
	if (!cuda->found) {
		if (r->ngpus > 0 && !container_has_compute(&r->container))
			ADD(r, "cuda.libcuda", "libcuda", -1, CHECK_SKIP,
			    fmt("libcuda.so.1 is not mounted: the container runs with NVIDIA_DRIVER_CAPABILITIES=%s, "
				"which leaves CUDA out (NVML needs only 'utility')",
				r->container.driver_caps),
			    NULL);
		else if (r->ngpus > 0)
			ADD(r, "cuda.libcuda", "libcuda", -1, CHECK_FAIL,
			    fmt("libcuda.so.1 %s", text_of(cuda->error)),
			    xstrdup("reinstall the driver's user-space libraries; 'ldconfig -p | grep libcuda' "
				    "must list libcuda.so.1"));
		else
			ADD(r, "cuda.libcuda", "libcuda", -1, CHECK_SKIP,
			    fmt("libcuda.so.1 %s", text_of(cuda->error)), NULL);
	} else if (cuda->error) {
		ADD(r, "cuda.libcuda", "libcuda", -1, CHECK_FAIL, fmt("%s: %s", text_of(cuda->path), cuda->error),
		    xstrdup("read dmesg for NVRM errors"));
	} else {
		int nvml_cuda = -1;
		unsigned i;
		for (i = 0; i < r->ngpus; i++)
			if (GPU_STATIC_HAS(&r->gpus[i].st, cuda_driver_version))
				nvml_cuda = r->gpus[i].st.cuda_driver_version;
		if (nvml_cuda > 0 && nvml_cuda != cuda->raw)
			ADD(r, "cuda.libcuda", "libcuda", -1, CHECK_WARN,
			    fmt("%s reports CUDA %s but the driver reports %s", text_of(cuda->path),
				cuda_str(cuda->raw, a, sizeof(a)), cuda_str(nvml_cuda, b, sizeof(b))),
			    xstrdup("another libcuda (a cuda-compat package or a copy on LD_LIBRARY_PATH) shadows "
				    "the driver's: remove it from the library path"));
		else
			ADD(r, "cuda.libcuda", "libcuda", -1, CHECK_OK,
			    fmt("CUDA %s (%s)", cuda_str(cuda->raw, a, sizeof(a)), base_name(cuda->path)), NULL);
	}

	if (lib_loaded(r, rt, "cuda.runtime"))
		rule_runtime_vs_driver(r, "cuda.runtime", "libcudart", "libcudart", rt->raw, drv);

	if (lib_loaded(r, dnn, "cuda.cudnn")) {
		const struct compat_cudnn *row = compat_cudnn_row(dnn->major, dnn->minor);
		int cc[8][2];
		const char *names[8];
		size_t ncc = distinct_cc(r, cc, names, 8), k;
		int rtv = rt->found && !rt->error ? rt->raw : drv;
		enum check_status st = CHECK_OK;
		char *finding = NULL, *remedy = NULL;
		for (k = 0; row && k < ncc && st == CHECK_OK; k++)
			if (cc[k][0] * 10 + cc[k][1] < row->cc_min_major * 10 + row->cc_min_minor) {
				st = CHECK_FAIL;
				finding = fmt("cuDNN %d.%d.%d needs compute capability >= %d.%d; %s is %d.%d",
					      dnn->major, dnn->minor, dnn->patch, row->cc_min_major,
					      row->cc_min_minor, names[k], cc[k][0], cc[k][1]);
				remedy = xstrdup("use a cuDNN 8.x build for this GPU");
			}
		if (st == CHECK_OK && row && rtv > 0 &&
		    (rtv / 1000 < row->cuda_min / 1000 || rtv / 1000 > row->cuda_max / 1000 ||
		     (rtv < row->cuda_min))) {
			st = CHECK_FAIL;
			finding = fmt("cuDNN %d.%d.%d was built for CUDA %s-%s, the CUDA here is %s", dnn->major,
				      dnn->minor, dnn->patch, cuda_str(row->cuda_min, a, sizeof(a)),
				      cuda_str(row->cuda_max, b, sizeof(b)), cuda_str(rtv, (char[16]){0}, 16));
			remedy = fmt("install the cuDNN build for CUDA %d.x", rtv / 1000);
		}
		if (!finding)
			finding = fmt("cuDNN %d.%d.%d (%s)%s", dnn->major, dnn->minor, dnn->patch,
				      base_name(dnn->path), row ? "" : "; release not in gpuscope's table");
		ADD(r, "cuda.cudnn", "libcudnn", -1, st, finding, remedy);
	}

	if (lib_loaded(r, nccl, "cuda.nccl"))
		ADD(r, "cuda.nccl", "libnccl", -1, CHECK_OK,
		    fmt("NCCL %d.%d.%d (%s)", nccl->major, nccl->minor, nccl->patch, base_name(nccl->path)), NULL);
}

static void rules_arch(struct check_report *r)
{
	int cc[8][2];
	const char *names[8];
	size_t n = distinct_cc(r, cc, names, 8), k;
	int drv = driver_cuda(r);
	char a[16], b[16];
	for (k = 0; k < n; k++) {
		const struct compat_arch *row = compat_arch_row(cc[k][0], cc[k][1]);
		if (!row) {
			ADD(r, "cuda.gpu_arch", "gpu architecture", -1, CHECK_WARN,
			    fmt("%s: compute capability %d.%d is not in gpuscope's table", names[k], cc[k][0],
				cc[k][1]),
			    NULL);
		} else if (drv > 0 && row->min_cuda > drv) {
			const struct compat_cuda *c = compat_cuda_row(row->min_cuda);
			ADD(r, "cuda.gpu_arch", "gpu architecture", -1, CHECK_FAIL,
			    fmt("%s (cc %d.%d, %s) needs CUDA >= %s; the driver supports %s", names[k], cc[k][0],
				cc[k][1], row->arch, cuda_str(row->min_cuda, a, sizeof(a)),
				cuda_str(drv, b, sizeof(b))),
			    c ? fmt("upgrade the driver to >= %s", c->min_driver) : xstrdup("upgrade the driver"));
		} else if (row->max_cuda > 0 && drv > row->max_cuda) {
			ADD(r, "cuda.gpu_arch", "gpu architecture", -1, CHECK_WARN,
			    fmt("%s (cc %d.%d, %s): CUDA %s toolkits no longer build for it (last: %s)", names[k],
				cc[k][0], cc[k][1], row->arch, cuda_str(drv, a, sizeof(a)),
				cuda_str(row->max_cuda, b, sizeof(b))),
			    fmt("use CUDA %s (or older) toolkits and wheels for this GPU",
				cuda_str(row->max_cuda, b, sizeof(b))));
		} else {
			ADD(r, "cuda.gpu_arch", "gpu architecture", -1, CHECK_OK,
			    fmt("%s: cc %d.%d (%s), CUDA >= %s", names[k], cc[k][0], cc[k][1], row->arch,
				cuda_str(row->min_cuda, a, sizeof(a))),
			    NULL);
		}
	}
}

static void rules_torch(struct check_report *r)
{
	const struct host_torch *t = &r->torch;
	int tc, drv = driver_cuda(r);
	char a[16];
	int cc[8][2];
	const char *names[8];
	size_t ncc, k;

	if (!r->torch_probed)
		return;
	if (!t->python_found) {
		ADD(r, "pytorch.installed", "pytorch", -1, CHECK_SKIP, fmt("%s", text_of(t->error)), NULL);
		return;
	}
	if (!t->torch_found) {
		ADD(r, "pytorch.installed", "pytorch", -1, CHECK_SKIP,
		    fmt("not importable from %s%s%s", text_of(t->python), t->error && *t->error ? ": " : "",
			text_of(t->error)),
		    NULL);
		return;
	}
	ADD(r, "pytorch.installed", "pytorch", -1, CHECK_OK,
	    fmt("torch %s (CUDA %s, cuDNN %d) from %s", t->version, t->cuda[0] ? t->cuda : "none", t->cudnn,
		text_of(t->python)),
	    NULL);
	tc = compat_cuda_parse(t->cuda);
	if (tc < 0) {
		ADD(r, "pytorch.cuda_build", "pytorch cuda", -1, CHECK_FAIL,
		    fmt("torch %s is a CPU-only build", t->version),
		    fmt("install a CUDA build: pip install torch --index-url https://download.pytorch.org/whl/cu%d%d "
			"(a CUDA at or below the driver's %s)",
			drv > 0 ? drv / 1000 : 12, drv > 0 ? drv % 1000 / 10 : 1, cuda_str(drv, a, sizeof(a))));
	} else {
		char what[96];
		snprintf(what, sizeof(what), "torch %.60s built for", t->version);
		rule_runtime_vs_driver(r, "pytorch.cuda_build", "pytorch cuda", what, tc, drv);
	}
	if (!t->cuda_available)
		ADD(r, "pytorch.gpus", "pytorch gpus", -1, CHECK_FAIL,
		    fmt("torch.cuda.is_available() is False%s%s", t->error && *t->error ? ": " : "",
			text_of(t->error)),
		    xstrdup(tc < 0 ?
				    "install a CUDA build of PyTorch" :
				    "fix the driver findings above; check CUDA_VISIBLE_DEVICES and the container's GPU access"));
	else if (r->backend_rc == GPU_OK && (unsigned)t->device_count != r->ngpus && !*r->cuda_visible_devices)
		ADD(r, "pytorch.gpus", "pytorch gpus", -1, CHECK_WARN,
		    fmt("PyTorch sees %d GPUs, NVML %u", t->device_count, r->ngpus),
		    xstrdup("a GPU that NVML lists but CUDA cannot open is unhealthy or held exclusively: see "
			    "the GPU findings"));
	else
		ADD(r, "pytorch.gpus", "pytorch gpus", -1, CHECK_OK,
		    fmt("sees %d GPU%s%s%s", t->device_count, t->device_count == 1 ? "" : "s",
			*r->cuda_visible_devices ? ", CUDA_VISIBLE_DEVICES=" : "", r->cuda_visible_devices),
		    NULL);

	/* kernels for each GPU's architecture */
	ncc = distinct_cc(r, cc, names, 8);
	for (k = 0; k < ncc; k++) {
		char via[64];
		const char *list = t->arch_list;
		const struct compat_torch *rows;
		size_t nrows = 0, i;
		int from_table = 0;
		if (!list[0]) {
			nrows = compat_torch_rows(t->version, &rows);
			for (i = 0; i < nrows; i++)
				if (rows[i].cuda == tc) {
					list = rows[i].arch_list;
					from_table = 1;
				}
		}
		if (!list[0]) {
			ADD(r, "pytorch.arch", "pytorch arch", -1, CHECK_SKIP,
			    fmt("torch %s did not report its architectures", t->version), NULL);
			continue;
		}
		if (compat_arch_runs(list, cc[k][0], cc[k][1], via, sizeof(via))) {
			ADD(r, "pytorch.arch", "pytorch arch", -1, CHECK_OK,
			    fmt("%s (cc %d.%d) runs %s%s", names[k], cc[k][0], cc[k][1], via,
				from_table ? " (from gpuscope's table)" : ""),
			    NULL);
		} else {
			/* name the oldest build in the table that runs on this GPU */
			const struct compat_torch *all;
			size_t na;
			char fix[160] = "install a PyTorch build whose arch list covers this GPU";
			static const char *const versions[] = {"1.13", "2.0", "2.1", "2.2", "2.3",
							       "2.4",  "2.5", "2.6", "2.7", "2.8"};
			size_t v;
			int found = 0;
			for (v = 0; v < sizeof(versions) / sizeof(versions[0]) && !found; v++) {
				na = compat_torch_rows(versions[v], &all);
				for (i = 0; i < na && !found; i++)
					if (compat_arch_runs(all[i].arch_list, cc[k][0], cc[k][1], via,
							     sizeof(via))) {
						found = 1;
						snprintf(fix, sizeof(fix),
							 "install torch >= %s built for CUDA %s or newer "
							 "(its wheels include %s)",
							 all[i].torch, cuda_str(all[i].cuda, a, sizeof(a)), via);
					}
			}
			ADD(r, "pytorch.arch", "pytorch arch", -1, CHECK_FAIL,
			    fmt("torch %s has no kernels for %s (cc %d.%d): %s", t->version, names[k], cc[k][0],
				cc[k][1], list),
			    xstrdup(fix));
		}
	}
}

static void rules_container(struct check_report *r)
{
	const struct host_container *c = &r->container;
	/* what is missing may be what could not be read: only an ok stands then */
	const int unknown = c->unreadable.error != 0;
	if (c->in_container) {
		ADD(r, "container.runtime", "container", -1, CHECK_OK,
		    fmt("running in a container%s%s",
			c->visible_devices && *c->visible_devices ? ", NVIDIA_VISIBLE_DEVICES=" : "",
			text_of(c->visible_devices)),
		    NULL);
		return;
	}
	if (!c->docker_installed && !c->containerd_installed && !c->toolkit_cli && !c->runtime_hook) {
		ADD(r, "container.toolkit", "container toolkit", -1, CHECK_SKIP,
		    unknown ? skip_text(NULL, &c->unreadable) : xstrdup("no container runtime installed"), NULL);
		return;
	}
	if (!c->toolkit_cli && !c->runtime_hook && unknown) {
		ADD(r, "container.toolkit", "container toolkit", -1, CHECK_SKIP, skip_text(NULL, &c->unreadable),
		    NULL);
		return;
	}
	if (!c->toolkit_cli && !c->runtime_hook) {
		ADD(r, "container.toolkit", "container toolkit", -1, CHECK_WARN,
		    fmt("%s installed without the NVIDIA container toolkit: containers get no GPU",
			c->docker_installed ? "docker" : "containerd"),
		    xstrdup("install nvidia-container-toolkit, then nvidia-ctk runtime configure --runtime=docker "
			    "(or containerd) and restart the runtime"));
		return;
	}
	if ((c->docker_installed && !c->docker_runtime) ||
	    (c->containerd_installed && !c->containerd_runtime && !c->docker_installed)) {
		if (!c->cdi_spec && unknown) {
			ADD(r, "container.toolkit", "container toolkit", -1, CHECK_SKIP,
			    skip_text("toolkit installed", &c->unreadable), NULL);
			return;
		}
		if (!c->cdi_spec) {
			ADD(r, "container.toolkit", "container toolkit", -1, CHECK_WARN,
			    fmt("toolkit installed but %s has no nvidia runtime and there is no CDI spec",
				c->docker_installed ? "docker" : "containerd"),
			    xstrdup("nvidia-ctk runtime configure --runtime=docker (or containerd) and restart it, "
				    "or generate a CDI spec: nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"));
			return;
		}
	}
	ADD(r, "container.toolkit", "container toolkit", -1, CHECK_OK,
	    fmt("nvidia-container-toolkit%s%s%s", c->docker_runtime ? ", docker runtime 'nvidia'" : "",
		c->containerd_runtime ? ", containerd runtime 'nvidia'" : "", c->cdi_spec ? ", CDI spec" : ""),
	    NULL);
}

/* GPU index whose bus id the driver's "0000:c1:00" names, or -1. */
static int gpu_of_pci(const struct check_report *r, const char *pci)
{
	unsigned i;
	size_t n = strlen(pci);
	for (i = 0; i < r->ngpus; i++) {
		const char *id = r->gpus[i].st.pci_sysfs_id;
		if (GPU_STATIC_HAS(&r->gpus[i].st, pci_sysfs_id) && n >= 7 && !strncasecmp(id, pci, n))
			return (int)i;
	}
	return -1;
}

static enum check_status xid_status(int code)
{
	int sev = xid_severity(xid_lookup(code));
	return sev == 2 ? CHECK_FAIL : sev == 1 ? CHECK_WARN : CHECK_OK;
}

static void rules_xids(struct check_report *r)
{
	size_t i;
	if (r->kmsg_rc < 0) {
		ADD(r, "kernel.xid", "kernel log xids", -1, CHECK_SKIP, fmt("%s", r->kmsg_error), NULL);
	} else if (!r->nxids) {
		ADD(r, "kernel.xid", "kernel log xids", -1, CHECK_OK, xstrdup("no Xid in the kernel log"), NULL);
	} else {
		/* host_read_xids() counted the records per GPU and code */
		for (i = 0; i < r->nxids; i++) {
			const struct host_xid *x = &r->xids[i];
			const struct xid_info *info = xid_lookup(x->code);
			int gpu = gpu_of_pci(r, x->pci);
			ADD(r, "kernel.xid", "kernel log xid", gpu, xid_status(x->code),
			    fmt("Xid %d on %s x%zu: %s%s%s", x->code, x->pci, x->count,
				info ? info->name : "not in gpuscope's catalogue",
				x->detail && *x->detail ? " -- " : "", text_of(x->detail)),
			    info ? fmt("%s: %s", info->bucket, info->action) :
				   xstrdup("look the code up in NVIDIA's Xid catalog"));
		}
		if (r->xids_dropped)
			ADD(r, "kernel.xid", "kernel log xid", -1, CHECK_WARN,
			    fmt("%zu more Xid records of other GPU and code pairs past the first %d, not shown",
				r->xids_dropped, HOST_XID_GROUPS),
			    xstrdup("read the kernel log (dmesg) for the rest"));
	}
	for (i = 0; i < r->nevents; i++) {
		const struct gpu_event *e = &r->events[i];
		const struct xid_info *info;
		if (e->type != GPU_EVENT_XID)
			continue;
		info = xid_lookup((int)e->code);
		ADD(r, "nvml.xid", "nvml xid event", (int)e->gpu_index, xid_status((int)e->code),
		    fmt("Xid %llu delivered by NVML: %s", (unsigned long long)e->code,
			info ? info->name : "not in gpuscope's catalogue"),
		    info ? fmt("%s: %s", info->bucket, info->action) :
			   xstrdup("look the code up in NVIDIA's Xid catalog"));
	}
}

/* ---- per-GPU rules ---- */

static void rules_gpu(struct check_report *r, struct check_gpu *g)
{
	const struct gpu_static *st = &g->st;
	const struct gpu_sample *s = &g->s;
	int i = (int)g->index;
	const char *name = GPU_STATIC_HAS(st, name) ? st->name : "GPU";
	const char *bus = GPU_STATIC_HAS(st, pci_bus_id) ? st->pci_bus_id : "?";
	char who[160];

	if (GPU_STATIC_HAS(st, pci_bus_id))
		snprintf(who, sizeof(who), "%s at %s", name, bus);
	else
		snprintf(who, sizeof(who), "GPU %d", i);
	if (g->status == GPU_STATUS_LOST || g->static_rc == GPU_ERR_LOST || g->sample_rc == GPU_ERR_LOST) {
		ADD(r, "gpu.status", "gpu", i, CHECK_FAIL,
		    fmt("%s has fallen off the bus (NVML: GPU is lost)", who),
		    xstrdup("drain the node and power-cycle it (a reboot is not enough); check PCIe seating, power "
			    "and cooling; RMA if it recurs"));
		return;
	}
	if (g->status == GPU_STATUS_RESET_REQUIRED || g->static_rc == GPU_ERR_RESET_REQUIRED) {
		ADD(r, "gpu.status", "gpu", i, CHECK_FAIL, fmt("%s needs a reset", who),
		    fmt("drain it and reset it: nvidia-smi -r -i %d", i));
		return;
	}
	if (g->static_rc != GPU_OK) {
		ADD(r, "gpu.status", "gpu", i, CHECK_FAIL,
		    fmt("cannot read GPU %d: %s", i, gpu_rc_name(g->static_rc)),
		    xstrdup("read dmesg for NVRM errors on this GPU"));
		return;
	}
	ADD(r, "gpu.status", "gpu", i, CHECK_OK,
	    fmt("%s, %s, %s", name, GPU_STATIC_HAS(st, uuid) ? st->uuid : "no uuid", bus), NULL);

	if (GPU_STATIC_HAS(st, persistence_mode))
		ADD(r, "gpu.persistence", "persistence mode", i, st->persistence_mode ? CHECK_OK : CHECK_WARN,
		    xstrdup(st->persistence_mode ? "on" :
						   "off: the driver tears the GPU down between jobs "
						   "(slow starts, lost settings)"),
		    st->persistence_mode ? NULL : xstrdup("enable nvidia-persistenced (or nvidia-smi -pm 1)"));

	if (GPU_STATIC_HAS(st, mig_mode)) {
		if (GPU_STATIC_HAS(st, mig_mode_pending) && st->mig_mode_pending != st->mig_mode)
			ADD(r, "gpu.mig", "mig mode", i, CHECK_WARN,
			    fmt("MIG %s now, %s after a reset", st->mig_mode ? "on" : "off",
				st->mig_mode_pending ? "on" : "off"),
			    fmt("drain the GPU and reset it (nvidia-smi -r -i %d) to apply the MIG change", i));
		else if (st->mig_mode) {
			size_t k;
			char list[256] = "";
			for (k = 0; k < g->nmig; k++) {
				size_t used = strlen(list);
				snprintf(list + used, sizeof(list) - used, "%sGI %u %.0f GiB", k ? ", " : "",
					 g->mig[k].gpu_instance,
					 g->mig[k].memory_valid ? g->mig[k].memory_total_bytes / GIB : 0.0);
			}
			ADD(r, "gpu.mig", "mig mode", i, CHECK_OK,
			    fmt("MIG on, %zu instance%s%s%s", g->nmig, g->nmig == 1 ? "" : "s",
				g->nmig ? ": " : "", list),
			    NULL);
		} else
			ADD(r, "gpu.mig", "mig mode", i, CHECK_OK, xstrdup("MIG off"), NULL);
	}

	if (GPU_STATIC_HAS(st, ecc_mode)) {
		if (GPU_STATIC_HAS(st, ecc_mode_pending) && st->ecc_mode_pending != st->ecc_mode)
			ADD(r, "gpu.ecc_mode", "ecc mode", i, CHECK_WARN,
			    fmt("ECC %s now, %s after a reset", st->ecc_mode ? "on" : "off",
				st->ecc_mode_pending ? "on" : "off"),
			    fmt("reset the GPU (nvidia-smi -r -i %d) to apply the ECC change", i));
		else if (!st->ecc_mode)
			ADD(r, "gpu.ecc_mode", "ecc mode", i, CHECK_WARN,
			    xstrdup("ECC off: memory errors go undetected"),
			    fmt("nvidia-smi -e 1 -i %d, then reset the GPU", i));
		else
			ADD(r, "gpu.ecc_mode", "ecc mode", i, CHECK_OK, xstrdup("ECC on"), NULL);
	}

	if (GPU_SAMPLE_HAS(s, ecc_dbe_volatile) || GPU_SAMPLE_HAS(s, ecc_dbe_aggregate)) {
		unsigned long long dv = s->ecc_dbe_volatile, da = s->ecc_dbe_aggregate;
		unsigned long long sv = s->ecc_sbe_volatile, sa = s->ecc_sbe_aggregate;
		if (dv > 0)
			ADD(r, "gpu.ecc_errors", "ecc errors", i, CHECK_FAIL,
			    fmt("%llu uncorrectable (double-bit) ECC error%s since the driver loaded (%llu lifetime), "
				"%llu corrected",
				dv, dv == 1 ? "" : "s", da, sv),
			    fmt("drain the GPU and reset it (nvidia-smi -r -i %d); the row remapping decides if it "
				"stays in service",
				i));
		else if (da > 0)
			ADD(r, "gpu.ecc_errors", "ecc errors", i, CHECK_WARN,
			    fmt("%llu uncorrectable ECC error%s in the GPU's lifetime, none since the driver loaded",
				da, da == 1 ? "" : "s"),
			    xstrdup("watch the trend; remapped rows show whether it was repaired"));
		else
			ADD(r, "gpu.ecc_errors", "ecc errors", i, CHECK_OK,
			    fmt("no uncorrectable errors; %llu corrected (%llu lifetime)", sv, sa), NULL);
	}

	/* pre-Ampere page retirement; NVIDIA replaces a board at 60+ retired pages (R) */
	if (GPU_SAMPLE_HAS(s, retired_pages_dbe) || GPU_SAMPLE_HAS(s, retired_pages_pending)) {
		unsigned total = s->retired_pages_dbe + s->retired_pages_sbe;
		if (GPU_SAMPLE_HAS(s, retired_pages_pending) && s->retired_pages_pending)
			ADD(r, "gpu.retired_pages", "retired pages", i, CHECK_WARN,
			    fmt("%u retired, more pending until a reset", total),
			    fmt("reset the GPU (nvidia-smi -r -i %d) to retire the pending pages", i));
		else if (total >= 60)
			ADD(r, "gpu.retired_pages", "retired pages", i, CHECK_FAIL,
			    fmt("%u pages retired (%u double-bit)", total, s->retired_pages_dbe),
			    xstrdup("the board is near its retirement limit: plan an RMA"));
		else
			ADD(r, "gpu.retired_pages", "retired pages", i, CHECK_OK,
			    fmt("%u retired (%u double-bit)", total, s->retired_pages_dbe), NULL);
	}

	if (GPU_SAMPLE_HAS(s, remapped_rows_pending)) {
		if (s->remapped_rows_failure)
			ADD(r, "gpu.remapped_rows", "row remapping", i, CHECK_FAIL,
			    fmt("row remapping failed (%u uncorrectable, %u correctable rows remapped)",
				s->remapped_rows_uncorrectable, s->remapped_rows_correctable),
			    xstrdup("the GPU is out of spare rows: take it out of service and RMA it"));
		else if (s->remapped_rows_pending)
			ADD(r, "gpu.remapped_rows", "row remapping", i, CHECK_FAIL,
			    fmt("a row remap is pending (%u uncorrectable, %u correctable rows remapped)",
				s->remapped_rows_uncorrectable, s->remapped_rows_correctable),
			    fmt("drain the GPU and reset it (nvidia-smi -r -i %d) to apply the remap", i));
		else
			ADD(r, "gpu.remapped_rows", "row remapping", i, CHECK_OK,
			    fmt("%u uncorrectable, %u correctable rows remapped, none pending",
				s->remapped_rows_uncorrectable, s->remapped_rows_correctable),
			    NULL);
	}

	/* temperature against the slowdown threshold; warn within 5 C of it */
	if (GPU_SAMPLE_HAS(s, temp_gpu_c)) {
		char mem[48] = "";
		if (GPU_SAMPLE_HAS(s, temp_mem_c))
			snprintf(mem, sizeof(mem), ", memory %u C", s->temp_mem_c);
		if (GPU_STATIC_HAS(st, temp_slowdown_c) && s->temp_gpu_c >= st->temp_slowdown_c)
			ADD(r, "gpu.temperature", "temperature", i, CHECK_FAIL,
			    fmt("%u C, at or above the %u C slowdown threshold%s", s->temp_gpu_c,
				st->temp_slowdown_c, mem),
			    xstrdup("check the airflow or coolant, fans and inlet temperature"));
		else if (GPU_STATIC_HAS(st, temp_slowdown_c) && s->temp_gpu_c + 5 >= st->temp_slowdown_c)
			ADD(r, "gpu.temperature", "temperature", i, CHECK_WARN,
			    fmt("%u C, within 5 C of the %u C slowdown threshold%s", s->temp_gpu_c,
				st->temp_slowdown_c, mem),
			    xstrdup("check the airflow or coolant before it throttles"));
		else if (GPU_STATIC_HAS(st, temp_mem_max_c) && GPU_SAMPLE_HAS(s, temp_mem_c) &&
			 s->temp_mem_c >= st->temp_mem_max_c)
			ADD(r, "gpu.temperature", "temperature", i, CHECK_FAIL,
			    fmt("memory %u C, at or above its %u C limit", s->temp_mem_c, st->temp_mem_max_c),
			    xstrdup("check the cooling of the memory stacks"));
		else if (GPU_STATIC_HAS(st, temp_slowdown_c))
			ADD(r, "gpu.temperature", "temperature", i, CHECK_OK,
			    fmt("%u C (slowdown at %u C)%s", s->temp_gpu_c, st->temp_slowdown_c, mem), NULL);
		else
			ADD(r, "gpu.temperature", "temperature", i, CHECK_OK, fmt("%u C%s", s->temp_gpu_c, mem),
			    NULL);
	}

	/* active clock event reasons; idle, application clocks and display are not problems */
	if (GPU_SAMPLE_HAS(s, clock_event_reasons)) {
		uint64_t bad = s->clock_event_reasons &
			       ~(GPU_CLOCK_EVENT_GPU_IDLE | GPU_CLOCK_EVENT_APP_CLOCKS |
				 GPU_CLOCK_EVENT_DISPLAY_CLOCKS | GPU_CLOCK_EVENT_SYNC_BOOST);
		uint64_t hw = GPU_CLOCK_EVENT_HW_SLOWDOWN | GPU_CLOCK_EVENT_HW_THERMAL |
			      GPU_CLOCK_EVENT_HW_POWER_BRAKE;
		char names[256] = "";
		uint64_t bit;
		for (bit = 1; bit <= GPU_CLOCK_EVENT_DISPLAY_CLOCKS; bit <<= 1)
			if (s->clock_event_reasons & bit) {
				size_t used = strlen(names);
				snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "",
					 gpu_clock_event_name(bit));
			}
		if (bad & hw)
			ADD(r, "gpu.throttle", "clock throttling", i, CHECK_FAIL,
			    fmt("clocks held down: %s", names),
			    xstrdup((bad & GPU_CLOCK_EVENT_HW_POWER_BRAKE) ?
					    "the board's power brake is asserted: check the PSUs and power cabling" :
					    "hardware slowdown: check cooling and power delivery; a persistent HW slowdown "
					    "at normal temperature is a board fault"));
		else if (bad)
			ADD(r, "gpu.throttle", "clock throttling", i, CHECK_WARN,
			    fmt("clocks held down: %s", names),
			    xstrdup((bad & GPU_CLOCK_EVENT_SW_POWER_CAP) ?
					    "the GPU is at its power limit: raise it (nvidia-smi -pl) or accept the clocks" :
					    "the driver slows the GPU for temperature: improve the cooling"));
		else
			ADD(r, "gpu.throttle", "clock throttling", i, CHECK_OK,
			    fmt("%s", names[0] ? names : "none"), NULL);
	}

	if (GPU_STATIC_HAS(st, power_limit_mw)) {
		double w = s->power_mw / 1000.0, lim = st->power_limit_mw / 1000.0;
		if (GPU_STATIC_HAS(st, power_default_limit_mw) && st->power_limit_mw < st->power_default_limit_mw)
			ADD(r, "gpu.power", "power", i, CHECK_WARN,
			    fmt("limit lowered to %.0f W of the default %.0f W", lim,
				st->power_default_limit_mw / 1000.0),
			    fmt("restore it if unintended: nvidia-smi -pl %.0f -i %d",
				st->power_default_limit_mw / 1000.0, i));
		else if (GPU_SAMPLE_HAS(s, power_mw))
			ADD(r, "gpu.power", "power", i, CHECK_OK, fmt("%.0f W of a %.0f W limit", w, lim), NULL);
	}

	/*
	 * PCIe link: a narrower link than the slot allows is a fault (seating,
	 * riser, slot); a lower generation only matters under load, since an
	 * idle GPU drops its link speed to save power.
	 */
	if (GPU_SAMPLE_HAS(s, pcie_width) && GPU_STATIC_HAS(st, pcie_max_width)) {
		char sys[96] = "";
		int busy = GPU_SAMPLE_HAS(s, util_gpu_pct) && s->util_gpu_pct >= 20;
		if (g->pci.link_valid)
			snprintf(sys, sizeof(sys), "; sysfs: x%d of x%d, gen %d of %d", g->pci.cur_width,
				 g->pci.max_width, g->pci.cur_gen, g->pci.max_gen);
		if (s->pcie_width < st->pcie_max_width)
			ADD(r, "gpu.pcie_link", "pcie link", i, CHECK_FAIL,
			    fmt("x%u of x%u, gen %u of %u%s", s->pcie_width, st->pcie_max_width, s->pcie_gen,
				st->pcie_max_gen, sys),
			    fmt("reseat the GPU and its riser or cable; x%u gives %u%% of the host<->GPU bandwidth",
				s->pcie_width, s->pcie_width * 100 / st->pcie_max_width));
		else if (GPU_STATIC_HAS(st, pcie_max_gen) && s->pcie_gen < st->pcie_max_gen && busy)
			ADD(r, "gpu.pcie_link", "pcie link", i, CHECK_WARN,
			    fmt("gen %u of %u while %u%% busy, x%u%s", s->pcie_gen, st->pcie_max_gen,
				s->util_gpu_pct, s->pcie_width, sys),
			    xstrdup("check the slot's generation in the BIOS and the riser; a busy GPU should train "
				    "at its maximum"));
		else
			ADD(r, "gpu.pcie_link", "pcie link", i, CHECK_OK,
			    fmt("gen %u x%u (max gen %u x%u)%s", s->pcie_gen, s->pcie_width, st->pcie_max_gen,
				st->pcie_max_width,
				s->pcie_gen < st->pcie_max_gen ? ", idle: link speed saved" : ""),
			    NULL);
	}

	/* link-level retries and AER errors */
	if (GPU_SAMPLE_HAS(s, pcie_replay_count) || g->pci.aer_fatal > 0 || g->pci.aer_nonfatal > 0) {
		unsigned long long rep = s->pcie_replay_count;
		long fatal = g->pci.aer_fatal > 0 ? g->pci.aer_fatal : 0,
		     nonfatal = g->pci.aer_nonfatal > 0 ? g->pci.aer_nonfatal : 0;
		if (fatal || nonfatal)
			ADD(r, "gpu.pcie_errors", "pcie errors", i, CHECK_FAIL,
			    fmt("AER: %ld fatal, %ld non-fatal; %llu replays", fatal, nonfatal, rep),
			    xstrdup("reseat the GPU; check the riser/cable and slot; RMA if errors return"));
		else if (rep > 0)
			ADD(r, "gpu.pcie_errors", "pcie errors", i, CHECK_WARN,
			    fmt("%llu PCIe replays (link-level retries)", rep),
			    xstrdup("a marginal link: reseat the GPU and its riser; watch whether the count grows"));
		else
			ADD(r, "gpu.pcie_errors", "pcie errors", i, CHECK_OK, xstrdup("no replays"), NULL);
	}

	if (s->nlinks > 0) {
		unsigned l, up = 0, known = 0;
		unsigned long long crc = 0, rep = 0, rec = 0;
		char down[128] = "";
		for (l = 0; l < s->nlinks; l++) {
			const struct gpu_link_sample *ls = &s->links[l];
			if (GPU_LINK_HAS(ls, active)) {
				known++;
				if (ls->active)
					up++;
				else {
					size_t used = strlen(down);
					snprintf(down + used, sizeof(down) - used, "%s%u", used ? " " : "", l);
				}
			}
			crc += ls->err_crc_flit + ls->err_crc_data;
			rep += ls->err_replay;
			rec += ls->err_recovery;
		}
		if (known && up < known)
			ADD(r, "gpu.nvlink", "nvlink", i, CHECK_FAIL,
			    fmt("%u of %u links up; down: %s", up, known, down),
			    fmt("reset the GPU (nvidia-smi -r -i %d) or reboot; inspect nvidia-smi nvlink -s/-e; "
				"replace the part if it recurs",
				i));
		else if (rec > 0 || crc > 0 || rep > 0)
			ADD(r, "gpu.nvlink", "nvlink", i, CHECK_WARN,
			    fmt("%u links up; errors: %llu CRC, %llu replay, %llu recovery", up, crc, rep, rec),
			    xstrdup("watch the counters (nvidia-smi nvlink -e); growing recovery errors call for a "
				    "reset and then a part replacement"));
		else
			ADD(r, "gpu.nvlink", "nvlink", i, CHECK_OK, fmt("%u links up, no errors", up), NULL);
	}

	/* processes and memory that no process accounts for */
	if (g->procs_rc == GPU_OK) {
		char list[256] = "";
		size_t k;
		uint64_t sum = 0;
		for (k = 0; k < g->nprocs; k++) {
			const struct check_proc *p = &g->procs[k];
			size_t used = strlen(list);
			if (p->used_valid)
				sum += p->used_bytes;
			if (used < sizeof(list) - 2)
				snprintf(list + used, sizeof(list) - used, "%s%u %s%s%s %.1f GiB", k ? ", " : "",
					 p->pid,
					 p->visible         ? p->comm :
					 p->error == ENOENT ? "(other namespace)" :
							      "(unreadable)",
					 p->visible ? "/" : "", p->visible ? p->user : "",
					 p->used_valid ? p->used_bytes / GIB : 0.0);
		}
		ADD(r, "gpu.processes", "processes", i, CHECK_OK,
		    g->nprocs ? fmt("%zu: %s", g->nprocs, list) : xstrdup("none"), NULL);
		/*
		 * Memory used beyond what processes hold: more than 1 GiB (a CUDA
		 * context is ~0.3-0.6 GiB and is counted in its process) means a
		 * context that outlived its process or a process NVML cannot show.
		 */
		if (GPU_SAMPLE_HAS(s, fb_used_bytes)) {
			double orphan = (double)s->fb_used_bytes - (double)sum;
			if (orphan > GIB)
				ADD(r, "gpu.memory", "memory", i, CHECK_WARN,
				    fmt("%.1f GiB in use, %.1f GiB by no listed process", s->fb_used_bytes / GIB,
					orphan / GIB),
				    fmt("find the holder: fuser -v /dev/nvidia%u (a process in another PID namespace, a "
					"zombie, or a leaked context); reset the GPU if none",
					GPU_STATIC_HAS(st, minor_number) ? st->minor_number : g->index));
			else
				ADD(r, "gpu.memory", "memory", i, CHECK_OK,
				    fmt("%.1f of %.1f GiB in use", s->fb_used_bytes / GIB,
					GPU_SAMPLE_HAS(s, fb_total_bytes) ? s->fb_total_bytes / GIB : 0.0),
				    NULL);
		}
	}

	/* an NVML call that takes over a second means the driver is stuck behind the GPU */
	if (GPU_SAMPLE_HAS(s, slowest_call_ns) && s->slowest_call_ns > 1000000000ull)
		ADD(r, "gpu.nvml_latency", "nvml latency", i, CHECK_WARN,
		    fmt("%s took %.1f s (the whole reading %.1f s)", s->slowest_call, s->slowest_call_ns / 1e9,
			s->duration_ns / 1e9),
		    xstrdup("a hung GPU or an overloaded driver: read dmesg for NVRM errors; reset the GPU if it "
			    "persists"));
}

/* ---- the whole check ---- */

struct check_report *check_run(const struct check_opts *o)
{
	struct check_report *r = xcalloc(1, sizeof(*r));
	const struct gpu_backend *b = gpu_backend_find("nvml");
	struct gpu_init_opts io = {o->nvml_path};
	struct diag err;
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	unsigned i;

	r->root = xstrdup(o->root ? o->root : "");
	r->cuda_visible_devices = xstrdup(cvd ? cvd : "");
	host_read_driver(o->root, &r->driver);
	host_read_modules(o->root, &r->modules);
	host_read_blacklist(o->root, &r->blacklist);
	host_probe_container(o->root, &r->container);
	r->nib = host_ib_ports(o->root, &r->ib, &r->ib_unreadable);
	r->nvidia_pci = xcalloc(64, sizeof(*r->nvidia_pci));
	r->n_nvidia_pci = host_pci_nvidia(o->root, r->nvidia_pci, 64, &r->pci_unreadable);

	r->kmsg_path = o->kmsg_path ? xstrdup(o->kmsg_path) : host_path(o->root, "/dev/kmsg");
	diag_clear(&err);
	r->kmsg_rc = host_read_xids_counted(r->kmsg_path, &r->xids, &r->nxids, &r->xids_dropped, &err);
	r->kmsg_error = xstrdup(r->kmsg_rc < 0 ? err.msg : "");

	r->backend_rc = b->init(&io);
	{
		const char *lib = b->library(), *why = r->backend_rc == GPU_OK ? NULL : b->last_error();
		r->nvml_library = xstrdup(lib ? lib : "");
		r->backend_error = xstrdup(why ? why : "");
		library_file_version(r->nvml_library, r->nvml_file_version, sizeof(r->nvml_file_version));
	}
	if (r->backend_rc == GPU_OK)
		read_gpus(r, b, o);
	if (!o->skip_libs) {
		host_probe_libs(o->lib_dirs, r->libs);
		r->libs_probed = 1;
	}
	if (o->python) {
		r->torch_rc = host_probe_torch(o->python, o->python_timeout_ms ? o->python_timeout_ms : 60000,
					       &r->torch);
		r->torch_probed = 1;
	}
	b->shutdown();

	compat_load(NULL);
	rules_driver(r);
	rules_count(r);
	rules_libs(r);
	rules_arch(r);
	rules_torch(r);
	rules_container(r);
	rules_xids(r);
	for (i = 0; i < r->ngpus; i++)
		rules_gpu(r, &r->gpus[i]);
	{
		struct check_topo *t = check_topo_build(r);
		size_t k;
		for (k = 0; k < t->nitems; k++) {
			ADD(r, t->items[k].id, t->items[k].title, t->items[k].gpu, t->items[k].status,
			    t->items[k].finding, t->items[k].remedy);
			t->items[k].finding = t->items[k].remedy = NULL;
		}
		check_topo_free(t);
	}
	return r;
}

/* Frees n checks' text and the array. */
static void free_items(struct check_item *items, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(items[i].finding);
		free(items[i].remedy);
	}
	free(items);
}

void check_report_free(struct check_report *r)
{
	size_t i;
	if (!r)
		return;
	free_items(r->items, r->nitems);
	for (i = 0; i < r->ngpus; i++) {
		free(r->gpus[i].procs);
		free(r->gpus[i].mig);
		host_pci_release(&r->gpus[i].pci);
	}
	free(r->gpus);
	free(r->events);
	host_blacklist_release(&r->blacklist);
	host_container_release(&r->container);
	host_ib_ports_free(r->ib, r->nib);
	host_unreadable_release(&r->ib_unreadable);
	free(r->nvidia_pci);
	host_unreadable_release(&r->pci_unreadable);
	host_xids_free(r->xids, r->nxids);
	host_libs_release(r->libs);
	host_torch_release(&r->torch);
	free(r->backend_error);
	free(r->nvml_library);
	free(r->root);
	free(r->kmsg_error);
	free(r->kmsg_path);
	free(r->cuda_visible_devices);
	free(r);
}

void check_count(const struct check_report *r, size_t n[4])
{
	size_t i;
	n[0] = n[1] = n[2] = n[3] = 0;
	for (i = 0; i < r->nitems; i++)
		n[r->items[i].status]++;
}

void check_report_add(struct check_report *r, const char *id, const char *title, int gpu, enum check_status st,
		      char *finding, char *remedy)
{
	ADD(r, id, title, gpu, st, finding, remedy);
}

int check_exit_code(const struct check_report *r)
{
	size_t n[4];
	if (r->backend_rc == GPU_ERR_NO_LIBRARY || r->backend_rc == GPU_ERR_NO_DRIVER ||
	    (r->backend_rc == GPU_OK && r->ngpus == 0))
		return EXIT_ENV;
	check_count(r, n);
	return n[CHECK_WARN] || n[CHECK_FAIL] ? EXIT_FINDINGS : EXIT_OK;
}

/* ---- topology ---- */

/* Links of GPU a that go straight to GPU b, and links to any NVSwitch. */
static void nvlink_counts(const struct check_gpu *a, const struct check_gpu *b, unsigned *direct, unsigned *sw)
{
	unsigned l;
	*direct = *sw = 0;
	for (l = 0; l < a->st.nlinks && l < a->s.nlinks; l++) {
		const struct gpu_link_static *ls = &a->st.links[l];
		if (GPU_LINK_HAS(&a->s.links[l], active) && !a->s.links[l].active)
			continue;
		if (GPU_BIT_TEST(ls->valid, gpu_link_static_remote_type_valid) &&
		    ls->remote_type == GPU_LINK_REMOTE_SWITCH)
			(*sw)++;
		else if (b && GPU_BIT_TEST(ls->valid, gpu_link_static_remote_bus_id_valid) &&
			 !strcasecmp(ls->remote_bus_id, b->st.pci_bus_id))
			(*direct)++;
	}
}

static int topo_rank(const char *cell)
{
	static const char *const order[] = {"X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS"};
	size_t i;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strncmp(cell, order[i], strlen(order[i])))
			return (int)i;
	return 99;
}

struct check_topo *check_topo_build(const struct check_report *r)
{
	struct check_topo *t = xcalloc(1, sizeof(*t));
	const struct host_pci **pci;
	size_t n, i, j, nnic = 0, nactive = 0, unread = 0;
	const struct host_ib_port **nic;

	nic = xcalloc(r->nib ? r->nib : 1, sizeof(*nic));
	for (i = 0; i < r->nib; i++) {
		/* one column per adapter (its first port) */
		int seen = 0;
		for (j = 0; j < nnic; j++)
			if (!strcmp(nic[j]->device, r->ib[i].device))
				seen = 1;
		if (!seen)
			nic[nnic++] = &r->ib[i];
		if (!strcmp(r->ib[i].state, "ACTIVE"))
			nactive++;
	}
	t->ngpus = r->ngpus;
	n = t->n = r->ngpus + nnic;
	t->names = xcalloc(n ? n : 1, sizeof(*t->names));
	t->labels = xcalloc(n ? n : 1, sizeof(*t->labels));
	t->cells = xcalloc(n ? n * n : 1, sizeof(*t->cells));
	t->numa = xcalloc(n ? n : 1, sizeof(*t->numa));
	t->cpus = xcalloc(n ? n : 1, sizeof(*t->cpus));
	pci = xcalloc(n ? n : 1, sizeof(*pci));
	for (i = 0; i < n; i++) {
		if (i < r->ngpus) {
			snprintf(t->names[i], sizeof(t->names[i]), "GPU%zu", i);
			snprintf(t->labels[i], sizeof(t->labels[i]), "%s", r->gpus[i].st.pci_bus_id);
			pci[i] = &r->gpus[i].pci;
		} else {
			snprintf(t->names[i], sizeof(t->names[i]), "NIC%zu", i - r->ngpus);
			snprintf(t->labels[i], sizeof(t->labels[i]), "%s", nic[i - r->ngpus]->device);
			pci[i] = &nic[i - r->ngpus]->pcidev;
		}
		t->numa[i] = pci[i]->numa_node;
		t->cpus[i] = pci[i]->cpulist ? xstrdup(pci[i]->cpulist) : NULL;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			char *cell = t->cells[i * n + j];
			if (i == j) {
				snprintf(cell, 16, "X");
				continue;
			}
			if (i < r->ngpus && j < r->ngpus) {
				unsigned da, sa, db, sb;
				nvlink_counts(&r->gpus[i], &r->gpus[j], &da, &sa);
				nvlink_counts(&r->gpus[j], &r->gpus[i], &db, &sb);
				/* through NVSwitches every pair gets the smaller side's links */
				if (da || db) {
					snprintf(cell, 16, "NV%u", da > db ? da : db);
					continue;
				}
				if (sa && sb) {
					snprintf(cell, 16, "NV%u", sa < sb ? sa : sb);
					continue;
				}
			}
			snprintf(cell, 16, "%s", host_topo_name(host_topo_pci(pci[i], pci[j])));
		}

	/* GPUDirect RDMA: a GPU whose nearest NIC is across the CPU interconnect */
	if (nnic && r->ngpus) {
		for (i = 0; i < r->ngpus; i++) {
			int best = 99;
			size_t bj = 0;
			if (!gpu_usable(&r->gpus[i]))
				continue;
			for (j = r->ngpus; j < n; j++)
				if (topo_rank(t->cells[i * n + j]) < best) {
					best = topo_rank(t->cells[i * n + j]);
					bj = j;
				}
			/*
			 * A GPU or NIC whose sysfs entry could not be read has no path:
			 * the check is skipped naming the entry (so it is still counted),
			 * and "across the CPU interconnect" needs every NIC's path.
			 */
			const struct host_unreadable *u = &r->gpus[i].pci.unreadable;
			for (j = r->ngpus; j < n && !u->error; j++)
				if (!strcmp(t->cells[i * n + j], "?"))
					u = &pci[j]->unreadable;
			if (u->error && (best == 99 || best == 6))
				add(&t->items, &t->nitems, "topo.gpudirect", "gpudirect rdma", (int)i, CHECK_SKIP,
				    host_unreadable_text(u), NULL);
			else if (best == 99)
				add(&t->items, &t->nitems, "topo.gpudirect", "gpudirect rdma", (int)i, CHECK_SKIP,
				    fmt("no PCIe path to a NIC: %s",
					r->gpus[i].pci.present ?
						"the NICs' PCI devices are not in sysfs" :
						"the GPU's PCI device is not in /sys/bus/pci/devices"),
				    NULL);
			else if (best == 6)
				add(&t->items, &t->nitems, "topo.gpudirect", "gpudirect rdma", (int)i, CHECK_WARN,
				    fmt("nearest NIC %s is across the CPU interconnect (SYS): no GPUDirect RDMA",
					t->labels[bj]),
				    xstrdup("pair each GPU with a NIC on its own PCIe switch or socket, or pin the job's "
					    "NIC per GPU (NCCL_IB_HCA)"));
			else
				add(&t->items, &t->nitems, "topo.gpudirect", "gpudirect rdma", (int)i, CHECK_OK,
				    fmt("nearest NIC %s: %s", t->labels[bj], t->cells[i * n + bj]), NULL);
		}
	}
	if (r->nib) {
		for (i = 0; i < r->nib; i++) {
			const struct host_ib_port *p = &r->ib[i];
			int ok = !strcmp(p->state, "ACTIVE");
			if (!ok && p->unreadable.error) {
				/* a state that could not be read is no port down */
				char lead[64];
				snprintf(lead, sizeof(lead), "%s port %d", p->device, p->port);
				add(&t->items, &t->nitems, "net.rdma_port", "rdma port", -1, CHECK_SKIP,
				    skip_text(lead, &p->unreadable), NULL);
				unread++;
				continue;
			}
			add(&t->items, &t->nitems, "net.rdma_port", "rdma port", -1, ok ? CHECK_OK : CHECK_WARN,
			    fmt("%s port %d %s (%s), %s, %s", p->device, p->port, p->state[0] ? p->state : "?",
				p->phys_state[0] ? p->phys_state : "?", p->rate[0] ? p->rate : "rate ?",
				p->link_layer[0] ? p->link_layer : "?"),
			    ok ? NULL :
				 xstrdup("check the cable and the switch port; NCCL skips ports that are down"));
		}
		if (!nactive && (unread || r->ib_unreadable.error))
			add(&t->items, &t->nitems, "net.nccl_transport", "nccl transport", -1, CHECK_SKIP,
			    unread ? fmt("no RDMA port read as ACTIVE; %zu could not be read", unread) :
				     host_unreadable_text(&r->ib_unreadable),
			    NULL);
		else if (!nactive)
			add(&t->items, &t->nitems, "net.nccl_transport", "nccl transport", -1, CHECK_WARN,
			    xstrdup("no RDMA port is ACTIVE: multi-node NCCL falls back to TCP sockets"),
			    xstrdup("bring an InfiniBand/RoCE port up (ibstat), or expect socket bandwidth"));
		else if (r->modules.readable && !r->modules.nvidia_peermem && r->modules.nvidia)
			add(&t->items, &t->nitems, "net.nccl_transport", "nccl transport", -1, CHECK_WARN,
			    fmt("%zu RDMA port%s up, but nvidia_peermem is not loaded: GPUDirect RDMA only "
				"through DMA-BUF",
				nactive, nactive == 1 ? "" : "s"),
			    xstrdup("modprobe nvidia-peermem (and list it in /etc/modules-load.d)"));
		else
			add(&t->items, &t->nitems, "net.nccl_transport", "nccl transport", -1, CHECK_OK,
			    fmt("%zu RDMA port%s up for NCCL", nactive, nactive == 1 ? "" : "s"), NULL);
	} else if (r->ngpus) {
		add(&t->items, &t->nitems, "net.nccl_transport", "nccl transport", -1, CHECK_SKIP,
		    r->ib_unreadable.error ?
			    host_unreadable_text(&r->ib_unreadable) :
			    xstrdup("no RDMA NIC (InfiniBand/RoCE): multi-node NCCL would use TCP sockets"),
		    NULL);
	}
	free(pci);
	free(nic);
	return t;
}

void check_topo_free(struct check_topo *t)
{
	size_t i;
	if (!t)
		return;
	free_items(t->items, t->nitems);
	free(t->names);
	free(t->labels);
	free(t->cells);
	free(t->numa);
	for (i = 0; i < t->n; i++)
		free(t->cpus[i]);
	free(t->cpus);
	free(t);
}
