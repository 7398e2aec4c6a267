{{- /* Image of a KAI component. dict: root, image (map name/tag/registry?) */ -}}
{{- define "kai.image" -}}
{{- $g := .root.Values.global -}}
{{- $tag := .image.tag | default $g.tag | default .root.Chart.AppVersion -}}
{{- if $g.fips }}{{ $tag = printf "%s-fips" $tag }}{{ end -}}
{{- printf "%s/%s:%s" (.image.registry | default $g.registry) .image.name $tag -}}
{{- end -}}
