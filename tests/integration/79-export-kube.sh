#!/bin/bash
# gpuscope export --kubernetes against a fake kubelet pod-resources server
# (Debian's python3-grpcio) on a unix socket: pod, namespace and container
# labels on the GPUs and MIG devices a pod holds, the labels gone (and the
# metrics flowing) when the kubelet dies, is slow or errs, all 72 GPUs of an
# NVL72 node in one pod, and a socket path that is not a socket yet, or is
# absent, when the exporter starts: asked again until the kubelet is there.
# ctest: beside other tests (it checks values, not how long anything took)
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

# Debian's python3-grpcio lives in the system Python, which may not be first on $PATH
PY=""
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import grpc' 2>/dev/null; then
		PY=$p
		break
	fi
done
if [ -z "$PY" ]; then
	echo "SKIP: python3-grpcio is not installed"
	finish
fi
if ! "$GPUSCOPE" export --help | grep -q -- '--kubernetes '; then
	echo "SKIP: built without gRPC"
	finish
fi

SOCK="$TMP/kubelet.sock"
ASSIGN="$TMP/assign"
KPID=""
start_kubelet() {
	rm -f "$SOCK"
	"$PY" "$TESTS/integration/fake_kubelet.py" "$SOCK" "$ASSIGN" >"$TMP/kubelet.log" 2>&1 &
	KPID=$!
	EXTRA_PIDS="$EXTRA_PIDS $KPID"
	for _ in $(seq 1 100); do
		[ -S "$SOCK" ] && return 0
		sleep 0.1
	done
	fail "the fake kubelet did not start: $(cat "$TMP/kubelet.log")"
}

cat >"$ASSIGN" <<'A'
ml-team trainer-0 pytorch nvidia.com/gpu GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000002
ml-team trainer-0 pytorch nvidia.com/gpu GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000003
serving infer-7f9c sidecar example.com/other GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000004
A
start_kubelet
start_exporter "$SCEN/dgx-h100.ini" --kubernetes --pod-resources-kubelet-socket "$SOCK" \
	--kubernetes-interval 200ms --interval 200ms
wait_metric 'pod="trainer-0"'
has 'DCGM_FI_DEV_GPU_UTIL{gpu="2",UUID="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000002",pci_bus_id="00000000:3A:00.0",device="nvidia2",modelName="NVIDIA H100 80GB HBM3",Hostname="'
has ',DCGM_FI_DRIVER_VERSION="550.54.15",container="pytorch",namespace="ml-team",pod="trainer-0"} 97'
has 'gpu_utilization_ratio{gpu="3",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000003",container="pytorch",namespace="ml-team",pod="trainer-0"} 0.97'
# a GPU no pod holds, and a device of another resource, have no pod labels
has 'gpu_utilization_ratio{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000"} 0.97'
lacks 'infer-7f9c'
get /health
expect_code 200 "/health with the kubelet"
lacks 'no pod labels'

# ---- the kubelet is slow: labels go, metrics stay ----
echo "slow 5" >>"$ASSIGN"
for _ in $(seq 1 100); do
	curl -s --max-time 2 "$BASE/metrics" -o "$TMP/body"
	grep -q 'pod="trainer-0"' "$TMP/body" || break
	sleep 0.1
done
lacks 'pod="trainer-0"'
has 'gpu_utilization_ratio{gpu="2",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000002"} 0.97'
get /health
expect_code 200 "/health with a slow kubelet"
has 'no pod labels: the kubelet did not answer in time'
sed -i '/^slow/d' "$ASSIGN"
wait_metric 'pod="trainer-0"' 15

# ---- the kubelet dies: labels vanish, metrics flow, /health says why ----
kill "$KPID"
wait "$KPID" 2>/dev/null
rm -f "$SOCK"
for _ in $(seq 1 100); do
	curl -s --max-time 2 "$BASE/metrics" -o "$TMP/body"
	grep -q 'pod="trainer-0"' "$TMP/body" || break
	sleep 0.1
done
lacks 'pod="trainer-0"'
has 'gpu_up{gpu="2",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000002"} 1'
get /health
expect_code 200 "/health without the kubelet"
has 'no pod labels:'
# it comes back: so do the labels
start_kubelet
wait_metric 'pod="trainer-0"' 15
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exit $STOP_RC with the kubelet"
kill "$KPID" 2>/dev/null

