{{/* Chart name. */}}
{{- define "agentry.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-scoped name. */}}
{{- define "agentry.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* Selector labels of the operator pods. */}}
{{- define "agentry.selectorLabels" -}}
app.kubernetes.io/name: {{ include "agentry.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{/* Labels of every object. */}}
{{- define "agentry.labels" -}}
{{ include "agentry.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- with .Values.extraLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "agentry.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "agentry.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "agentry.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "agentry.runtimeImage" -}}
{{- $repo := default (printf "%s-runtime" .Values.image.repository) .Values.runtimeImage.repository }}
{{- $tag := default (default .Chart.AppVersion .Values.image.tag) .Values.runtimeImage.tag }}
{{- printf "%s:%s" $repo $tag }}
{{- end }}

{{/* Selector labels of the chat service pods. */}}
{{- define "agentry.chatSelectorLabels" -}}
app.kubernetes.io/name: {{ include "agentry.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: chat
{{- end }}

{{/* Labels of the chat service's objects. */}}
{{- define "agentry.chatLabels" -}}
{{ include "agentry.chatSelectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- with .Values.extraLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "agentry.chatName" -}}
{{- printf "%s-chat" (include "agentry.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "agentry.chatServiceAccountName" -}}
{{- if .Values.chat.serviceAccount.create }}
{{- default (include "agentry.chatName" .) .Values.chat.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.chat.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Secret holding the chat service's apiKey and headersKey. */}}
{{- define "agentry.chatCredentialsSecret" -}}
{{- default (printf "%s-credentials" (include "agentry.chatName" .)) .Values.chat.credentials.existingSecret }}
{{- end }}

{{/* The claim of the data volume the chart creates, or "" when it creates none: SQLite or a
single replica (a ReadWriteOnce claim cannot be shared by replicas on several nodes). */}}
{{- define "agentry.chatCreatesClaim" -}}
{{- if and .Values.chat.persistence.enabled (not .Values.chat.persistence.existingClaim) (le (int .Values.chat.replicas) 1) }}true{{ end }}
{{- end }}

{{/* The claim mounted as the data volume (existingClaim or the chart's), "" when none. */}}
{{- define "agentry.chatDataClaim" -}}
{{- if .Values.chat.persistence.existingClaim }}{{ .Values.chat.persistence.existingClaim }}
{{- else if include "agentry.chatCreatesClaim" . }}{{ include "agentry.chatName" . }}-data
{{- end }}
{{- end }}

{{/* The ClusterIP Service of the chat metrics port. */}}
{{- define "agentry.chatMetricsName" -}}
{{- printf "%s-metrics" (include "agentry.chatName" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Refuses chat values the binary would refuse or that would lose data; values.schema.json
says the same, but it can be skipped. */}}
{{- define "agentry.chatValidate" -}}
{{- if and (gt (int .Values.chat.replicas) 1) (ne .Values.chat.storage.type "postgres") }}
{{- fail (printf "chat.replicas is %d but chat.storage.type is %s: SQLite allows one replica only; set chat.storage.type=postgres and chat.storage.existingSecret (a Secret holding the PostgreSQL URL) for several replicas" (int .Values.chat.replicas) .Values.chat.storage.type) }}
{{- end }}
{{- if and (eq .Values.chat.storage.type "postgres") (not .Values.chat.storage.existingSecret) }}
{{- fail "chat.storage.type is postgres but chat.storage.existingSecret is empty: name the Secret holding the PostgreSQL URL (under chat.storage.key)" }}
{{- end }}
{{- with .Values.chat.oidc }}
{{- if and .issuer (not (and .clientId .existingSecret .redirectURL)) }}
{{- fail "chat.oidc.issuer is set but chat.oidc.clientId, chat.oidc.existingSecret (the Secret holding the client secret) or chat.oidc.redirectURL is empty" }}
{{- end }}
{{- end }}
{{- if not (has .Values.chat.storage.type (list "sqlite" "postgres")) }}
{{- fail (printf "chat.storage.type %q is not sqlite or postgres" .Values.chat.storage.type) }}
{{- end }}
{{- if .Values.chat.metrics.enabled }}
{{- $port := int .Values.chat.metrics.port }}
{{- if eq $port 8080 }}
{{- fail "chat.metrics.port is 8080, the chat container's http port: choose another port for the metrics listener (default 9090)" }}
{{- end }}
{{- if or (lt $port 1024) (gt $port 65535) }}
{{- fail (printf "chat.metrics.port %d is not in 1024-65535: the chat pod runs as non-root without capabilities and cannot bind a port below 1024 (default 9090)" $port) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The OTEL_* environment of the operator and the chat service when tracing.endpoint is set
(the operator passes the same to agent pods through its --runtime-otlp-* flags). The headers
(an API key for a hosted backend) come from a Secret, never from values.
*/}}
{{- define "agentry.tracingEnv" -}}
{{- with .Values.tracing }}
{{- if .endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ .endpoint | quote }}
- name: OTEL_SERVICE_NAME
  value: {{ $.service | quote }}
{{- with .headersSecret.name }}
- name: OTEL_EXPORTER_OTLP_HEADERS
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.tracing.headersSecret.key }}
      optional: true
{{- end }}
{{- with .samplingRatio }}
- name: OTEL_TRACES_SAMPLER
  value: parentbased_traceidratio
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ . | quote }}
{{- end }}
{{- if .captureContent }}
- name: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
  value: "true"
{{- end }}
{{- end }}
{{- end }}
{{- end }}
