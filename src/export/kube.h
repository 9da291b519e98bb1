/*
 * Kubernetes pod attribution: which pod, namespace and container holds each
 * GPU (or MIG device), from the kubelet's pod-resources API (v1 List, gRPC
 * over the kubelet's unix socket), as dcgm-exporter's -k does.
 *
 * A thread asks the kubelet every refresh period with a deadline, off the
 * scrape path; the collector only reads the last answer.  A kubelet that is
 * gone, slow or answering nonsense leaves the labels out (and says why in
 * /health); the metrics keep flowing.
 */
#ifndef GPUSCOPE_EXPORT_KUBE_H
#define GPUSCOPE_EXPORT_KUBE_H

#include <stddef.h>
#include <stdint.h>

#define KUBE_DEFAULT_SOCKET "/var/lib/kubelet/pod-resources/kubelet.sock"

/* One device a container was given. */
struct kube_device {
	char id[128];       /* the device plugin's id: a GPU or MIG UUID, or "nvidiaN" */
	char resource[128]; /* "nvidia.com/gpu", "nvidia.com/mig-1g.10gb" ... */
	char pod[254];
	char namespace_[64];
	char container[254];
};

/*
 * Bounds against a kubelet that answers too much.  An answer is at most
 * KUBE_MAX_MESSAGE bytes (gRPC's default receive limit, set explicitly; a
 * node of 250 pods answers some 50 KiB); of it, at most KUBE_MAX_DEVICES
 * NVIDIA devices are kept, 828 bytes each (3.4 MB): 57 times the 72 GPUs
 * of an NVL72 node, 8 times the 504 MIG devices they can be cut into.
 * Any number of pods, containers and ids within those is decoded.
 */
#define KUBE_MAX_MESSAGE (4 * 1024 * 1024)
#define KUBE_MAX_DEVICES 4096

/*
 * Decodes a ListPodResourcesResponse (protobuf wire format) into the NVIDIA
 * devices it assigns (resource "nvidia.com/gpu" or "nvidia.com/mig-*"),
 * the first `max` of them; *dropped counts those past max.  *out is
 * malloc()ed (caller frees), NULL when *n is 0.  Returns 0, or -1 when the
 * bytes are not a valid message.
 */
int kube_parse_list(const uint8_t *buf, size_t len, size_t max, struct kube_device **out, size_t *n,
		    size_t *dropped);

/* Is gRPC built in? */
int kube_available(void);

struct kube;

/*
 * Starts the thread that asks the kubelet at `socket_path` every period_s,
 * giving up on a call after timeout_s.  A path that is absent or not a
 * socket is no error: it is looked at again every period (kube_health says
 * why there are no labels meanwhile).  Returns NULL with a message in err
 * when gRPC is not built in or the thread cannot start.
 */
struct kube *kube_start(const char *socket_path, double period_s, double timeout_s, char *err, size_t err_len);
void kube_stop(struct kube *k);

/*
 * The pod of device `id` (GPU UUID, MIG UUID or "nvidiaN") from the last
 * good answer: copies it into *out and returns 1, else 0.
 */
int kube_lookup(struct kube *k, const char *id, struct kube_device *out);

/* The state of the last call, for /health and the exporter's metrics. */
struct kube_health {
	int up;         /* the last List call was answered and decoded */
	char why[256];  /* why there are no labels now; "" when up */
	size_t devices; /* NVIDIA devices with pod labels from that answer */
	size_t dropped; /* NVIDIA devices of that answer past KUBE_MAX_DEVICES, without */
};

/* Fills *out (all zero when k is NULL). */
void kube_health(struct kube *k, struct kube_health *out);

#endif
