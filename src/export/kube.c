/*
 * The kubelet pod-resources client (see kube.h).  gRPC comes from Debian's
 * libgrpc (the C core API: a channel to "unix:PATH", one unary call per
 * refresh); the messages are small enough to decode straight from the
 * protobuf wire format, fields as in k8s.io/kubelet's
 * pkg/apis/podresources/v1/api.proto:
 *
 *   ListPodResourcesResponse { repeated PodResources pod_resources = 1; }
 *   PodResources { string name = 1; string namespace = 2; repeated ContainerResources containers = 3; }
 *   ContainerResources { string name = 1; repeated ContainerDevices devices = 2; ... }
 *   ContainerDevices { string resource_name = 1; repeated string device_ids = 2; ... }
 *
 * Unknown fields are skipped by wire type, so newer kubelets decode too.
 */
#include "export/kube.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "export/log.h"
#include "util/xalloc.h"

#ifdef GPUSCOPE_HAVE_GRPC
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#endif

/* ---- protobuf wire format ---- */

struct pb {
	const uint8_t *p, *end;
};

static int pb_varint(struct pb *b, uint64_t *v)
{
	int shift = 0;
	*v = 0;
	while (b->p < b->end && shift < 64) {
		uint8_t c = *b->p++;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/*
 * The next field: its number, wire type, and for length-delimited fields
 * the bytes.  Returns 1, 0 at the end, -1 on a malformed message.
 */
static int pb_next(struct pb *b, unsigned *field, struct pb *sub)
{
	uint64_t key, len, skip;
	if (b->p >= b->end)
		return 0;
	if (pb_varint(b, &key))
		return -1;
	*field = (unsigned)(key >> 3);
	sub->p = sub->end = NULL;
	switch (key & 7) {
	case 0: /* varint */
		return pb_varint(b, &skip) ? -1 : 1;
	case 1: /* 64-bit */
		if (b->end - b->p < 8)
			return -1;
		b->p += 8;
		return 1;
	case 2: /* length-delimited */
		if (pb_varint(b, &len) || len > (uint64_t)(b->end - b->p))
			return -1;
		sub->p = b->p;
		sub->end = b->p + len;
		b->p += len;
		return 1;
	case 5: /* 32-bit */
		if (b->end - b->p < 4)
			return -1;
		b->p += 4;
		return 1;
	default:
		return -1;
	}
}

static void pb_str(const struct pb *s, char *out, size_t len)
{
	size_t n = (size_t)(s->end - s->p);
	if (n >= len)
		n = len - 1;
	memcpy(out, s->p, n);
	out[n] = '\0';
}

static int nvidia_resource(const char *r)
{
	return !strcmp(r, "nvidia.com/gpu") || !strncmp(r, "nvidia.com/mig-", 15);
}

struct list_out {
	struct kube_device *v;
	size_t n, cap;
	size_t max; /* devices kept at most; the rest are counted in dropped */
	size_t dropped;
};

static void add_device(struct list_out *o, const struct kube_device *ctx, const char *resource,
		       const struct pb *id)
{
	struct kube_device *d;
	if (o->n >= o->max) {
		o->dropped++;
		return;
	}
	XGROW(o->v, o->cap, o->n + 1);
	d = &o->v[o->n++];
	*d = *ctx;
	snprintf(d->resource, sizeof(d->resource), "%s", resource);
	pb_str(id, d->id, sizeof(d->id));
}

/*
 * Each message is read twice: first for its scalars (which may come after
 * the repeated fields, the wire order is free) and to check it is whole,
 * then for its repeated sub-messages.  No list of sub-messages is kept, so
 * a pod may hold any number of containers, devices and ids; only the
 * output is bounded (o->max).
 */
static int parse_devices(struct pb b, const struct kube_device *ctx, struct list_out *o)
{
	struct pb again = b, f;
	char resource[128] = "";
	unsigned num;
	int rc;
	while ((rc = pb_next(&b, &num, &f)) > 0)
		if (num == 1 && f.p)
			pb_str(&f, resource, sizeof(resource));
	if (rc < 0)
		return -1;
	if (!nvidia_resource(resource))
		return 0;
	while (pb_next(&again, &num, &f) > 0)
		if (num == 2 && f.p)
			add_device(o, ctx, resource, &f);
	return 0;
}

static int parse_container(struct pb b, struct kube_device *ctx, struct list_out *o)
{
	struct pb again = b, f;
	unsigned num;
	int rc;
	ctx->container[0] = '\0';
	while ((rc = pb_next(&b, &num, &f)) > 0)
		if (num == 1 && f.p)
			pb_str(&f, ctx->container, sizeof(ctx->container));
	if (rc < 0)
		return -1;
	while (pb_next(&again, &num, &f) > 0)
		if (num == 2 && f.p && parse_devices(f, ctx, o))
			return -1;
	return 0;
}

static int parse_pod(struct pb b, struct list_out *o)
{
	struct kube_device ctx;
	struct pb again = b, f;
	unsigned num;
	int rc;
	memset(&ctx, 0, sizeof(ctx));
	while ((rc = pb_next(&b, &num, &f)) > 0) {
		if (num == 1 && f.p)
			pb_str(&f, ctx.pod, sizeof(ctx.pod));
		else if (num == 2 && f.p)
			pb_str(&f, ctx.namespace_, sizeof(ctx.namespace_));
	}
	if (rc < 0)
		return -1;
	while (pb_next(&again, &num, &f) > 0)
		if (num == 3 && f.p && parse_container(f, &ctx, o))
			return -1;
	return 0;
}

int kube_parse_list(const uint8_t *buf, size_t len, size_t max, struct kube_device **out, size_t *n,
		    size_t *dropped)
{
	struct pb b = {buf, buf + len}, f;
	struct list_out o = {NULL, 0, 0, max, 0};
	unsigned num;
	int rc;
	*out = NULL;
	*n = 0;
	*dropped = 0;
	while ((rc = pb_next(&b, &num, &f)) > 0)
		if (num == 1 && f.p && parse_pod(f, &o) < 0) {
			rc = -1;
			break;
		}
	if (rc < 0) {
		free(o.v);
		return -1;
	}
	*out = o.v;
	*n = o.n;
	*dropped = o.dropped;
	return 0;
}

/* ---- the client thread ---- */

struct kube {
	char path[4096];
	double period_s, timeout_s;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stop;
	struct kube_device *devs; /* the last good answer; guarded by lock */
	size_t ndevs;
	size_t dropped; /* devices of that answer past KUBE_MAX_DEVICES */
	int up;         /* the last call was answered and decoded */
	char why[256];  /* why not, "" when up */
};

#ifdef GPUSCOPE_HAVE_GRPC
#if defined(__SANITIZE_THREAD__)
/*
 * ThreadSanitizer cannot see the synchronisation inside Debian's libgrpc
 * (built without it), so it reports races between gRPC's own threads; the
 * kubelet thread's data here is guarded by k->lock and stays checked.
 */
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
	return "called_from_lib:libgrpc.so.29\ncalled_from_lib:libgpr.so.29\n"
	       "race:libgrpc.so\nrace:libgpr.so\nrace:libabsl_\nrace:libupb.so\n"
	       "mutex:libgrpc.so\ndeadlock:libgrpc.so\nthread:libgrpc.so\nthread:libgpr.so\n";
}
#endif

int kube_available(void)
{
	return 1;
}

/* One List call; 0 with the response bytes (malloc()ed), or -1 with why. */
static int list_call(struct kube *k, uint8_t **resp, size_t *resp_len, char *why, size_t wlen)
{
	char target[4200];
	grpc_channel_credentials *creds = grpc_insecure_credentials_create();
	/* a larger answer ends the call with RESOURCE_EXHAUSTED, reported as the reason */
	grpc_arg max_msg = {GRPC_ARG_INTEGER,
			    (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
			    {.integer = KUBE_MAX_MESSAGE}};
	grpc_channel_args args = {1, &max_msg};
	grpc_channel *ch;
	grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
	grpc_call *call;
	grpc_op ops[6];
	grpc_metadata_array init_md, trail_md;
	grpc_byte_buffer *req, *reply = NULL;
	grpc_slice empty = grpc_empty_slice(), details = grpc_empty_slice();
	grpc_status_code status = GRPC_STATUS_UNKNOWN;
	gpr_timespec deadline = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
					     gpr_time_from_millis((int64_t)(k->timeout_s * 1000), GPR_TIMESPAN));
	grpc_event ev;
	int rc = -1;

	snprintf(target, sizeof(target), "unix:%s", k->path);
	ch = grpc_channel_create(target, creds, &args);
	grpc_channel_credentials_release(creds);
	call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
					grpc_slice_from_static_string("/v1.PodResourcesLister/List"), NULL,
					deadline, NULL);
	grpc_metadata_array_init(&init_md);
	grpc_metadata_array_init(&trail_md);
	req = grpc_raw_byte_buffer_create(&empty, 1); /* ListPodResourcesRequest{}: no bytes */
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = req;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &init_md;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &reply;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &trail_md;
	ops[5].data.recv_status_on_client.status = &status;
	ops[5].data.recv_status_on_client.status_details = &details;
	if (grpc_call_start_batch(call, ops, 6, (void *)1, NULL) != GRPC_CALL_OK) {
		snprintf(why, wlen, "cannot start the List call");
	} else {
		/* the call's own deadline ends it; a little more for the completion to arrive */
		ev = grpc_completion_queue_next(cq,
						gpr_time_add(deadline, gpr_time_from_millis(1000, GPR_TIMESPAN)),
						NULL);
		if (ev.type != GRPC_OP_COMPLETE) {
			grpc_call_cancel(call, NULL);
			/* wait for the cancelled call's completion, so the queue can be shut down */
			(void)grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
			snprintf(why, wlen, "the kubelet did not answer within %.1f s", k->timeout_s);
		} else if (status != GRPC_STATUS_OK) {
			char *d = grpc_slice_to_c_string(details);
			snprintf(why, wlen, "%s (gRPC status %d)",
				 status == GRPC_STATUS_DEADLINE_EXCEEDED ? "the kubelet did not answer in time" :
									   d,
				 (int)status);
			gpr_free(d);
		} else if (!reply) {
			snprintf(why, wlen, "the kubelet sent no message");
		} else {
			grpc_byte_buffer_reader r;
			grpc_slice all;
			if (grpc_byte_buffer_reader_init(&r, reply)) {
				all = grpc_byte_buffer_reader_readall(&r);
				*resp_len = GRPC_SLICE_LENGTH(all);
				*resp = xmalloc(*resp_len + 1);
				memcpy(*resp, GRPC_SLICE_START_PTR(all), *resp_len);
				grpc_slice_unref(all);
				grpc_byte_buffer_reader_destroy(&r);
				rc = 0;
			} else {
				snprintf(why, wlen, "cannot read the kubelet's answer");
			}
		}
	}
	if (reply)
		grpc_byte_buffer_destroy(reply);
	grpc_byte_buffer_destroy(req);
	grpc_slice_unref(details);
	grpc_metadata_array_destroy(&init_md);
	grpc_metadata_array_destroy(&trail_md);
	grpc_call_unref(call);
	grpc_channel_destroy(ch);
	grpc_completion_queue_shutdown(cq);
	while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type !=
	       GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(cq);
	return rc;
}

