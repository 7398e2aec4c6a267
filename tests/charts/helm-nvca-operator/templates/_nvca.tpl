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
{{- $pdb := .Values.podDisruptionBudget -}}
{{- if $pdb.enabled -}}
{{- $min := $pdb.minAvailable | toString -}}{{- $max := $pdb.maxUnavailable | toString -}}
{{- if and (ne $min "") (ne $max "") }}{{ fail "podDisruptionBudget: set exactly one of minAvailable or maxUnavailable, not both" }}{{ end -}}
{{- if and (eq $min "") (eq $max "") }}{{ fail "podDisruptionBudget: set exactly one of minAvailable or maxUnavailable" }}{{ end -}}
{{- end -}}
{{- $mc := dict -}}
{{- with .Values.agentConfig.mergeConfig }}{{ $mc = fromYaml . }}{{ end -}}
{{- if hasKey $mc "Error" }}{{ fail (printf "agentConfig.mergeConfig is not valid YAML: %s" $mc.Error) }}{{ end -}}
{{- $wl := $mc.workload | default dict -}}
{{- $tls := ((.Values.operatorConfig.workload | default dict).transportTLS | default dict) -}}
{{- $bundle := or (eq (($wl.transportTLS | default dict).trustMode | default "") "bundle") (ne ((($tls.trustBundle | default dict).secretKeyRef | default dict).name | default "") "") -}}
{{- if and ($wl.stargateQUICInsecure | default false) $bundle }}{{ fail "workload.stargateQUICInsecure=true cannot be used with workload.transportTLS.trustMode=bundle; set workload.stargateQUICInsecure=false or use trustMode=system" }}{{ end -}}
{{- end -}}
