{{/*
Renders a named template at an indentation, or nothing at all when it renders empty: optional
env, volume and scheduling blocks then leave no blank lines behind.
Call with (dict "template" "ne.env.kafka" "context" $ctx "indent" 12).
*/}}
{{- define "ne.render" -}}
{{- $out := include .template .context | trim -}}
{{- if $out }}{{ $out | nindent (int .indent) }}{{ end -}}
{{- end -}}

{{/* ---------------------------------------------------------------- names and labels */}}

{{- define "ne.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ne.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "ne.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "ne.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: network-enforcer
{{- end -}}

{{/* Selector labels of one component; call with (dict "ctx" $ "component" "ingest"). */}}
{{- define "ne.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ne.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "ne.componentLabels" -}}
{{ include "ne.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/*
The network-enforcer image. controller.image (the reference chart's key) wins over image when its
repository is set; the tag falls back to image.tag, then the chart appVersion.
*/}}
{{- define "ne.image" -}}
{{- $c := default (dict) .Values.controller.image -}}
{{- $repository := default .Values.image.repository $c.repository -}}
{{- $tag := default (default .Chart.AppVersion .Values.image.tag) $c.tag -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end -}}

{{- define "ne.imagePullPolicy" -}}
{{- default .Values.image.pullPolicy (default (dict) .Values.controller.image).pullPolicy -}}
{{- end -}}

{{/* Pod and container security contexts: controller.* (reference keys) merged over the chart's restricted defaults. */}}
{{- define "ne.podSecurityContext" -}}
{{- toYaml (mergeOverwrite (deepCopy .Values.podSecurityContext) (deepCopy (default (dict) .Values.controller.podSecurityContext))) -}}
{{- end -}}

{{- define "ne.containerSecurityContext" -}}
{{- toYaml (mergeOverwrite (deepCopy .Values.containerSecurityContext) (deepCopy (default (dict) .Values.controller.containerSecurityContext))) -}}
{{- end -}}

{{/* Container resources: controller.resources (reference key) when set, else the component's; call with (dict "ctx" $ "values" .Values.writer). */}}
{{- define "ne.resources" -}}
{{- toYaml (default .values.resources .ctx.Values.controller.resources) -}}
{{- end -}}

{{/* Writer replicas: controller.replicas (reference key) when set, else writer.replicas. */}}
{{- define "ne.writerReplicas" -}}
{{- if kindIs "invalid" .Values.controller.replicas -}}{{ .Values.writer.replicas }}{{- else -}}{{ .Values.controller.replicas }}{{- end -}}
{{- end -}}

{{- define "ne.serviceAccountName" -}}
{{- printf "%s-%s" (include "ne.fullname" .ctx) .component -}}
{{- end -}}

{{/* ---------------------------------------------------------------- provider */}}

{{/*
The settings block of the selected provider, with every reference-chart TLS key present:
tls.{mode, serverName, issuerRef.{name,kind,group}, existingSecret.{name,namespace,
caBundleConfigMap,caBundleKey}}. Returned as YAML: use with fromYaml.
*/}}
{{- define "ne.provider.settings" -}}
{{- $s := deepCopy (get .Values.controller.provider .Values.controller.provider.name) -}}
{{- $tls := default (dict) $s.tls -}}
{{- $ref := default (dict) $tls.issuerRef -}}
{{- $_ := set $tls "issuerRef" (dict "name" (default "" $ref.name) "kind" (default "Issuer" $ref.kind) "group" (default "cert-manager.io" $ref.group)) -}}
{{- $es := default (dict) $tls.existingSecret -}}
{{- $_ := set $es "name" (default "" $es.name) -}}
{{- $_ := set $es "namespace" (default "" $es.namespace) -}}
{{- $elsewhere := and (ne $es.namespace "") (ne $es.namespace .Release.Namespace) -}}
{{- if eq .Values.controller.provider.name "calico" -}}
{{- /* Calico's CA bundle ConfigMap lives beside its key pair, never in the release namespace */ -}}
{{- $_ := set $es "caBundleConfigMap" (default (ternary "goldmane-ca-bundle" "" $elsewhere) $es.caBundleConfigMap) -}}
{{- $_ := set $es "caBundleKey" (default "tigera-ca-bundle.crt" $es.caBundleKey) -}}
{{- else -}}
{{- $_ := set $es "caBundleConfigMap" (default "" $es.caBundleConfigMap) -}}
{{- $_ := set $es "caBundleKey" (default "ca.crt" $es.caBundleKey) -}}
{{- end -}}
{{- $_ := set $tls "existingSecret" $es -}}
{{- $_ := set $tls "serverName" (default "" $tls.serverName) -}}
{{- $_ := set $s "tls" $tls -}}
{{- toYaml $s -}}
{{- end -}}

{{/* The backend the installation writes: istio (provider istio), cilium (provider cilium with
policyBackend cilium) or kubernetes. */}}
{{- define "ne.backend" -}}
{{- $p := .Values.controller.provider -}}
{{- if eq $p.name "istio" -}}istio
{{- else if and (eq $p.name "cilium") (eq (default "kubernetes" $p.cilium.policyBackend) "cilium") -}}cilium
{{- else -}}kubernetes{{- end -}}
{{- end -}}

{{/*
Where the provider's TLS material comes from:
  csi          cert-manager CSI volume (tls.mode issuer)
  certificate  a cert-manager Certificate of the chart, its Secret mounted (tls.mode certificate)
  secret       a Secret of the release namespace, mounted (tls.mode existingSecret)
  api          a Secret of another namespace, read through the API (tls.mode existingSecret)
  none         plain text (tls.mode insecure)
*/}}
{{- define "ne.provider.tlsSource" -}}
{{- $tls := (fromYaml (include "ne.provider.settings" .)).tls -}}
{{- if eq $tls.mode "issuer" -}}csi
{{- else if eq $tls.mode "certificate" -}}certificate
{{- else if eq $tls.mode "insecure" -}}none
{{- else if and $tls.existingSecret.namespace (ne $tls.existingSecret.namespace .Release.Namespace) -}}api
{{- else -}}secret
{{- end -}}
{{- end -}}

{{/* The flow source address: for istio the listen port; Cilium insecure on the default :443 moves to :80. */}}
{{/* "true" when ingest reads each node's Hubble server (a DaemonSet), empty otherwise. */}}
{{- define "ne.ingest.nodeLocal" -}}
{{- $p := .Values.controller.provider -}}
{{- if and (eq $p.name "cilium") $p.cilium.nodeLocal.enabled (eq .Values.mode "distributed") -}}
true
{{- end -}}
{{- end -}}

{{- define "ne.provider.endpoint" -}}
{{- $p := .Values.controller.provider -}}
{{- if eq $p.name "istio" -}}
{{- include "ne.istioPort" . -}}
{{- else if eq $p.name "cilium" -}}
{{- if and (eq $p.cilium.tls.mode "insecure") (eq $p.cilium.endpoint "hubble-relay.kube-system.svc:443") -}}
hubble-relay.kube-system.svc:80
{{- else -}}
{{- $p.cilium.endpoint -}}
{{- end -}}
{{- else -}}
{{- $p.calico.endpoint -}}
{{- end -}}
{{- end -}}

{{/* The OTLP listen port (controller.provider.istio.endpoint, a number or a numeric string). */}}
{{- define "ne.istioPort" -}}
{{- int .Values.controller.provider.istio.endpoint -}}
{{- end -}}

{{- define "ne.provider.certDir" -}}/etc/provider/certs{{- end -}}

{{/* The component that reads the flow source: ingest, or the one standalone pod. */}}
{{- define "ne.provider.readerComponent" -}}
{{- ternary "ingest" "standalone" (eq .Values.mode "distributed") -}}
{{- end -}}

{{/* The Certificate and Secret of ingest's own provider client certificate (tls.mode certificate). */}}
{{- define "ne.provider.certificateName" -}}
{{- printf "%s-%s-client" (include "ne.fullname" .) .Values.controller.provider.name -}}
{{- end -}}

{{- define "ne.istioOtlpService" -}}
{{- printf "%s-istio-otlp" (include "ne.fullname" .) -}}
{{- end -}}

{{- define "ne.caIssuerName" -}}
{{- printf "%s-ca" (include "ne.fullname" .) -}}
{{- end -}}

{{/* "true" when something mounts a certificate from the chart CA. */}}
{{- define "ne.caIssuerNeeded" -}}
{{- $tls := (fromYaml (include "ne.provider.settings" .)).tls -}}
{{- if eq .Values.telemetry.collectorStrategy "default" -}}true
{{- else if and (eq $tls.mode "issuer") (not $tls.issuerRef.name) -}}true
{{- end -}}
{{- end -}}

{{/* CSI volume attributes of a cert-manager certificate; call with (dict "ctx" $ "issuer" dict "dnsNames" "..." "usages" "..."). */}}
{{- define "ne.csiCertificate" -}}
csi:
  driver: csi.cert-manager.io
  readOnly: true
  volumeAttributes:
    csi.cert-manager.io/issuer-name: {{ .issuer.name | default (include "ne.caIssuerName" .ctx) | quote }}
    csi.cert-manager.io/issuer-kind: {{ .issuer.kind | default "Issuer" | quote }}
    csi.cert-manager.io/issuer-group: {{ .issuer.group | default "cert-manager.io" | quote }}
    csi.cert-manager.io/common-name: {{ .commonName | quote }}
    {{- with .dnsNames }}
    csi.cert-manager.io/dns-names: {{ . | quote }}
    {{- end }}
    csi.cert-manager.io/key-usages: {{ .usages | quote }}
    csi.cert-manager.io/fs-group: {{ .fsGroup | default .ctx.Values.podSecurityContext.fsGroup | toString | quote }}
{{- end -}}

{{/* DNS names of the Istio OTLP Service, for the receiver's server certificate and fluent-bit's SNI. */}}
{{- define "ne.istioOtlpDnsNames" -}}
{{- $svc := include "ne.istioOtlpService" . -}}
{{- printf "%s,%s.%s,%s.%s.svc,%s.%s.svc.%s" $svc $svc .Release.Namespace $svc .Release.Namespace $svc .Release.Namespace .Values.kubernetesClusterDomain -}}
{{- end -}}

{{/* The name in fluent-bit's client certificate, the only client the OTLP receiver accepts. */}}
{{- define "ne.otlpClientName" -}}
{{- .Values.controller.provider.istio.tls.clientName | default (printf "fluent-bit.%s" .Release.Namespace) -}}
{{- end -}}

{{/* Provider env vars (ingest and standalone). */}}
{{- define "ne.env.provider" -}}
{{- $p := .Values.controller.provider -}}
{{- $s := fromYaml (include "ne.provider.settings" .) -}}
{{- $source := include "ne.provider.tlsSource" . -}}
- name: NE_PROVIDER
  value: {{ $p.name | quote }}
{{- if eq $p.name "istio" }}
- name: NE_OTLP_PORT
  value: {{ include "ne.provider.endpoint" . | quote }}
{{- if ne $s.tls.mode "insecure" }}
- name: NE_OTLP_CLIENT_NAME
  value: {{ include "ne.otlpClientName" . | quote }}
{{- end }}
{{- else if include "ne.ingest.nodeLocal" . }}
{{- /* The node's own Hubble server: address and TLS name come from the node, not from values. */}}
- name: NE_HUBBLE_NODE_LOCAL
  value: "true"
- name: NE_NODE_NAME
  valueFrom:
    fieldRef:
      fieldPath: spec.nodeName
- name: NE_NODE_IP
  valueFrom:
    fieldRef:
      fieldPath: status.hostIP
- name: NE_HUBBLE_NODE_PORT
  value: {{ $p.cilium.nodeLocal.port | quote }}
- name: NE_CILIUM_CLUSTER_NAME
  value: {{ $p.cilium.nodeLocal.clusterName | quote }}
{{- else if eq $p.name "cilium" }}
- name: NE_HUBBLE_ENDPOINT
  value: {{ include "ne.provider.endpoint" . | quote }}
{{- else }}
- name: NE_GOLDMANE_ENDPOINT
  value: {{ include "ne.provider.endpoint" . | quote }}
{{- end }}
{{- /* certificate is the command's issuer mode: a certificate issued for ingest, mounted as files */}}
- name: NE_PROVIDER_TLS_MODE
  value: {{ ternary "issuer" $s.tls.mode (eq $s.tls.mode "certificate") | quote }}
{{- if or (eq $source "csi") (eq $source "secret") (eq $source "certificate") }}
- name: NE_PROVIDER_TLS_CERT_DIR
  value: {{ include "ne.provider.certDir" . | quote }}
{{- end }}
{{- if eq $source "api" }}
- name: NE_PROVIDER_TLS_SECRET_NAMESPACE
  value: {{ $s.tls.existingSecret.namespace | quote }}
- name: NE_PROVIDER_TLS_SECRET_NAME
  value: {{ $s.tls.existingSecret.name | quote }}
{{- with $s.tls.existingSecret.caBundleConfigMap }}
- name: NE_PROVIDER_TLS_CA_CONFIGMAP
  value: {{ . | quote }}
- name: NE_PROVIDER_TLS_CA_CONFIGMAP_KEY
  value: {{ $s.tls.existingSecret.caBundleKey | quote }}
{{- end }}
{{- end }}
{{- /* insecure has no server name to check: it is dropped, as the command line does */}}
{{- if and (ne $p.name "istio") (ne $s.tls.mode "insecure") $s.tls.serverName (not (include "ne.ingest.nodeLocal" .)) }}
- name: NE_PROVIDER_TLS_SERVER_NAME
  value: {{ $s.tls.serverName | quote }}
{{- end }}
- name: NE_FLOW_DUMPER_ENABLED
  value: {{ .Values.controller.flowDumper.enabled | quote }}
{{- if .Values.controller.flowDumper.enabled }}
- name: NE_FLOW_DUMPER_PORT
  value: {{ .Values.controller.flowDumper.port | quote }}
- name: NE_FLOW_DUMPER_BUFFER_SIZE
  value: {{ .Values.controller.flowDumper.bufferSize | quote }}
{{- end }}
{{- end -}}

{{/* Provider TLS volume (ingest and standalone); empty when nothing is mounted. */}}
{{- define "ne.volumes.provider" -}}
{{- $p := .Values.controller.provider -}}
{{- $s := fromYaml (include "ne.provider.settings" .) -}}
{{- $source := include "ne.provider.tlsSource" . -}}
{{- if eq $source "csi" }}
{{- $dns := "" -}}
{{- $usages := "digital signature,key encipherment,client auth" -}}
{{- if eq $p.name "istio" -}}
{{- $dns = include "ne.istioOtlpDnsNames" . -}}
{{- with $s.tls.serverName }}{{ $dns = printf "%s,%s" $dns . }}{{ end -}}
{{- $usages = "digital signature,key encipherment,server auth" -}}
{{- else if eq $p.name "cilium" -}}
{{- $dns = "network-enforcer.hubble-relay.cilium.io" -}}
{{- end }}
- name: provider-certs
  {{- include "ne.csiCertificate" (dict "ctx" . "issuer" $s.tls.issuerRef "commonName" (printf "%s.${POD_NAMESPACE}" (include "ne.fullname" .)) "dnsNames" $dns "usages" $usages) | nindent 2 }}
{{- else if eq $source "secret" }}
- name: provider-certs
  {{- include "ne.provider.secretVolume" $s.tls.existingSecret | nindent 2 }}
{{- else if eq $source "certificate" }}
- name: provider-certs
  secret:
    secretName: {{ include "ne.provider.certificateName" . }}
{{- end }}
{{- end -}}

{{/*
A mounted existingSecret of the release namespace as tls.crt, tls.key and ca.crt: the CA comes from
the Secret's ca.crt, or from caBundleConfigMap/caBundleKey when set (one projected volume).
Call with the normalized existingSecret block.
*/}}
{{- define "ne.provider.secretVolume" -}}
{{- if .caBundleConfigMap -}}
projected:
  sources:
    - secret:
        name: {{ .name }}
        items:
          - key: tls.crt
            path: tls.crt
          - key: tls.key
            path: tls.key
    - configMap:
        name: {{ .caBundleConfigMap }}
        items:
          - key: {{ .caBundleKey }}
            path: ca.crt
{{- else -}}
secret:
  secretName: {{ .name }}
{{- end -}}
{{- end -}}

{{- define "ne.volumeMounts.provider" -}}
{{- $source := include "ne.provider.tlsSource" . -}}
{{- if or (eq $source "csi") (eq $source "secret") (eq $source "certificate") }}
- name: provider-certs
  mountPath: {{ include "ne.provider.certDir" . }}
  readOnly: true
{{- end }}
{{- end -}}

{{/* ---------------------------------------------------------------- common */}}

{{- define "ne.env.common" -}}
- name: NE_LOG_LEVEL
  value: {{ .Values.controller.logLevel | quote }}
- name: NE_MANAGEMENT_PORT
  value: {{ .Values.managementPort | quote }}
- name: NE_PROBE_PORT
  value: {{ .Values.probePort | quote }}
- name: NE_MANAGEMENT_AUTH
  value: {{ .Values.managementAuth | quote }}
- name: NE_POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: NE_POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: JAVA_TOOL_OPTIONS
  value: {{ .Values.jvmOptions | quote }}
{{- end -}}

{{- define "ne.env.backend" -}}
- name: NE_PROVIDER
  value: {{ .Values.controller.provider.name | quote }}
{{- end -}}

{{/* The processor's loop topic: <processor.applicationId>-deny-reattribution. */}}
{{- define "ne.reattributionTopic" -}}
{{- printf "%s-deny-reattribution" .Values.processor.applicationId -}}
{{- end -}}

{{/* Kafka Streams settings; standalone runs one instance without standbys. */}}
{{- define "ne.env.streams" -}}
{{- if eq (include "ne.backend" .ctx) "cilium" }}
- name: NE_BACKEND
  value: "cilium"
{{- if .ctx.Values.controller.provider.cilium.entities }}
- name: NE_CILIUM_ENTITIES
  value: "true"
{{- end }}
{{- if .ctx.Values.processor.learning.l7Http }}
- name: NE_LEARN_L7_HTTP
  value: "true"
{{- end }}
{{- end }}
- name: NE_APPLICATION_ID
  value: {{ .ctx.Values.processor.applicationId | quote }}
- name: NE_NUM_STANDBY_REPLICAS
  value: {{ .standby | quote }}
- name: NE_NUM_STREAM_THREADS
  value: {{ .ctx.Values.processor.streamThreads | quote }}
- name: NE_PROCESSING_GUARANTEE
  value: {{ .ctx.Values.processor.processingGuarantee | quote }}
{{- with .ctx.Values.processor.learning }}
{{- if .clusterCidrs }}
- name: NE_CLUSTER_CIDR
  value: {{ join "," .clusterCidrs | quote }}
{{- end }}
{{- if .discoverClusterCidrs }}
- name: NE_DISCOVER_CLUSTER_CIDRS
  value: "true"
{{- end }}
- name: NE_EXTERNAL_PEERS
  value: {{ .externalPeers | default "address" | quote }}
- name: NE_EXTERNAL_PEERS_WIDEN_ABOVE
  value: {{ .externalPeersWidenAbove | default 10 | quote }}
- name: NE_CONVERGENCE_QUIET_PERIOD
  value: {{ .convergence.quietPeriod | default "7d" | quote }}
- name: NE_CONVERGENCE_MIN_OBSERVATIONS
  value: {{ .convergence.minObservations | default 100 | quote }}
{{- end }}
{{- end -}}

{{/* ---------------------------------------------------------------- kafka */}}

{{- define "ne.kafka.dir" -}}/etc/network-enforcer/kafka{{- end -}}

{{/* "true" with kafka.tls.enabled (the default): TLS and one authenticated principal per component. */}}
{{- define "ne.kafka.secure" -}}
{{- if .Values.kafka.tls.enabled -}}true{{- end -}}
{{- end -}}

{{/* "true" when the Kafka clients need a properties file (TLS and authentication, or extra properties). */}}
{{- define "ne.kafka.propertiesNeeded" -}}
{{- $k := .Values.kafka -}}
{{- if or (include "ne.kafka.secure" .) $k.extraProperties -}}true{{- end -}}
{{- end -}}

{{/* The components with a Kafka principal of their own (distributed mode). */}}
{{- define "ne.kafka.components" -}}ingest processor writer{{- end -}}

{{/*
The Secret holding a component's credentials, and (SCRAM) its user name: kafka.credentials.<component>,
else <fullname>-kafka-<component> (the name of the chart's Strimzi KafkaUser). Call with
(dict "ctx" $ "component" "ingest").
*/}}
{{- define "ne.kafka.secretName" -}}
{{- $c := index .ctx.Values.kafka.credentials .component -}}
{{- $c.secretName | default (printf "%s-kafka-%s" (include "ne.fullname" .ctx) .component) -}}
{{- end -}}

{{- define "ne.kafka.username" -}}
{{- $c := index .ctx.Values.kafka.credentials .component -}}
{{- $c.username | default (include "ne.kafka.secretName" .) -}}
{{- end -}}

{{/* Keys of the client certificate in the Secret: cert-manager's tls.crt/tls.key, a Strimzi KafkaUser's user.crt/user.key. */}}
{{- define "ne.kafka.certKey" -}}
{{- ternary "user.crt" .Values.kafka.credentials.certKey .Values.kafka.strimzi.createUsers -}}
{{- end -}}
{{- define "ne.kafka.keyKey" -}}
{{- ternary "user.key" .Values.kafka.credentials.keyKey .Values.kafka.strimzi.createUsers -}}
{{- end -}}

{{/* The Secret with the CA of the brokers: kafka.tls.caSecret.name, Strimzi's cluster CA, or empty (ca.crt of each component's Secret). */}}
{{- define "ne.kafka.caSecretName" -}}
{{- $k := .Values.kafka -}}
{{- if $k.tls.caSecret.name -}}{{ $k.tls.caSecret.name }}
{{- else if and $k.strimzi.createUsers $k.strimzi.clusterName -}}{{ printf "%s-cluster-ca-cert" $k.strimzi.clusterName }}
{{- end -}}
{{- end -}}

{{- define "ne.kafka.scram" -}}
{{- if hasPrefix "scram-" .Values.kafka.authentication -}}true{{- end -}}
{{- end -}}

{{/* Call with (dict "ctx" $ "standalone" bool "component" name); component only in distributed mode. */}}
{{- define "ne.env.kafka" -}}
{{- $k := .ctx.Values.kafka -}}
{{- if not .standalone }}
- name: NE_KAFKA_BOOTSTRAP_SERVERS
  value: {{ $k.bootstrapServers | quote }}
{{- end }}
- name: NE_KAFKA_TOPIC_PREFIX
  value: {{ $k.topicPrefix | quote }}
- name: NE_KAFKA_PARTITIONS
  value: {{ $k.partitions | quote }}
- name: NE_KAFKA_REPLICATION_FACTOR
  value: {{ ternary 1 $k.replicationFactor .standalone | quote }}
- name: NE_KAFKA_FLOWS_RETENTION_MS
  value: {{ $k.flowsRetentionMs | int64 | quote }}
{{- /* With authentication no principal may create a shared topic (TopicAccess): they are declared. */}}
- name: NE_KAFKA_CREATE_TOPICS
  value: {{ and $k.createTopics (or .standalone (and (not $k.strimzi.createTopics) (not (include "ne.kafka.secure" .ctx)))) | quote }}
{{- if and (not .standalone) (include "ne.kafka.propertiesNeeded" .ctx) }}
- name: NE_KAFKA_PROPERTIES_FILE
  value: {{ printf "%s/config/%s.properties" (include "ne.kafka.dir" .ctx) .component | quote }}
{{- end }}
{{- end -}}

{{/* Call with (dict "ctx" $ "component" name). */}}
{{- define "ne.volumes.kafka" -}}
{{- $ctx := .ctx -}}
{{- if include "ne.kafka.propertiesNeeded" $ctx }}
- name: kafka-config
  configMap:
    name: {{ include "ne.fullname" $ctx }}-kafka-client
    items:
      - key: {{ .component }}.properties
        path: {{ .component }}.properties
{{- end }}
{{- if include "ne.kafka.secure" $ctx }}
{{- $ca := include "ne.kafka.caSecretName" $ctx }}
{{- if $ca }}
- name: kafka-ca
  secret:
    secretName: {{ $ca }}
    items:
      - key: {{ $ctx.Values.kafka.tls.caSecret.key }}
        path: ca.crt
{{- end }}
- name: kafka-credentials
  secret:
    secretName: {{ include "ne.kafka.secretName" . }}
    items:
      {{- if include "ne.kafka.scram" $ctx }}
      - key: {{ $ctx.Values.kafka.credentials.passwordKey }}
        path: password
      {{- else }}
      - key: {{ include "ne.kafka.certKey" $ctx }}
        path: tls.crt
      - key: {{ include "ne.kafka.keyKey" $ctx }}
        path: tls.key
      {{- end }}
      {{- if not $ca }}
      - key: ca.crt
        path: ca.crt
      {{- end }}
{{- end }}
{{- end -}}

{{/* Call with (dict "ctx" $ "component" name). */}}
{{- define "ne.volumeMounts.kafka" -}}
{{- $ctx := .ctx -}}
{{- $dir := include "ne.kafka.dir" $ctx -}}
{{- if include "ne.kafka.propertiesNeeded" $ctx }}
- name: kafka-config
  mountPath: {{ $dir }}/config
  readOnly: true
{{- end }}
{{- if include "ne.kafka.secure" $ctx }}
{{- if include "ne.kafka.caSecretName" $ctx }}
- name: kafka-ca
  mountPath: {{ $dir }}/ca
  readOnly: true
{{- end }}
- name: kafka-credentials
  mountPath: {{ $dir }}/credentials
  readOnly: true
{{- end }}
{{- end -}}

{{/* ---------------------------------------------------------------- telemetry (writer and standalone) */}}

{{- define "ne.otel.dir" -}}/etc/network-enforcer/otel{{- end -}}

{{- define "ne.otelCollectorName" -}}
{{- printf "%s-otel-collector" (include "ne.fullname" .) -}}
{{- end -}}

{{- define "ne.env.telemetry" -}}
{{- /* The standard OpenTelemetry exporter variables, as the reference controller reads them. */}}
{{- $t := .Values.telemetry -}}
{{- $dir := include "ne.otel.dir" . -}}
- name: NE_TELEMETRY_COLLECTOR_STRATEGY
  value: {{ $t.collectorStrategy | quote }}
{{- if eq $t.collectorStrategy "default" }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ printf "https://%s.%s.svc.%s:4317" (include "ne.otelCollectorName" .) .Release.Namespace .Values.kubernetesClusterDomain | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: "grpc"
- name: OTEL_EXPORTER_OTLP_CERTIFICATE
  value: {{ printf "%s/certs/ca.crt" $dir | quote }}
- name: OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE
  value: {{ printf "%s/certs/tls.crt" $dir | quote }}
- name: OTEL_EXPORTER_OTLP_CLIENT_KEY
  value: {{ printf "%s/certs/tls.key" $dir | quote }}
{{- else if eq $t.collectorStrategy "external" }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $t.externalCollector.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $t.externalCollector.protocol | default "grpc" | quote }}
{{- if $t.externalCollector.otelCollectorCertificateSecret }}
- name: OTEL_EXPORTER_OTLP_CERTIFICATE
  value: {{ printf "%s/ca/ca.crt" $dir | quote }}
{{- else }}
{{- /* No CA to trust: a host:port endpoint is plain text (a https:// URL still uses TLS). */}}
- name: OTEL_EXPORTER_OTLP_INSECURE
  value: "true"
{{- end }}
{{- if $t.externalCollector.otelCollectorClientCertificateSecret }}
- name: OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE
  value: {{ printf "%s/client/tls.crt" $dir | quote }}
- name: OTEL_EXPORTER_OTLP_CLIENT_KEY
  value: {{ printf "%s/client/tls.key" $dir | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "ne.volumes.telemetry" -}}
{{- $t := .Values.telemetry -}}
{{- if eq $t.collectorStrategy "default" }}
- name: otel-certs
  {{- include "ne.csiCertificate" (dict "ctx" . "issuer" (dict) "commonName" (printf "%s.${POD_NAMESPACE}" (include "ne.fullname" .)) "usages" "digital signature,key encipherment,client auth") | nindent 2 }}
{{- else if eq $t.collectorStrategy "external" }}
{{- with $t.externalCollector.otelCollectorCertificateSecret }}
- name: otel-ca
  secret:
    secretName: {{ . }}
    items:
      - key: ca.crt
        path: ca.crt
{{- end }}
{{- with $t.externalCollector.otelCollectorClientCertificateSecret }}
- name: otel-client-cert
  secret:
    secretName: {{ . }}
    items:
      - key: tls.crt
        path: tls.crt
      - key: tls.key
        path: tls.key
{{- end }}
{{- end }}
{{- end -}}

{{- define "ne.volumeMounts.telemetry" -}}
{{- $t := .Values.telemetry -}}
{{- $dir := include "ne.otel.dir" . -}}
{{- if eq $t.collectorStrategy "default" }}
- name: otel-certs
  mountPath: {{ $dir }}/certs
  readOnly: true
{{- else if eq $t.collectorStrategy "external" }}
{{- if $t.externalCollector.otelCollectorCertificateSecret }}
- name: otel-ca
  mountPath: {{ $dir }}/ca
  readOnly: true
{{- end }}
{{- if $t.externalCollector.otelCollectorClientCertificateSecret }}
- name: otel-client-cert
  mountPath: {{ $dir }}/client
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{/* ---------------------------------------------------------------- writer */}}

{{- define "ne.leaseName" -}}
{{- .Values.writer.leaseName | default (printf "%s-writer" (include "ne.fullname" .)) -}}
{{- end -}}

{{- define "ne.env.writer" -}}
- name: NE_STATUS_SYNC_INTERVAL
  value: {{ .ctx.Values.controller.wnpStatusUpdateInterval | quote }}
{{- /* The writer takes the Lease before it writes even as a single replica (standalone), and RBAC
       allows exactly this Lease name: always pass it. */}}
- name: NE_LEASE_NAME
  value: {{ include "ne.leaseName" .ctx | quote }}
- name: NE_LEASE_NAMESPACE
  value: {{ .ctx.Release.Namespace | quote }}
- name: NE_LIVE_VIEW
  value: {{ .ctx.Values.writer.liveView.enabled | quote }}
{{- end -}}

{{/* ---------------------------------------------------------------- pod plumbing */}}

{{- define "ne.managementPort" -}}
- name: management
  containerPort: {{ .Values.managementPort }}
  protocol: TCP
- name: probes
  containerPort: {{ .Values.probePort }}
  protocol: TCP
{{- end -}}

{{- define "ne.probes" -}}
startupProbe:
  httpGet:
    path: /healthz
    port: probes
  periodSeconds: 5
  failureThreshold: 60
livenessProbe:
  httpGet:
    path: /healthz
    port: probes
  periodSeconds: 10
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /readyz
    port: probes
  periodSeconds: 5
  failureThreshold: 3
{{- end -}}

{{- define "ne.podAnnotations" -}}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .ctx.Values.managementPort | quote }}
prometheus.io/path: /metrics
{{- with mergeOverwrite (deepCopy (default (dict) .ctx.Values.controller.podAnnotations)) (deepCopy (default (dict) .extra)) }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
nodeSelector, tolerations and affinity of a component (its own values, else controller.*, the
reference chart's keys); call with (dict "ctx" $ "component" "writer" "values" .Values.writer).
Without an affinity of the user's,
replicas prefer different nodes, so one node going away does not take all of them.
*/}}
{{- define "ne.podScheduling" -}}
{{- $c := .ctx.Values.controller -}}
{{- with default $c.nodeSelector .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with default $c.tolerations .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- $affinity := default $c.affinity .values.affinity }}
affinity:
{{- if $affinity }}
  {{- toYaml $affinity | nindent 2 }}
{{- else }}
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "ne.selectorLabels" . | nindent 14 }}
{{- end }}
{{- end -}}