/* Logs a change of the state (lock held): the first failure, a new reason, the recovery. */
static void log_change(struct kube *k, const char *why, size_t dropped)
{
	if (!why[0] && !k->up)
		xlog(LOG_INFO, "export: kubernetes: pod labels from '%s'", k->path);
	else if (why[0] && strcmp(why, k->why))
		xlog(LOG_WARN, "export: kubernetes: no pod labels: %s (asking again every %g s)", why,
		     k->period_s);
	if (dropped && !k->dropped)
		xlog(LOG_WARN,
		     "export: kubernetes: the kubelet's answer assigns more than %d NVIDIA devices; "
		     "%zu have no pod labels",
		     KUBE_MAX_DEVICES, dropped);
}

static void *kube_main(void *arg)
{
	struct kube *k = arg;
	pthread_mutex_lock(&k->lock);
	while (!k->stop) {
		uint8_t *resp = NULL;
		size_t len = 0, n = 0, dropped = 0;
		struct kube_device *devs = NULL;
		char why[256] = "";
		struct timespec ts;
		struct stat sb;
		pthread_mutex_unlock(&k->lock);
		/*
		 * Checked on every round, so a socket that appears later (the
		 * kubelet starts after the exporter, a path that was a leftover
		 * file) brings the labels without a restart.
		 */
		if (stat(k->path, &sb))
			snprintf(why, sizeof(why), "'%.180s': %s", k->path, strerror(errno));
		else if (!S_ISSOCK(sb.st_mode))
			snprintf(why, sizeof(why), "'%.200s' is not a unix socket", k->path);
		else if (list_call(k, &resp, &len, why, sizeof(why)) == 0 &&
			 kube_parse_list(resp, len, KUBE_MAX_DEVICES, &devs, &n, &dropped) < 0)
			snprintf(why, sizeof(why), "the kubelet's answer is not a ListPodResourcesResponse");
		free(resp);
		pthread_mutex_lock(&k->lock);
		log_change(k, why, dropped);
		/* a failed call drops the labels: stale pods are worse than none */
		free(k->devs);
		k->devs = why[0] ? NULL : devs;
		k->ndevs = why[0] ? 0 : n;
		k->dropped = why[0] ? 0 : dropped;
		k->up = !why[0];
		if (why[0])
			free(devs);
		snprintf(k->why, sizeof(k->why), "%s", why);
		if (k->stop)
			break;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t)k->period_s;
		ts.tv_nsec += (long)((k->period_s - (double)(time_t)k->period_s) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&k->wake, &k->lock, &ts);
	}
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

