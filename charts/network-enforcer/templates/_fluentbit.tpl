{{/* The fluent-bit configuration (ConfigMap data); the DaemonSet's checksum annotation hashes it. */}}
{{- define "ne.fluentBit.config" -}}
{{- $fb := .Values.controller.provider.istio.fluentBit }}
{{- $tls := (fromYaml (include "ne.provider.settings" .)).tls }}
{{- $svcHost := printf "%s.%s.svc.%s" (include "ne.istioOtlpService" .) .Release.Namespace .Values.kubernetesClusterDomain -}}
fluent-bit.conf: |
  [SERVICE]
      Flush                     1
      Log_Level                 {{ $fb.logLevel }}
      Daemon                    off
      Parsers_File              /fluent-bit/etc/network-enforcer/parsers.conf
      HTTP_Server               On
      HTTP_Listen               0.0.0.0
      HTTP_Port                 2020
      Health_Check              On
      # Buffer on the node's disk while the ingest is unreachable instead of dropping records.
      storage.path              /var/lib/fluent-bit/storage
      storage.sync              normal
      storage.backlog.mem_limit 16M

  [INPUT]
      Name              tail
      Tag               ztunnel.*
      Path              {{ $fb.logPath }}
      # The container runtime's line format: <time> <stream> <P|F> <log>; rejoins partial lines.
      multiline.parser  cri
      DB                /var/lib/fluent-bit/ztunnel.db
      DB.locking        true
      # A stored offset holds only for the same inode and name: the runtime reuses the inode of a
      # removed log for a new one, which would otherwise start at the old file's offset and skip lines.
      DB.compare_filename true
      storage.type      filesystem
      Mem_Buf_Limit     32MB
      Skip_Long_Lines   On
      Refresh_Interval  5

  [FILTER]
      # The log line of ztunnel is JSON: lift its keys to the record, time -> event time.
      Name          parser
      Match         ztunnel.*
      Key_Name      log
      Parser        ztunnel_json
      Reserve_Data  Off

  [FILTER]
      # Only what the ingest uses: "connection complete" access records (flows) and the
      # authorization decisions of ztunnel::state that mean a deny (violations).
      Name        grep
      Match       ztunnel.*
      Logical_Op  and
      Regex       scope ^(access|ztunnel::state)$
      Regex       message ^(connection complete|deny policy match|dry-run:? deny policy match|dry-run: no allow policies match|no allow policies matched)$

  [OUTPUT]
      Name          opentelemetry
      Match         ztunnel.*
      Host          {{ $svcHost }}
      Port          {{ include "ne.istioPort" . }}
      grpc          on
      {{- if eq $tls.mode "insecure" }}
      tls           off
      {{- else }}
      tls           on
      tls.verify    on
      tls.verify_hostname on
      tls.vhost     {{ $tls.serverName | default $svcHost }}
      tls.ca_file   /etc/provider/certs/ca.crt
      tls.crt_file  /etc/provider/certs/tls.crt
      tls.key_file  /etc/provider/certs/tls.key
      {{- end }}
      Retry_Limit   no_limits

parsers.conf: |
  [PARSER]
      Name         ztunnel_json
      Format       json
      # ztunnel writes RFC 3339 UTC with microseconds: 2026-08-03T15:48:10.413052Z
      Time_Key     time
      Time_Format  %Y-%m-%dT%H:%M:%S.%LZ
      Time_Keep    Off
{{- end -}}
