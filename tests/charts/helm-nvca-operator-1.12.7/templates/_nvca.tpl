{{- /* Release fullname (fullnameOverride, default nvca-operator in the chart's values). */ -}}
{{- define "nvca.name" -}}
{{- if .Values.fullnameOverride }}{{ .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}{{ $n := .Values.nameOverride | default .Chart.Name }}{{ ternary .Release.Name (printf "%s-%s" .Release.Name $n) (contains $n .Release.Name) | trunc 63 | trimSuffix "-" }}{{ end -}}
{{- end -}}

{{- define "nvca.saName" -}}
{{- if .Values.serviceAccount.create }}{{ .Values.serviceAccount.name | default (include "nvca.name" .) }}{{ else }}{{ .Values.serviceAccount.name | default "default" }}{{ end -}}
{{- end -}}

{{- define "nvca.selfManaged" -}}{{ if eq (toString .Values.ngcConfig.clusterSource) "self-managed" }}true{{ end }}{{- end -}}

{{- /* Operator image <repository>:<tag> (tag defaults to the chart version, as in the real chart). */ -}}
{{- define "nvca.image" -}}{{ printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.Version | toString) }}{{- end -}}

{{- /* Repositories the real chart derives when left empty. dict: repo, default (image.repository), name */ -}}
{{- define "nvca.derivedRepo" -}}
{{- if .repo }}{{ .repo }}{{ else if hasPrefix "stg.nvcr.io/nvidia/nvcf-byoc" .default }}stg.nvcr.io/nvidia/nvcf-byoc/{{ .name }}{{ else }}nvcr.io/nvidia/nvcf-byoc/{{ .name }}{{ end -}}
{{- end -}}

{{- /* Pod imagePullSecrets of the real chart (templates/deployment.yaml, pre-delete-cleanup-job.yaml): the generated
       secret imagePullSecretName only when generateImagePullSecret, then imagePullSecrets[]; no key without either. */ -}}
{{- define "nvca.pullSecrets" -}}
{{- if or .Values.generateImagePullSecret (gt (len (.Values.imagePullSecrets | default list)) 0) }}
imagePullSecrets:
  {{- if .Values.generateImagePullSecret }}
  - name: {{ .Values.imagePullSecretName | default "nvca-operator-image-pull" | quote }}
  {{- end }}
  {{- range .Values.imagePullSecrets }}
  - name: {{ .name | quote }}
  {{- end }}
{{- end }}
{{- end -}}

{{- /* Render-time checks of the real chart. */ -}}
{{- define "nvca.validate" -}}
{{- if and (not .Values.generateImagePullSecret) (not .Values.imagePullSecretName) }}{{ fail "imagePullSecretName must be specified when generateImagePullSecret is false" }}{{ end -}}
{{- if .Values.generateImagePullSecret }}{{ $_ := required "NGC service key is required to create a pull secret" .Values.ngcConfig.serviceKey }}{{ end -}}
{{- $mc := dict -}}
{{- with .Values.agentConfig.mergeConfig }}{{ $mc = fromYaml . }}{{ end -}}
{{- if hasKey $mc "Error" }}{{ fail (printf "agentConfig.mergeConfig is not valid YAML: %s" $mc.Error) }}{{ end -}}
{{- end -}}
