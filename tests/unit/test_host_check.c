/*
 * The whole check against each fake NVML scenario and its host tree
 * (tests/fake-nvml/scenarios, tests/fixtures/hosts): the exact list of
 * warnings and failures, the exit code, the topology and the runbooks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/check.h"
#include "util/error.h"

static char path_buf[4][4096];

static const char *src(const char *rel, int slot)
{
	const char *s = getenv("SRCDIR");
	snprintf(path_buf[slot], sizeof(path_buf[slot]), "%s/%s", s ? s : "..", rel);
	return path_buf[slot];
}

static const char *build(const char *rel, int slot)
{
	const char *b = getenv("BUILDDIR");
	snprintf(path_buf[slot], sizeof(path_buf[slot]), "%s/%s", b ? b : ".", rel);
	return path_buf[slot];
}

/* Runs the check: scenario and fixture by name; python a fixtures/bin name or NULL; libs from fake-stack. */
static struct check_report *run(const char *scenario, const char *fixture, const char *python, int libs,
				const char *kmsg)
{
	struct check_opts o;
	char rel[256], scen[4096], root[4096], py[4096];
	memset(&o, 0, sizeof(o));
	unsetenv("CUDA_VISIBLE_DEVICES");
	snprintf(rel, sizeof(rel), "tests/fake-nvml/scenarios/%s.ini", scenario);
	snprintf(scen, sizeof(scen), "%s", src(rel, 0));
	setenv("FAKE_NVML_SCENARIO", scen, 1);
	snprintf(rel, sizeof(rel), "tests/fixtures/hosts/%s", fixture);
	snprintf(root, sizeof(root), "%s", src(rel, 1));
	o.root = root;
	o.nvml_path = build("fake-nvml/libnvidia-ml.so.1", 2);
	o.kmsg_path = kmsg;
	if (python) {
		snprintf(rel, sizeof(rel), "tests/fixtures/bin/%s", python);
		snprintf(py, sizeof(py), "%s", src(rel, 3));
		o.python = py;
		o.python_timeout_ms = 20000;
	}
	o.skip_libs = !libs;
	o.lib_dirs = libs ? build("fake-stack", 3) : NULL;
	if (python && libs)
		o.python = py;
	return check_run(&o);
}

/* "status id gpu" of every warning and failure, one per line, in report order. */
static char *findings(const struct check_report *r)
{
	static char buf[8192];
	size_t i, used = 0;
	buf[0] = '\0';
	for (i = 0; i < r->nitems; i++) {
		const struct check_item *it = &r->items[i];
		if (it->status != CHECK_WARN && it->status != CHECK_FAIL)
			continue;
		if (it->gpu >= 0)
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s %s %d\n",
						 check_status_name(it->status), it->id, it->gpu);
		else
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s %s -\n",
						 check_status_name(it->status), it->id);
	}
	return buf;
}

static const struct check_item *item(const struct check_report *r, const char *id, int gpu)
{
	size_t i;
	for (i = 0; i < r->nitems; i++)
		if (!strcmp(r->items[i].id, id) && r->items[i].gpu == gpu)
			return &r->items[i];
	fail_msg("no item %s for gpu %d", id, gpu);
	return NULL;
}

