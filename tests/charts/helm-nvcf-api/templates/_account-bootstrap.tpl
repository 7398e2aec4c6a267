{{- /*
  The account-bootstrap hook objects of helm-nvcf-api, as the real chart renders them (deploy/helm/cloud-functions/
  nvcf-api templates/account-bootstrap-{serviceaccount,secret,configmap,hook-job}.yaml): ServiceAccount
  nvcf-api-account-bootstrap; hook Secret <fullname>-account-bootstrap-secret (weight 0, the payload), ConfigMap
  <fullname>-account-bootstrap-script (weight 1), Job <fullname>-account-bootstrap (weight 2, envFrom the Secret, the
  OpenBao-audience token at the service-account token path). Stand-in only: the `nvcf.stand-in: "true"` labels and
  the script's text. No container runs on the local clusters: they hold the Job's pod (by its label
  app.kubernetes.io/component=account-bootstrap, scripts/cluster.sh held_hooks) until tests/bin/account-bootstrap
  has applied the payload to the stand-in NVCF API, for this chart and NVIDIA's alike.
  Same file in helm-nvcf-api and helm-nvcf-api-1.23.9. dict: root, v (.Values.api), ab (its accountBootstrap), name
  (the fullname).
*/ -}}
{{- define "standin.accountBootstrap" -}}
{{- $root := .root -}}
{{- $v := .v -}}
{{- $ab := .ab -}}
{{- $bn := printf "%s-account-bootstrap" .name -}}
{{- $audience := "http://openbao-server.vault-system.svc.cluster.local:8200" -}}{{- /* fixed in the real hook Job */ -}}
{{- $img := include "standin.image" (dict "image" $ab.image "path" "api.accountBootstrap.image" "defaultTag" "1.36.1") -}}
{{- $creds := $ab.registryCredentials | default list -}}
{{- if not (kindIs "slice" $creds) }}{{ fail "api.accountBootstrap.registryCredentials must be a list" }}{{ end -}}
{{- range $i, $c := $creds }}
{{- $p := printf "api.accountBootstrap.registryCredentials[%d]" $i -}}
{{- if not (kindIs "map" $c) }}{{ fail (printf "%s must be a map" $p) }}{{ end -}}
{{- $_ := include "standin.requiredString" (dict "value" $c.registryHostname "path" (printf "%s.registryHostname" $p)) -}}
{{- $s := required (printf "%s.secret is required ({name, value})" $p) $c.secret -}}
{{- $_ := include "standin.requiredString" (dict "value" $s.name "path" (printf "%s.secret.name" $p)) -}}
{{- $val := include "standin.requiredString" (dict "value" $s.value "path" (printf "%s.secret.value" $p)) -}}
{{- if contains "REPLACE_WITH_BASE64_DOCKER_CREDENTIAL" $val }}{{ fail (printf "%s.secret.value is still the placeholder REPLACE_WITH_BASE64_DOCKER_CREDENTIAL: set base64(\"user:password\")" $p) }}{{ end -}}
{{- if not (regexMatch "^[A-Za-z0-9+/]+={0,2}$" $val) }}{{ fail (printf "%s.secret.value must be base64(\"user:password\") on one line" $p) }}{{ end -}}
{{- end -}}
{{- $lim := $ab.limits | default dict -}}
{{- $readiness := $ab.readiness | default dict -}}
{{- $hook := "post-install,post-upgrade" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  # hardcoded in the real chart: the OpenBao JWT auth role binds this name
  name: nvcf-api-account-bootstrap
  labels:
    {{- include "standin.labels" (dict "root" $root "name" "helm-nvcf-api" "component" "account-bootstrap") | nindent 4 }}
automountServiceAccountToken: true
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ $bn }}-secret
  labels:
    {{- include "standin.labels" (dict "root" $root "name" "helm-nvcf-api" "component" "account-bootstrap") | nindent 4 }}
  annotations:
    {{- include "standin.hookAnnotations" (dict "hook" $hook "weight" 0 "policy" "before-hook-creation,hook-succeeded") | nindent 4 }}
