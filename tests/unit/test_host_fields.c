/*
 * check's field tables (host/fields.h): every schema is well formed, and the
 * JSON documents written from them are the ones check has always printed
 * (the expected texts were written by the hand-made writer they replace).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/fields.h"
#include "view/check.h"

/* A small report with one of each part: a host and a GPU check, a process out of
 * this PID namespace, a MIG instance, an Xid the catalog does not know, an event. */
static struct check_report *sample_report(void)
{
	struct check_report *r = calloc(1, sizeof(*r));
	struct check_gpu *g;
	r->backend_rc = GPU_OK;
	r->nvml_library = strdup("/usr/lib/libnvidia-ml.so.550.54.15");
	strcpy(r->nvml_file_version, "550.54.15");
	strcpy(r->driver.version, "550.54.15");
	r->driver.open_module = -1;
	r->modules.readable = 1;
	r->modules.nvidia = r->modules.nvidia_uvm = 1;
	r->blacklist.nouveau_modeset0 = 1;
	r->n_nvidia_pci = 1;
	r->libs_probed = 1;
	r->libs[0].kind = HOST_LIB_CUDA;
	r->libs[0].name = "libcuda";
	r->libs[0].found = 1;
	r->libs[0].path = strdup("/usr/lib/libcuda.so.550.54.15");
	r->libs[0].raw = 12040;
	r->libs[0].major = 12;
	r->libs[0].minor = 4;
	r->libs[1].kind = HOST_LIB_CUDART;
	r->libs[1].name = "libcudart";
	r->libs[1].error = strdup("not found");
	r->libs[2].kind = HOST_LIB_CUDNN;
	r->libs[2].name = "libcudnn";
	r->libs[2].found = 1;
	r->libs[2].raw = 90100;
	r->libs[2].major = 9;
	r->libs[2].minor = 1;
	r->libs[3].kind = HOST_LIB_NCCL;
	r->libs[3].name = "libnccl";
	r->libs[3].found = 1;
	r->libs[3].error = strdup("ncclGetVersion failed");
	r->torch_probed = 1;
	r->torch.torch_found = 1;
	strcpy(r->torch.version, "2.4.1+cu124");
	strcpy(r->torch.arch_list, "sm_80 sm_90");
	r->torch.cuda_available = 1;
	r->torch.device_count = 1;
	r->ngpus = 1;
	r->gpus = g = calloc(1, sizeof(*g));
	GPU_STATIC_SET(&g->st, index, 0);
	strcpy(g->st.name, "NVIDIA H100 80GB HBM3");
	GPU_STATIC_MARK(&g->st, name);
	GPU_STATIC_SET(&g->st, memory_total_bytes, 85520809984ull);
	GPU_SAMPLE_SET(&g->s, power_mw, 412000);
	g->s.nlinks = 1;
	GPU_LINK_SET(&g->s.links[0], active, 1);
	g->nprocs = 2;
	g->procs = calloc(2, sizeof(*g->procs));
	g->procs[0].pid = 31337;
	g->procs[0].type = GPU_PROCESS_COMPUTE;
	g->procs[0].used_valid = 1;
	g->procs[0].used_bytes = 62ull << 30;
	g->procs[0].visible = 1;
	strcpy(g->procs[0].user, "svc-train");
	strcpy(g->procs[0].comm, "python3");
	g->procs[1].pid = 4242;
	g->procs[1].type = GPU_PROCESS_GRAPHICS;
	g->nmig = 1;
	g->mig = calloc(1, sizeof(*g->mig));
	g->mig[0].gpu_instance = 1;
	strcpy(g->mig[0].uuid, "MIG-1");
	g->pci.present = 1;
	g->pci.numa_node = -1;
	g->pci.path = strdup("pci0000:17/0000:17:00.0");
	g->pci.link_valid = 1;
	g->pci.cur_gen = g->pci.max_gen = 5;
	g->pci.cur_width = 8;
	g->pci.max_width = 16;
	r->nxids = 1;
	r->xids = calloc(1, sizeof(*r->xids));
	strcpy(r->xids[0].pci, "0000:17:00");
	r->xids[0].code = 9999;
	r->xids[0].pid = -1;
	r->xids[0].detail = strdup("GPU has fallen off the bus.");
	r->xids[0].uptime_s = 12.5;
	r->xids[0].count = 2;
	r->xids[0].first_uptime_s = -1;
	r->nevents = 1;
	r->events = calloc(1, sizeof(*r->events));
	r->events[0].type = GPU_EVENT_DBE;
	r->events[0].code = 3;
	r->nitems = 2;
	r->items = calloc(2, sizeof(*r->items));
	strcpy(r->items[0].id, "driver.nouveau");
	strcpy(r->items[0].title, "nouveau");
	r->items[0].gpu = -1;
	r->items[0].status = CHECK_OK;
	r->items[0].finding = strdup("not loaded, \"modeset=0\"");
	strcpy(r->items[1].id, "gpu.pcie_link");
	strcpy(r->items[1].title, "pcie link");
	r->items[1].gpu = 0;
	r->items[1].status = CHECK_FAIL;
	r->items[1].finding = strdup("gen 5 x8 (max gen 5 x16)");
	r->items[1].remedy = strdup("=reseat the GPU, check the riser");
	return r;
}