static void test_dgx_h100_healthy(void **state)
{
	struct check_report *r = run("dgx-h100", "dgx-h100", "python-torch-2.4.1-cu124", 1, NULL);
	struct check_topo *t;
	size_t n[4], i, j;
	(void)state;
	assert_string_equal(findings(r), "");
	assert_int_equal(check_exit_code(r), EXIT_OK);
	check_count(r, n);
	assert_int_equal(n[CHECK_SKIP], 0);
	assert_int_equal(r->ngpus, 8);
	assert_string_equal(item(r, "driver.kernel_module", -1)->finding,
			    "NVIDIA proprietary kernel module 550.54.15");
	assert_string_equal(item(r, "driver.version_match", -1)->finding,
			    "kernel module and NVML library are both 550.54.15");
	assert_string_equal(item(r, "cuda.libcuda", -1)->finding, "CUDA 12.4 (libcuda.so.550.54.15)");
	assert_string_equal(item(r, "cuda.runtime", -1)->finding, "libcudart CUDA 12.4, driver supports 12.4");
	assert_string_equal(item(r, "cuda.cudnn", -1)->finding, "cuDNN 9.1.0 (libcudnn.so.9.1.0)");
	assert_string_equal(item(r, "cuda.nccl", -1)->finding, "NCCL 2.21.5 (libnccl.so.2.21.5)");
	assert_string_equal(item(r, "pytorch.arch", -1)->finding, "NVIDIA H100 80GB HBM3 (cc 9.0) runs sm_90");
	assert_string_equal(item(r, "pytorch.gpus", -1)->finding, "sees 8 GPUs");
	assert_string_equal(item(r, "gpu.nvlink", 5)->finding, "18 links up, no errors");
	assert_string_equal(item(r, "gpu.pcie_link", 0)->finding, "gen 5 x16 (max gen 5 x16)");
	assert_string_equal(item(r, "gpu.processes", 2)->finding, "1: 31337 python3/svc-train 62.0 GiB");
	assert_string_equal(item(r, "gpu.memory", 2)->finding, "62.0 of 79.6 GiB in use");
	assert_string_equal(item(r, "topo.gpudirect", 6)->finding, "nearest NIC mlx5_6: PIX");
	assert_string_equal(item(r, "net.nccl_transport", -1)->finding, "8 RDMA ports up for NCCL");
	assert_string_equal(item(r, "container.toolkit", -1)->finding,
			    "nvidia-container-toolkit, docker runtime 'nvidia'");

	t = check_topo_build(r);
	assert_int_equal(t->n, 16);
	for (i = 0; i < 8; i++)
		for (j = 0; j < 8; j++)
			assert_string_equal(t->cells[i * 16 + j], i == j ? "X" : "NV18");
	assert_string_equal(t->cells[0 * 16 + 8], "PIX");  /* GPU0 - NIC0: one switch */
	assert_string_equal(t->cells[0 * 16 + 9], "NODE"); /* GPU0 - NIC1: same socket */
	assert_string_equal(t->cells[0 * 16 + 12], "SYS"); /* GPU0 - NIC4: other socket */
	assert_string_equal(t->cells[12 * 16 + 8], "SYS");
	assert_string_equal(t->labels[8], "mlx5_0");
	assert_int_equal(t->numa[7], 1);
	assert_string_equal(t->cpus[0], "0-55,112-167");
	check_topo_free(t);
	check_report_free(r);
}

static void test_dgx_h100_old_torch(void **state)
{
	struct check_report *r = run("dgx-h100", "dgx-h100", "python-torch-2.0.1-cu117", 1, NULL);
	const struct check_item *it;
	(void)state;
	assert_string_equal(findings(r), "fail pytorch.arch -\n");
	it = item(r, "pytorch.arch", -1);
	assert_string_equal(it->finding,
			    "torch 2.0.1+cu117 has no kernels for NVIDIA H100 80GB HBM3 (cc 9.0): "
			    "sm_37 sm_50 sm_60 sm_70 sm_75 sm_80 sm_86");
	assert_string_equal(it->remedy,
			    "install torch >= 2.0 built for CUDA 11.8 or newer (its wheels include sm_90)");
	assert_int_equal(check_exit_code(r), EXIT_FINDINGS);
	check_report_free(r);
}

static void test_cpu_torch_and_no_torch(void **state)
{
	struct check_report *r = run("dgx-h100", "dgx-h100", "python-torch-cpu", 0, NULL);
	(void)state;
	assert_string_equal(findings(r), "fail pytorch.cuda_build -\nfail pytorch.gpus -\n");
	assert_non_null(strstr(item(r, "pytorch.cuda_build", -1)->remedy, "download.pytorch.org/whl/cu124"));
	check_report_free(r);
	r = run("dgx-h100", "dgx-h100", "python-no-torch", 0, NULL);
	assert_string_equal(findings(r), "");
	assert_int_equal(item(r, "pytorch.installed", -1)->status, CHECK_SKIP);
	check_report_free(r);
}

