{{/* Chart name, for the app.kubernetes.io/name label. */}}
{{- define "glance-hooks.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name of the release's objects: the release name when it already contains
the chart name (so `helm install glance-hooks ...` gives "glance-hooks"),
otherwise "<release>-<chart>".
*/}}
{{- define "glance-hooks.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "glance-hooks.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels that select the hook pods; never change them on upgrade. */}}
{{- define "glance-hooks.selectorLabels" -}}
app.kubernetes.io/name: {{ include "glance-hooks.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of the `helm test` pod, which the NetworkPolicy lets in. */}}
{{- define "glance-hooks.testLabels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: helm-test
{{- end }}

{{/* Labels on every object the chart renders. */}}
{{- define "glance-hooks.labels" -}}
{{ include "glance-hooks.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: glance-hooks
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ include "glance-hooks.chart" . }}
{{- end }}

{{/*
Labels on the CompositeControllers. They are also published as plain YAML in
metacontroller/, so they carry nothing that changes with the chart version or
names the tool that applied them.
*/}}
{{- define "glance-hooks.metacontrollerLabels" -}}
{{ include "glance-hooks.selectorLabels" . }}
app.kubernetes.io/part-of: glance-hooks
app.kubernetes.io/component: metacontroller
{{- end }}

{{- define "glance-hooks.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "glance-hooks.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "glance-hooks.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/*
The container's memory limit, for the service to set its Go memory limit
below it (see serve's GOMEMLIMIT handling). Argument: the container's name.
*/}}
{{- define "glance-hooks.memoryLimitEnv" -}}
- name: MEMORY_LIMIT
  valueFrom:
    resourceFieldRef:
      containerName: {{ . }}
      resource: limits.memory
{{- end }}

{{/*
"true" when the service makes its own serving certificate (neither
tls.existingSecret nor cert-manager), and when it makes its own hook token
(no auth.existingSecret); empty otherwise.
*/}}
{{- define "glance-hooks.ownTLS" -}}
{{- if not (or .Values.tls.existingSecret .Values.tls.certManager.enabled) }}true{{ end }}
{{- end }}
{{- define "glance-hooks.ownToken" -}}
{{- if not .Values.auth.existingSecret }}true{{ end }}
{{- end }}

{{/*
Name of the Secret holding the serving certificate of both containers: the
one given (tls.existingSecret), <fullname>-tls that cert-manager writes, or
<fullname>-certs that the chart renders empty and the credentials
containers fill.
*/}}
{{- define "glance-hooks.tlsSecretName" -}}
{{- if .Values.tls.existingSecret }}
{{- .Values.tls.existingSecret }}
{{- else if .Values.tls.certManager.enabled }}
{{- printf "%s-tls" (include "glance-hooks.fullname" .) }}
{{- else }}
{{- printf "%s-certs" (include "glance-hooks.fullname" .) }}
{{- end }}
{{- end }}

{{/*
serve flags both containers get: the metrics listener (argument: its port)
and the shutdown timing. Arguments: the root context, the metrics port.
*/}}
{{- define "glance-hooks.commonArgs" -}}
{{- $root := index . 0 }}
{{- if $root.Values.metrics.enabled }}
- --metrics-listen=:{{ index . 1 }}
{{- end }}
- --shutdown-drain={{ $root.Values.shutdown.drainSeconds }}s
- --shutdown-grace={{ $root.Values.shutdown.graceSeconds }}s
{{- end }}

{{/* DNS names the API server may use to reach the Service; the first, the
API server's form, is the certificate's common name. */}}
{{- define "glance-hooks.serviceDNSNames" -}}
{{- $svc := include "glance-hooks.fullname" . }}
{{- $ns := .Release.Namespace }}
{{- list (printf "%s.%s.svc" $svc $ns) $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.clusterDomain) | toJson }}
{{- end }}

{{/* Name of the Secret holding the token Metacontroller sends to the hooks:
yours (auth.existingSecret), or <fullname>-token that the chart renders
empty and the credentials containers fill. */}}
{{- define "glance-hooks.hookTokenSecretName" -}}
{{- .Values.auth.existingSecret | default (printf "%s-token" (include "glance-hooks.fullname" .)) }}
{{- end }}

{{/*
The credentials command's flags (see `glance-hooks credentials --help`):
what the chart leaves to the service to make, and where the files go.
*/}}
{{- define "glance-hooks.credentialsArgs" -}}
- credentials
- --namespace={{ .Release.Namespace }}
{{- if include "glance-hooks.ownTLS" . }}
- --tls-secret={{ include "glance-hooks.tlsSecretName" . }}
- --tls-dir=/etc/glance-hooks/tls
{{- range include "glance-hooks.serviceDNSNames" . | fromJsonArray }}
- --host={{ . }}
{{- end }}
- --ca-validity-days={{ .Values.tls.selfSigned.validityDays }}
- --cert-validity-days={{ .Values.tls.selfSigned.certValidityDays }}
- --renew-before-days={{ .Values.tls.selfSigned.renewBeforeDays }}
{{- if .Values.webhook.enabled }}
- --webhook-configuration={{ include "glance-hooks.fullname" . }}
{{- end }}
{{- end }}
{{- if include "glance-hooks.ownToken" . }}
- --token-secret={{ include "glance-hooks.hookTokenSecretName" . }}
- --token-file=/etc/glance-hooks/hook-token/token
{{- end }}
{{- end }}

{{/*
One Metacontroller hook target: the chart's Service over TLS, trusting the
CA in the TLS Secret and sending the hook token; or hookBaseURL + path, with
nothing else (a hook service you run yourself while debugging). With etag,
Metacontroller keeps each answer and its ETag per parent; both timeouts are
always set, as Metacontroller reads cacheCleanupSeconds whenever
cacheTimeoutSeconds is set, and without a timeout it never forgets an answer.
*/}}
{{- define "glance-hooks.hook" -}}
{{- $root := index . 0 }}
{{- $path := index . 1 }}
{{- with $root.Values.metacontroller }}
webhook:
  {{- if .hookBaseURL }}
  url: {{ printf "%s%s" (trimSuffix "/" .hookBaseURL) $path | quote }}
  {{- else }}
  service:
    name: {{ include "glance-hooks.fullname" $root }}
    namespace: {{ $root.Release.Namespace }}
    port: {{ $root.Values.service.hooksPort }}
    protocol: https
  path: {{ $path }}
  caBundle:
    secretRef:
      name: {{ include "glance-hooks.tlsSecretName" $root }}
      namespace: {{ $root.Release.Namespace }}
      key: ca.crt
  authorization:
    type: Bearer
    secretRef:
      name: {{ include "glance-hooks.hookTokenSecretName" $root }}
      namespace: {{ $root.Release.Namespace }}
      key: token
  {{- end }}
  timeout: {{ .hookTimeout }}
  {{- if .etag.enabled }}
  etag:
    enabled: true
    cacheTimeoutSeconds: {{ .etag.cacheTimeoutSeconds }}
    cacheCleanupSeconds: {{ .etag.cacheCleanupSeconds }}
  {{- end }}
{{- end }}
{{- end }}

{{/* Metadata every CompositeController carries. */}}
{{- define "glance-hooks.compositeControllerMetadata" -}}
labels:
  {{- include "glance-hooks.metacontrollerLabels" . | nindent 2 }}
{{- end }}

{{/*
Where the API server's calls to /validate come from, as NetworkPolicy peers
(JSON list): networkPolicy.apiServer.cidrs, then .peers, then, with
.fromKubernetesEndpoints, each address of the default/kubernetes Service's
EndpointSlice (the API servers' own addresses, read with lookup; nothing in
`helm template`).
*/}}
{{- define "glance-hooks.apiServerPeers" -}}
{{- $peers := list }}
{{- with .Values.networkPolicy.apiServer }}
{{- range .cidrs }}
{{- $peers = append $peers (dict "ipBlock" (dict "cidr" .)) }}
{{- end }}
{{- range .peers }}
{{- $peers = append $peers . }}
{{- end }}
{{- if .fromKubernetesEndpoints }}
{{- $slice := lookup "discovery.k8s.io/v1" "EndpointSlice" "default" "kubernetes" }}
{{- if $slice }}
{{- range $slice.endpoints }}
{{- range .addresses }}
{{- $peers = append $peers (dict "ipBlock" (dict "cidr" (ternary (printf "%s/128" .) (printf "%s/32" .) (contains ":" .)))) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- toJson $peers }}
{{- end }}

{{/* Rejects value combinations that cannot work, with a message saying why. */}}
{{- define "glance-hooks.validateValues" -}}
{{- if lt (int .Values.replicaCount) 1 }}
{{- fail "replicaCount must be at least 1: Metacontroller and the API server call the hooks synchronously" }}
{{- end }}
{{- if or (lt (int .Values.webhook.timeoutSeconds) 1) (gt (int .Values.webhook.timeoutSeconds) 30) }}
{{- fail "webhook.timeoutSeconds must be between 1 and 30 (the API server's limits)" }}
{{- end }}
{{- if le (int .Values.terminationGracePeriodSeconds) (add .Values.shutdown.drainSeconds .Values.shutdown.graceSeconds | int) }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must be more than shutdown.drainSeconds + shutdown.graceSeconds (%d): the kubelet would kill the pod before in-flight hook calls finish" (int .Values.terminationGracePeriodSeconds) (add .Values.shutdown.drainSeconds .Values.shutdown.graceSeconds | int)) }}
{{- end }}
{{- if and .Values.tls.existingSecret .Values.tls.certManager.enabled }}
{{- fail "tls.existingSecret and tls.certManager.enabled exclude each other: give the certificate, or let cert-manager make it" }}
{{- end }}
{{- if and .Values.tls.existingSecret .Values.webhook.enabled (not .Values.tls.caBundle) }}
{{- fail "tls.existingSecret needs tls.caBundle (the PEM CA that signed it) for the ValidatingWebhookConfiguration: the API server cannot read the CA from the Secret" }}
{{- end }}
{{- if and .Values.tls.caBundle (not .Values.tls.existingSecret) }}
{{- fail "tls.caBundle is the CA of tls.existingSecret; without existingSecret the chart or cert-manager provides the CA" }}
{{- end }}
{{- if and (not .Values.tls.certManager.enabled) (lt (int .Values.tls.selfSigned.validityDays) 1) }}
{{- fail "tls.selfSigned.validityDays must be at least 1" }}
{{- end }}
{{- with .Values.tls.certManager.issuerRef }}
{{- if not .name }}
{{- fail "tls.certManager.issuerRef needs a name (or leave it empty for a chart-made CA Issuer)" }}
{{- end }}
{{- end }}
{{- end }}

{{/* PodDisruptionBudget sanity: a budget that can never be met blocks drains. */}}
{{/*
The fewest hook pods there are: replicaCount, or the autoscaler's minimum.
*/}}
{{- define "glance-hooks.minReplicas" -}}
{{- if .Values.autoscaling.enabled }}{{ int .Values.autoscaling.minReplicas }}{{ else }}{{ int .Values.replicaCount }}{{ end }}
{{- end }}

{{- define "glance-hooks.validatePDB" -}}
{{- $min := .Values.podDisruptionBudget.minAvailable }}
{{- $replicas := int (include "glance-hooks.minReplicas" .) }}
{{- $of := ternary "autoscaling.minReplicas" "replicaCount" .Values.autoscaling.enabled }}
{{- if and .Values.podDisruptionBudget.enabled (not (kindIs "string" $min)) (ge (int $min) $replicas) (ge $replicas 2) }}
{{- fail (printf "podDisruptionBudget.minAvailable (%d) must be below %s (%d), or no node could ever be drained" (int $min) $of $replicas) }}
{{- end }}
{{- if and .Values.autoscaling.enabled (lt (int .Values.autoscaling.maxReplicas) (int .Values.autoscaling.minReplicas)) }}
{{- fail (printf "autoscaling.maxReplicas (%d) must not be below autoscaling.minReplicas (%d)" (int .Values.autoscaling.maxReplicas) (int .Values.autoscaling.minReplicas)) }}
{{- end }}
{{- end }}

{{/*
glance-hooks.gatewayAPI is "true" when the glance controller manages
HTTPRoutes: metacontroller.gatewayAPI true, or auto and the cluster serves
gateway.networking.k8s.io/v1 HTTPRoute; empty otherwise.
*/}}
{{- define "glance-hooks.gatewayAPI" -}}
{{- $v := toString .Values.metacontroller.gatewayAPI -}}
{{- if or (eq $v "true") (and (eq $v "auto") (.Capabilities.APIVersions.Has "gateway.networking.k8s.io/v1/HTTPRoute")) -}}
true
{{- end -}}
{{- end }}

{{/*
What the two credentials containers share besides their args: the API token
(they read and update the named Secrets and the webhook configuration) and
the volumes they write the files into.
*/}}
{{- define "glance-hooks.credentialsContainer" -}}
resources:
  {{- toYaml .Values.credentials.resources | nindent 2 }}
securityContext:
  {{- toYaml .Values.securityContext | nindent 2 }}
volumeMounts:
  {{- if include "glance-hooks.ownTLS" . }}
  - name: tls
    mountPath: /etc/glance-hooks/tls
  {{- end }}
  {{- if include "glance-hooks.ownToken" . }}
  - name: hook-token
    mountPath: /etc/glance-hooks/hook-token
  {{- end }}
  - name: kube-api-access
    mountPath: /var/run/secrets/kubernetes.io/serviceaccount
    readOnly: true
{{- end }}