/* Everything above is malloc()ed as check_run() leaves it, for check_report_free(). */
static void free_report(struct check_report *r)
{
	check_report_free(r);
}

static const char full_json[] =
	"{\"exit_code\":1,\"summary\":{\"ok\":1,\"warn\":0,\"fail\":1,\"skip\":0},\"host\":{\"root\":\"/\""
	",\"nvml_status\":\"ok\",\"nvml_error\":null,\"nvml_library\":\"/usr/lib/libnvidia-ml.so.550.54.1"
	"5\",\"nvml_file_version\":\"550.54.15\",\"kernel_module_version\":\"550.54.15\",\"kernel_module_"
	"open\":null,\"modules\":{\"nvidia\":true,\"nvidia_uvm\":true,\"nvidia_drm\":false,\"nvidia_modes"
	"et\":false,\"nvidia_peermem\":false,\"nouveau\":false},\"nouveau_blacklisted\":true,\"in_contain"
	"er\":false,\"nvidia_pci_devices\":1,\"libraries\":[{\"name\":\"libcuda\",\"found\":true,\"path\""
	":\"/usr/lib/libcuda.so.550.54.15\",\"version\":\"12.4\",\"raw\":12040},{\"name\":\"libcudart\",\""
	"found\":false,\"path\":null,\"version\":null,\"raw\":null},{\"name\":\"libcudnn\",\"found\":true"
	",\"path\":null,\"version\":\"9.1.0\",\"raw\":90100},{\"name\":\"libnccl\",\"found\":true,\"path\""
	":null,\"version\":null,\"raw\":null}],\"pytorch\":{\"version\":\"2.4.1+cu124\",\"cuda\":null,\"c"
	"udnn\":null,\"arch_list\":\"sm_80 sm_90\",\"cuda_available\":true,\"device_count\":1}},\"gpus\":"
	"[{\"index\":0,\"status\":\"ok\",\"static\":{\"index\":0,\"name\":\"NVIDIA H100 80GB HBM3\",\"mem"
	"ory_total_bytes\":85520809984},\"sample\":{\"power_mw\":412000,\"nvlinks\":[{\"link\":0,\"active"
	"\":1}]},\"processes\":[{\"pid\":31337,\"type\":\"compute\",\"used_bytes\":66571993088,\"user\":\""
	"svc-train\",\"command\":\"python3\"},{\"pid\":4242,\"type\":\"graphics\",\"used_bytes\":null,\"u"
	"ser\":null,\"command\":null}],\"mig\":[{\"gpu_instance\":1,\"compute_instance\":0,\"uuid\":\"MIG"
	"-1\",\"memory_total_bytes\":null}],\"sysfs\":{\"path\":\"pci0000:17/0000:17:00.0\",\"numa_node\""
	":-1,\"current_gen\":5,\"max_gen\":5,\"current_width\":8,\"max_width\":16}}],\"xids\":[{\"code\":"
	"9999,\"pci\":\"0000:17:00\",\"pid\":null,\"process\":null,\"detail\":\"GPU has fallen off the bu"
	"s.\",\"uptime_s\":12.5,\"count\":2,\"first_uptime_s\":null,\"name\":null,\"bucket\":null,\"actio"
	"n\":null}],\"events\":[{\"gpu\":0,\"type\":\"dbe\",\"code\":3}],\"checks\":[{\"id\":\"driver.nou"
	"veau\",\"title\":\"nouveau\",\"gpu\":null,\"status\":\"ok\",\"finding\":\"not loaded, \\\"modese"
	"t=0\\\"\",\"remedy\":null},{\"id\":\"gpu.pcie_link\",\"title\":\"pcie link\",\"gpu\":0,\"status\""
	":\"fail\",\"finding\":\"gen 5 x8 (max gen 5 x16)\",\"remedy\":\"=reseat the GPU, check the riser"
	"\"}]}";

