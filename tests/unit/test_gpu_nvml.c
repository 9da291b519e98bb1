/*
 * The NVML backend against the fake libnvidia-ml.so.1 and its scenarios
 * (tests/fake-nvml/scenarios/).  Each test loads the library afresh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"

#define MIB (1024ull * 1024ull)

static const struct gpu_backend *B;
static struct gpu_device *const *devs;
static unsigned ndevs;

static const char *fake_lib(void)
{
	static char path[4096];
	const char *b = getenv("BUILDDIR");
	snprintf(path, sizeof(path), "%s/fake-nvml/libnvidia-ml.so.1", b ? b : ".");
	return path;
}

static int start(const char *scenario)
{
	static char path[4096];
	struct gpu_init_opts o = {fake_lib()};
	const char *s = getenv("SRCDIR");
	int rc;
	if (scenario) {
		snprintf(path, sizeof(path), "%s/tests/fake-nvml/scenarios/%s.ini", s ? s : "..", scenario);
		setenv("FAKE_NVML_SCENARIO", path, 1);
	} else {
		unsetenv("FAKE_NVML_SCENARIO");
	}
	B = gpu_backend_find("nvml");
	assert_non_null(B);
	rc = B->init(&o);
	if (rc == GPU_OK)
		assert_int_equal(B->enumerate(&devs, &ndevs), GPU_OK);
	return rc;
}

static void stop(void)
{
	B->shutdown();
	devs = NULL;
	ndevs = 0;
}

/* Runs after every test, also a failed one, so the next starts clean. */
static int teardown(void **state)
{
	(void)state;
	if (B)
		stop();
	return 0;
}

static void test_no_library(void **state)
{
	struct gpu_init_opts o = {"/nonexistent/libnvidia-ml.so.1"};
	(void)state;
	B = gpu_backend_find("nvml");
	assert_int_equal(B->init(&o), GPU_ERR_NO_LIBRARY);
	assert_non_null(strstr(B->last_error(), "cannot load '/nonexistent/libnvidia-ml.so.1'"));
	assert_null(B->library());
	B->shutdown();
	assert_null(gpu_backend_find("amdsmi"));
	assert_string_equal(gpu_backends[0]->name, "nvml");
}

static void test_no_driver(void **state)
{
	(void)state;
	assert_int_equal(start(NULL), GPU_ERR_NO_DRIVER);
	assert_non_null(strstr(B->last_error(), "Driver Not Loaded"));
	B->shutdown();
}

static void test_version_mismatch(void **state)
{
	(void)state;
	assert_int_equal(start("driver-mismatch"), GPU_ERR_VERSION_MISMATCH);
	assert_non_null(strstr(B->last_error(), "different driver versions"));
	B->shutdown();
}

static void test_no_gpu(void **state)
{
	(void)state;
	assert_int_equal(start("no-gpu"), GPU_OK);
	assert_int_equal(ndevs, 0);
	stop();
}

