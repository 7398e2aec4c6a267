{{- /* Image reference as nats 1.3.15 builds it: fullImageName, else [registry|global.image.registry/]repository:tag
       (or @digest). dict: image, global */ -}}
{{- define "natsstandin.image" -}}
{{- $i := .image | default dict -}}
{{- if $i.fullImageName -}}{{ $i.fullImageName }}{{- else -}}
{{- $ref := ternary (printf "%s@%s" (toString $i.repository) (toString $i.digest)) (printf "%s:%s" (toString $i.repository) (toString $i.tag)) (not (empty $i.digest)) -}}
{{- $reg := $i.registry | default ((.global.image | default dict).registry) -}}
{{- if $reg }}{{ printf "%s/%s" $reg $ref }}{{ else }}{{ $ref }}{{ end -}}
{{- end -}}
{{- end -}}

{{- /* Release fullname of the nats subchart (release "nats" gives "nats"). */ -}}
{{- define "natsstandin.fullname" -}}
{{- $v := .Values.nats -}}
{{- if $v.fullnameOverride }}{{ $v.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}{{ $n := $v.nameOverride | default "nats" }}{{ ternary .Release.Name (printf "%s-%s" .Release.Name $n) (contains $n .Release.Name) | trunc 63 | trimSuffix "-" }}{{ end -}}
{{- end -}}

{{- /* Random NKey-shaped string (stand-in: not a valid key pair). Input: prefix letter(s) */ -}}
{{- define "natsstandin.fakeKey" -}}
{{- printf "%s%s" . (randAlphaNum (int (sub 56 (len .))) | upper) -}}
{{- end -}}

{{- /* Selector labels of nats 1.3.15 (nats.selectorLabels / natsBox.selectorLabels): name, instance and the
       component (nats or nats-box). dict: root, component */ -}}
{{- define "natsstandin.selectorLabels" -}}
app.kubernetes.io/name: nats
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}