static void test_a100_pcie_x8(void **state)
{
	struct check_report *r = run("a100-pcie-x8", "a100-pcie-x8", NULL, 0, NULL);
	const struct check_item *it;
	struct check_topo *t;
	(void)state;
	assert_string_equal(findings(r),
			    "warn driver.nouveau -\n"
			    "fail gpu.pcie_link 2\n"
			    "warn gpu.memory 3\n"
			    "warn topo.gpudirect 2\n"
			    "warn topo.gpudirect 3\n"
			    "warn net.nccl_transport -\n");
	it = item(r, "gpu.pcie_link", 2);
	assert_string_equal(it->finding, "x8 of x16, gen 4 of 4; sysfs: x8 of x16, gen 4 of 4");
	assert_string_equal(it->remedy,
			    "reseat the GPU and its riser or cable; x8 gives 50% of the host<->GPU bandwidth");
	assert_string_equal(item(r, "gpu.memory", 3)->finding, "12.0 GiB in use, 12.0 GiB by no listed process");
	assert_string_equal(item(r, "gpu.processes", 1)->finding, "1: 4242 python3/alice 30.0 GiB");
	assert_string_equal(item(r, "topo.gpudirect", 2)->finding,
			    "nearest NIC mlx5_0 is across the CPU interconnect (SYS): no GPUDirect RDMA");
	assert_string_equal(item(r, "topo.gpudirect", 0)->finding, "nearest NIC mlx5_0: NODE");
	assert_int_equal(check_exit_code(r), EXIT_FINDINGS);
	t = check_topo_build(r);
	assert_int_equal(t->n, 5);
	assert_string_equal(t->cells[0 * 5 + 1], "NODE");
	assert_string_equal(t->cells[0 * 5 + 2], "SYS");
	assert_string_equal(t->cells[2 * 5 + 3], "NODE");
	check_topo_free(t);
	check_report_free(r);
}

static void test_a100_pcie_x8_stack(void **state)
{
	/* CUDA 12.4 user space on a 535 (CUDA 12.2) driver: minor-version compatibility */
	struct check_report *r = run("a100-pcie-x8", "a100-pcie-x8", "python-torch-2.5.1-cu124", 1, NULL);
	const struct check_item *it;
	(void)state;
	assert_string_equal(findings(r),
			    "warn driver.nouveau -\n"
			    "warn cuda.runtime -\n"
			    "warn pytorch.cuda_build -\n"
			    "fail gpu.pcie_link 2\n"
			    "warn gpu.memory 3\n"
			    "warn topo.gpudirect 2\n"
			    "warn topo.gpudirect 3\n"
			    "warn net.nccl_transport -\n");
	it = item(r, "pytorch.cuda_build", -1);
	assert_string_equal(it->finding,
			    "torch 2.5.1+cu124 built for CUDA 12.4 on a driver for 12.2: runs by "
			    "minor-version compatibility, but PTX JIT and newer features fail");
	assert_string_equal(it->remedy, "upgrade the driver to >= 550.54.14 (CUDA 12.4) or use a CUDA 12.2 build");
	assert_string_equal(item(r, "cuda.cudnn", -1)->finding, "cuDNN 8.9.7 (libcudnn.so.9.1.0)");
	check_report_free(r);
}

static void test_a100_dbe_remap(void **state)
{
	struct check_report *r = run("a100-dbe-remap", "a100-dbe-remap", NULL, 0, NULL);
	const struct check_item *it;
	struct check_step *s;
	size_t n;
	(void)state;
	assert_string_equal(findings(r),
			    "fail kernel.xid 0\n"
			    "fail nvml.xid 0\n"
			    "fail gpu.ecc_errors 0\n"
			    "fail gpu.remapped_rows 0\n");
	it = item(r, "gpu.remapped_rows", 0);
	assert_string_equal(it->finding, "a row remap is pending (1 uncorrectable, 0 correctable rows remapped)");
	assert_string_equal(it->remedy, "drain the GPU and reset it (nvidia-smi -r -i 0) to apply the remap");
	it = item(r, "gpu.ecc_errors", 0);
	assert_string_equal(it->finding,
			    "1 uncorrectable (double-bit) ECC error since the driver loaded (1 lifetime), "
			    "3 corrected");
	it = item(r, "kernel.xid", 0);
	assert_non_null(strstr(it->finding, "Xid 48 on 0000:07:00 x1: Double-bit ECC error"));
	assert_non_null(strstr(it->remedy, "RESET_GPU"));
	assert_int_equal(r->nxids, 2);
	assert_int_equal(r->nevents, 2);
	assert_string_equal(item(r, "gpu.nvlink", 1)->finding, "12 links up, no errors");
	{
		struct check_topo *t = check_topo_build(r);
		assert_string_equal(t->cells[1], "NV12");
		check_topo_free(t);
	}

	n = check_runbook(r, SYMPTOM_LAUNCH_FAILED, -1, 0, &s);
	assert_int_equal(n, 6);
	assert_string_equal(s[0].title, "gpu health");
	assert_int_equal(s[0].status, CHECK_OK);
	assert_string_equal(s[1].title, "ecc error counts");
	assert_int_equal(s[1].status, CHECK_FAIL);
	assert_non_null(strstr(s[1].finding, "gpu 0: 1 uncorrectable"));
	assert_non_null(strstr(s[1].finding, "gpu 0: a row remap is pending"));
	assert_string_equal(s[2].title, "xids in the kernel log");
	assert_int_equal(s[2].status, CHECK_FAIL);
	assert_int_equal(s[3].status, CHECK_SKIP);
	assert_non_null(strstr(s[4].action, "compute-sanitizer"));
	assert_int_equal(s[5].status, CHECK_OK);
	check_steps_free(s, n);
	/* the healthy GPU alone */
	n = check_runbook(r, SYMPTOM_LAUNCH_FAILED, 1, 0, &s);
	assert_int_equal(s[1].status, CHECK_OK);
	assert_int_equal(s[2].status, CHECK_OK);
	check_steps_free(s, n);
	check_report_free(r);
}