static void test_dgx_h100(void **state)
{
	struct gpu_static st;
	struct gpu_sample s;
	struct gpu_process *p;
	size_t np;
	const char *lib;
	unsigned i;
	(void)state;
	assert_int_equal(start("dgx-h100"), GPU_OK);
	assert_int_equal(ndevs, 8);
	lib = B->library();
	assert_non_null(lib);
	/* dladdr names the file the soname link points to */
	assert_non_null(strstr(lib, "libnvidia-ml.so"));

	assert_int_equal(B->static_info(devs[3], &st), GPU_OK);
	assert_true(GPU_STATIC_HAS(&st, name));
	assert_string_equal(st.name, "NVIDIA H100 80GB HBM3");
	assert_string_equal(st.uuid, "GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000003");
	assert_string_equal(st.pci_bus_id, "00000000:5D:00.0");
	assert_string_equal(st.pci_sysfs_id, "0000:5d:00.0");
	assert_int_equal(st.index, 3);
	assert_int_equal(st.minor_number, 3);
	assert_int_equal(st.pci_device_id, 0x233010de);
	assert_true(st.memory_total_bytes == 81559 * MIB);
	assert_int_equal(st.pcie_max_gen, 5);
	assert_int_equal(st.pcie_max_width, 16);
	assert_int_equal(st.power_limit_mw, 700000);
	assert_int_equal(st.temp_slowdown_c, 90);
	assert_int_equal(st.temp_shutdown_c, 92);
	assert_int_equal(st.cc_major, 9);
	assert_int_equal(st.cc_minor, 0);
	assert_string_equal(st.driver_version, "550.54.15");
	assert_string_equal(st.nvml_version, "12.550.54.15");
	assert_int_equal(st.cuda_driver_version, 12040);
	assert_true(GPU_STATIC_HAS(&st, persistence_mode) && st.persistence_mode == 1);
	assert_true(GPU_STATIC_HAS(&st, ecc_mode) && st.ecc_mode == 1);
	assert_true(GPU_STATIC_HAS(&st, mig_mode) && st.mig_mode == 0);
	assert_int_equal(st.nvlink_count, 18);
	assert_int_equal(st.nlinks, 18);
	for (i = 0; i < 18; i++) {
		assert_int_equal(st.links[i].version, 4);
		assert_int_equal(st.links[i].remote_type, GPU_LINK_REMOTE_SWITCH);
	}
	assert_string_equal(st.links[5].remote_bus_id, "00000000:06:00.0");
	assert_true(GPU_STATIC_HAS(&st, clock_event_reasons_supported));
	assert_true(st.clock_event_reasons_supported == 0x1ff);

	assert_int_equal(B->sample(devs[3], GPU_SAMPLE_ALL, &s), GPU_OK);
	assert_true(GPU_SAMPLE_HAS(&s, timestamp_ns) && GPU_SAMPLE_HAS(&s, duration_ns));
	assert_int_equal(s.power_mw, 412000);
	assert_true(s.energy_mj == 8123456789ull);
	assert_true(s.fb_used_bytes == 63488 * MIB);
	assert_true(s.fb_reserved_bytes == 527 * MIB);
	assert_true(s.fb_free_bytes == (81559 - 63488 - 527) * MIB);
	assert_int_equal(s.temp_gpu_c, 41);
	assert_true(GPU_SAMPLE_HAS(&s, temp_mem_c));
	assert_int_equal(s.temp_mem_c, 49);
	assert_int_equal(s.util_gpu_pct, 97);
	assert_int_equal(s.clock_sm_mhz, 1980);
	assert_true(GPU_SAMPLE_HAS(&s, clock_event_reasons) && s.clock_event_reasons == 0);
	assert_true(GPU_SAMPLE_HAS(&s, remapped_rows_pending) && s.remapped_rows_pending == 0);
	assert_true(GPU_SAMPLE_HAS(&s, ecc_dbe_volatile) && s.ecc_dbe_volatile == 0);
	/* no page retirement on Hopper, and no fan on an SXM board: absent, not 0 */
	assert_false(GPU_SAMPLE_HAS(&s, retired_pages_dbe));
	assert_false(GPU_SAMPLE_HAS(&s, fan_pct));
	assert_true(s.pcie_tx_bytes_per_s == 10240ull * 1024);
	assert_int_equal(s.nlinks, 18);
	assert_true(GPU_LINK_HAS(&s.links[17], active) && s.links[17].active == 1);
	assert_true(GPU_LINK_HAS(&s.links[0], tx_kib) && s.links[0].tx_kib == 123456789ull);
	assert_true(GPU_LINK_HAS(&s.links[0], err_crc_flit) && s.links[0].err_crc_flit == 0);
	assert_true(GPU_SAMPLE_HAS(&s, slowest_call));

	/* without the slow group, PCIe throughput is absent */
	assert_int_equal(B->sample(devs[0], GPU_SAMPLE_DEFAULT, &s), GPU_OK);
	assert_false(GPU_SAMPLE_HAS(&s, pcie_tx_bytes_per_s));

	assert_int_equal(B->processes(devs[7], &p, &np), GPU_OK);
	assert_int_equal(np, 1);
	assert_int_equal(p[0].pid, 31337);
	assert_int_equal(p[0].type, GPU_PROCESS_COMPUTE);
	assert_true(p[0].used_bytes_valid && p[0].used_bytes == 63488 * MIB);
	assert_int_equal(p[0].gpu_instance, GPU_NO_INSTANCE);
	free(p);
	assert_int_equal(B->status(devs[0]), GPU_STATUS_OK);
	{
		struct gpu_event ev[8];
		assert_int_equal(B->events(ev, 8, 0), 0);
	}
	stop();
}

