#!/bin/bash
# The Helm chart with a real helm: `helm lint --strict` on the default and
# the auth+TLS values, the values schema refuses bad values, `helm template`
# follows every option (probes that follow auth and TLS, a ServiceMonitor
# with TLS and basic auth and only where its CRD is, a ServiceAccount,
# nodeSelector, tolerations, affinity, the uid each mount needs), and
# deploy/kubernetes/daemonset.yaml is the chart rendered with its defaults.
# helm: $GPUSCOPE_HELM, PATH or .cache/helm/helm (tools/get-helm.sh); skips
# (77) without one, as Debian has no helm.
. "$TESTS/cli/lib.sh"

CHART="$SRCDIR/deploy/helm/gpuscope"
HELM=$("$SRCDIR/packaging/find-helm.sh") || {
	echo "SKIP: no helm (set GPUSCOPE_HELM, put helm on PATH or run tools/get-helm.sh)"
	exit 77
}
python3 -c 'import yaml' 2>/dev/null || {
	echo "SKIP: the chart checks need Python's yaml"
	exit 77
}
SM_API=(--api-versions monitoring.coreos.com/v1/ServiceMonitor)
AUTH_TLS=(--set webConfig.enabled=true --set webConfig.tls=true --set webConfig.basicAuth=true)

# ---- lint ----
for set in "" "auth+tls"; do
	args=()
	[ -n "$set" ] && args=("${AUTH_TLS[@]}")
	CHECKS=$((CHECKS + 1))
	"$HELM" lint --strict "$CHART" "${args[@]}" >"$TMP/lint" 2>&1 ||
		fail "helm lint --strict ${set:-default}: $(cat "$TMP/lint")"
	grep -q '0 chart(s) failed' "$TMP/lint" || fail "helm lint ${set:-default}: $(cat "$TMP/lint")"
done

# ---- the schema refuses what the templates cannot use ----
for bad in port=abc port=0 port=70000 names=all interval=fast webConfig.tls=maybe nosuchvalue=1; do
	CHECKS=$((CHECKS + 1))
	if "$HELM" template g "$CHART" --set "$bad" >"$TMP/out" 2>"$TMP/err"; then
		fail "helm template --set $bad rendered"
	fi
	grep -q 'schema' "$TMP/err" || fail "--set $bad: no schema error: $(cat "$TMP/err")"
done

# ---- the plain manifests are the chart's ----
CHECKS=$((CHECKS + 1))
GPUSCOPE_HELM="$HELM" "$SRCDIR/packaging/render-daemonset.sh" >"$TMP/ds.yaml" 2>"$TMP/err" ||
	fail "render-daemonset: $(cat "$TMP/err")"
diff -u "$SRCDIR/deploy/kubernetes/daemonset.yaml" "$TMP/ds.yaml" >"$TMP/diff" ||
	fail "deploy/kubernetes/daemonset.yaml is not the chart rendered (packaging/render-daemonset.sh): $(head -30 "$TMP/diff")"