type: Opaque
stringData:
  NVCF_ACCOUNT_NAME: {{ $ab.accountName | quote }}
  NVCF_ADMIN_CLIENT_ID: {{ $ab.adminClientId | quote }}
  NVCF_REGISTRY_CREDENTIALS_JSON: |
    {{ $creds | toJson | indent 4 }}
  NVCF_MAX_FUNCTIONS_ALLOWED: "{{ $lim.maxFunctions }}"
  NVCF_MAX_TASKS_ALLOWED: "{{ $lim.maxTasks }}"
  NVCF_MAX_TELEMETRIES_ALLOWED: "{{ $lim.maxTelemetries }}"
  NVCF_MAX_REGISTRY_CREDENTIALS_ALLOWED: "{{ $lim.maxRegistryCreds }}"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $bn }}-script
  labels:
    {{- include "standin.labels" (dict "root" $root "name" "helm-nvcf-api" "component" "account-bootstrap") | nindent 4 }}
  annotations:
    {{- include "standin.hookAnnotations" (dict "hook" $hook "weight" 1 "policy" "before-hook-creation") | nindent 4 }}
data:
  account-bootstrap.sh: |-
    #!/usr/bin/env bash
    # stand-in: no container runs on the local clusters; tests/bin/account-bootstrap does what NVIDIA's script
    # does (waits for api.{{ $root.Release.Namespace }}:8080, signs an admin JWT through OpenBao, POSTs
    # /v2/nvcf/accounts/${NVCF_ACCOUNT_NAME}, treats 409 as success) against the stand-in NVCF API.
    exit 0
---
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ $bn }}
  labels:
    {{- include "standin.labels" (dict "root" $root "name" "helm-nvcf-api" "component" "account-bootstrap") | nindent 4 }}
  annotations:
    {{- include "standin.hookAnnotations" (dict "hook" $hook "weight" 2 "policy" "before-hook-creation") | nindent 4 }}
spec:
  ttlSecondsAfterFinished: 300
  template:
    metadata:
      {{- with $ab.podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      labels:
        {{- include "standin.labels" (dict "root" $root "name" "helm-nvcf-api" "component" "account-bootstrap") | nindent 8 }}
    spec:
      restartPolicy: OnFailure
      serviceAccountName: nvcf-api-account-bootstrap
      {{- with $ab.schedulingGates }}
      schedulingGates:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      volumes:
      - name: token
        projected:
          sources:
          - serviceAccountToken:
              path: token
              expirationSeconds: 3600
              audience: {{ $audience }}
      - name: account-bootstrap-script
        configMap:
          name: {{ $bn }}-script
          defaultMode: 0755
      {{- $ps := include "standin.pullSecretList" $v.imagePullSecrets | fromJsonArray }}
      {{- with $ps }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
      - name: account-bootstrap-creator
        image: {{ $img | quote }}
        imagePullPolicy: {{ ($ab.image | default dict).pullPolicy | default "IfNotPresent" }}
        command: ["/bin/bash"]
        args: ["/scripts/account-bootstrap.sh"]
        volumeMounts:
        - name: token
          mountPath: /var/run/secrets/kubernetes.io/serviceaccount
          readOnly: true
        - name: account-bootstrap-script
          mountPath: /scripts
          readOnly: true
        envFrom:
        - secretRef:
            name: {{ $bn }}-secret
        env:
          - name: API_SERVICE_NAME
            value: api
          - name: API_NAMESPACE
            value: {{ $root.Release.Namespace | quote }}
          - name: API_READINESS_PERIOD_SECONDS
            value: "{{ $readiness.periodSeconds }}"
          - name: API_READINESS_FAILURE_THRESHOLD
            value: "{{ $readiness.failureThreshold }}"
        resources:
          {{- toYaml $ab.resources | nindent 10 }}
{{- end -}}
