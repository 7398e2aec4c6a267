{{- /* Image reference the way cert-manager v1.20.2 builds it: image.repository (optionally prefixed by image.registry)
       or else <imageRegistry>/<imageNamespace>/<name>; then :tag (default the app version) or @digest.
       dict: v (the cert-manager values), image (that component's image map), name (default image name) */ -}}
{{- define "cm.image" -}}
{{- $i := .image | default dict -}}
{{- $repo := "" -}}
{{- if $i.repository -}}
{{- $repo = $i.repository -}}
{{- if $i.registry }}{{ $repo = printf "%s/%s" $i.registry $repo }}{{ end -}}
{{- else -}}
{{- $repo = printf "%s/%s/%s" (.v.imageRegistry | default "quay.io") (.v.imageNamespace | default "jetstack") ($i.name | default .name) -}}
{{- end -}}
{{- if $i.digest }}{{ printf "%s@%s" $repo $i.digest }}{{ else }}{{ printf "%s:%s" $repo ($i.tag | default "v1.20.2") }}{{ end -}}
{{- end -}}
