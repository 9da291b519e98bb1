/*
 * The host probes' parsers and the compatibility rules, on literal inputs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host.h"

static void test_driver_version(void **state)
{
	struct host_driver d;
	(void)state;
	assert_int_equal(
		host_parse_driver_version(
			"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
			"GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n",
			&d),
		0);
	assert_string_equal(d.version, "550.54.15");
	assert_int_equal(d.open_module, 0);
	assert_int_equal(
		host_parse_driver_version(
			"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.104.05  Release Build  "
			"(dvs-builder@U16-T02-35-3)  Sat Aug 19 01:13:04 UTC 2023\n",
			&d),
		0);
	assert_string_equal(d.version, "535.104.05");
	assert_int_equal(d.open_module, 1);
	/* aarch64, two-field version */
	assert_int_equal(
		host_parse_driver_version("NVRM version: NVIDIA UNIX aarch64 Kernel Module  470.82  Fri\n", &d),
		0);
	assert_string_equal(d.version, "470.82");
	/* the architecture's digits are not the version */
	assert_int_equal(host_parse_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n", &d), -1);
	assert_int_equal(host_parse_driver_version("GCC version: 12.2.0\n", &d), -1);
	assert_int_equal(host_parse_driver_version("", &d), -1);
	assert_int_equal(host_parse_driver_version(NULL, &d), -1);
}

static void test_modules(void **state)
{
	struct host_modules m;
	(void)state;
	assert_int_equal(host_parse_modules("nvidia_uvm 4947968 4 - Live 0x0 (POE)\n"
					    "nvidia_drm 77824 2 - Live 0x0 (POE)\n"
					    "nvidia 56823808 300 nvidia_uvm,nvidia_modeset, Live 0x0 (POE)\n"
					    "nouveau_x 1 0 - Live 0x0\n",
					    &m),
			 0);
	assert_true(m.readable && m.nvidia && m.nvidia_uvm && m.nvidia_drm);
	assert_false(m.nouveau);
	assert_false(m.nvidia_peermem);
	assert_int_equal(host_parse_modules("nouveau 2322432 3 - Live 0x0", &m), 0);
	assert_true(m.nouveau);
	assert_false(m.nvidia);
}

static void test_blacklist(void **state)
{
	struct host_blacklist b;
	(void)state;
	memset(&b, 0, sizeof(b));
	host_parse_modprobe("# blacklist nouveau\nblacklist nouveau_fb\n", &b);
	assert_false(b.nouveau_blacklisted);
	host_parse_modprobe("  blacklist\tnouveau\n", &b);
	assert_true(b.nouveau_blacklisted);
	memset(&b, 0, sizeof(b));
	host_parse_modprobe("options nouveau modeset=0\n", &b);
	assert_true(b.nouveau_modeset0);
	assert_false(b.nouveau_blacklisted);
	memset(&b, 0, sizeof(b));
	host_parse_modprobe("install nouveau /bin/false\n", &b);
	assert_true(b.nouveau_blacklisted);
	memset(&b, 0, sizeof(b));
	host_parse_cmdline("BOOT_IMAGE=/vmlinuz ro quiet modprobe.blacklist=radeon,nouveau nouveau.modeset=0\n",
			   &b);
	assert_true(b.nouveau_blacklisted && b.nouveau_modeset0);
	memset(&b, 0, sizeof(b));
	host_parse_cmdline("ro quiet rd.driver.blacklist=nouveau", &b);
	assert_true(b.nouveau_blacklisted);
	memset(&b, 0, sizeof(b));
	host_parse_cmdline("ro nouveau.modeset=1 modprobe.blacklist=nouveaux", &b);
	assert_false(b.nouveau_blacklisted || b.nouveau_modeset0);
}

