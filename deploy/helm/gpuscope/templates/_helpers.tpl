{{/* the name of every object: RELEASE-export */}}
{{- define "gpuscope.name" -}}
{{- printf "%s-export" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "gpuscope.labels" -}}
app.kubernetes.io/name: {{ include "gpuscope.name" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "gpuscope.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "gpuscope.name" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* "true" when the container must run as uid 0: the kernel log needs
CAP_SYSLOG, the kubelet's pod-resources socket is root's (mode 0755) */}}
{{- define "gpuscope.root" -}}
{{- if or .Values.kernelLog.enabled .Values.kubernetes.enabled -}}true{{- end -}}
{{- end -}}

{{/* the probe: /health over HTTP or HTTPS, or a TCP connect where /health
needs the basic-auth password that a probe cannot carry without writing it
into the pod spec */}}
{{- define "gpuscope.probe" -}}
{{- if and .Values.webConfig.enabled .Values.webConfig.basicAuth -}}
tcpSocket:
  port: metrics
{{- else -}}
httpGet:
  path: /health
  port: metrics
  scheme: {{ if and .Values.webConfig.enabled .Values.webConfig.tls }}HTTPS{{ else }}HTTP{{ end }}
{{- end -}}
{{- end -}}
