/*
 * The kubelet's pod-resources answer, decoded from protobuf's wire format,
 * and container ids from cgroup paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/kube.h"
#include "export/procinfo.h"

struct msg {
	uint8_t b[16384];
	size_t n;
};

static void varint(struct msg *m, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		m->b[m->n++] = c | (v ? 0x80 : 0);
	} while (v);
}

/* Appends field `num` (length-delimited) holding `sub`. */
static void field(struct msg *m, unsigned num, const struct msg *sub)
{
	varint(m, (uint64_t)num << 3 | 2);
	varint(m, sub->n);
	memcpy(m->b + m->n, sub->b, sub->n);
	m->n += sub->n;
}

static void text(struct msg *m, unsigned num, const char *s)
{
	struct msg t;
	t.n = strlen(s);
	memcpy(t.b, s, t.n);
	field(m, num, &t);
}

static void device(struct msg *ctr, const char *resource, const char *id)
{
	struct msg d = {{0}, 0};
	text(&d, 1, resource);
	text(&d, 2, id);
	field(ctr, 2, &d);
}

static void test_list(void **state)
{
	struct msg resp = {{0}, 0}, pod = {{0}, 0}, ctr = {{0}, 0}, other = {{0}, 0};
	struct kube_device *d;
	size_t n, drop;
	(void)state;
	text(&ctr, 1, "pytorch");
	device(&ctr, "nvidia.com/gpu", "GPU-aaaa");
	device(&ctr, "nvidia.com/mig-1g.10gb", "MIG-bbbb");
	device(&ctr, "example.com/fpga", "fpga0");
	/* cpu_ids (field 3, a varint): unknown to the decoder, skipped */
	varint(&ctr, 3 << 3 | 0);
	varint(&ctr, 7);
	text(&pod, 1, "trainer-0");
	text(&pod, 2, "ml-team");
	field(&pod, 3, &ctr);
	field(&resp, 1, &pod);
	text(&other, 1, "idle");
	text(&other, 2, "default");
	field(&resp, 1, &other);

	assert_int_equal(kube_parse_list(resp.b, resp.n, KUBE_MAX_DEVICES, &d, &n, &drop), 0);
	assert_int_equal(n, 2);
	assert_string_equal(d[0].id, "GPU-aaaa");
	assert_string_equal(d[0].pod, "trainer-0");
	assert_string_equal(d[0].namespace_, "ml-team");
	assert_string_equal(d[0].container, "pytorch");
	assert_string_equal(d[1].id, "MIG-bbbb");
	assert_string_equal(d[1].resource, "nvidia.com/mig-1g.10gb");
	free(d);

	/* an empty answer: no pods */
	assert_int_equal(kube_parse_list(resp.b, 0, KUBE_MAX_DEVICES, &d, &n, &drop), 0);
	assert_int_equal(n, 0);
	assert_null(d);

	/* cut short anywhere: a shorter list or an error, never a crash; inside the last pod, an error */
	for (size_t cut = 1; cut < resp.n; cut++) {
		int rc = kube_parse_list(resp.b, cut, KUBE_MAX_DEVICES, &d, &n, &drop);
		if (rc == 0)
			free(d);
		else
			assert_null(d);
	}
	assert_int_equal(kube_parse_list(resp.b, resp.n - 1, KUBE_MAX_DEVICES, &d, &n, &drop), -1);
	/* wire type 7 does not exist */
	{
		uint8_t bad[] = {0x0f, 0x00};
		assert_int_equal(kube_parse_list(bad, sizeof(bad), KUBE_MAX_DEVICES, &d, &n, &drop), -1);
	}
}

/* Sets *resp to an answer of one pod, namespace "ml", holding container ctr. */
static void one_pod(struct msg *resp, const char *name, const struct msg *ctr)
{
	static struct msg pod;
	memset(&pod, 0, sizeof(pod));
	memset(resp, 0, sizeof(*resp));
	text(&pod, 1, name);
	text(&pod, 2, "ml");
	field(&pod, 3, ctr);
	field(resp, 1, &pod);
}

