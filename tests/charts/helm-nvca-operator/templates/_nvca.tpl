{{- define "nvca.name" -}}{{ .Values.fullnameOverride | default "nvca-operator" | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- define "nvca.selfManaged" -}}{{ if eq (toString ((.Values.ngcConfig | default dict).clusterSource)) "self-managed" }}true{{ end }}{{- end -}}
{{- /* Validations shared by all templates (fails early with a clear message). */ -}}
{{- define "nvca.validate" -}}
{{- $sm := .Values.selfManaged | default dict -}}
{{- $_ := include "standin.image" (dict "image" .Values.image "path" "image" "defaultTag" "3.0.4") -}}
{{- if include "nvca.selfManaged" . -}}
{{- $_ := include "standin.requiredString" (dict "value" .Values.clusterID "path" "clusterID (self-managed: from the registration file)") -}}
{{- $_ := include "standin.requiredString" (dict "value" .Values.clusterGroupID "path" "clusterGroupID (self-managed: from the registration file)") -}}
{{- $_ := include "standin.requiredString" (dict "value" $sm.icmsServiceURL "path" "selfManaged.icmsServiceURL") -}}
{{- $_ := include "standin.requiredString" (dict "value" $sm.revalServiceURL "path" "selfManaged.revalServiceURL") -}}
{{- $_ := include "standin.requiredString" (dict "value" $sm.natsURL "path" "selfManaged.natsURL") -}}
{{- $_ := include "standin.requiredString" (dict "value" ((.Values.nvcaImage | default dict).repositoryOverride) "path" "nvcaImage.repositoryOverride") -}}
{{- $_ := include "standin.requiredString" (dict "value" (($sm.imageCredHelper | default dict).imageRepository) "path" "selfManaged.imageCredHelper.imageRepository") -}}
{{- $_ := include "standin.requiredString" (dict "value" (($sm.sharedStorage | default dict).imageRepository) "path" "selfManaged.sharedStorage.imageRepository") -}}
{{- if .Values.generateImagePullSecret }}{{ fail "generateImagePullSecret must be false when ngcConfig.clusterSource is self-managed: create the pull secret yourself and list it in imagePullSecrets" }}{{ end -}}
{{- $fg := $sm.featureGateValues | default list -}}
{{- if not (kindIs "slice" $fg) }}{{ fail "selfManaged.featureGateValues must be a list of strings" }}{{ end -}}
{{- range $fg }}{{ if not (kindIs "string" .) }}{{ fail "selfManaged.featureGateValues must be a list of strings" }}{{ end }}{{ end -}}
{{- else if .Values.generateImagePullSecret -}}
{{- $_ := include "standin.requiredString" (dict "value" ((.Values.ngcConfig | default dict).serviceKey) "path" "ngcConfig.serviceKey (generateImagePullSecret)") -}}
{{- end -}}
{{- $mc := (.Values.agentConfig | default dict).mergeConfig | default "" -}}
{{- if $mc -}}
{{- if not (kindIs "string" $mc) }}{{ fail "agentConfig.mergeConfig must be a YAML string" }}{{ end -}}
{{- $parsed := fromYaml $mc -}}
{{- if hasKey $parsed "Error" }}{{ fail (printf "agentConfig.mergeConfig is not valid YAML: %s" $parsed.Error) }}{{ end -}}
{{- $vp := ((($parsed.cluster | default dict).validationPolicy) | default dict).name -}}
{{- if and $vp (not (has $vp (list "Default" "Unrestricted"))) }}{{ fail (printf "agentConfig.mergeConfig cluster.validationPolicy.name must be Default or Unrestricted (got %q)" $vp) }}{{ end -}}
{{- end -}}
{{- end -}}