static const char bare_json[] =
	"{\"exit_code\":1,\"summary\":{\"ok\":1,\"warn\":0,\"fail\":1,\"skip\":0},\"host\":{\"root\":\"/\""
	",\"nvml_status\":\"ok\",\"nvml_error\":null,\"nvml_library\":\"/usr/lib/libnvidia-ml.so.550.54.1"
	"5\",\"nvml_file_version\":\"550.54.15\",\"kernel_module_version\":\"550.54.15\",\"kernel_module_"
	"open\":true,\"nouveau_blacklisted\":true,\"in_container\":false,\"nvidia_pci_devices\":1,\"libra"
	"ries\":[],\"pytorch\":null},\"gpus\":[{\"index\":0,\"status\":\"ok\",\"static\":{\"index\":0,\"n"
	"ame\":\"NVIDIA H100 80GB HBM3\",\"memory_total_bytes\":85520809984},\"sample\":{\"power_mw\":412"
	"000,\"nvlinks\":[{\"link\":0,\"active\":1}]},\"processes\":[{\"pid\":31337,\"type\":\"compute\","
	"\"used_bytes\":66571993088,\"user\":\"svc-train\",\"command\":\"python3\"},{\"pid\":4242,\"type\""
	":\"graphics\",\"used_bytes\":null,\"user\":null,\"command\":null}],\"sysfs\":{\"path\":\"pci0000"
	":17/0000:17:00.0\",\"numa_node\":-1}}],\"xids\":[{\"code\":9999,\"pci\":\"0000:17:00\",\"pid\":n"
	"ull,\"process\":null,\"detail\":\"GPU has fallen off the bus.\",\"uptime_s\":12.5,\"count\":2,\""
	"first_uptime_s\":null,\"name\":null,\"bucket\":null,\"action\":null}],\"events\":[{\"gpu\":0,\"t"
	"ype\":\"dbe\",\"code\":3}],\"checks\":[{\"id\":\"driver.nouveau\",\"title\":\"nouveau\",\"gpu\":"
	"null,\"status\":\"ok\",\"finding\":\"not loaded, \\\"modeset=0\\\"\",\"remedy\":null},{\"id\":\""
	"gpu.pcie_link\",\"title\":\"pcie link\",\"gpu\":0,\"status\":\"fail\",\"finding\":\"gen 5 x8 (ma"
	"x gen 5 x16)\",\"remedy\":\"=reseat the GPU, check the riser\"}]}";

/* The compact text of a document (and the reference dropped). */
static char *dump(json_t *doc)
{
	char *s = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(doc);
	return s;
}

static void test_schemas_well_formed(void **state)
{
	const struct report_schema *const *s = check_schemas(), *const * t;
	size_t i, j, n = 0;
	(void)state;
	for (; *s; s++, n++) {
		assert_non_null((*s)->name);
		assert_true((*s)->nfields > 0);
		for (t = check_schemas(); t != s; t++)
			assert_string_not_equal((*t)->name, (*s)->name);
		for (i = 0; i < (*s)->nfields; i++) {
			const struct report_field *f = &(*s)->fields[i];
			assert_true(f->name[0] && f->help && f->help[0]);
			/* a number that is not a count names its unit */
			if (f->type == REPORT_NUM)
				assert_non_null(f->unit);
			for (j = 0; j < i; j++)
				assert_string_not_equal((*s)->fields[j].name, f->name);
		}
	}
	assert_int_equal(n, 18);
	assert_ptr_equal(check_schemas()[0], check_item_schema());
	/* a CSV row is a finding without its title */
	assert_int_equal(check_finding_schema()->nfields + 1, check_item_schema()->nfields);
	assert_int_equal(report_field_index(check_finding_schema(), "title"), -1);
}

static void test_report_json(void **state)
{
	struct check_report *r = sample_report();
	char *s;
	(void)state;
	s = dump(check_report_json(r));
	assert_string_equal(s, full_json);
	free(s);
	/* known open module; no /proc/modules, libraries, PyTorch, PCIe link or MIG: absent or null as before */
	r->driver.open_module = 1;
	r->modules.readable = 0;
	r->torch.torch_found = 0;
	r->libs_probed = 0;
	r->gpus[0].pci.link_valid = 0;
	r->gpus[0].nmig = 0;
	s = dump(check_report_json(r));
	assert_string_equal(s, bare_json);
	free(s);
	free_report(r);
}

