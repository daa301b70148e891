#!/usr/bin/env bash
# Prints the bytes Kafka 4.4.0's own GroupCoordinatorRecordSerde writes for the records of
# coordinator/src/records/codec.rs's `bytes_match_kafka_4_4_record_serde` test (the test holds
# them as golden values). Needs Java 17+ and the 4.4.0 jars in ~/.m2 (see helper notes).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
m="$HOME/.m2/repository/org/apache/kafka"
cp="$m/kafka-group-coordinator/4.4.0/kafka-group-coordinator-4.4.0.jar:$m/kafka-coordinator-common/4.4.0/kafka-coordinator-common-4.4.0.jar:$m/kafka-server-common/4.4.0/kafka-server-common-4.4.0.jar:$m/kafka-clients/4.4.0/kafka-clients-4.4.0.jar"
timeout 300 jshell --class-path "$cp" "$here/serde.jsh" 2>&1 | grep -E '^(oc|mm|ca|gm|cg) '
