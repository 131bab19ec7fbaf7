#!/usr/bin/env bash
# Weir against its peers: the same Nexmark queries in batch (or streaming, with --mode=STREAMING)
# on WeirRunner, then on Beam's SparkRunner (Spark 3.5) and FlinkRunner (Flink 1.19) at Beam 2.70
# (module nexmark-peers/), as
# plain Spark (SparkNative: queries 0, 1, 2 and 5 without Beam) and on the DirectRunner, one after the other on N cores each, into the one results history and
# dashboard (nexmark/nexmark-results/) under one run id; then the events/s per query and runner,
# the ratio Weir/peer per query and its geometric mean per peer, as a text table here and as the
# dashboard's "Weir vs peers" section.
#
#   bash ci/nexmark-peers.sh [launcher options]   e.g. --suite=SMOKE, --numEvents=1000000, --query=0,1,2,
#                                                 --mode=STREAMING
#
# The options go to all five launches. N is NEXMARK_PEERS_CORES (default 2, this machine's
# cores): Spark's local[N] for WeirRunner and SparkRunner, Flink's --parallelism, the
# DirectRunner's --targetParallelism. NEXMARK_PEERS_ROUNDS=R (default 1) launches WeirRunner,
# SparkRunner, FlinkRunner and plain Spark R times, in turns (all four, then all four again), so
# that a slow spell of a shared machine falls on every runner alike; the table then shows each
# runner's median over its R runs of a query, and their lowest and highest. The DirectRunner, a
# correctness reference far slower than the others, is launched once, last;
# NEXMARK_PEERS_DIRECT=false leaves it out. A wrong result on any runner fails the script, and so does
# a query WeirRunner refuses; a query a peer refuses or fails to run is listed as REFUSED or
# FAILED (the launcher's --allowRefused) and has no ratio. Run after `mvn install` (WeirRunner
# comes from the local Maven repository). Each Maven call waits for /tmp/weir-mvn.lock, as
# ci/spark-home.sh's does, so do not run this from inside a Maven build.
set -euo pipefail
cd "$(dirname "$0")/.."
cores=${NEXMARK_PEERS_CORES:-2}
rounds=${NEXMARK_PEERS_ROUNDS:-1}
direct=${NEXMARK_PEERS_DIRECT:-true}
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "nexmark-peers: NEXMARK_PEERS_ROUNDS must be a whole number of launches per runner, 1 or more, not '$rounds'" >&2
  exit 2
fi
if [ "$direct" != true ] && [ "$direct" != false ]; then
  echo "nexmark-peers: NEXMARK_PEERS_DIRECT must be true or false, not '$direct'" >&2
  exit 2
fi
out=nexmark/nexmark-results
run_id="peers-$(date -u +%Y%m%dT%H%M%SZ)-$$"
logs="$out/$run_id"
mkdir -p "$logs"
# Every Spark, Weir's and the peer's, on the loopback address, as the tests run it.
export SPARK_LOCAL_IP=127.0.0.1

# One launch, NAME MAVEN-PROJECT-OPTION ARGS: the launcher's output goes to the terminal and to
# NAME's log (NAME-ROUND with several rounds), read back for the summary below. Both modules run the launcher from nexmark/, so
# every launch uses the default history and dashboard there. `compile` first, so that a launch
# never runs classes older than the sources.
launch() {
  local name=$1 project=$2 args=$3
  shift 3
  local log=$name
  [ "$rounds" -gt 1 ] && [ "$name" != DirectRunner ] && log="$name-$round"
  echo "== $log"
  flock -w "${WEIR_MVN_LOCK_WAIT_SECS:-1800}" /tmp/weir-mvn.lock \
    mvn -B -ntp -q $project compile exec:exec -Dnexmark.args="$args --runId=$run_id $*" 2>&1 | tee "$logs/$log.log"
  last_log="$logs/$log.log"
}

# With --mode=STREAMING every runner reads the unbounded source (FlinkRunner switches to its
# streaming mode by itself), and two are left out: SparkRunner's streaming mode does not end when
# its input does (waitUntilFinish waits for a stop that never comes: query 0 of SMOKE was still
# running after 20 minutes), and plain Spark is batch only.
streaming=false
for arg in "$@"; do
  [ "$arg" = --mode=STREAMING ] && streaming=true
done

# WeirRunner allows processing time (its batch default refuses queries 10 and 12, whose triggers
# fire in processing time) and, in batch, fires each window once, complete (--windowTriggers=IGNORE,
# its batch default), as both peers do in batch: SparkRunner groups a non-merging window in one
# pass (GroupNonMergingWindowsFunctions) and FlinkRunner emits each key and window once
# (FlinkNonMergingReduceFunction, PaneInfo.ON_TIME_AND_ONLY_FIRING); neither runs the trigger.
# In streaming, triggers fire as the queries ask (--windowTriggers=ALLOW, the streaming default).
triggers=IGNORE
[ "$streaming" = true ] && triggers=ALLOW
for round in $(seq 1 "$rounds"); do
  launch WeirRunner "-pl nexmark" "--runner=WeirRunner --sparkMaster=local[$cores] --processingTimeTimers=ALLOW \
--processingTimeEndOfInput=FIRE_AND_QUIESCE --windowTriggers=$triggers" "$@"
  if [ "$streaming" = false ]; then
    launch SparkRunner "-f nexmark-peers/pom.xml" "--runner=SparkRunner --sparkMaster=local[$cores] --allowRefused" "$@"
  fi
  launch FlinkRunner "-f nexmark-peers/pom.xml" \
    "--runner=FlinkRunner --flinkMaster=[local] --parallelism=$cores --allowRefused" "$@"
  # The native Spark reference (queries 0, 1, 2 and 5 in plain Spark Datasets, on the same Spark
  # as WeirRunner's): what Spark itself does with the same events. It refuses the other queries.
  if [ "$streaming" = false ]; then
    launch SparkNative "-pl nexmark" "--nativeSparkMaster=local[$cores] --allowRefused" "$@"
  fi
done
# The DirectRunner of the Nexmark module, at Weir's Beam version: the one ci/nexmark-smoke.sh
# records under the same name, so its panel and baselines hold one DirectRunner only
# (nexmark-peers has Beam 2.70's, for a run by hand).
if [ "$direct" = true ]; then
  launch DirectRunner "-pl nexmark" "--runner=DirectRunner --targetParallelism=$cores --allowRefused" "$@"
fi

# The last launch printed the comparison of all runs (the launcher prints it whenever its run
# id has runs of WeirRunner and of another runner): again here, after the queries' progress.
echo
echo "== nexmark-peers: run $run_id on $cores cores, $rounds round(s); logs in $logs"
awk '/^Weir vs peers, run /{p=1} /^run id /{p=0} p' "$last_log"
# What the peers refused or failed, with the launcher's reason, query by query.
# SparkNative has queries 0, 1, 2 and 5 only: its refusals of the others are expected, its
# failures are listed.
for log in "$logs"/*.log; do
  name=$(basename "$log" .log)
  [ "${name%%-*}" = WeirRunner ] && continue
  pattern='^  (REFUSED by|FAILED on) '
  [ "${name%%-*}" = SparkNative ] && pattern='^  FAILED on '
  awk -v runner="$name" -v pattern="$pattern" '/^query [0-9]+ /{q=$2} $0 ~ pattern {sub(/^  /, ""); print runner ", query " q ": " $0}' \
    "$log"
done
echo "dashboard: $(pwd)/$out/dashboard.html"
