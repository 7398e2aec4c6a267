{{- /*
  Shared helpers of the NVCF stand-in charts (tests/charts). This file is COPIED
  verbatim into every chart's templates/ directory by tests/charts/_lib/sync.sh;
  edit it here, then run the script. Every named template is prefixed "standin.".
*/ -}}

{{- /* Common labels. dict: root, name, [component] */ -}}
{{- define "standin.labels" -}}
nvcf.stand-in: "true"
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/instance: {{ .root.Release.Name | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ .name | trunc 63 | trimSuffix "-" }}
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end -}}

{{- /* Selector labels. dict: root, name */ -}}
{{- define "standin.selectorLabels" -}}
app.kubernetes.io/instance: {{ .root.Release.Name | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ .name | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{- /* Object name from fullnameOverride. dict: v (values map), default */ -}}
{{- define "standin.fullname" -}}
{{- $v := .v | default dict -}}
{{- $v.fullnameOverride | default .default | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- /*
  Image reference; fails when the repository is missing.
  dict: image (map with registry?, repository, name?, tag?, digest?), path (values path for messages), defaultTag
  reference = [registry/]repository[/name](:tag|@digest)
*/ -}}
{{- define "standin.image" -}}
{{- $img := .image | default dict -}}
{{- if not (kindIs "map" $img) -}}
{{- fail (printf "%s must be a map with at least `repository`" .path) -}}
{{- end -}}
{{- $repo := required (printf "%s.repository is required (image repository for this chart)" .path) $img.repository | toString -}}
{{- $ref := $repo -}}
{{- with $img.registry -}}
{{- if not (hasPrefix (printf "%s/" .) $repo) -}}{{- $ref = printf "%s/%s" . $repo -}}{{- end -}}
{{- end -}}
{{- with $img.name -}}{{- $ref = printf "%s/%s" $ref . -}}{{- end -}}
{{- if $img.digest -}}
{{- printf "%s@%s" $ref $img.digest -}}
{{- else -}}
{{- $tag := required (printf "%s.tag is required (no chart default tag)" .path) ($img.tag | default .defaultTag) | toString -}}
{{- printf "%s:%s" $ref $tag -}}
{{- end -}}
{{- end -}}

{{- /* Normalised pull-secret list (JSON). Input: list of names or of {name}. Output: JSON list of {name} */ -}}
{{- define "standin.pullSecretList" -}}
{{- $out := list -}}
{{- range (. | default list) -}}
{{- if kindIs "string" . -}}
{{- if . }}{{- $out = append $out (dict "name" .) -}}{{- end -}}
{{- else if kindIs "map" . -}}
{{- if .name }}{{- $out = append $out (dict "name" .name) -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{- /* Renders env entries from a map (sorted) or a list of {name,value|valueFrom}. Input: the env value */ -}}
{{- define "standin.envEntries" -}}
{{- if kindIs "map" . -}}
{{- range $k, $val := . }}
- name: {{ $k | quote }}
  value: {{ $val | toString | quote }}
{{- end }}
{{- else if kindIs "slice" . -}}
{{- range . }}
{{- if not (and (kindIs "map" .) .name) }}
{{- fail (printf "env entries must be maps with a `name`: %s" (toJson .)) }}
{{- end }}
- name: {{ .name | quote }}
{{- if hasKey . "valueFrom" }}
  valueFrom:
    {{- toYaml .valueFrom | nindent 4 }}
{{- else }}
  value: {{ .value | toString | quote }}
{{- end }}
{{- end }}
{{- end -}}
{{- end -}}

{{- /* Hook annotations. dict: hook (string), weight (string|int, optional), policy (string, optional) */ -}}
{{- define "standin.hookAnnotations" -}}
helm.sh/hook: {{ .hook | quote }}
{{- if hasKey . "weight" }}
helm.sh/hook-weight: {{ .weight | toString | quote }}
{{- end }}
{{- with .policy }}
helm.sh/hook-delete-policy: {{ . | quote }}
{{- end }}
{{- end -}}

{{- /* Tiny fixed resources: stand-ins never request what the real chart asks for (kwok nodes). */ -}}
{{- define "standin.resources" -}}
resources:
  requests:
    cpu: 1m
    memory: 4Mi
  limits:
    cpu: 10m
    memory: 16Mi
{{- end -}}

{{- /*
  One container. dict: name, image, [pullPolicy], [ports list of {name,port}], [env], [extraEnv list], [args list],
  [resources] (map; when non-empty rendered as given, else the tiny fixed resources)
*/ -}}
{{- define "standin.container" -}}
- name: {{ .name }}
  image: {{ .image | quote }}
  imagePullPolicy: {{ .pullPolicy | default "IfNotPresent" }}
  {{- if .command }}
  command:
    {{- toYaml .command | nindent 4 }}
  {{- end }}
  {{- if .args }}
  args:
    {{- toYaml .args | nindent 4 }}
  {{- end }}
  {{- with .ports }}
  ports:
    {{- range . }}
    - name: {{ .name }}
      containerPort: {{ .port }}
      protocol: {{ .protocol | default "TCP" }}
    {{- end }}
  {{- end }}
  {{- $env := include "standin.envEntries" (.env | default list) -}}
  {{- $extra := include "standin.envEntries" (.extraEnv | default list) -}}
  {{- if or (trim $env) (trim $extra) }}
  env:
    {{- with trim $env }}{{ . | nindent 4 }}{{ end }}
    {{- with trim $extra }}{{ . | nindent 4 }}{{ end }}
  {{- end }}
  {{- with .envFrom }}
  envFrom:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .volumeMounts }}
  volumeMounts:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if .resources }}
  resources:
    {{- toYaml .resources | nindent 4 }}
  {{- else }}
  {{- include "standin.resources" . | nindent 2 }}
  {{- end }}
{{- end -}}