static void test_a100_pcie_x8(void **state)
{
	struct gpu_static st;
	struct gpu_sample s;
	struct gpu_process *p;
	size_t np;
	(void)state;
	assert_int_equal(start("a100-pcie-x8"), GPU_OK);
	assert_int_equal(ndevs, 4);
	assert_int_equal(B->static_info(devs[2], &st), GPU_OK);
	assert_string_equal(st.pci_sysfs_id, "0000:ca:00.0");
	assert_int_equal(st.pcie_max_width, 16);
	/* no NVLink: the count is a known 0 */
	assert_true(GPU_STATIC_HAS(&st, nvlink_count));
	assert_int_equal(st.nvlink_count, 0);
	assert_int_equal(B->sample(devs[2], GPU_SAMPLE_DEFAULT, &s), GPU_OK);
	assert_true(GPU_SAMPLE_HAS(&s, pcie_width));
	assert_int_equal(s.pcie_width, 8);
	assert_int_equal(s.pcie_gen, 4);
	assert_int_equal(s.nlinks, 0);
	assert_true(s.clock_event_reasons == GPU_CLOCK_EVENT_GPU_IDLE);
	assert_false(GPU_SAMPLE_HAS(&s, ecc_sbe_aggregate) && s.ecc_sbe_aggregate != 0);
	assert_int_equal(B->processes(devs[1], &p, &np), GPU_OK);
	assert_int_equal(np, 1);
	assert_int_equal(p[0].pid, 4242);
	assert_true(p[0].used_bytes == 30720 * MIB);
	free(p);
	assert_int_equal(B->processes(devs[3], &p, &np), GPU_OK);
	assert_int_equal(np, 0);
	assert_null(p);
	assert_int_equal(B->sample(devs[3], GPU_SAMPLE_BASIC, &s), GPU_OK);
	assert_true(s.fb_used_bytes == 12288 * MIB);
	stop();
}

static void test_a100_dbe_remap(void **state)
{
	struct gpu_sample s;
	struct gpu_static st;
	struct gpu_event ev[8];
	int n;
	(void)state;
	assert_int_equal(start("a100-dbe-remap"), GPU_OK);
	assert_int_equal(B->sample(devs[0], GPU_SAMPLE_HEALTH, &s), GPU_OK);
	assert_true(s.ecc_dbe_volatile == 1 && s.ecc_dbe_aggregate == 1);
	assert_true(s.ecc_sbe_volatile == 3 && s.ecc_sbe_aggregate == 17);
	assert_int_equal(s.remapped_rows_uncorrectable, 1);
	assert_int_equal(s.remapped_rows_pending, 1);
	assert_int_equal(s.remapped_rows_failure, 0);
	assert_false(GPU_SAMPLE_HAS(&s, power_mw)); /* not asked for */
	assert_int_equal(B->sample(devs[1], GPU_SAMPLE_HEALTH, &s), GPU_OK);
	assert_int_equal(s.remapped_rows_pending, 0);
	assert_int_equal(B->static_info(devs[0], &st), GPU_OK);
	assert_int_equal(st.nvlink_count, 12);
	assert_int_equal(st.links[0].remote_type, GPU_LINK_REMOTE_GPU);
	assert_string_equal(st.links[0].remote_bus_id, "00000000:0F:00.0");
	n = B->events(ev, 8, 10);
	assert_int_equal(n, 2);
	assert_int_equal(ev[0].type, GPU_EVENT_XID);
	assert_int_equal(ev[0].gpu_index, 0);
	assert_true(ev[0].code == 48);
	assert_true(ev[1].code == 63);
	assert_int_equal(ev[1].gpu_instance, GPU_NO_INSTANCE);
	assert_int_equal(B->events(ev, 8, 0), 0);
	stop();
}