static void test_xid_lines(void **state)
{
	struct host_xid x;
	const char *k =
		"3,2001,123456789,-;NVRM: Xid (PCI:0000:07:00): 48, pid=4242, name=python3, An uncorrectable "
		"double bit error (DBE) has been detected.\n";
	const char *d =
		"[  812.345678] NVRM: Xid (PCI:0000:c1:00): 79, pid='<unknown>', name=<unknown>, GPU has "
		"fallen off the bus.";
	const char *j =
		"Mar 05 12:00:00 node kernel: NVRM: Xid (PCI:0000:3b:00): 13, Graphics SM Warp Exception on "
		"(GPC 0, TPC 0, SM 0): Out Of Range Address";
	const char *old = "NVRM: Xid (0000:03:00): 79, GPU has fallen off the bus.";
	(void)state;
	assert_int_equal(host_parse_xid(k, strlen(k), &x), 1);
	assert_string_equal(x.pci, "0000:07:00");
	assert_int_equal(x.code, 48);
	assert_int_equal(x.pid, 4242);
	assert_string_equal(x.process, "python3");
	assert_string_equal(x.detail, "An uncorrectable double bit error (DBE) has been detected.");
	assert_true(x.uptime_s > 123.4567 && x.uptime_s < 123.4568);
	host_xid_release(&x);
	assert_int_equal(host_parse_xid(d, strlen(d), &x), 1);
	assert_string_equal(x.pci, "0000:c1:00");
	assert_int_equal(x.code, 79);
	assert_int_equal(x.pid, -1);
	assert_string_equal(x.process, "<unknown>");
	assert_string_equal(x.detail, "GPU has fallen off the bus.");
	assert_true(x.uptime_s > 812.3456 && x.uptime_s < 812.3457);
	host_xid_release(&x);
	assert_int_equal(host_parse_xid(j, strlen(j), &x), 1);
	assert_int_equal(x.code, 13);
	assert_int_equal(x.pid, -1);
	assert_string_equal(x.process, "");
	assert_true(x.uptime_s < 0);
	assert_non_null(strstr(x.detail, "Warp Exception"));
	host_xid_release(&x);
	assert_int_equal(host_parse_xid(old, strlen(old), &x), 1);
	assert_string_equal(x.pci, "0000:03:00");
	host_xid_release(&x);
	/* not Xid records */
	assert_int_equal(host_parse_xid("NVRM: GPU 0000:c1:00.0: GPU has fallen off the bus.", 50, &x), 0);
	assert_int_equal(host_parse_xid("NVRM: Xid (PCI:0000:07:00", 25, &x), 0);
	assert_int_equal(host_parse_xid("NVRM: Xid (PCI:0000:07:00): abc", 31, &x), 0);
	/* a length shorter than the text stops there */
	assert_int_equal(host_parse_xid(k, 40, &x), 0);
}

static void test_xid_catalogue(void **state)
{
	const struct xid_info *x;
	(void)state;
	x = xid_lookup(79);
	assert_non_null(x);
	assert_string_equal(x->name, "GPU has fallen off the bus");
	assert_string_equal(x->bucket, "RESTART_BM");
	assert_int_equal(xid_severity(x), 2);
	assert_non_null(strstr(x->action, "power-cycle"));
	x = xid_lookup(63);
	assert_non_null(x);
	assert_int_equal(xid_severity(x), 0);
	assert_int_equal(xid_severity(xid_lookup(13)), 1);
	assert_int_equal(xid_severity(xid_lookup(48)), 2);
	assert_null(xid_lookup(999));
	/* unknown codes are worth a warning */
	assert_int_equal(xid_severity(NULL), 1);
}

static void test_pcie_gen(void **state)
{
	(void)state;
	assert_int_equal(host_pcie_gen("2.5 GT/s PCIe"), 1);
	assert_int_equal(host_pcie_gen("8.0 GT/s PCIe"), 3);
	assert_int_equal(host_pcie_gen("16.0 GT/s PCIe"), 4);
	assert_int_equal(host_pcie_gen("32.0 GT/s PCIe"), 5);
	assert_int_equal(host_pcie_gen("64.0 GT/s PCIe"), 6);
	assert_int_equal(host_pcie_gen("Unknown"), 0);
	assert_int_equal(host_pcie_gen("12 GT/s"), 0);
	assert_int_equal(host_pcie_gen(NULL), 0);
}

/* A device at path (p starts zeroed, or as path_pci() left it). */
static void path_pci(struct host_pci *p, const char *path, int numa)
{
	host_pci_release(p);
	p->present = 1;
	p->numa_node = numa;
	p->path = strdup(path);
}

