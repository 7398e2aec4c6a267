{{- /* <registry>/<repository>:<tag>; the wrapper requires all three for its hook image. dict: image, path */ -}}
{{- define "baostandin.image" -}}
{{- $i := .image | default dict -}}
{{- printf "%s/%s:%s" (required (printf "A valid image registry is required for %s.registry" .path) $i.registry) (required (printf "A valid image repository is required for %s.repository" .path) $i.repository) (required (printf "A valid image tag is required for %s.tag" .path) (toString $i.tag)) -}}
{{- end -}}

{{- /* Affinity value: a YAML map, or a string run through tpl (upstream convention). dict: v, root */ -}}
{{- define "baostandin.affinity" -}}
{{- if kindIs "string" .v }}{{ tpl .v .root }}{{ else if .v }}{{ toYaml .v }}{{ end -}}
{{- end -}}

{{- define "baostandin.pullSecrets" -}}
{{- with .Values.openbao.global.imagePullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ ternary . (get (. | default dict) "name") (kindIs "string" .) }}
{{- end }}
{{- end }}
{{- end -}}

{{- /* The server pods' selector labels (openbao 0.28.3: name, instance, component=server). Input: root context */ -}}
{{- define "baostandin.selectorLabels" -}}
app.kubernetes.io/name: openbao
app.kubernetes.io/instance: {{ .Release.Name }}
component: server
{{- end -}}