{{- /*
  Pod scheduling + pull secrets block (goes inside a pod spec).
  dict: pullSecrets (list), nodeSelector (map), tolerations (list), affinity (map), securityContext (map), serviceAccountName
*/ -}}
{{- define "standin.podCommon" -}}
{{- with .serviceAccountName }}
serviceAccountName: {{ . }}
{{- end }}
{{- $ps := include "standin.pullSecretList" .pullSecrets | fromJsonArray -}}
{{- with $ps }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .nodeSelector }}
nodeSelector:
  {{- if kindIs "string" . }}
  {{- fail "nodeSelector must be a map" }}
  {{- end }}
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .securityContext }}
securityContext:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- /*
  Deployment / StatefulSet / DaemonSet.
  dict: root, kind, name, [app] (selector name, default name), [component], replicas,
        containers (list of container dicts), [initContainers], [serviceName] (StatefulSet),
        pullSecrets, nodeSelector, tolerations, affinity, securityContext, serviceAccountName,
        [annotations] (map, workload metadata), [podAnnotations] (map), [podLabels] (map), [volumes] (list)
*/ -}}
{{- define "standin.workload" -}}
{{- $app := .app | default .name -}}
apiVersion: apps/v1
kind: {{ .kind }}
metadata:
  name: {{ .name }}
  labels:
    {{- include "standin.labels" (dict "root" .root "name" $app "component" .component) | nindent 4 }}
  {{- with .annotations }}
  annotations:
    {{- range $k, $val := . }}
    {{ $k }}: {{ $val | toString | quote }}
    {{- end }}
  {{- end }}
spec:
  {{- if ne .kind "DaemonSet" }}
  replicas: {{ if kindIs "invalid" .replicas }}1{{ else }}{{ .replicas | int }}{{ end }}
  {{- end }}
  {{- if eq .kind "StatefulSet" }}
  serviceName: {{ .serviceName | default .name }}
  podManagementPolicy: Parallel
  {{- end }}
  selector:
    matchLabels:
      {{- include "standin.selectorLabels" (dict "root" .root "name" $app) | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "standin.labels" (dict "root" .root "name" $app "component" .component) | nindent 8 }}
        {{- with .podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with .podAnnotations }}
      annotations:
        {{- range $k, $val := . }}
        {{ $k }}: {{ $val | toString | quote }}
        {{- end }}
      {{- end }}
    spec:
      terminationGracePeriodSeconds: 5
      {{- with include "standin.podCommon" . | trim }}{{ . | nindent 6 }}{{ end }}
      {{- with .initContainers }}
      initContainers:
        {{- range . }}
        {{- include "standin.container" . | nindent 8 }}
        {{- end }}
      {{- end }}
      containers:
        {{- range .containers }}
        {{- include "standin.container" . | nindent 8 }}
        {{- end }}
      {{- with .volumes }}
      volumes:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}

