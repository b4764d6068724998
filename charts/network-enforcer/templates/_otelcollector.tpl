{{/* The collector configuration (ConfigMap data); the Deployment's checksum annotation hashes it. */}}
{{- define "ne.otelCollector.config" -}}
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 0.0.0.0:4317
        tls:
          cert_file: /etc/otel-collector/certs/tls.crt
          key_file: /etc/otel-collector/certs/tls.key
connectors:
  count:
    logs:
      network_enforcer_policy_denies:
        description: Policy violations observed by Network Enforcer (policy_violation_observed events).
        # Only the observed event carries enforcement.provider; acknowledgements are not counted.
        conditions:
          - 'attributes["enforcement.provider"] != nil'
        # The dimensions of the metric. The writer omits empty attributes, so each optional one
        # has a default: a data point must not vanish because, say, no policy matched.
        # Workload kind and identity stay in the logs only (cardinality).
        attributes:
          - key: enforcement.provider
          - key: action
            default_value: ""
          - key: network.transport
            default_value: ""
          - key: source.workload.namespace
            default_value: ""
          - key: source.workload.name
            default_value: ""
          - key: destination.workload.namespace
            default_value: ""
          - key: destination.workload.name
            default_value: ""
          - key: destination.port
            default_value: 0
          - key: policy.ref.namespace
            default_value: ""
          - key: policy.ref.name
            default_value: ""
processors:
  # The count connector emits deltas; Prometheus wants running totals.
  deltatocumulative: {}
  batch: {}
exporters:
  debug:
    verbosity: detailed
  prometheus:
    endpoint: 0.0.0.0:{{ .Values.telemetry.defaultCollector.prometheusPort }}
extensions:
  health_check:
    endpoint: 0.0.0.0:13133
service:
  extensions: [health_check]
  pipelines:
    logs:
      receivers: [otlp]
      processors: [batch]
      exporters: [debug, count]
    metrics:
      receivers: [count]
      processors: [deltatocumulative]
      exporters: [prometheus]
{{- end -}}