static void test_h100_xid79(void **state)
{
	struct check_report *r = run("h100-xid79", "h100-xid79", NULL, 0, NULL);
	const struct check_item *it;
	struct check_step *s;
	size_t n;
	(void)state;
	assert_string_equal(findings(r), "fail kernel.xid 1\nfail nvml.xid 1\nfail gpu.status 1\n");
	it = item(r, "gpu.status", 1);
	assert_string_equal(it->finding,
			    "NVIDIA H100 PCIe at 00000000:C1:00.0 has fallen off the bus (NVML: GPU is lost)");
	it = item(r, "kernel.xid", 1);
	assert_string_equal(it->finding,
			    "Xid 79 on 0000:c1:00 x1: GPU has fallen off the bus -- GPU has fallen off the bus.");
	assert_string_equal(it->remedy,
			    "RESTART_BM: power-cycle the node (a reboot is not enough); check PCIe seating, "
			    "power cables and cooling; RMA if it recurs");
	assert_int_equal(r->gpus[1].status, GPU_STATUS_LOST);
	assert_int_equal(r->gpus[0].status, GPU_STATUS_OK);
	n = check_runbook(r, SYMPTOM_LOST, -1, 0, &s);
	assert_int_equal(n, 6);
	assert_int_equal(s[0].status, CHECK_FAIL);
	assert_int_equal(s[2].status, CHECK_FAIL);
	assert_string_equal(s[3].title, "pci bus");
	assert_int_equal(s[3].status, CHECK_OK);
	assert_string_equal(s[3].finding, "2 NVIDIA GPUs on the PCI bus");
	check_steps_free(s, n);
	check_report_free(r);
}

static void test_gpu_lost(void **state)
{
	struct check_report *r = run("gpu-lost", "gpu-lost", NULL, 0, NULL);
	(void)state;
	assert_string_equal(findings(r), "fail gpu.status 1\n");
	assert_string_equal(item(r, "gpu.status", 1)->finding,
			    "NVIDIA L40S at 00000000:81:00.0 has fallen off the bus (NVML: GPU is lost)");
	assert_int_equal(item(r, "gpu.status", 0)->status, CHECK_OK);
	assert_int_equal(check_exit_code(r), EXIT_FINDINGS);
	check_report_free(r);
}

static void test_driver_mismatch(void **state)
{
	struct check_report *r = run("driver-mismatch", "driver-mismatch", NULL, 0, NULL);
	const struct check_item *it;
	(void)state;
	assert_string_equal(findings(r), "fail nvml.library -\nfail driver.version_match -\n");
	it = item(r, "driver.version_match", -1);
	assert_string_equal(it->finding,
			    "kernel module 535.104.05, NVML library 550.54.15: driver/library version mismatch");
	assert_non_null(strstr(it->remedy, "reboot"));
	assert_int_equal(r->backend_rc, GPU_ERR_VERSION_MISMATCH);
	assert_int_equal(check_exit_code(r), EXIT_FINDINGS);
	check_report_free(r);
}

