{{- /* Route table: key -> HTTPRoute name + default hostname prefixes. Output: JSON list. */ -}}
{{- define "routes.httpTable" -}}
{{- toJson (list
  (dict "key" "nvcfApi" "name" "nvcf-api" "hosts" (list "api"))
  (dict "key" "nvctApi" "name" "nvct-api" "hosts" (list "tasks"))
  (dict "key" "apiKeys" "name" "api-keys" "hosts" (list "api-keys"))
  (dict "key" "invocation" "name" "invocation-service" "hosts" (list "*.invocation" "invocation"))
  (dict "key" "llmApiGateway" "name" "llm-api-gateway" "hosts" (list "llm"))
  (dict "key" "llmInvocation" "name" "llm-invocation" "hosts" (list "llm.invocation"))
  (dict "key" "vanityGateway" "name" "vanity-gateway" "hosts" (list "vanity"))
  (dict "key" "reval" "name" "reval" "hosts" (list "reval"))
  (dict "key" "sis" "name" "sis" "hosts" (list "sis"))
  (dict "key" "nvcfUi" "name" "nvcf-ui" "hosts" (list "nvcf-ui"))
  (dict "key" "ess" "name" "ess" "hosts" (list "ess"))) -}}
{{- end -}}

{{- /* Hostnames of a route. dict: route (values map), hosts (default prefixes), domain. Output: JSON list */ -}}
{{- define "routes.hostnames" -}}
{{- $out := list -}}
{{- if .route.hostnames -}}
{{- $out = .route.hostnames -}}
{{- else -}}
{{- range .hosts }}{{ $out = append $out (printf "%s.%s" . $.domain) }}{{ end -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{- /* Backend ref. dict: backend (map), default (map). */ -}}
{{- define "routes.backendRef" -}}
{{- $b := merge (deepCopy (.backend | default dict)) .default -}}
- group: ""
  kind: Service
  name: {{ required "route backend.name is required" $b.name }}
  namespace: {{ required "route backend.namespace is required" $b.namespace }}
  port: {{ required "route backend.port is required" $b.port | int }}
{{- end -}}

{{- /* Route metadata. dict: root, name, namespace, annotations */ -}}
{{- define "routes.metadata" -}}
metadata:
  name: {{ .name }}
  namespace: {{ .namespace }}
  labels:
    {{- include "standin.labels" (dict "root" .root "name" .name "component" "route") | nindent 4 }}
  {{- with .annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