{{- /*
  Service. dict: root, name, [app] (selector), ports (list of {name, port, targetPort?}), [headless], [component]
*/ -}}
{{- define "standin.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .name }}
  labels:
    {{- include "standin.labels" (dict "root" .root "name" (.app | default .name) "component" .component) | nindent 4 }}
spec:
  {{- if .headless }}
  clusterIP: None
  publishNotReadyAddresses: true
  {{- else }}
  type: ClusterIP
  {{- end }}
  selector:
    {{- include "standin.selectorLabels" (dict "root" .root "name" (.app | default .name)) | nindent 4 }}
  ports:
    {{- range .ports }}
    - name: {{ .name }}
      port: {{ .port }}
      targetPort: {{ .targetPort | default .port }}
      protocol: {{ .protocol | default "TCP" }}
    {{- end }}
{{- end -}}

{{- /*
  PodDisruptionBudget when pdb.enabled. dict: root, name, app, pdb (map: enabled, minAvailable?, maxUnavailable?, merge.spec.*?)
*/ -}}
{{- define "standin.pdb" -}}
{{- $pdb := .pdb | default dict -}}
{{- if $pdb.enabled -}}
{{- $spec := dict -}}
{{- if hasKey $pdb "minAvailable" }}{{- $_ := set $spec "minAvailable" $pdb.minAvailable -}}{{- end -}}
{{- if hasKey $pdb "maxUnavailable" }}{{- $_ := set $spec "maxUnavailable" $pdb.maxUnavailable -}}{{- end -}}
{{- with $pdb.merge }}{{- with .spec }}{{- $spec = merge (deepCopy .) $spec -}}{{- end }}{{- end -}}
{{- if and (not (hasKey $spec "minAvailable")) (not (hasKey $spec "maxUnavailable")) -}}
{{- $_ := set $spec "maxUnavailable" 1 -}}
{{- end }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .name }}
  labels:
    {{- include "standin.labels" (dict "root" .root "name" (.app | default .name)) | nindent 4 }}
spec:
  {{- toYaml $spec | nindent 2 }}
  selector:
    matchLabels:
      {{- include "standin.selectorLabels" (dict "root" .root "name" (.app | default .name)) | nindent 6 }}
{{- end -}}
{{- end -}}

{{- /*
  Hook Job whose container exits 0. dict: root, name, hook, weight, [policy], image, [serviceAccountName],
  [env], [extraEnv], pullSecrets, [nodeSelector], [tolerations], [ttl], [restartPolicy], [volumes], [volumeMounts],
  [annotations] (extra metadata annotations map)
*/ -}}
{{- define "standin.hookJob" -}}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .name }}
  labels:
    {{- include "standin.labels" (dict "root" .root "name" .name "component" "hook") | nindent 4 }}
  annotations:
    {{- include "standin.hookAnnotations" . | nindent 4 }}
    {{- range $k, $val := (.annotations | default dict) }}
    {{ $k }}: {{ $val | toString | quote }}
    {{- end }}
spec:
  backoffLimit: 3
  {{- if .ttl }}
  ttlSecondsAfterFinished: {{ .ttl | int }}
  {{- end }}
  template:
    metadata:
      labels:
        {{- include "standin.labels" (dict "root" .root "name" .name "component" "hook") | nindent 8 }}
    spec:
      restartPolicy: {{ .restartPolicy | default "Never" }}
      terminationGracePeriodSeconds: 5
      {{- with include "standin.podCommon" . | trim }}{{ . | nindent 6 }}{{ end }}
      containers:
        {{- include "standin.container" (dict "name" "hook" "image" .image "command" (list "/bin/sh" "-c" (printf "echo stand-in hook %s; exit 0" .name)) "env" .env "extraEnv" .extraEnv "envFrom" .envFrom "volumeMounts" .volumeMounts) | nindent 8 }}
      {{- with .volumes }}
      volumes:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}

{{- /* ServiceAccount + Role + RoleBinding. dict: root, name, rules (list), [annotations] (map, e.g. hook) */ -}}
{{- define "standin.rbac" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .name }}
  labels:
    {{- include "standin.labels" (dict "root" .root "name" .name) | nindent 4 }}
  {{- with .annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ if .cluster }}ClusterRole{{ else }}Role{{ end }}
