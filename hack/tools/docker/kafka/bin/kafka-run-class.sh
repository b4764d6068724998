#!/bin/bash
# Runs a Kafka main class with the image's jars; the tool scripts below call it like Kafka's own.
exec java ${KAFKA_HEAP_OPTS:--Xmx256m} ${KAFKA_OPTS:-} \
  -Dlog4j2.configurationFile=/opt/kafka/config/tools-log4j2.properties -cp "/opt/kafka/libs/*" "$@"
