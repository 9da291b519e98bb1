#!/bin/bash
# Writes deploy/kubernetes/daemonset.yaml, the plain manifests, from the Helm
# chart with its default values: one source for both.  Needs helm
# (packaging/find-helm.sh); tests/cli/91-helm.sh checks the file is current.
#   packaging/render-daemonset.sh [OUT]    (default: stdout)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
helm=$("$root/packaging/find-helm.sh") || {
	echo "render-daemonset: no helm (GPUSCOPE_HELM, PATH or tools/get-helm.sh)" >&2
	exit 1
}
render() {
	cat <<'HDR'
# gpuscope export on every GPU node, in place of dcgm-exporter (same port,
# same metric names with --names dcgm or both): deploy/helm/gpuscope
# rendered with its default values by packaging/render-daemonset.sh.  Do not
# edit: change the chart and run that script.
#
#   kubectl apply -f deploy/kubernetes/daemonset.yaml
#
# NVML comes from the node's driver through the NVIDIA container runtime
# (runtimeClassName nvidia, NVIDIA_DRIVER_CAPABILITIES=utility).  The
# container runs as uid 0 for the kernel log (CAP_SYSLOG) and the kubelet's
# root-owned pod-resources socket, every other capability dropped; see the
# chart's values.yaml to run it as uid 65532 without them.
apiVersion: v1
kind: Namespace
metadata:
  name: gpuscope
HDR
	"$helm" template gpuscope "$root/deploy/helm/gpuscope" --namespace gpuscope
}
if [ $# -gt 0 ]; then
	render >"$1"
else
	render
fi