static void test_topology(void **state)
{
	struct host_pci gpu = {0}, nic = {0}, far = {0}, other = {0};
	(void)state;
	path_pci(&gpu, "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0", 0);
	path_pci(&nic, "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0", 0);
	assert_int_equal(host_topo_pci(&gpu, &nic), HOST_TOPO_PIX);
	assert_int_equal(host_topo_pci(&gpu, &gpu), HOST_TOPO_X);
	/* two switch levels apart below one root port */
	path_pci(&other,
		 "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:02.0/0000:1a:00.0/0000:1b:00.0/0000:1c:00.0", 0);
	assert_int_equal(host_topo_pci(&gpu, &other), HOST_TOPO_PXB);
	/* two root ports of one host bridge */
	path_pci(&other, "pci0000:15/0000:15:02.0/0000:20:00.0", 0);
	assert_int_equal(host_topo_pci(&gpu, &other), HOST_TOPO_PHB);
	/* another host bridge: same NUMA node, or across the interconnect */
	path_pci(&far, "pci0000:30/0000:30:01.0/0000:31:00.0", 0);
	assert_int_equal(host_topo_pci(&gpu, &far), HOST_TOPO_NODE);
	far.numa_node = 1;
	assert_int_equal(host_topo_pci(&gpu, &far), HOST_TOPO_SYS);
	far.present = 0;
	assert_int_equal(host_topo_pci(&gpu, &far), HOST_TOPO_UNKNOWN);
	assert_string_equal(host_topo_name(HOST_TOPO_NODE), "NODE");
	host_pci_release(&gpu);
	host_pci_release(&nic);
	host_pci_release(&far);
	host_pci_release(&other);
}

static void test_decode(void **state)
{
	int a, b, c;
	(void)state;
	assert_int_equal(host_cudnn_decode(8907, &a, &b, &c), 0);
	assert_true(a == 8 && b == 9 && c == 7);
	assert_int_equal(host_cudnn_decode(90100, &a, &b, &c), 0);
	assert_true(a == 9 && b == 1 && c == 0);
	assert_int_equal(host_cudnn_decode(91002, &a, &b, &c), 0);
	assert_true(a == 9 && b == 10 && c == 2);
	assert_int_equal(host_cudnn_decode(0, &a, &b, &c), -1);
	assert_int_equal(host_nccl_decode(2708, &a, &b, &c), 0);
	assert_true(a == 2 && b == 7 && c == 8);
	assert_int_equal(host_nccl_decode(22105, &a, &b, &c), 0);
	assert_true(a == 2 && b == 21 && c == 5);
}

static void test_compat(void **state)
{
	struct diag err;
	const struct compat_cuda *c;
	const struct compat_arch *a;
	const struct compat_torch *rows;
	const struct compat_cudnn *d;
	char via[64];
	(void)state;
	assert_int_equal(compat_load(&err), 0);
	assert_int_equal(compat_cuda_parse("12.4"), 12040);
	assert_int_equal(compat_cuda_parse("11.8"), 11080);
	assert_int_equal(compat_cuda_parse("13"), 13000);
	assert_int_equal(compat_cuda_parse(""), -1);
	assert_int_equal(compat_cuda_parse("x"), -1);
	assert_true(compat_version_cmp("535.104.05", "550.54.15") < 0);
	assert_true(compat_version_cmp("550.54.15", "550.54.14") > 0);
	assert_int_equal(compat_version_cmp("570.26", "570.26.0"), 0);
	assert_true(compat_version_cmp("570.26", "570.124.06") < 0);
	c = compat_cuda_row(12040);
	assert_non_null(c);
	assert_string_equal(c->min_driver, "550.54.14");
	assert_int_equal(compat_max_cuda_for_driver("535.161.08"), 12020);
	assert_int_equal(compat_max_cuda_for_driver("550.54.15"), 12040);
	assert_int_equal(compat_max_cuda_for_driver("470.82.01"), 11040);
	assert_int_equal(compat_max_cuda_for_driver("390.1"), -1);
	a = compat_arch_row(9, 0);
	assert_non_null(a);
	assert_string_equal(a->arch, "hopper");
	assert_int_equal(a->min_cuda, 11080);
	assert_int_equal(a->max_cuda, -1);
	a = compat_arch_row(7, 0);
	assert_int_equal(a->max_cuda, 12090);
	assert_null(compat_arch_row(4, 2));
	assert_int_equal(compat_torch_rows("2.3.1+cu121", &rows), 2);
	assert_int_equal(rows[0].cuda, 11080);
	assert_int_equal(rows[1].cuda, 12010);
	assert_string_equal(rows[1].cudnn, "8.9.2");
	assert_int_equal(compat_torch_rows("0.4.1", &rows), 0);
	assert_int_equal(compat_torch_rows("nightly", &rows), 0);
	d = compat_cudnn_row(9, 1);
	assert_non_null(d);
	assert_int_equal(d->cuda_min, 11080);
	d = compat_cudnn_row(9, 3); /* between 9.1 and 9.5 */
	assert_non_null(d);
	assert_int_equal(d->minor, 1);
	assert_null(compat_cudnn_row(9, 19)); /* newer than the table */
	assert_null(compat_cudnn_row(7, 6));

	assert_int_equal(compat_arch_runs("sm_80 sm_86", 8, 9, via, sizeof(via)), 1);
	assert_string_equal(via, "sm_86");
	assert_int_equal(compat_arch_runs("sm_80 sm_86", 9, 0, via, sizeof(via)), 0);
	assert_int_equal(compat_arch_runs("sm_80 compute_80", 9, 0, via, sizeof(via)), 1);
	assert_string_equal(via, "compute_80 (PTX JIT)");
	assert_int_equal(compat_arch_runs("sm_90a", 9, 0, via, sizeof(via)), 1);
	assert_int_equal(compat_arch_runs("sm_90a", 10, 0, via, sizeof(via)), 0);
	assert_int_equal(compat_arch_runs("sm_100 sm_120", 10, 3, via, sizeof(via)), 1);
	assert_string_equal(via, "sm_100");
	assert_int_equal(compat_arch_runs("", 8, 0, via, sizeof(via)), 0);
}

