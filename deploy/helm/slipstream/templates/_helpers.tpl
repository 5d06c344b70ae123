{{/* Names, labels and computed values shared by the templates. */}}

{{- define "slipstream.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: the release name when it already contains the chart's. */}}
{{- define "slipstream.fullname" -}}
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

{{- define "slipstream.selectorLabels" -}}
app.kubernetes.io/name: {{ include "slipstream.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "slipstream.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "slipstream.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "slipstream.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "slipstream.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Secret with the database URLs: the user's, or the one this chart makes from database.url. */}}
{{- define "slipstream.databaseSecret" -}}
{{- if .Values.database.existingSecret }}
{{- .Values.database.existingSecret }}
{{- else if .Values.database.url }}
{{- printf "%s-database" (include "slipstream.fullname" .) }}
{{- end }}
{{- end }}

{{/* The kubelet's deadline after preStop starts: the preStop sleep, the server's drain, and 5 s to exit. */}}
{{- define "slipstream.terminationGracePeriod" -}}
{{- add (int .Values.drain.preStopSleepSeconds) (int .Values.drain.timeoutSeconds) 5 }}
{{- end }}