/* A pod holding all 72 GPUs of an NVL72 node in one container: every one is attributed. */
static void test_list_72_gpus(void **state)
{
	static struct msg resp, ctr, devs;
	struct kube_device *d;
	size_t n, i, drop;
	char id[64];
	(void)state;
	memset(&ctr, 0, sizeof(ctr));
	memset(&devs, 0, sizeof(devs));
	/* as the kubelet sends it: one ContainerDevices, 72 device_ids */
	text(&devs, 1, "nvidia.com/gpu");
	for (i = 0; i < 72; i++) {
		snprintf(id, sizeof(id), "GPU-b200b200-0000-4000-8000-0000000000%zu", i);
		text(&devs, 2, id);
	}
	text(&ctr, 1, "trainer");
	field(&ctr, 2, &devs);
	one_pod(&resp, "nvl72-0", &ctr);
	assert_int_equal(kube_parse_list(resp.b, resp.n, KUBE_MAX_DEVICES, &d, &n, &drop), 0);
	assert_int_equal(n, 72);
	for (i = 0; i < 72; i++) {
		snprintf(id, sizeof(id), "GPU-b200b200-0000-4000-8000-0000000000%zu", i);
		assert_string_equal(d[i].id, id);
		assert_string_equal(d[i].pod, "nvl72-0");
		assert_string_equal(d[i].container, "trainer");
	}
	assert_int_equal(drop, 0);
	free(d);
	/* past the bound: the first ones kept, the rest counted, not lost silently */
	assert_int_equal(kube_parse_list(resp.b, resp.n, 50, &d, &n, &drop), 0);
	assert_int_equal(n, 50);
	assert_int_equal(drop, 22);
	assert_string_equal(d[49].id, "GPU-b200b200-0000-4000-8000-000000000049");
	free(d);

	/* 72 ContainerDevices of one id each, the way other device plugins answer */
	memset(&ctr, 0, sizeof(ctr));
	text(&ctr, 1, "trainer");
	for (i = 0; i < 72; i++) {
		snprintf(id, sizeof(id), "GPU-%zu", i);
		device(&ctr, "nvidia.com/gpu", id);
	}
	one_pod(&resp, "nvl72-1", &ctr);
	assert_int_equal(kube_parse_list(resp.b, resp.n, KUBE_MAX_DEVICES, &d, &n, &drop), 0);
	assert_int_equal(n, 72);
	assert_string_equal(d[71].id, "GPU-71");
	free(d);
}

/* A pod of 70 containers, one GPU each: each GPU has its own container. */
static void test_list_70_containers(void **state)
{
	static struct msg resp, pod, ctr;
	struct kube_device *d;
	size_t n, i, drop;
	char name[64];
	(void)state;
	memset(&resp, 0, sizeof(resp));
	memset(&pod, 0, sizeof(pod));
	text(&pod, 1, "fleet");
	text(&pod, 2, "ml");
	for (i = 0; i < 70; i++) {
		memset(&ctr, 0, sizeof(ctr));
		snprintf(name, sizeof(name), "worker-%zu", i);
		text(&ctr, 1, name);
		snprintf(name, sizeof(name), "GPU-%zu", i);
		device(&ctr, "nvidia.com/gpu", name);
		field(&pod, 3, &ctr);
	}
	field(&resp, 1, &pod);
	assert_int_equal(kube_parse_list(resp.b, resp.n, KUBE_MAX_DEVICES, &d, &n, &drop), 0);
	assert_int_equal(n, 70);
	for (i = 0; i < 70; i++) {
		snprintf(name, sizeof(name), "GPU-%zu", i);
		assert_string_equal(d[i].id, name);
		snprintf(name, sizeof(name), "worker-%zu", i);
		assert_string_equal(d[i].container, name);
	}
	free(d);
}

static void test_cgroup(void **state)
{
	static const char *const id = "4f9c2e7d1a3b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d";
	struct proc_container c;
	char buf[512];
	(void)state;
	snprintf(buf, sizeof(buf),
		 "0::/kubepods.slice/kubepods-burstable.slice/"
		 "kubepods-burstable-pod6f1c2b9e_3d4a_4b5c_8e7f_0a1b2c3d4e5f.slice/cri-containerd-%s.scope\n",
		 id);
	assert_int_equal(proc_parse_cgroup(buf, &c), 1);
	assert_string_equal(c.id, id);
	assert_string_equal(c.pod_uid, "6f1c2b9e-3d4a-4b5c-8e7f-0a1b2c3d4e5f");
	snprintf(buf, sizeof(buf), "12:memory:/docker/%s\n0::/\n", id);
	assert_int_equal(proc_parse_cgroup(buf, &c), 1);
	assert_string_equal(c.id, id);
	assert_string_equal(c.pod_uid, "");
	snprintf(buf, sizeof(buf), "0::/machine.slice/libpod-%s.scope\n", id);
	assert_int_equal(proc_parse_cgroup(buf, &c), 1);
	/* a host process, and a 65-digit run that is no id */
	assert_int_equal(proc_parse_cgroup("0::/user.slice/user-1000.slice/session-3.scope\n", &c), 0);
	snprintf(buf, sizeof(buf), "0::/x/%s5\n", id);
	assert_int_equal(proc_parse_cgroup(buf, &c), 0);
	assert_int_equal(proc_parse_cgroup("", &c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_list_72_gpus),
		cmocka_unit_test(test_list_70_containers),
		cmocka_unit_test(test_cgroup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