static void test_torch_json(void **state)
{
	struct host_torch t;
	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(
		host_parse_torch("warning: something\n{\"python\": \"3.11\", \"torch\": \"2.4.1+cu124\", "
				 "\"cuda\": \"12.4\", \"cudnn\": 90100, \"cuda_available\": true, "
				 "\"device_count\": 8, \"arch_list\": \"sm_80 sm_90\", \"nccl\": \"2.20.5\"}\n",
				 &t),
		0);
	assert_true(t.torch_found && t.cuda_available);
	assert_string_equal(t.version, "2.4.1+cu124");
	assert_string_equal(t.cuda, "12.4");
	assert_int_equal(t.cudnn, 90100);
	assert_int_equal(t.device_count, 8);
	assert_string_equal(t.arch_list, "sm_80 sm_90");
	host_torch_release(&t);
	assert_int_equal(host_parse_torch("{\"python\": \"3.11\", \"error\": \"ModuleNotFoundError: torch\"}", &t),
			 0);
	assert_false(t.torch_found);
	assert_string_equal(t.error, "ModuleNotFoundError: torch");
	host_torch_release(&t);
	assert_int_equal(host_parse_torch("Traceback (most recent call last):", &t), -1);
	assert_int_equal(host_parse_torch("{\"torch\": 3}", &t), 0);
	assert_true(t.torch_found);
	assert_string_equal(t.version, "");
	host_torch_release(&t);
}

static void test_fixture_tree(void **state)
{
	char root[4096], ids[8][16];
	const char *src = getenv("SRCDIR");
	struct host_pci p;
	struct host_ib_port *ib;
	struct host_holder *h;
	char user[64], comm[64];
	size_t n;
	(void)state;
	snprintf(root, sizeof(root), "%s/tests/fixtures/hosts/a100-pcie-x8", src ? src : "..");
	assert_int_equal(host_pci_nvidia(root, ids, 8, NULL), 4);
	assert_string_equal(ids[0], "0000:17:00.0");
	assert_string_equal(ids[2], "0000:ca:00.0");
	assert_int_equal(host_pci_read(root, "0000:ca:00.0", &p), 0);
	assert_true(p.link_valid);
	assert_int_equal(p.cur_width, 8);
	assert_int_equal(p.max_width, 16);
	assert_int_equal(p.cur_gen, 4);
	assert_int_equal(p.numa_node, 1);
	assert_string_equal(p.path, "pci0000:c9/0000:c9:01.0/0000:ca:00.0");
	assert_int_equal(p.aer_fatal, 0);
	host_pci_release(&p);
	assert_int_equal(host_pci_read(root, "0000:99:00.0", &p), -1);
	host_pci_release(&p);
	assert_int_equal(host_pci_read(root, "../../etc", &p), -1);
	host_pci_release(&p);
	n = host_ib_ports(root, &ib, NULL);
	assert_int_equal(n, 1);
	assert_string_equal(ib[0].device, "mlx5_0");
	assert_string_equal(ib[0].state, "ACTIVE");
	assert_string_equal(ib[0].phys_state, "LinkUp");
	assert_true(ib[0].rate_gbps == 200);
	assert_string_equal(ib[0].pci, "0000:31:00.0");
	assert_int_equal(ib[0].pcidev.numa_node, 0);
	host_ib_ports_free(ib, n);
	assert_int_equal(host_proc_user(root, 4242, user, sizeof(user), comm, sizeof(comm)), 0);
	assert_string_equal(user, "alice");
	assert_string_equal(comm, "python3");
	assert_int_equal(host_proc_user(root, 4243, user, sizeof(user), comm, sizeof(comm)), -1);
	n = host_dev_holders(root, &h, NULL, NULL);
	assert_int_equal(n, 1);
	assert_int_equal(h[0].pid, 4242);
	assert_string_equal(h[0].devices, "nvidia-uvm nvidia1 nvidiactl");
	host_holders_free(h, n);
}

