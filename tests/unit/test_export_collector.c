/*
 * The collector against a backend defined here: a GPU whose library call
 * hangs stalls only itself and fails /health's condition, a lost GPU goes to
 * gpu_up 0, events and kernel-log lines become XID counters, and stopping
 * never waits forever on a hung call.  Also --listen parsing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "export/collector.h"
#include "export/server.h"

struct gpu_device {
	unsigned index;
};

static struct gpu_device devs[3] = {{0}, {1}, {2}};
static struct gpu_device *const devp[3] = {&devs[0], &devs[1], &devs[2]};
static pthread_mutex_t block_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t block_cond = PTHREAD_COND_INITIALIZER;
static int block_gpu1; /* GPU 1's sample() waits while set */
static int in_block;
static int lose_gpu2;   /* GPU 2 answers "lost" */
static int xid_pending; /* events() reports one XID 13 on GPU 0 */

static int f_init(const struct gpu_init_opts *o)
{
	(void)o;
	return GPU_OK;
}
static void f_shutdown(void)
{
}
static const char *f_last_error(void)
{
	return "fake failure";
}
static int f_enumerate(struct gpu_device *const **d, unsigned *n)
{
	*d = devp;
	*n = 3;
	return GPU_OK;
}

static int f_static(struct gpu_device *d, struct gpu_static *st)
{
	memset(st, 0, sizeof(*st));
	GPU_STATIC_SET(st, index, d->index);
	GPU_STATIC_SET(st, pci_domain, 0);
	GPU_STATIC_SET(st, pci_bus, 0x18 + d->index);
	GPU_STATIC_SET(st, pci_device, 0);
	snprintf(st->uuid, sizeof(st->uuid), "GPU-fake-%u", d->index);
	GPU_STATIC_MARK(st, uuid);
	return GPU_OK;
}

static int f_sample(struct gpu_device *d, unsigned what, struct gpu_sample *s)
{
	memset(s, 0, sizeof(*s));
	GPU_SAMPLE_SET(s, timestamp_ns, (uint64_t)(mono_now() * 1e9));
	if (d->index == 1) {
		pthread_mutex_lock(&block_lock);
		in_block = block_gpu1;
		while (block_gpu1)
			pthread_cond_wait(&block_cond, &block_lock);
		in_block = 0;
		pthread_mutex_unlock(&block_lock);
	}
	if (d->index == 2 && lose_gpu2)
		return GPU_ERR_LOST;
	if (what & GPU_SAMPLE_BASIC)
		GPU_SAMPLE_SET(s, util_gpu_pct, 50 + d->index);
	if (what & GPU_SAMPLE_PCIE_THROUGHPUT) {
		GPU_SAMPLE_SET(s, pcie_tx_bytes_per_s, 1000);
		GPU_SAMPLE_SET(s, pcie_rx_bytes_per_s, 2000);
	}
	return GPU_OK;
}

static int f_processes(struct gpu_device *d, struct gpu_process **p, size_t *n)
{
	(void)d;
	*p = NULL;
	*n = 0;
	return GPU_OK;
}

static int f_events(struct gpu_event *out, size_t max, unsigned timeout_ms)
{
	struct timespec ts;
	if (__atomic_exchange_n(&xid_pending, 0, __ATOMIC_ACQ_REL) && max) {
		memset(out, 0, sizeof(*out));
		out->gpu_index = 0;
		out->type = GPU_EVENT_XID;
		out->code = 13;
		clock_gettime(CLOCK_REALTIME, &ts);
		out->time_ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		return 1;
	}
	usleep(timeout_ms > 50 ? 50000 : timeout_ms * 1000);
	return 0;
}

static enum gpu_status f_status(struct gpu_device *d)
{
	return d->index == 2 && lose_gpu2 ? GPU_STATUS_LOST : GPU_STATUS_OK;
}

static const struct gpu_backend fake = {
	.name = "fake",
	.init = f_init,
	.shutdown = f_shutdown,
	.last_error = f_last_error,
	.enumerate = f_enumerate,
	.static_info = f_static,
	.sample = f_sample,
	.processes = f_processes,
	.mig_instances = NULL,
	.events = f_events,
	.status = f_status,
	.library = NULL,
};

