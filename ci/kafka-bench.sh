#!/usr/bin/env bash
# The Kafka benchmark (kafka-it/src/bench/java/.../KafkaBenchmark.java), WeirRunner beside
# FlinkRunner (Beam 2.70, built by nexmark-peers), one after the other on this machine, on one
# private broker (ci/kafka-broker.sh):
#   throughput: a topic of RECORDS small records in 4 partitions, read from its start and counted
#               per key in 1 s windows: records/s until every record was counted;
#   latency:    RATE records/s appended for SECONDS while the pipeline runs: p50 and p99 from a
#               record's append to the output of its window.
# Run after `mvn install`:  bash ci/kafka-bench.sh [RECORDS [RATE [SECONDS [CORES]]]]
# (defaults 10000000 20000 30 2). Prints one line per run and a table at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
records=${1:-10000000}
rate=${2:-20000}
seconds=${3:-30}
cores=${4:-2}
dir=$(mktemp -d /tmp/weir-kafka-bench.XXXXXX)
# The broker's data (the filled topic, gigabytes) goes with it; the results are printed below.
trap 'bash ci/kafka-broker.sh stop "$dir/kafka" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
bash ci/kafka-broker.sh start "$dir/kafka" >/dev/null
# shellcheck disable=SC1091
source "$dir/kafka/kafka.env"
bootstrap=$WEIR_KAFKA_BOOTSTRAP

weir() { flock -w 1800 /tmp/weir-mvn.lock mvn -B -ntp -q -pl kafka-it test-compile exec:exec -Dbench.args="$*" ; }
flink() { flock -w 1800 /tmp/weir-mvn.lock mvn -B -ntp -q -f nexmark-peers/pom.xml compile exec:exec@kafka-bench -Dbench.args="$*" ; }
weir_opts="--runner=WeirRunner --sparkMaster=local[$cores]"
flink_opts="--runner=FlinkRunner --flinkMaster=[local] --parallelism=$cores"

out="$dir/results.txt"
weir produce "$bootstrap" fill 4 "$records" | tee -a "$out"
weir throughput "$bootstrap" fill "$records" $weir_opts | tee -a "$out"
flink throughput "$bootstrap" fill "$records" $flink_opts | tee -a "$out"
weir latency "$bootstrap" latency-weir 4 "$rate" "$seconds" $weir_opts | tee -a "$out"
flink latency "$bootstrap" latency-flink 4 "$rate" "$seconds" $flink_opts | tee -a "$out"

echo
echo "Kafka benchmark, $records records (throughput), $rate records/s for $seconds s (latency), $cores cores"
awk '/^THROUGHPUT/ { printf "%-12s throughput %12s records/s\n", $2, $8 }
     /^LATENCY/    { printf "%-12s latency    p50 %6s ms  p99 %6s ms  max %6s ms\n", $2, $8, $11, $14 }' "$out"