static void test_topo_and_runbook_json(void **state)
{
	struct check_report *r = sample_report();
	char names[2][16] = {"GPU0", "NIC0"}, labels[2][48] = {"00000000:17:00.0", "mlx5_0"};
	char cells[4][16] = {"X", "PIX", "PIX", "X"}, cpus0[] = "0-55", *cpus[2] = {cpus0, NULL};
	int numa[2] = {0, -1};
	struct check_topo t = {2, 1, names, labels, cells, numa, cpus, r->items, 2};
	struct check_step steps[1] = {{"memory per gpu", CHECK_WARN, "62.0 GiB of 79.6 GiB used", NULL}};
	char *s;
	(void)state;
	s = dump(check_topo_json(&t, 1));
	assert_string_equal(
		s,
		"{\"devices\":[{\"name\":\"GPU0\",\"label\":\"00000000:17:00.0\",\"numa_node\":0,"
		"\"cpus\":\"0-55\"},{\"name\":\"NIC0\",\"label\":\"mlx5_0\",\"numa_node\":null,"
		"\"cpus\":null}],\"matrix\":[[\"X\",\"PIX\"],[\"PIX\",\"X\"]],\"checks\":["
		"{\"id\":\"driver.nouveau\",\"gpu\":null,\"status\":\"ok\",\"finding\":"
		"\"not loaded, \\\"modeset=0\\\"\",\"remedy\":null},{\"id\":\"gpu.pcie_link\",\"gpu\":0,"
		"\"status\":\"fail\",\"finding\":\"gen 5 x8 (max gen 5 x16)\",\"remedy\":"
		"\"=reseat the GPU, check the riser\"}],\"exit_code\":1}");
	free(s);
	s = dump(check_runbook_json("oom", NULL, 0, steps, 1, 1));
	assert_string_equal(s,
			    "{\"symptom\":\"oom\",\"workload\":null,\"need_bytes\":null,\"steps\":[{\"step\":1,"
			    "\"title\":\"memory per gpu\",\"status\":\"warn\",\"finding\":"
			    "\"62.0 GiB of 79.6 GiB used\",\"action\":null}],\"exit_code\":1}");
	free(s);
	s = dump(check_runbook_json("oom", "llama2-7b", 2.5e9, steps, 0, 0));
	assert_string_equal(s,
			    "{\"symptom\":\"oom\",\"workload\":\"llama2-7b\",\"need_bytes\":2500000000.0,"
			    "\"steps\":[],\"exit_code\":0}");
	free(s);
	free_report(r);
}

/* Runs a view function into a string. */
#define CAPTURE(buf, call) \
	do { \
		size_t len_; \
		FILE *out = open_memstream(&(buf), &len_); \
		call; \
		fclose(out); \
	} while (0)

static void test_csv(void **state)
{
	struct check_report *r = sample_report();
	char *buf;
	(void)state;
	CAPTURE(buf, view_check_csv(out, r));
	/* no title column; a host check has no GPU; a remedy that starts a formula is neutralised */
	assert_string_equal(
		buf,
		"id,gpu,status,finding,remedy\n"
		"driver.nouveau,,ok,\"not loaded, \"\"modeset=0\"\"\",\n"
		"gpu.pcie_link,0,fail,gen 5 x8 (max gen 5 x16),\"'=reseat the GPU, check the riser\"\n");
	free(buf);
	free_report(r);
}

static void test_runbook_text(void **state)
{
	struct check_step steps[2] = {
		{"a step whose title is long enough to push the finding down", CHECK_WARN,
		 "extraordinarily-long-first-word-here and then some more words that wrap around the line end",
		 "do this"},
		{"short", CHECK_OK, "   ", NULL},
	};
	char *buf;
	(void)state;
	CAPTURE(buf,
		view_check_runbook(out, "oom",
				   "llama2-7b, finetune, bf16, micro-batch 1 on 8 x h100-sxm5-80gb: "
				   "weights 1.6, gradients 1.6, optimizer 9.4, activations 0.5, other 2.0 GiB",
				   steps, 2));
	/* a first word that does not fit after a long lead starts the next line */
	assert_string_equal(buf,
			    "gpuscope check --symptom oom: 2 steps\n"
			    "workload: llama2-7b, finetune, bf16, micro-batch 1 on 8 x h100-sxm5-80gb:\n"
			    "  weights 1.6, gradients 1.6, optimizer 9.4, activations 0.5, other 2.0 GiB\n"
			    "\n"
			    " 1. warn a step whose title is long enough to push the finding down:\n"
			    "         extraordinarily-long-first-word-here and then some more words that wrap\n"
			    "         around the line end\n"
			    "         -> do this\n"
			    " 2. ok   short:\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schemas_well_formed),   cmocka_unit_test(test_report_json),
		cmocka_unit_test(test_topo_and_runbook_json), cmocka_unit_test(test_csv),
		cmocka_unit_test(test_runbook_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
