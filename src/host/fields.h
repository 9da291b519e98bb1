/*
 * The fields of `gpuscope check`'s results, declared once with
 * report/field.h: check --json, check topo --json, check --symptom --json,
 * check --csv and the field lists of docs/check.md are all written from
 * these tables.  One schema per JSON object; the functions below nest the
 * objects as the JSON has always been laid out (docs/check.md).
 *
 * Numbers keep the units their names carry (used_bytes, uptime_s); GPU
 * indices and counts are plain integers.  A field that was not read is
 * JSON null, never 0.
 */
#ifndef GPUSCOPE_HOST_FIELDS_H
#define GPUSCOPE_HOST_FIELDS_H

#include <stddef.h>

#include "host/check.h"
#include "report/field.h"

/* checks[] of check --json: one finding with its title */
const struct report_schema *check_item_schema(void);
/* check --csv rows and checks[] of check topo --json: a finding without its title */
const struct report_schema *check_finding_schema(void);
/* summary: checks by status */
const struct report_schema *check_summary_schema(void);
/* host: the GPU library and the kernel module */
const struct report_schema *check_host_schema(void);
/* host.modules: the kernel modules loaded (present when /proc/modules was read) */
const struct report_schema *check_modules_schema(void);
/* host, after modules: nouveau, containers and the PCI bus */
const struct report_schema *check_host_setup_schema(void);
/* host.libraries[] */
const struct report_schema *check_library_schema(void);
/* host.pytorch (null when no PyTorch was found) */
const struct report_schema *check_pytorch_schema(void);
/* gpus[]: before the static and sample readings */
const struct report_schema *check_gpu_schema(void);
/* gpus[].processes[] */
const struct report_schema *check_process_schema(void);
/* gpus[].mig[] (present when the GPU has MIG instances) */
const struct report_schema *check_mig_schema(void);
/* gpus[].sysfs (present when sysfs has the device), and its link fields when read */
const struct report_schema *check_pci_schema(void);
const struct report_schema *check_pci_link_schema(void);
/* xids[]: Xid records of the kernel log, one per GPU and code */
const struct report_schema *check_xid_schema(void);
/* events[]: events NVML delivered during the check */
const struct report_schema *check_event_schema(void);
/* check topo --json: devices[] */
const struct report_schema *check_topo_device_schema(void);
/* check --symptom --json: the runbook, then steps[] */
const struct report_schema *check_runbook_schema(void);
const struct report_schema *check_step_schema(void);
/* Every schema above, NULL-ended (for docs and `gpuscope fields`). */
const struct report_schema *const *check_schemas(void);

/* One finding into a row of check_item_schema() or check_finding_schema(). */
void check_item_row(const struct check_item *it, struct report_row *row);

struct json_t;
/*
 * The JSON documents of check, check topo and check --symptom (keys in
 * this order, as docs/check.md lists them).  The caller owns the returned
 * reference (json_decref()).  workload: NULL when none; need_bytes: 0 when
 * no workload was estimated.
 */
struct json_t *check_report_json(const struct check_report *r);
struct json_t *check_topo_json(const struct check_topo *t, int exit_code);
struct json_t *check_runbook_json(const char *symptom, const char *workload, double need_bytes,
				  const struct check_step *steps, size_t n, int exit_code);

#endif