static void test_h100_xid79(void **state)
{
	struct gpu_sample s;
	struct gpu_static st;
	struct gpu_event ev[8];
	(void)state;
	assert_int_equal(start("h100-xid79"), GPU_OK);
	assert_int_equal(B->static_info(devs[1], &st), GPU_OK);
	/* after Xid 79 the GPU is gone: the same poll reports the loss, once */
	assert_int_equal(B->events(ev, 8, 0), 2);
	assert_int_equal(ev[0].type, GPU_EVENT_XID);
	assert_int_equal(ev[0].gpu_index, 1);
	assert_true(ev[0].code == 79);
	assert_int_equal(ev[1].type, GPU_EVENT_LOST);
	assert_int_equal(ev[1].gpu_index, 1);
	assert_int_equal(B->status(devs[1]), GPU_STATUS_LOST);
	assert_int_equal(B->events(ev, 8, 0), 0);
	assert_int_equal(B->sample(devs[1], GPU_SAMPLE_ALL, &s), GPU_ERR_LOST);
	assert_true(GPU_SAMPLE_HAS(&s, timestamp_ns));
	assert_false(GPU_SAMPLE_HAS(&s, power_mw));
	assert_non_null(strstr(B->last_error(), "fallen off the bus"));
	assert_int_equal(B->sample(devs[0], GPU_SAMPLE_ALL, &s), GPU_OK);
	assert_int_equal(s.power_mw, 72000);
	stop();
}

static void test_gpu_lost(void **state)
{
	struct gpu_static st;
	struct gpu_sample s;
	struct gpu_process *p;
	struct gpu_event ev[4];
	size_t np;
	(void)state;
	assert_int_equal(start("gpu-lost"), GPU_OK);
	assert_int_equal(B->static_info(devs[1], &st), GPU_ERR_LOST);
	/* what was read before the loss stays valid, to name the GPU */
	assert_true(GPU_STATIC_HAS(&st, name));
	assert_string_equal(st.name, "NVIDIA L40S");
	assert_true(GPU_STATIC_HAS(&st, pci_bus_id));
	assert_string_equal(st.pci_bus_id, "00000000:81:00.0");
	assert_int_equal(B->status(devs[1]), GPU_STATUS_LOST);
	assert_int_equal(B->sample(devs[1], GPU_SAMPLE_DEFAULT, &s), GPU_ERR_LOST);
	assert_int_equal(B->processes(devs[1], &p, &np), GPU_ERR_LOST);
	assert_int_equal(np, 0);
	assert_int_equal(B->static_info(devs[0], &st), GPU_OK);
	assert_int_equal(B->sample(devs[0], GPU_SAMPLE_DEFAULT, &s), GPU_OK);
	assert_int_equal(B->status(devs[0]), GPU_STATUS_OK);
	assert_int_equal(B->events(ev, 4, 0), 1);
	assert_int_equal(ev[0].type, GPU_EVENT_LOST);
	assert_int_equal(ev[0].gpu_index, 1);
	stop();
}

static void test_slow_and_unsupported(void **state)
{
	struct gpu_sample s;
	(void)state;
	assert_int_equal(start("slow-call"), GPU_OK);
	assert_int_equal(B->sample(devs[0], GPU_SAMPLE_BASIC | GPU_SAMPLE_HEALTH, &s), GPU_OK);
	assert_string_equal(s.slowest_call, "nvmlDeviceGetPowerUsage");
	assert_true(s.slowest_call_ns >= 1500000000ull);
	assert_true(s.duration_ns >= s.slowest_call_ns);
	assert_int_equal(s.power_mw, 60000);
	assert_false(GPU_SAMPLE_HAS(&s, fan_pct));
	assert_false(GPU_SAMPLE_HAS(&s, temp_mem_c));
	assert_false(GPU_SAMPLE_HAS(&s, remapped_rows_correctable));
	assert_false(GPU_SAMPLE_HAS(&s, energy_mj));
	assert_true(GPU_SAMPLE_HAS(&s, temp_gpu_c));
	stop();
}