# check SETS EXPECT...: renders with the --set list SETS (";" between) and
# the ServiceMonitor API, and checks the manifests; EXPECT words: root,
# nonroot, probe=http|https|tcp, sm=none|http|https, auth, kmsg, podres.
check() {
	local sets=$1 s
	shift
	local args=("${SM_API[@]}")
	IFS=';' read -ra kv <<<"$sets"
	for s in "${kv[@]}"; do args+=(--set-json "$s"); done
	CHECKS=$((CHECKS + 1))
	"$HELM" template g "$CHART" --namespace mon "${args[@]}" >"$TMP/r.yaml" 2>"$TMP/err" ||
		{ fail "helm template $sets: $(cat "$TMP/err")"; return; }
	CHECKS=$((CHECKS + 1))
	python3 - "$TMP/r.yaml" "$sets" "$@" >"$TMP/check" 2>&1 <<'PYEOF' || fail "chart ($sets): $(cat "$TMP/check")"
import json, sys, yaml
docs = {d["kind"]: d for d in yaml.safe_load_all(open(sys.argv[1])) if d}
sets = dict(s.split("=", 1) for s in sys.argv[2].split(";") if s)
want = set(sys.argv[3:])
val = lambda k, d: json.loads(sets[k]) if k in sets else d
def need(cond, what):
    if not cond:
        raise SystemExit("not so: " + what)
ds = docs["DaemonSet"]
pod = ds["spec"]["template"]["spec"]
c = pod["containers"][0]
args, sc, psc = c["args"], c["securityContext"], pod["securityContext"]
port = val("port", 9400)
need(c["image"] == "%s:%s" % (val("image.repository", "gpuscope"), val("image.tag", "0.1.0")), "image")
need(c["ports"][0]["containerPort"] == port and "--listen=:%d" % port in args, "port")
need(docs["Service"]["spec"]["ports"][0]["port"] == port, "service port")
need(sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False, "read-only, no escalation")
need(sc["capabilities"]["drop"] == ["ALL"], "capabilities dropped")
need(c["resources"] == val("resources", c["resources"]), "resources")
mounts = {m["name"]: m for m in c.get("volumeMounts", [])}
vols = {v["name"]: v for v in pod.get("volumes", [])}
# the uid each mount needs
if "root" in want:
    need(psc["runAsUser"] == 0 and psc["runAsNonRoot"] is False, "uid 0: %s" % psc)
if "nonroot" in want:
    need(psc["runAsUser"] == val("runAsUser", 65532) and psc["runAsNonRoot"] is True, "non-root: %s" % psc)
    need("add" not in sc["capabilities"], "no capability without root")
kmsg = "kmsg" in want
need(("kmsg" in vols) == kmsg and ("--kmsg=/dev/kmsg" in args) == kmsg, "kernel log mount follows kernelLog.enabled")
need(("--kmsg=none" in args) == (not kmsg), "--kmsg=none without the kernel log")
need((sc["capabilities"].get("add") == ["SYSLOG"]) == kmsg, "SYSLOG with the kernel log only")
if kmsg:
    need(vols["kmsg"]["hostPath"] == {"path": "/dev/kmsg", "type": "CharDevice"}, "kmsg hostPath")
podres = "podres" in want
need(("--kubernetes" in args) == podres and ("pod-resources" in mounts) == podres, "pod-resources follows kubernetes.enabled")
if podres:
    p = val("kubernetes.podResourcesPath", "/var/lib/kubelet/pod-resources")
    need(vols["pod-resources"]["hostPath"]["path"] == p and mounts["pod-resources"]["readOnly"], "pod-resources path")
    need("--pod-resources-kubelet-socket=%s/kubelet.sock" % p in args, "socket argument")
wc = val("webConfig.enabled", False)
need(("web-config" in vols) == wc and any(a.startswith("--web-config=") for a in args) == wc, "web config")
# probes
[probe] = [w[6:] for w in want if w.startswith("probe=")]
for name in ("livenessProbe", "readinessProbe"):
    p = c[name]
    if probe == "tcp":
        need("tcpSocket" in p and "httpGet" not in p, "%s: tcpSocket with basic auth: %s" % (name, p))
    else:
        need(p["httpGet"]["path"] == "/health" and p["httpGet"]["scheme"] == probe.upper(), "%s: %s /health: %s" % (name, probe, p))
# the ServiceMonitor
[sm] = [w[3:] for w in want if w.startswith("sm=")]
need(("ServiceMonitor" in docs) == (sm != "none"), "ServiceMonitor present: %s" % sm)
if sm != "none":
    m = docs["ServiceMonitor"]
    ep = m["spec"]["endpoints"][0]
    need(m["spec"]["selector"]["matchLabels"] == ds["spec"]["selector"]["matchLabels"], "selector")
    need(ep["scheme"] == sm, "scheme %s: %s" % (sm, ep))
    need(("tlsConfig" in ep) == (sm == "https"), "tlsConfig with https")
    if "serviceMonitor.tlsConfig" in sets:
        need(ep["tlsConfig"] == val("serviceMonitor.tlsConfig", {}), "tlsConfig from values")
    need(("basicAuth" in ep) == ("auth" in want), "basicAuth follows webConfig.basicAuth")
    if "auth" in want:
        need(ep["basicAuth"]["password"] == {"name": "gpuscope-scrape-auth", "key": "password"}, "password secret")
# ServiceAccount, placement
sa = val("serviceAccount.create", True)
need(("ServiceAccount" in docs) == sa, "ServiceAccount follows serviceAccount.create")
if sa:
    need(pod["serviceAccountName"] == docs["ServiceAccount"]["metadata"]["name"], "pod uses the ServiceAccount")
    need(docs["ServiceAccount"]["automountServiceAccountToken"] is False, "no token")
need(pod["automountServiceAccountToken"] is False, "no token in the pod")
# helm merges a map given with --set-json into the default one; null removes a key
ns = {k: v for k, v in dict({"nvidia.com/gpu.present": "true"}, **val("nodeSelector", {})).items() if v is not None}
need(pod.get("nodeSelector") == ns, "nodeSelector %s" % pod.get("nodeSelector"))
need(pod.get("tolerations") == (val("tolerations", [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]) or None), "tolerations")
need(pod.get("affinity") == (val("affinity", {}) or None), "affinity")
for a in val("extraArgs", []):
    need(a in args, "extra argument " + a)
PYEOF
}

check "" root kmsg podres probe=http sm=http
check 'webConfig.enabled=true' root kmsg podres probe=https sm=https
check 'webConfig.enabled=true;webConfig.basicAuth=true;serviceMonitor.tlsConfig={"ca":{"secret":{"name":"ca","key":"ca.crt"}},"serverName":"gpuscope"}' \
	root kmsg podres probe=tcp sm=https auth
check 'webConfig.enabled=true;webConfig.tls=false;webConfig.basicAuth=true' root kmsg podres probe=tcp sm=http auth
check 'kernelLog.enabled=false;kubernetes.enabled=false;port=9500;serviceAccount.create=false' nonroot probe=http sm=http
check 'kernelLog.enabled=false;kubernetes.enabled=true;kubernetes.podResourcesPath="/var/lib/k0s/kubelet/pod-resources"' root podres probe=http sm=http
check 'kernelLog.enabled=false;kubernetes.enabled=false;runAsUser=1000;serviceMonitor.enabled=false' nonroot probe=http sm=none
check 'nodeSelector={"nvidia.com/gpu.present":null,"gpu":"h100"};tolerations=[];affinity={"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"gpu","operator":"Exists"}]}]}}}' \
	root kmsg podres probe=http sm=http
check 'extraArgs=["-f","/etc/gpuscope/default-counters.csv"];image.repository="registry.local/gpuscope";image.tag="0.2.0"' \
	root kmsg podres probe=http sm=http

# the CRD guard: no ServiceMonitor where the cluster lacks the kind
CHECKS=$((CHECKS + 1))
"$HELM" template g "$CHART" >"$TMP/nocrd.yaml" 2>"$TMP/err" || fail "helm template: $(cat "$TMP/err")"
grep -q '^kind: ServiceMonitor' "$TMP/nocrd.yaml" && fail "a ServiceMonitor without its CRD"
grep -q '^kind: DaemonSet' "$TMP/nocrd.yaml" || fail "no DaemonSet without the CRD"

finish