# ---- MIG devices: the pod of each instance on its GPU_I_ID series ----
cat >"$ASSIGN" <<'A'
research notebook-1 jupyter nvidia.com/mig-2g.20gb MIG-5eed0000-0000-4000-8000-000000050000
A
start_kubelet
start_exporter "$SCEN/h100-mig.ini" --kubernetes --pod-resources-kubelet-socket "$SOCK" \
	--kubernetes-interval 200ms --interval 200ms
wait_metric 'pod="notebook-1"'
has ',GPU_I_PROFILE="2g.20gb",GPU_I_ID="5",container="jupyter",namespace="research",pod="notebook-1"} 8192'
has ',GPU_I_PROFILE="3g.40gb",GPU_I_ID="1"} 20480'
stop_exporter TERM
kill "$KPID" 2>/dev/null

# ---- 72 GPUs of an NVL72 node, one pod: each GPU labelled ----
: >"$ASSIGN"
for i in $(seq 0 71); do
	echo "ml nvl72-trainer pytorch nvidia.com/gpu GPU-b200b200-0000-4000-8000-0000000000$i" >>"$ASSIGN"
done
start_kubelet
start_exporter "$SCEN/gb200-nvl72.ini" --kubernetes --pod-resources-kubelet-socket "$SOCK" \
	--kubernetes-interval 200ms --interval 500ms
wait_metric 'pod="nvl72-trainer"'
CHECKS=$((CHECKS + 1))
n=$(grep -c '^gpu_up{.*,pod="nvl72-trainer"} 1' "$TMP/body")
[ "$n" = 72 ] || fail "$n of 72 GPUs have pod labels"
has 'gpu_up{gpu="71",uuid="GPU-b200b200-0000-4000-8000-000000000071",container="pytorch",namespace="ml",pod="nvl72-trainer"} 1'
has 'gpuscope_exporter_pod_resources_devices 72'
has 'gpuscope_exporter_pod_resources_dropped_devices 0'
stop_exporter TERM
kill "$KPID" 2>/dev/null
wait "$KPID" 2>/dev/null

# wait_health TEXT: asks /health until it contains TEXT (at most 10 s).
wait_health() {
	local i
	for i in $(seq 1 100); do
		get /health
		grep -qF -- "$1" "$TMP/body" && break
		sleep 0.1
	done
	has "$1"
}

# ---- a path that is not a socket yet: said in /health, asked again, labels once it is ----
cat >"$ASSIGN" <<'A'
ml-team trainer-0 pytorch nvidia.com/gpu GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000002
A
rm -f "$SOCK"
echo "not a socket" >"$SOCK"
start_exporter "$SCEN/dgx-h100.ini" --kubernetes --pod-resources-kubelet-socket "$SOCK" \
	--kubernetes-interval 200ms --interval 200ms
get /metrics
expect_code 200 "/metrics with a bad kubelet socket"
has 'gpu_up{gpu="0",'
wait_metric 'gpuscope_exporter_pod_resources_up 0'
wait_health "no pod labels: '$SOCK' is not a unix socket"
expect_code 200 "/health with a non-socket path"
CHECKS=$((CHECKS + 1))
grep -q "kubelet.sock' is not a unix socket" "$EXP_LOG" || fail "no warning for a non-socket: $(cat "$EXP_LOG")"
# the kubelet comes, on that path: labels without a restart
start_kubelet
wait_metric 'pod="trainer-0"' 15
has 'gpuscope_exporter_pod_resources_up 1'
get /health
lacks 'no pod labels'
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exit $STOP_RC after the socket appeared"
kill "$KPID" 2>/dev/null
wait "$KPID" 2>/dev/null

# ---- an absent socket named without --kubernetes: asked for, and it comes later ----
rm -f "$SOCK"
start_exporter "$SCEN/dgx-h100.ini" --pod-resources-kubelet-socket "$SOCK" \
	--kubernetes-interval 200ms --interval 200ms
wait_metric 'gpuscope_exporter_pod_resources_up 0'
wait_health "no pod labels: '$SOCK': No such file or directory"
expect_code 200 "/health with no socket"
start_kubelet
wait_metric 'pod="trainer-0"' 15
get /health
lacks 'no pod labels'
stop_exporter TERM
kill "$KPID" 2>/dev/null

finish