static void test_no_gpu_and_no_library(void **state)
{
	struct check_report *r = run("no-gpu", "gpu-lost", NULL, 0, NULL);
	struct check_opts o;
	(void)state;
	assert_string_equal(findings(r), "fail gpu.count -\n");
	assert_int_equal(check_exit_code(r), EXIT_ENV);
	check_report_free(r);

	memset(&o, 0, sizeof(o));
	o.root = src("tests/fixtures/hosts/nouveau", 1);
	o.nvml_path = "/nonexistent/libnvidia-ml.so.1";
	o.skip_libs = 1;
	r = check_run(&o);
	assert_int_equal(r->backend_rc, GPU_ERR_NO_LIBRARY);
	assert_string_equal(findings(r),
			    "fail nvml.library -\nfail driver.kernel_module -\nfail driver.modules -\n"
			    "fail driver.nouveau -\n");
	assert_string_equal(item(r, "driver.kernel_module", -1)->finding,
			    "2 NVIDIA GPUs on the PCI bus but no NVIDIA kernel module loaded");
	assert_int_equal(check_exit_code(r), EXIT_ENV);
	check_report_free(r);
}

static void test_slow_call(void **state)
{
	struct check_report *r = run("slow-call", "slow-call", NULL, 0, NULL);
	struct check_step *s;
	size_t n, i;
	(void)state;
	assert_string_equal(findings(r), "warn gpu.nvml_latency 0\n");
	assert_non_null(strstr(item(r, "gpu.nvml_latency", 0)->finding, "nvmlDeviceGetPowerUsage took "));
	n = check_runbook(r, SYMPTOM_SLOW, -1, 0, &s);
	assert_int_equal(n, 10);
	for (i = 0; i < n; i++)
		if (!strcmp(s[i].title, "driver responsiveness"))
			assert_int_equal(s[i].status, CHECK_WARN);
	check_steps_free(s, n);
	check_report_free(r);
}

static void test_runbooks_oom_busy(void **state)
{
	struct check_report *r = run("a100-pcie-x8", "a100-pcie-x8", NULL, 0, NULL);
	struct check_step *s;
	size_t n;
	(void)state;
	n = check_runbook(r, SYMPTOM_OOM, -1, 0, &s);
	assert_int_equal(n, 5);
	assert_string_equal(s[0].title, "memory per gpu");
	assert_non_null(strstr(s[0].finding, "gpu 3: 12.0 used, 67.5 free of 80.0 GiB"));
	assert_string_equal(s[1].title, "processes holding memory");
	assert_string_equal(s[1].finding, "gpu 1: pid 4242 python3 (alice) 30.0 GiB");
	assert_int_equal(s[1].status, CHECK_WARN);
	assert_int_equal(s[2].status, CHECK_WARN);
	assert_string_equal(s[3].title, "workload estimate");
	assert_int_equal(s[3].status, CHECK_SKIP);
	check_steps_free(s, n);
	/* a workload that needs 60 GiB per GPU does not fit on GPU 1 (49.5 GiB free) */
	n = check_runbook(r, SYMPTOM_OOM, 1, 60.0 * 1073741824.0, &s);
	assert_string_equal(s[3].finding, "the workload needs 60.0 GiB per GPU; gpu 1 has 49.5 GiB free");
	assert_int_equal(s[3].status, CHECK_FAIL);
	check_steps_free(s, n);
	n = check_runbook(r, SYMPTOM_BUSY, -1, 0, &s);
	assert_string_equal(s[1].finding, "gpu 1: pid 4242 python3 (alice)");
	assert_string_equal(s[2].title, "open device files");
	assert_string_equal(s[2].finding, "pid 4242 python3 (alice): nvidia-uvm nvidia1 nvidiactl");
	assert_int_equal(s[2].status, CHECK_WARN);
	check_steps_free(s, n);
	check_report_free(r);
	assert_int_equal(check_symptom_from_name("oom"), SYMPTOM_OOM);
	assert_int_equal(check_symptom_from_name("launch-failed"), SYMPTOM_LAUNCH_FAILED);
	assert_int_equal(check_symptom_from_name("hot"), -1);
	assert_string_equal(check_symptom_name(SYMPTOM_LOST), "lost");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dgx_h100_healthy),
		cmocka_unit_test(test_dgx_h100_old_torch),
		cmocka_unit_test(test_cpu_torch_and_no_torch),
		cmocka_unit_test(test_a100_pcie_x8),
		cmocka_unit_test(test_a100_pcie_x8_stack),
		cmocka_unit_test(test_a100_dbe_remap),
		cmocka_unit_test(test_h100_xid79),
		cmocka_unit_test(test_gpu_lost),
		cmocka_unit_test(test_driver_mismatch),
		cmocka_unit_test(test_no_gpu_and_no_library),
		cmocka_unit_test(test_slow_call),
		cmocka_unit_test(test_runbooks_oom_busy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