static void set_block(int on)
{
	pthread_mutex_lock(&block_lock);
	block_gpu1 = on;
	pthread_cond_broadcast(&block_cond);
	pthread_mutex_unlock(&block_lock);
}

static struct collector_opts opts(const char *kmsg)
{
	struct collector_opts o;
	memset(&o, 0, sizeof(o));
	o.backend = &fake;
	o.devs = devp;
	o.ndevs = 3;
	o.interval_s = 0.05;
	o.timeout_s = 0.3;
	o.xid_window_s = 300;
	o.names = NAMES_NATIVE;
	o.pcie_throughput = 1;
	o.events = 1;
	o.kmsg_path = kmsg;
	o.hostname = "testhost";
	return o;
}

/* Waits up to 5 s for a snapshot whose text body contains want (and is healthy or not, as asked). */
static int wait_for(struct collector *c, const char *want, int healthy)
{
	double end = mono_now() + 5;
	while (mono_now() < end) {
		struct snapshot *s = collector_acquire(c);
		int ok = s && strstr(s->body[EXPO_TEXT], want) && (healthy < 0 || s->healthy == healthy);
		snapshot_release(s);
		if (ok)
			return 1;
		usleep(20000);
	}
	return 0;
}

static void test_stall_and_recover(void **state)
{
	struct collector *c;
	struct snapshot *s;
	char err[256];
	struct collector_opts o = opts(NULL);
	(void)state;
	set_block(0);
	lose_gpu2 = 0;
	c = collector_start(&o, err, sizeof(err));
	assert_non_null(c);
	s = collector_acquire(c);
	assert_non_null(s);
	/* the first collection is complete: PCIe throughput from the slow pass included */
	assert_non_null(strstr(s->body[EXPO_TEXT],
			       "gpu_pcie_transmit_bytes_per_second{gpu=\"1\",uuid=\"GPU-fake-1\"} 1000\n"));
	assert_true(s->healthy);
	snapshot_release(s);

	set_block(1);
	assert_true(wait_for(c, "gpu_up{gpu=\"1\",uuid=\"GPU-fake-1\"} 0\n", 0));
	s = collector_acquire(c);
	/* the other GPUs keep flowing */
	assert_non_null(strstr(s->body[EXPO_TEXT], "gpu_up{gpu=\"0\",uuid=\"GPU-fake-0\"} 1\n"));
	assert_non_null(strstr(s->body[EXPO_TEXT], "gpu_utilization_ratio{gpu=\"2\",uuid=\"GPU-fake-2\"} 0.52\n"));
	assert_null(strstr(s->body[EXPO_TEXT], "gpu_utilization_ratio{gpu=\"1\""));
	assert_non_null(strstr(s->health, "gpu 1: a library call has not returned"));
	assert_non_null(strstr(s->body[EXPO_TEXT], "gpuscope_exporter_stalled_calls_total 1\n"));
	snapshot_release(s);

	set_block(0);
	assert_true(wait_for(c, "gpu_up{gpu=\"1\",uuid=\"GPU-fake-1\"} 1\n", 1));
	assert_int_equal(collector_stop(c, 2.0), 1);
}