metadata:
  name: {{ .name }}
  labels:
    {{- include "standin.labels" (dict "root" .root "name" .name) | nindent 4 }}
  {{- with .annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
rules:
  {{- toYaml .rules | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {{ if .cluster }}ClusterRoleBinding{{ else }}RoleBinding{{ end }}
metadata:
  name: {{ .name }}
  labels:
    {{- include "standin.labels" (dict "root" .root "name" .name) | nindent 4 }}
  {{- with .annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: {{ if .cluster }}ClusterRole{{ else }}Role{{ end }}
  name: {{ .name }}
subjects:
  - kind: ServiceAccount
    name: {{ .name }}
    namespace: {{ .root.Release.Namespace }}
{{- end -}}

{{- /* Values kept readable without acting on them (storage, resources...): JSON annotation value. Input: any */ -}}
{{- define "standin.json" -}}
{{- toJson . | quote -}}
{{- end -}}

{{- /* Fails unless the value is a non-empty string. dict: value, path */ -}}
{{- define "standin.requiredString" -}}
{{- $v := required (printf "%s is required" .path) .value -}}
{{- if not (kindIs "string" $v) -}}{{- fail (printf "%s must be a string" .path) -}}{{- end -}}
{{- $v -}}
{{- end -}}

{{- /*
  Standard NVCF service chart body: Deployment (or StatefulSet) + Services + PDB.
  dict: root, v (the chart's values key map), key (its name, for messages), kind (default Deployment),
        name (workload name), app (selector name), container (container name), defaultTag,
        ports (container ports), services (list of {name, ports, headless?}),
        [extraEnv] (list), [annotations] (map), [podAnnotations] (merged over the values' podAnnotations), [serviceAccountName],
        [realResources] (true: the container gets the values' `resources`, as the real chart renders them),
        [securityContext], [replicas] (override),
        [envConfigMap] (name of the ConfigMap the real chart renders from a non-empty `env` map, as `<fullname>-env`:
        the container then reads it through envFrom and the pod carries its checksum annotation),
        [envInline] (with envConfigMap: the `env` entries are also written into the container, as grpc-proxy does),
        [envDefaults] (map: keys the real chart adds to that ConfigMap when `env` lacks them)
*/ -}}
{{- define "standin.nvcfService" -}}
{{- $v := .v | default dict -}}
{{- $envCm := "" -}}
{{- if and .envConfigMap $v.env (kindIs "map" $v.env) }}{{ $envCm = .envConfigMap }}{{ end -}}
{{- $containerEnv := $v.env -}}
{{- if and $envCm (not .envInline) }}{{ $containerEnv = dict }}{{ end -}}
{{- $envFrom := list -}}
{{- $envPodAnn := dict -}}
{{- if $envCm -}}
{{- $envFrom = list (dict "configMapRef" (dict "name" $envCm)) -}}
{{- $envPodAnn = dict "checksum/config-env" (toYaml $v.env | sha256sum) -}}
{{- end -}}
{{- $img := include "standin.image" (dict "image" $v.image "path" (ternary "image" (printf "%s.image" .key) (empty .key)) "defaultTag" .defaultTag) -}}
{{- $ann := merge (dict "nvcf.stand-in/values-key" (.key | default "(top-level)") "nvcf.stand-in/resources" (toJson ($v.resources | default dict))) (.annotations | default dict) -}}
{{- $replicas := 1 -}}
{{- if not (kindIs "invalid" .replicas) }}{{ $replicas = .replicas }}{{ else if not (kindIs "invalid" $v.replicaCount) }}{{ $replicas = $v.replicaCount }}{{ end -}}
{{- include "standin.workload" (dict
    "root" .root "kind" (.kind | default "Deployment") "name" .name "app" .app "replicas" $replicas
    "serviceName" .serviceName
    "containers" (list (dict "name" .container "image" $img "pullPolicy" ($v.image | default dict).pullPolicy "ports" .ports "env" $containerEnv "extraEnv" .extraEnv "envFrom" $envFrom "resources" (ternary ($v.resources | default dict) dict (.realResources | default false))))
    "pullSecrets" $v.imagePullSecrets "nodeSelector" $v.nodeSelector "tolerations" $v.tolerations
    "affinity" $v.affinity "securityContext" (.securityContext | default $v.podSecurityContext)
    "serviceAccountName" .serviceAccountName
    "annotations" $ann "podAnnotations" (merge (dict) ($v.podAnnotations | default dict) (.podAnnotations | default dict) $envPodAnn) "podLabels" $v.podLabels) }}
{{- range .services }}
---
{{ include "standin.service" (dict "root" $.root "name" .name "app" $.app "ports" .ports "headless" .headless) }}
{{- end }}
{{- if $envCm }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $envCm }}
  labels:
    {{- include "standin.labels" (dict "root" .root "name" .app) | nindent 4 }}
data:
  {{- range $k, $val := merge (dict) $v.env (.envDefaults | default dict) }}
  {{ $k }}: {{ $val | quote }}
  {{- end }}
{{- end }}
{{- with (include "standin.pdb" (dict "root" .root "name" .name "app" .app "pdb" $v.podDisruptionBudget)) }}
---
{{ . }}
{{- end }}
{{- end -}}
