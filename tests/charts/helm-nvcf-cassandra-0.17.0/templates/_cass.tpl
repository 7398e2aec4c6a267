{{- /* Resource tiers of cassandra.resourcesPreset (Bitnami common 2.30.0 presets, which the chart 12.3.5 uses); an explicit
       cassandra.resources map wins; "none" renders no resources. Input: root context. Output: YAML map or "". */ -}}
{{- define "cass.resources" -}}
{{- $c := .Values.cassandra -}}
{{- $eph := dict "requests" "50Mi" "limits" "2Gi" -}}
{{- $tiers := dict
  "nano" (list "100m" "128Mi" "150m" "192Mi") "micro" (list "250m" "256Mi" "375m" "384Mi")
  "small" (list "500m" "512Mi" "750m" "768Mi") "medium" (list "500m" "1024Mi" "750m" "1536Mi")
  "large" (list "1.0" "2048Mi" "1.5" "3072Mi") "xlarge" (list "1.0" "3072Mi" "3.0" "6144Mi")
  "2xlarge" (list "1.0" "3072Mi" "6.0" "12288Mi") -}}
{{- if $c.resources -}}
{{- toYaml $c.resources -}}
{{- else if and $c.resourcesPreset (ne $c.resourcesPreset "none") -}}
{{- $t := get $tiers $c.resourcesPreset -}}
{{- if not $t }}{{ fail (printf "cassandra.resourcesPreset '%s' invalid" $c.resourcesPreset) }}{{ end -}}
requests:
  cpu: {{ index $t 0 | quote }}
  memory: {{ index $t 1 }}
  ephemeral-storage: {{ $eph.requests }}
limits:
  cpu: {{ index $t 2 | quote }}
  memory: {{ index $t 3 }}
  ephemeral-storage: {{ $eph.limits }}
{{- end -}}
{{- end -}}




{{- /* <registry>/<repository>:<tag>, registry omitted when empty (Bitnami common.images.image; the wrapper's hook
       images are always written with the registry). */ -}}
{{- define "cass.image" -}}
{{- if .registry }}{{ printf "%s/%s:%s" .registry .repository (toString .tag) }}{{ else }}{{ printf "%s:%s" .repository (toString .tag) }}{{ end -}}
{{- end -}}

{{- define "cass.pullSecrets" -}}
{{- $names := list -}}
{{- range .Values.cassandra.global.imagePullSecrets -}}
{{- if kindIs "map" . }}{{ $names = append $names .name }}{{ else }}{{ $names = append $names . }}{{ end -}}
{{- end -}}
{{- with $names | uniq }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end -}}
{{- end -}}
