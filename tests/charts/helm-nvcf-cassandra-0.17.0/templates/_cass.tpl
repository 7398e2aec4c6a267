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


{{- /* Labels Bitnami's common 2.30.0 puts on the subchart's objects (common.labels.standard: chart
       cassandra-12.3.5, appVersion 5.0.4) plus cassandra.commonLabels and the stand-in label. Input: root context */ -}}
{{- define "cass.bitnamiLabels" -}}
{{- $l := dict "app.kubernetes.io/name" "cassandra" "helm.sh/chart" "cassandra-12.3.5" "app.kubernetes.io/instance" .Release.Name "app.kubernetes.io/managed-by" .Release.Service "app.kubernetes.io/version" "5.0.4" -}}
{{- $l = merge (deepCopy (.Values.cassandra.commonLabels | default dict)) $l -}}
{{- $_ := set $l "nvcf.stand-in" "true" -}}
{{- toYaml $l -}}
{{- end -}}

{{- /* Bitnami's common.labels.matchLabels: name and instance (a commonLabels entry of the same key wins). Input: root */ -}}
{{- define "cass.bitnamiMatchLabels" -}}
{{- $l := dict "app.kubernetes.io/name" "cassandra" "app.kubernetes.io/instance" .Release.Name -}}
{{- $l = merge (pick (.Values.cassandra.commonLabels | default dict) "app.kubernetes.io/name" "app.kubernetes.io/instance") $l -}}
{{- toYaml $l -}}
{{- end -}}