struct kube *kube_start(const char *socket_path, double period_s, double timeout_s, char *err, size_t err_len)
{
	struct kube *k;
	int rc;
	/* a path that is no socket yet is asked again every period, not given up on */
	k = xcalloc(1, sizeof(*k));
	snprintf(k->path, sizeof(k->path), "%s", socket_path);
	k->period_s = period_s;
	k->timeout_s = timeout_s;
	snprintf(k->why, sizeof(k->why), "no answer from the kubelet yet");
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->wake, NULL);
	grpc_init();
	rc = pthread_create(&k->thread, NULL, kube_main, k);
	if (rc) {
		snprintf(err, err_len, "cannot start the kubelet thread: %s", strerror(rc));
		grpc_shutdown();
		pthread_mutex_destroy(&k->lock);
		pthread_cond_destroy(&k->wake);
		free(k);
		return NULL;
	}
	return k;
}

void kube_stop(struct kube *k)
{
	if (!k)
		return;
	pthread_mutex_lock(&k->lock);
	k->stop = 1;
	pthread_cond_broadcast(&k->wake);
	pthread_mutex_unlock(&k->lock);
	pthread_join(k->thread, NULL);
	grpc_shutdown();
	free(k->devs);
	pthread_mutex_destroy(&k->lock);
	pthread_cond_destroy(&k->wake);
	free(k);
}
#else
int kube_available(void)
{
	return 0;
}

struct kube *kube_start(const char *socket_path, double period_s, double timeout_s, char *err, size_t err_len)
{
	(void)socket_path;
	(void)period_s;
	(void)timeout_s;
	snprintf(err, err_len, "this gpuscope was built without gRPC (Debian's libgrpc-dev)");
	return NULL;
}

void kube_stop(struct kube *k)
{
	(void)k;
}
#endif

int kube_lookup(struct kube *k, const char *id, struct kube_device *out)
{
	size_t i;
	int found = 0;
	if (!k || !id || !id[0])
		return 0;
	pthread_mutex_lock(&k->lock);
	for (i = 0; i < k->ndevs && !found; i++)
		if (!strcmp(k->devs[i].id, id)) {
			*out = k->devs[i];
			found = 1;
		}
	pthread_mutex_unlock(&k->lock);
	return found;
}

void kube_health(struct kube *k, struct kube_health *out)
{
	memset(out, 0, sizeof(*out));
	if (!k)
		return;
	pthread_mutex_lock(&k->lock);
	out->up = k->up;
	snprintf(out->why, sizeof(out->why), "%s", k->why);
	out->devices = k->ndevs;
	out->dropped = k->dropped;
	pthread_mutex_unlock(&k->lock);
}