/* Makes DIR/REL a symlink to itself (and its parent directories). */
static void make_loop(const char *dir, const char *rel)
{
	char path[4096], cmd[8300];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(symlink(strrchr(path, '/') + 1, path), 0);
}

/* A symlink loop is unreadable, not absent: the probes note it, with the path under the root. */
static void test_unreadable_loops(void **state)
{
	char root[] = "/tmp/gpuscope-test-host-XXXXXX", cmd[64], ids[4][16];
	struct host_pci p;
	struct host_ib_port *ib;
	struct host_unreadable u = {0};
	size_t n;
	char *t;
	(void)state;
	assert_non_null(mkdtemp(root));
	make_loop(root, "sys/bus/pci/devices/0000:17:00.0");
	make_loop(root, "sys/class/infiniband/mlx5_0/ports/1/state");
	make_loop(root, "sys/class/infiniband/mlx5_0/device");

	assert_int_equal(host_pci_read(root, "0000:17:00.0", &p), -1);
	assert_false(p.present);
	assert_int_equal(p.unreadable.error, ELOOP);
	assert_string_equal(p.unreadable.path, "/sys/bus/pci/devices/0000:17:00.0");
	host_pci_release(&p);
	/* absent is not unreadable */
	assert_int_equal(host_pci_read(root, "0000:18:00.0", &p), -1);
	assert_int_equal(p.unreadable.error, 0);
	host_pci_release(&p);
	assert_int_equal(host_pci_nvidia(root, ids, 4, &u), 0);
	assert_int_equal(u.error, ELOOP);
	assert_string_equal(u.path, "/sys/bus/pci/devices/0000:17:00.0/vendor");

	host_unreadable_release(&u);
	n = host_ib_ports(root, &ib, &u);
	assert_int_equal(n, 1);
	assert_int_equal(ib[0].unreadable.error, ELOOP);
	assert_string_equal(ib[0].unreadable.path, "/sys/class/infiniband/mlx5_0/ports/1/state");
	assert_string_equal(ib[0].state, "");
	assert_int_equal(ib[0].pcidev.unreadable.error, ELOOP);
	assert_string_equal(ib[0].pcidev.unreadable.path, "/sys/class/infiniband/mlx5_0/device");
	host_ib_ports_free(ib, n);

	/* the first input noted is kept; the text names it and, for permissions, says what to do */
	host_unreadable_release(&u);
	assert_int_equal(host_note_unreadable(&u, "/a", ENOENT), 0);
	assert_int_equal(host_note_unreadable(&u, "/b", EACCES), 1);
	assert_int_equal(host_note_unreadable(&u, "/c", ELOOP), 1);
	t = host_unreadable_text(&u);
	assert_string_equal(t, "cannot read /b: Permission denied; run as root to check it");
	free(t);
	host_unreadable_release(&u);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* A modprobe.d directory without a .conf file holds nothing to read, and is no error. */
static void test_empty_modprobe_dir(void **state)
{
	char root[] = "/tmp/gpuscope-test-host-XXXXXX", path[64], cmd[64];
	struct host_blacklist b;
	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/etc", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/etc/modprobe.d", root);
	assert_int_equal(mkdir(path, 0700), 0);
	host_read_blacklist(root, &b);
	assert_int_equal(b.nouveau_blacklisted, 0);
	assert_int_equal(b.nouveau_modeset0, 0);
	assert_int_equal(b.unreadable.error, 0);
	host_blacklist_release(&b);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_version),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_blacklist),
		cmocka_unit_test(test_xid_lines),
		cmocka_unit_test(test_xid_catalogue),
		cmocka_unit_test(test_pcie_gen),
		cmocka_unit_test(test_topology),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_compat),
		cmocka_unit_test(test_torch_json),
		cmocka_unit_test(test_fixture_tree),
		cmocka_unit_test(test_unreadable_loops),
		cmocka_unit_test(test_empty_modprobe_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
