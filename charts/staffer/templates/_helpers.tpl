{{/*
Helpers.  Only these template functions are used anywhere in the chart, so
that tests/packaging/render.go (Go's text/template, Helm's own engine) can
render it without helm: include, define, template, toYaml, toJson, indent,
nindent, quote, default, printf, trunc, trimSuffix, replace, sha256sum,
required, fail, tpl, float64, hasKey, and the text/template built-ins (if, range, with, eq, ne,
lt, le, gt, ge, and, or, not, len, index).
*/}}

{{/* The chart name, at most 63 characters (a DNS label). */}}
{{- define "staffer.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The full name of every object.  A release called "staffer" gives "staffer",
so that ScaledObjects use scalerAddress staffer.<namespace>.svc:9090.
*/}}
{{- define "staffer.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if eq .Release.Name $name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "staffer.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "staffer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "staffer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The `helm test` pod's: not the selector's (a bare pod the Service,
the PodMonitor or the PDB selected would be counted with the replicas; a
PDB with maxUnavailable then allows no eviction while a failed test pod
is kept), and what the NetworkPolicy lets in.  The name is cut to leave
room for "-test", so the two never match. */}}
{{- define "staffer.testSelectorLabels" -}}
app.kubernetes.io/name: {{ printf "%s-test" (include "staffer.name" . | trunc 58 | trimSuffix "-") }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* What every object's labels share, the helm test pod's too: not the
selector's, not the component. */}}
{{- define "staffer.sharedLabels" -}}
helm.sh/chart: {{ include "staffer.chart" . }}
app.kubernetes.io/version: {{ default .Chart.AppVersion .Values.image.tag | quote }}
app.kubernetes.io/part-of: keda
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- range $k, $v := .Values.commonLabels }}
{{ $k }}: {{ $v | quote }}
{{- end }}
{{- end -}}

{{- define "staffer.labels" -}}
{{ include "staffer.selectorLabels" . }}
app.kubernetes.io/component: external-scaler
{{ include "staffer.sharedLabels" . }}
{{- end -}}

{{/* The pods' labels: the selector's, commonLabels and podLabels (which
win over commonLabels: no key twice). */}}
{{- define "staffer.podLabels" -}}
{{ include "staffer.selectorLabels" . }}
{{- range $k, $v := .Values.commonLabels }}
{{- if not (hasKey $.Values.podLabels $k) }}
{{ $k }}: {{ $v | quote }}
{{- end }}
{{- end }}
{{- with .Values.podLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "staffer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "staffer.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* [registry/]repository@digest, else [registry/]repository:tag, the
tag defaulting to appVersion (the VERSION the chart was released with). */}}
{{- define "staffer.image" -}}
{{- $repo := .Values.image.repository -}}
{{- with .Values.image.registry -}}
{{- $repo = printf "%s/%s" (trimSuffix "/" .) $repo -}}
{{- end -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repo .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* Where the config file and the server's TLS files are mounted.  Not
nested in one another: a mount point inside a read-only ConfigMap volume
cannot be created. */}}
{{- define "staffer.configDir" -}}/etc/staffer{{- end -}}
{{- define "staffer.tlsDir" -}}/etc/staffer-tls{{- end -}}

{{/*
The Secret with the gRPC server's tls.crt, tls.key and ca.crt:
tls.secretName, else, with tls.certManager.enabled, the one the chart's
Certificate writes.  Empty when neither is set.
*/}}
{{- define "staffer.testClientSecret" -}}
{{- if .Values.test.clientSecretName -}}
{{- .Values.test.clientSecretName -}}
{{- else if and .Values.tls.certManager.enabled .Values.tls.clientAuth -}}
{{- .Values.tls.certManager.clientSecretName -}}
{{- end -}}
{{- end -}}