static void test_lost_and_events(void **state)
{
	struct collector *c;
	char err[256], path[] = "/tmp/gpuscope-kmsg-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct collector_opts o;
	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	/* an old XID from the kernel log of GPU 1 (bus 0x19), and one of a bus no GPU has */
	fprintf(f, "4,100,1000000,-;NVRM: Xid (PCI:0000:19:00): 31, pid=42, name=python3, MMU Fault\n");
	fprintf(f, "[    2.000000] NVRM: Xid (PCI:0000:99:00): 79, GPU has fallen off the bus.\n");
	fclose(f);
	o = opts(path);
	set_block(0);
	lose_gpu2 = 1;
	c = collector_start(&o, err, sizeof(err));
	assert_non_null(c);
	assert_true(wait_for(c, "gpu_lost{gpu=\"2\",uuid=\"GPU-fake-2\"} 1\n", -1));
	assert_true(wait_for(c, "gpu_up{gpu=\"2\",uuid=\"GPU-fake-2\"} 0\n", 1));
	/* a lost GPU is not a stale exporter: still healthy */
	assert_true(wait_for(c, "gpu_xid_errors_total{gpu=\"1\",uuid=\"GPU-fake-1\",xid=\"31\"} 1\n", 1));
	assert_true(wait_for(c, "gpuscope_exporter_xid_unmatched_total 1\n", -1));
	assert_true(wait_for(c, "gpuscope_exporter_xid_source_up{source=\"kmsg\"} 1\n", -1));
	__atomic_store_n(&xid_pending, 1, __ATOMIC_RELEASE);
	assert_true(wait_for(c, "gpu_xid_errors_total{gpu=\"0\",uuid=\"GPU-fake-0\",xid=\"13\"} 1\n", -1));
	assert_true(wait_for(c, "gpu_xid_last_code{gpu=\"0\",uuid=\"GPU-fake-0\"} 13\n", -1));
	/* a line appended to the log later is read too */
	f = fopen(path, "a");
	fprintf(f, "6,101,1000001,-;NVRM: Xid (PCI:0000:19:00): 31, pid=43, name=python3, MMU Fault\n");
	fclose(f);
	assert_true(wait_for(c, "gpu_xid_errors_total{gpu=\"1\",uuid=\"GPU-fake-1\",xid=\"31\"} 2\n", -1));
	assert_int_equal(collector_stop(c, 2.0), 1);
	unlink(path);
	lose_gpu2 = 0;
}

static void test_stop_with_hung_call(void **state)
{
	struct collector *c;
	char err[256];
	struct collector_opts o = opts(NULL);
	double t0;
	(void)state;
	set_block(0);
	c = collector_start(&o, err, sizeof(err));
	assert_non_null(c);
	set_block(1);
	assert_true(wait_for(c, "gpu_up{gpu=\"1\",uuid=\"GPU-fake-1\"} 0\n", 0));
	t0 = mono_now();
	/* returns within the grace time, reporting that a call is still inside the library */
	assert_int_equal(collector_stop(c, 0.3), 0);
	assert_true(mono_now() - t0 < 2.0);
	set_block(0); /* let the worker finish; the collector was left for it */
	usleep(100000);
}

static void test_listen_parse(void **state)
{
	struct listen_addr a;
	char why[256];
	(void)state;
	assert_int_equal(listen_addr_parse(":9400", &a, why, sizeof(why)), 0);
	assert_true(a.any);
	assert_int_equal(a.port, 9400);
	assert_int_equal(listen_addr_parse("127.0.0.1:9400", &a, why, sizeof(why)), 0);
	assert_int_equal(a.ss.ss_family, AF_INET);
	assert_false(a.any);
	assert_int_equal(ntohs(((struct sockaddr_in *)&a.ss)->sin_port), 9400);
	assert_int_equal(listen_addr_parse("[::1]:9400", &a, why, sizeof(why)), 0);
	assert_int_equal(a.ss.ss_family, AF_INET6);
	assert_int_equal(listen_addr_parse("0.0.0.0:0", &a, why, sizeof(why)), 0);
	assert_int_equal(a.port, 0);
	assert_int_equal(listen_addr_parse("localhost:9400", &a, why, sizeof(why)), 0);
	assert_int_equal(listen_addr_parse("9400", &a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "use :9400"));
	assert_int_equal(listen_addr_parse(":65536", &a, why, sizeof(why)), -1);
	assert_int_equal(listen_addr_parse(":-1", &a, why, sizeof(why)), -1);
	assert_int_equal(listen_addr_parse(":", &a, why, sizeof(why)), -1);
	assert_int_equal(listen_addr_parse("::1:9400", &a, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "brackets"));
	assert_int_equal(listen_addr_parse("[::1]", &a, why, sizeof(why)), -1);
	assert_int_equal(listen_addr_parse("[zz]:1", &a, why, sizeof(why)), -1);
	assert_int_equal(listen_addr_parse("bad host!:80", &a, why, sizeof(why)), -1);
	assert_int_equal(listen_addr_parse("", &a, why, sizeof(why)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listen_parse),
		cmocka_unit_test(test_stall_and_recover),
		cmocka_unit_test(test_lost_and_events),
		cmocka_unit_test(test_stop_with_hung_call),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
