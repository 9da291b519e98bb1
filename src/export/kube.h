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
	char id[128];           /* the device plugin's id: a GPU or MIG UUID, or "nvidiaN" */
	char resource[128];     /* "nvidia.com/gpu", "nvidia.com/mig-1g.10gb" ... */
	char pod[254];
	char namespace_[64];
	char container[254];
};

/*
 * Decodes a ListPodResourcesResponse (protobuf wire format) into the NVIDIA
 * devices it assigns (resource "nvidia.com/gpu" or "nvidia.com/mig-*").
 * *out is malloc()ed (caller frees), NULL when *n is 0.  Returns 0, or -1
 * when the bytes are not a valid message.
 */
int kube_parse_list(const uint8_t *buf, size_t len, struct kube_device **out, size_t *n);

/* Is gRPC built in? */
int kube_available(void);

struct kube;

/*
 * Starts the thread that asks the kubelet at `socket_path` every period_s,
 * giving up on a call after timeout_s.  Returns NULL with a message in err
 * when the path is not a unix socket or gRPC is not built in.
 */
struct kube *kube_start(const char *socket_path, double period_s, double timeout_s, char *err,
			size_t err_len);
void kube_stop(struct kube *k);

/*
 * The pod of device `id` (GPU UUID, MIG UUID or "nvidiaN") from the last
 * good answer: copies it into *out and returns 1, else 0.
 */
int kube_lookup(struct kube *k, const char *id, struct kube_device *out);

/* Why there are no labels now ("" when the last call succeeded). */
void kube_status(struct kube *k, char *buf, size_t len);

#endif