{{- define "staffer.tlsSecret" -}}
{{- if .Values.tls.secretName -}}
{{- .Values.tls.secretName -}}
{{- else if .Values.tls.certManager.enabled -}}
{{- printf "%s-grpc-tls" (include "staffer.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/*
The sources of a backend's projected credentials volume, "" when it has
none.  The argument is one entry of .Values.backends.  File names: token,
username, password (auth); ca.crt, tls.crt, tls.key (tls).  The config
template below uses the same names.
*/}}
{{- define "staffer.backendSources" -}}
{{- $b := . -}}
{{- with (index $b "auth") -}}
{{- with (index . "tokenSecret") -}}
- secret:
    name: {{ required (printf "backends[%s].auth.tokenSecret.name is required" (index $b "name")) (index . "name") | quote }}
    items:
      - key: {{ required (printf "backends[%s].auth.tokenSecret.key is required" (index $b "name")) (index . "key") | quote }}
        path: token
{{ end -}}
{{- with (index . "usernameSecret") -}}
- secret:
    name: {{ required (printf "backends[%s].auth.usernameSecret.name is required" (index $b "name")) (index . "name") | quote }}
    items:
      - key: {{ required (printf "backends[%s].auth.usernameSecret.key is required" (index $b "name")) (index . "key") | quote }}
        path: username
{{ end -}}
{{- with (index . "passwordSecret") -}}
- secret:
    name: {{ required (printf "backends[%s].auth.passwordSecret.name is required" (index $b "name")) (index . "name") | quote }}
    items:
      - key: {{ required (printf "backends[%s].auth.passwordSecret.key is required" (index $b "name")) (index . "key") | quote }}
        path: password
{{ end -}}
{{- end -}}
{{- with (index $b "tls") -}}
{{- with (index . "caSecret") -}}
- secret:
    name: {{ required (printf "backends[%s].tls.caSecret.name is required" (index $b "name")) (index . "name") | quote }}
    items:
      - key: {{ required (printf "backends[%s].tls.caSecret.key is required" (index $b "name")) (index . "key") | quote }}
        path: ca.crt
{{ end -}}
{{- with (index . "caConfigMap") -}}
- configMap:
    name: {{ required (printf "backends[%s].tls.caConfigMap.name is required" (index $b "name")) (index . "name") | quote }}
    items:
      - key: {{ required (printf "backends[%s].tls.caConfigMap.key is required" (index $b "name")) (index . "key") | quote }}
        path: ca.crt
{{ end -}}
{{- with (index . "certSecret") -}}
- secret:
    name: {{ required (printf "backends[%s].tls.certSecret.name is required" (index $b "name")) (index . "name") | quote }}
    items:
      - key: {{ required (printf "backends[%s].tls.certSecret.key is required" (index $b "name")) (index . "key") | quote }}
        path: tls.crt
{{ end -}}
{{- with (index . "keySecret") -}}
- secret:
    name: {{ required (printf "backends[%s].tls.keySecret.name is required" (index $b "name")) (index . "name") | quote }}
    items:
      - key: {{ required (printf "backends[%s].tls.keySecret.key is required" (index $b "name")) (index . "key") | quote }}
        path: tls.key
{{ end -}}
{{- end -}}
{{- end -}}

{{/*
config.json, staffer's config file (docs/config.md).  Only the fields the
loader knows are written: the chart's own keys (tokenSecret, caConfigMap,
...) become file paths.  Numbers go through toJson: Helm holds values as
float64, and plain printing would turn 4194304 into 4.194304e+06.
*/}}
{{- define "staffer.config" -}}
{{- $root := . -}}
{{- $credDir := trimSuffix "/" .Values.credentialsMountPath -}}
{{- if not .Values.backends -}}
{{- fail "backends: declare at least one metrics backend" -}}
{{- end -}}
{{- if and (gt (len .Values.backends) 1) (not .Values.defaultBackend) -}}
{{- fail "defaultBackend is required when there are several backends" -}}
{{- end -}}
{{- if .Values.defaultBackend -}}
{{- $found := false -}}
{{- range .Values.backends -}}
{{- if eq (toJson (index . "name")) (toJson $root.Values.defaultBackend) -}}{{- $found = true -}}{{- end -}}
{{- end -}}
{{- if not $found -}}
{{- fail (printf "defaultBackend %s is not the name of a backend" (toJson .Values.defaultBackend)) -}}
{{- end -}}
{{- end -}}
{
{{- if .Values.defaultBackend }}
  "defaultBackend": {{ toJson .Values.defaultBackend }},
{{- end }}
{{- if ne (toJson .Values.cacheTTLSeconds) "null" }}
  "cacheTTLSeconds": {{ toJson .Values.cacheTTLSeconds }},
{{- end }}
{{- if ne (toJson .Values.maxBodyBytes) "null" }}
  "maxBodyBytes": {{ toJson .Values.maxBodyBytes }},
{{- end }}
{{- /* null (the default) deletes the key, as in Helm: index, not .Values.x */}}
{{- if ne (toJson (index .Values "maxStates")) "null" }}
  "maxStates": {{ toJson (index .Values "maxStates") }},
{{- end }}
{{- if ne (toJson (index .Values "maxStatesPerNamespace")) "null" }}
  "maxStatesPerNamespace": {{ toJson (index .Values "maxStatesPerNamespace") }},
{{- end }}
{{- if ne (toJson (index .Values "maxStatesPerCaller")) "null" }}
  "maxStatesPerCaller": {{ toJson (index .Values "maxStatesPerCaller") }},
{{- end }}
{{- $clients := include "staffer.clients" . }}
{{- if $clients }}
  "clients": {{ $clients }},
{{- end }}
  "backends": [
{{- range $i, $b := .Values.backends }}
{{- $name := required "backends[].name is required" (index $b "name") }}
{{- if or (eq $name ".") (eq $name "..") }}
{{- fail (printf "backends[%d].name %s cannot be used as a directory name" $i (toJson $name)) }}
{{- end }}
{{- $dir := printf "%s/%s" $credDir $name }}
{{- if $i }},{{ end }}
    {
      "name": {{ toJson $name }},
      "url": {{ required (printf "backends[%s].url is required" $name) (index $b "url") | toJson }}
{{- if ne (toJson (index $b "timeoutSeconds")) "null" }},
      "timeoutSeconds": {{ toJson (index $b "timeoutSeconds") }}
{{- end }}
{{- with (index $b "headers") }},
      "headers": {{ toJson . }}
{{- end }}
{{- with (index $b "namespaces") }},
      "namespaces": {{ toJson . }}
{{- end }}
{{- if ne (toJson (index $b "maxConnections")) "null" }},
      "maxConnections": {{ toJson (index $b "maxConnections") }}
{{- end }}
{{- if ne (toJson (index $b "maxConnectionsPerNamespace")) "null" }},
      "maxConnectionsPerNamespace": {{ toJson (index $b "maxConnectionsPerNamespace") }}
{{- end }}
{{- if ne (toJson (index $b "maxConnectionsPerCaller")) "null" }},
      "maxConnectionsPerCaller": {{ toJson (index $b "maxConnectionsPerCaller") }}
{{- end }}
{{- with (index $b "compression") }},
      "compression": {{ toJson . }}
{{- end }}
{{- if ne (toJson (index $b "rangeSettleSeconds")) "null" }},
      "rangeSettleSeconds": {{ toJson (index $b "rangeSettleSeconds") }}
{{- end }}
{{- with (index $b "auth") }}
{{- $type := default "none" (index . "type") }}
{{- if eq $type "none" }},
      "auth": {"type": "none"}
{{- else if eq $type "bearer" }},
      "auth": {"type": "bearer", "tokenFile": {{ if (index . "tokenSecret") }}{{ printf "%s/token" $dir | toJson }}{{ else }}{{ required (printf "backends[%s].auth: bearer needs tokenSecret or tokenFile" $name) (index . "tokenFile") | toJson }}{{ end }}}
{{- else if eq $type "basic" }},
      "auth": {"type": "basic", "usernameFile": {{ if (index . "usernameSecret") }}{{ printf "%s/username" $dir | toJson }}{{ else }}{{ required (printf "backends[%s].auth: basic needs usernameSecret or usernameFile" $name) (index . "usernameFile") | toJson }}{{ end }}, "passwordFile": {{ if (index . "passwordSecret") }}{{ printf "%s/password" $dir | toJson }}{{ else }}{{ required (printf "backends[%s].auth: basic needs passwordSecret or passwordFile" $name) (index . "passwordFile") | toJson }}{{ end }}}
{{- else if eq $type "sigv4" }},
      "auth": {"type": "sigv4", "region": {{ required (printf "backends[%s].auth: sigv4 needs region" $name) (index . "region") | toJson }}}
{{- else }}
{{- fail (printf "backends[%s].auth.type %s: allowed: none, bearer, basic, sigv4" $name (toJson $type)) }}
{{- end }}
{{- end }}
{{- with (index $b "tls") }}
{{- if not (eq (printf "%.8s" (index $b "url")) "https://") }}
{{- fail (printf "backends[%s].tls needs an https:// url" $name) }}
{{- end }}
{{- $ca := "" }}{{ $cert := "" }}{{ $key := "" }}
{{- if or (index . "caSecret") (index . "caConfigMap") }}{{ $ca = printf "%s/ca.crt" $dir }}{{ else if (index . "caFile") }}{{ $ca = (index . "caFile") }}{{ end }}
{{- if (index . "certSecret") }}{{ $cert = printf "%s/tls.crt" $dir }}{{ else if (index . "certFile") }}{{ $cert = (index . "certFile") }}{{ end }}
{{- if (index . "keySecret") }}{{ $key = printf "%s/tls.key" $dir }}{{ else if (index . "keyFile") }}{{ $key = (index . "keyFile") }}{{ end }}
{{- if and $key (not $cert) }}
{{- fail (printf "backends[%s].tls: a client key needs a client certificate (certSecret or certFile)" $name) }}
{{- end }}
{{- if or $ca $cert $key }},
      "tls": {
{{- if $ca }}"caFile": {{ toJson $ca }}{{ end }}
{{- if $cert }}{{ if $ca }}, {{ end }}"certFile": {{ toJson $cert }}{{ end }}
{{- if $key }}, "keyFile": {{ toJson $key }}{{ end -}}
}
{{- end }}
{{- end }}
    }
{{- end }}
  ]
}
{{- end -}}

{{/*
The PromQL label matchers that pick staffer's own series, for the
PrometheusRule: metrics.prometheusRule.selector, else what the
ServiceMonitor (job = the Service's name; with a jobLabel the job is that
label's value, so the Service's name is matched in the service label the
Operator always adds) or the PodMonitor (job = NAMESPACE/NAME) gives the
series; the Operator sets namespace to the pods' namespace in both.
*/}}
{{- define "staffer.ruleSelector" -}}
{{- $r := .Values.metrics.prometheusRule -}}
{{- if $r.selector -}}
{{- $r.selector -}}
{{- else if and .Values.metrics.serviceMonitor.enabled .Values.metrics.serviceMonitor.jobLabel -}}
{{- printf "service=%q,namespace=%q" (include "staffer.fullname" .) .Release.Namespace -}}
{{- else if .Values.metrics.serviceMonitor.enabled -}}
{{- printf "job=%q,namespace=%q" (include "staffer.fullname" .) .Release.Namespace -}}
{{- else if .Values.metrics.podMonitor.enabled -}}
{{- printf "job=%q,namespace=%q" (printf "%s/%s" (default .Release.Namespace .Values.metrics.podMonitor.namespace) (include "staffer.fullname" .)) .Release.Namespace -}}
{{- else -}}
{{- fail "metrics.prometheusRule needs metrics.prometheusRule.selector (the label matchers of staffer's series in your Prometheus, e.g. job=\"staffer\",namespace=\"keda\") when neither metrics.serviceMonitor nor metrics.podMonitor is enabled" -}}
{{- end -}}
{{- end -}}

{{/*
KEDA's identity in the client certificate the chart issues
(tls.certManager with tls.clientAuth): a SPIFFE ID for its service
account, spiffe://TRUST-DOMAIN/ns/RELEASE-NAMESPACE/sa/SERVICE-ACCOUNT.
*/}}
{{- define "staffer.kedaIdentity" -}}
{{- $k := .Values.clientIdentities.keda -}}
{{- printf "spiffe://%s/ns/%s/sa/%s" $k.trustDomain .Release.Namespace $k.serviceAccount -}}
{{- end -}}

{{/*
The config's `clients` (docs/config.md) as JSON, or nothing: KEDA's
identity when the chart issues its certificate, then clientIdentities.extra.
Only with tls.clientAuth: without mTLS there is no identity to check.
*/}}
{{- define "staffer.clients" -}}
{{- $ci := .Values.clientIdentities -}}
{{- $keda := and .Values.tls.clientAuth .Values.tls.certManager.enabled -}}
{{- if and $ci.extra (not .Values.tls.clientAuth) -}}
{{- fail "clientIdentities.extra needs tls.clientAuth (an allowlist of client certificates needs mTLS)" -}}
{{- end -}}
{{- if or $keda $ci.extra -}}
[
{{- if $keda -}}
{"uri": {{ include "staffer.kedaIdentity" . | toJson }}
{{- with $ci.keda.namespaces }}, "namespaces": {{ toJson . }}{{ end }}}
{{- end -}}
{{- range $i, $e := $ci.extra -}}
{{- if or $keda $i }}, {{ end }}{{ toJson $e }}
{{- end -}}
]
{{- end -}}
{{- end -}}
