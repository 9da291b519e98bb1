/*
 * The field tables of `gpuscope profile` (report/field.h): each figure is
 * declared once here, and the view writes the table, JSON and CSV from it.
 */
#include <math.h>

#include "profile/profile.h"

#define PROFILE_TRACE_FIELDS(F) \
	F(file, TEXT, NULL, "the trace read", r->file) \
	F(gpu, TEXT, NULL, "deviceProperties[0].name; null in the 2021 schema", r->gpu) \
	F(source_gpu, TEXT, NULL, \
	  "the catalog GPU the trace ran on (board name resolved, or --source-gpu); null " \
	  "when unresolved", \
	  r->source_gpu) \
	F(schema, TEXT, NULL, "kineto (cat kernel, cuda_runtime ...) or kineto-2021 (cat Kernel, Runtime)", \
	  r->schema) \
	F(events, INT, NULL, "elements of traceEvents read", (double)r->events) \
	F(gpu_events, INT, NULL, "kernels, copies and memsets in the trace", (double)r->gpu_events) \
	F(devices, INT, NULL, "distinct args.device among the GPU events", (double)r->devices) \
	F(rank, INT, NULL, "distributedInfo.rank; null when the trace does not say", \
	  r->rank < 0 ? NAN : (double)r->rank) \
	F(steps, INT, NULL, "ProfilerStep# annotations (1: the whole trace, when there are none)", \
	  (double)r->nsteps) \
	F(unassigned, INT, NULL, "GPU events launched outside every step (in no step's figures)", \
	  (double)r->unassigned)

REPORT_DEFINE(profile_trace_schema, profile_trace_row, "profile-trace", struct profile_result, r,
	      PROFILE_TRACE_FIELDS)

#define PROFILE_STEP_FIELDS(F) \
	F(step, TEXT, NULL, "ProfilerStep#N, \"trace\" without steps, \"all steps\" for the total", s->name) \
	F(wall_s, NUM, "s", "the step annotation's dur (no steps: the GPU events' span)", s->wall_s) \
	F(gpu_busy_s, NUM, "s", "union of the step's GPU intervals over all streams", s->busy_s) \
	F(gpu_idle_s, NUM, "s", "wall_s - gpu_busy_s, floored at 0", s->idle_s) \
	F(gpu_idle, NUM, "fraction", "gpu_idle_s / wall_s", s->idle_frac) \
	F(idle_launch_s, NUM, "s", "of gpu_idle_s: gaps while the host launched work (no wait)", \
	  s->idle_launch_s) \
	F(idle_loader_s, NUM, "s", "of gpu_idle_s: gaps during a DataLoader fetch", s->idle_loader_s) \
	F(idle_sync_s, NUM, "s", "of gpu_idle_s: gaps during a synchronisation or blocking copy", s->idle_sync_s) \
	F(kernel_sum_s, NUM, "s", "sum of the step's GPU event durations (streams overlap)", s->kernel_sum_s) \
	F(comm_s, NUM, "s", "union of the communication kernels", s->comm_s) \
	F(comm_exposed_s, NUM, "s", "communication while no other GPU work runs", s->comm_exposed_s) \
	F(comm_overlapped_s, NUM, "s", "comm_s - comm_exposed_s", s->comm_overlap_s) \
	F(kernels, INT, NULL, "GPU events (kernels, copies, memsets) of the step", (double)s->kernels) \
	F(bottleneck, TEXT, NULL, "the largest of GPU idle, exposed communication and each kernel class", \
	  s->bottleneck) \
	F(bottleneck_share, NUM, "fraction", "the bottleneck's time / wall_s", s->bottleneck_share) \
	F(max_gain, NUM, "fraction", "speed-up bound if the bottleneck took no time: 1/(1-share) - 1", \
	  s->max_gain) \
	F(remedy, TEXT, NULL, "what usually removes the bottleneck", s->remedy)

REPORT_DEFINE(profile_step_schema, profile_step_row, "profile-step", struct profile_step, s, PROFILE_STEP_FIELDS)

#define PROFILE_CLASS_FIELDS(F) \
	F(step, TEXT, NULL, "the step the class's time belongs to", c->step) \
	F(class, TEXT, NULL, "gemm, conv, attention, elementwise, norm, memcpy, memset, comm, other", c->cls) \
	F(sub, TEXT, NULL, "dtype (gemm, conv), collective (comm), direction (memcpy); empty otherwise", c->sub) \
	F(time_s, NUM, "s", "sum of the durations of the class's GPU events in the step", c->time_s) \
	F(share, NUM, "fraction", "time_s / the step's wall_s", c->share) \
	F(kernels, INT, NULL, "GPU events of the class in the step", (double)c->kernels) \
	F(bytes, NUM, "bytes", "bytes the copies or memsets moved (args.bytes); 0 for kernels", c->bytes) \
	F(bandwidth, NUM, "GB/s", "bytes / time_s (1e9 bytes); null without bytes", c->bandwidth_gbs) \
	F(flops, NUM, "FLOP", "FLOPs of the operators (recorded shapes) whose longest kernel is in the class", \
	  c->flops) \
	F(flop_time_s, NUM, "s", "time of the matrix kernels those operators launched", c->flop_time_s) \
	F(tflops, NUM, "TFLOP/s", "flops / flop_time_s: achieved; null without shapes", c->tflops) \
	F(peak_tflops, NUM, "TFLOP/s", "the source GPU's dense peak for the class's dtype; null when unknown", \
	  c->peak_tflops) \
	F(of_peak, NUM, "fraction", "tflops / peak_tflops", c->of_peak)

REPORT_DEFINE(profile_class_schema, profile_class_row, "profile-class", struct profile_class_time, c,
	      PROFILE_CLASS_FIELDS)