static void test_r535_process_stride(void **state)
{
	struct gpu_process *p;
	size_t np, i;
	(void)state;
	assert_int_equal(start("r535-procs"), GPU_OK);
	assert_int_equal(B->processes(devs[0], &p, &np), GPU_OK);
	assert_int_equal(np, 3);
	for (i = 0; i < np; i++) {
		if (p[i].pid == 100)
			assert_true(p[i].used_bytes == 1024 * MIB && p[i].type == GPU_PROCESS_COMPUTE);
		else if (p[i].pid == 200)
			assert_true(p[i].used_bytes == 2048 * MIB && p[i].type == GPU_PROCESS_COMPUTE);
		else if (p[i].pid == 300)
			assert_true(p[i].used_bytes == 512 * MIB && p[i].type == GPU_PROCESS_GRAPHICS);
		else
			fail_msg("unexpected pid %u", p[i].pid);
	}
	free(p);
	stop();
}

static void test_mig(void **state)
{
	struct gpu_sample s;
	struct gpu_static st;
	struct gpu_mig_instance *m;
	size_t n;
	(void)state;
	assert_int_equal(start("a100-mig"), GPU_OK);
	assert_int_equal(B->static_info(devs[0], &st), GPU_OK);
	assert_int_equal(st.mig_mode, 1);
	assert_int_equal(B->sample(devs[0], GPU_SAMPLE_BASIC, &s), GPU_OK);
	assert_false(GPU_SAMPLE_HAS(&s, util_gpu_pct));
	assert_int_equal(B->mig_instances(devs[0], &m, &n), GPU_OK);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].gpu_instance, 1);
	assert_int_equal(m[1].gpu_instance, 2);
	assert_int_equal(m[1].compute_instance, 0);
	assert_true(m[0].memory_valid && m[0].memory_total_bytes == 40192 * MIB);
	assert_true(m[0].memory_used_bytes == 1024 * MIB);
	assert_true(!strncmp(m[0].uuid, "MIG-", 4));
	free(m);
	stop();
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(gpu_sample_field_name(gpu_sample_power_mw_valid), "power_mw");
	assert_string_equal(gpu_static_field_name(gpu_static_uuid_valid), "uuid");
	assert_string_equal(gpu_link_field_name(gpu_link_err_crc_flit_valid), "err_crc_flit");
	assert_null(gpu_sample_field_name(gpu_sample_nfields));
	assert_string_equal(gpu_clock_event_name(GPU_CLOCK_EVENT_HW_THERMAL), "hw_thermal_slowdown");
	assert_null(gpu_clock_event_name(0x200));
	assert_string_equal(gpu_rc_name(GPU_ERR_LOST), "gpu lost");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_no_library, teardown),
		cmocka_unit_test_teardown(test_no_driver, teardown),
		cmocka_unit_test_teardown(test_version_mismatch, teardown),
		cmocka_unit_test_teardown(test_no_gpu, teardown),
		cmocka_unit_test_teardown(test_dgx_h100, teardown),
		cmocka_unit_test_teardown(test_a100_pcie_x8, teardown),
		cmocka_unit_test_teardown(test_a100_dbe_remap, teardown),
		cmocka_unit_test_teardown(test_h100_xid79, teardown),
		cmocka_unit_test_teardown(test_gpu_lost, teardown),
		cmocka_unit_test_teardown(test_slow_and_unsupported, teardown),
		cmocka_unit_test_teardown(test_r535_process_stride, teardown),
		cmocka_unit_test_teardown(test_mig, teardown),
		cmocka_unit_test_teardown(test_names, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
