{{- /* Resource tiers of cassandra.resourcesPreset (same numbers as the real chart's table); an explicit
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

{{- /* MAX_HEAP_SIZE: explicit jvm.maxHeapSize, else half the preset's memory limit, else "". */ -}}
{{- define "cass.maxHeap" -}}
{{- $c := .Values.cassandra -}}
{{- if $c.jvm.maxHeapSize -}}{{ $c.jvm.maxHeapSize }}
{{- else if and $c.resourcesPreset (ne $c.resourcesPreset "none") -}}
{{- get (dict "nano" "96M" "micro" "192M" "small" "384M" "medium" "768M" "large" "1536M" "xlarge" "3072M" "2xlarge" "6144M") $c.resourcesPreset -}}
{{- end -}}
{{- end -}}

{{- define "cass.image" -}}
{{- printf "%s/%s:%s" .registry .repository (toString .tag) -}}
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

