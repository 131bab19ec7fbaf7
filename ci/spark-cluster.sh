#!/usr/bin/env bash
# Runs a private, throw-away Spark standalone cluster on 127.0.0.1: one Master
# and WORKERS Workers (separate JVMs, 1 core each), on ports the JVMs pick.
#   ci/spark-cluster.sh start DIR [WORKERS]   # default 2; then: source DIR/cluster.env
#   ci/spark-cluster.sh executors DIR         # "PID EXECUTOR_DIR" per live executor JVM
#   ci/spark-cluster.sh stop DIR              # idempotent, fine after a failed start
# SPARK_HOME comes from ci/spark-home.sh (default ~/.cache/weir/spark-4.2.0-2.13);
# this script never runs Maven, so a test may call it from inside a build.
# Knobs: WEIR_SPARK_WORKER_MEMORY (2g), WEIR_SPARK_WORKER_CORES (1),
# WEIR_SPARK_WAIT_SECS (60), SPARK_DAEMON_MEMORY (512m, heap of each daemon).
set -euo pipefail

usage() { echo "usage: $0 start DIR [WORKERS] | executors DIR | stop DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1 DIR=$2 WORKERS=${3:-2}
[[ $WORKERS =~ ^[1-9][0-9]*$ ]] || usage
WAIT_SECS=${WEIR_SPARK_WAIT_SECS:-60}
export SPARK_HOME=${SPARK_HOME:-$HOME/.cache/weir/spark-4.2.0-2.13}
# The launcher library cannot infer the Scala version of a SPARK_HOME that is
# not a source build; the Worker needs it to build executor commands.
export SPARK_SCALA_VERSION=2.13
export SPARK_DAEMON_MEMORY=${SPARK_DAEMON_MEMORY:-512m}
# Master and Worker do little work: C1 only halves their start-up on 2 cores
# (executors are JVMs of their own and keep the full JIT).
export SPARK_DAEMON_JAVA_OPTS="-XX:TieredStopAtLevel=1 ${SPARK_DAEMON_JAVA_OPTS:-}"

# Checks a recorded pid's cmdline first, so that a pid reused by an unrelated
# process after a crash is never killed; kill -9 after a 10 s grace period.
stop_pid() {
  local pid=$1 pattern=$2
  if [ -n "$pid" ] && tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "$pattern"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
}

stop_one() {
  local pidfile=$1 pattern=$2
  [ -f "$pidfile" ] || return 0
  stop_pid "$(cat "$pidfile" 2>/dev/null || true)" "$pattern"
  rm -f "$pidfile"
}

# Executors are children of a Worker, which kills them when it stops cleanly;
# after a kill -9 of the Worker they linger until they notice. They run in
# their Worker's work dir, which is how we tell ours from anybody else's.
# Prints "PID EXECUTOR_DIR" per live executor JVM (DIR/worker-N/APP_ID/EXEC_ID).
list_executors() {
  local p cwd
  for p in /proc/[0-9]*; do
    cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
    case "$cwd" in "$DIR"/worker-*) ;; *) continue ;; esac
    tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF org.apache.spark.executor.CoarseGrainedExecutorBackend \
      && echo "${p#/proc/} $cwd"
  done
  return 0
}

stop_executors() {
  local pid _
  while read -r pid _; do
    stop_pid "$pid" org.apache.spark.executor.CoarseGrainedExecutorBackend
  done < <(list_executors)
}

do_stop() {
  [ -d "$DIR" ] || return 0
  DIR=$(cd "$DIR" && pwd -P)   # physical, as /proc/PID/cwd is
  rm -f "$DIR/cluster.env"   # a stale env would point tests at a dead master
  local f stoppers=()
  for f in "$DIR"/worker-*.pid; do
    [ -e "$f" ] || continue
    # In parallel, as each may take the grace period; wait for these only,
    # since after a failed start the daemons are children of this shell too.
    stop_one "$f" "--work-dir $DIR/$(basename "$f" .pid) " &
    stoppers+=($!)
  done
  [ ${#stoppers[@]} -eq 0 ] || wait "${stoppers[@]}"
  stop_executors
  stop_one "$DIR/master.pid" "-Dweir.spark.cluster=$DIR "
}

show_logs() {
  local f; for f in "$DIR"/master.log "$DIR"/worker-*.log; do
    if [ -f "$f" ]; then echo "----- $f" >&2; tail -n 40 "$f" >&2; fi; done
}

fail() { echo "spark-cluster: $*" >&2; show_logs; do_stop; exit 1; }

# The java command bin/spark-class would run for a class: Spark's launcher
# builds it (classpath SPARK_HOME/jars/*, -Xmx from SPARK_DAEMON_MEMORY, the
# SPARK_*_OPTS and the --add-opens Java 17 needs) and prints it NUL-separated
# after a NUL and a newline.
spark_class_command() {
  local out=$DIR/launcher.out i
  java -Xmx128m -cp "$SPARK_HOME/jars/*" org.apache.spark.launcher.Main "$@" >"$out" \
    || fail "Spark's launcher failed for $1"
  mapfile -d '' -t LAUNCH <"$out"
  rm -f "$out"
  for i in "${!LAUNCH[@]}"; do
    if [ -z "${LAUNCH[$i]}" ]; then
      LAUNCH=("${LAUNCH[@]:$((i + 1))}")
      LAUNCH[0]=${LAUNCH[0]#$'\n'}
      return 0
    fi
  done
  fail "unexpected output from Spark's launcher for $1"
}

# The first port in a log line of the form "...PREFIX<port>...".
port_in_log() { grep -o -m 1 -- "$2[0-9]*" "$1" 2>/dev/null | head -n 1 | sed "s/.*://"; }

do_start() {
  [ -f "$SPARK_HOME/weir-spark-home.txt" ] && [ -d "$SPARK_HOME/jars" ] \
    || { echo "spark-cluster: no SPARK_HOME at $SPARK_HOME: run ci/spark-home.sh first" >&2; exit 1; }
  command -v curl >/dev/null || { echo "spark-cluster: curl missing" >&2; exit 1; }
  SPARK_HOME=$(cd "$SPARK_HOME" && pwd -P)   # executors resolve it from their own cwd
  do_stop   # a second start on the same DIR must not orphan the first cluster
  mkdir -p "$DIR"
  DIR=$(cd "$DIR" && pwd -P)
  rm -rf "$DIR"/worker-* "$DIR"/master.log
  # Everything binds to and advertises loopback only. The -D tags the
  # Master's cmdline with DIR for the pid check in stop. The REST submission
  # server (on by default, fixed port 6066) is off: clients use the RPC port.
  export SPARK_LOCAL_IP=127.0.0.1 SPARK_PUBLIC_DNS=127.0.0.1
  local deadline=$((SECONDS + WAIT_SECS)) master_port ui_port i

  SPARK_MASTER_OPTS="-Dweir.spark.cluster=$DIR -Dspark.master.rest.enabled=false ${SPARK_MASTER_OPTS:-}" \
    spark_class_command org.apache.spark.deploy.master.Master --host 127.0.0.1 --port 0 --webui-port 0
  # Daemons run in DIR so that whatever they write relative to their cwd
  # stays there; the subshell execs, so $! is the JVM's pid.
  (cd "$DIR" && exec nohup "${LAUNCH[@]}" </dev/null >"$DIR/master.log" 2>&1) &
  echo $! >"$DIR/master.pid"

  # Port 0 lets the Master pick free ports without a race; its log says which.
  until master_port=$(port_in_log "$DIR/master.log" "Starting Spark master at spark://127.0.0.1:") \
        && ui_port=$(port_in_log "$DIR/master.log" "MasterWebUI to 127.0.0.1, and started at http://[^ ]*:") \
        && [ -n "$master_port" ] && [ -n "$ui_port" ]; do
    kill -0 "$(cat "$DIR/master.pid")" 2>/dev/null || fail "master exited"
    [ $SECONDS -lt $deadline ] || fail "master not up in ${WAIT_SECS}s"
    sleep 0.2
  done
  local master=spark://127.0.0.1:$master_port ui=http://127.0.0.1:$ui_port

  for i in $(seq 1 "$WORKERS"); do
    mkdir -p "$DIR/worker-$i/local"
    SPARK_LOCAL_DIRS=$DIR/worker-$i/local spark_class_command org.apache.spark.deploy.worker.Worker \
      --host 127.0.0.1 --port 0 --webui-port 0 --cores "${WEIR_SPARK_WORKER_CORES:-1}" \
      --memory "${WEIR_SPARK_WORKER_MEMORY:-2g}" --work-dir "$DIR/worker-$i" "$master"
    # SPARK_LOCAL_DIRS: executors' shuffle and block files go under DIR too.
    (cd "$DIR" && SPARK_LOCAL_DIRS=$DIR/worker-$i/local exec nohup "${LAUNCH[@]}" \
      </dev/null >"$DIR/worker-$i.log" 2>&1) &
    echo $! >"$DIR/worker-$i.pid"
  done

  # Ready when the Master counts every Worker ALIVE (its web UI's JSON).
  local alive=0
  until [ "$alive" -ge "$WORKERS" ]; do
    for i in master $(seq -f 'worker-%g' 1 "$WORKERS"); do
      kill -0 "$(cat "$DIR/$i.pid")" 2>/dev/null || fail "$i exited"
    done
    [ $SECONDS -lt $deadline ] || fail "$alive of $WORKERS workers alive after ${WAIT_SECS}s"
    sleep 0.3
    alive=$(curl -sf --max-time 2 "$ui/json/" | grep -o '"aliveworkers" *: *[0-9]*' | grep -o '[0-9]*$' || true)
    alive=${alive:-0}
  done

  {
    echo "WEIR_SPARK_MASTER=$master"
    echo "WEIR_SPARK_MASTER_WEB_UI=$ui"
    echo "WEIR_SPARK_WORKERS=$WORKERS"
    echo "SPARK_HOME=$SPARK_HOME"
    echo "SPARK_SCALA_VERSION=$SPARK_SCALA_VERSION"
    echo "WEIR_SPARK_MASTER_PID=$(cat "$DIR/master.pid")"
    echo "WEIR_SPARK_WORKER_PIDS=$(cat "$DIR"/worker-*.pid | paste -sd, -)"
  } >"$DIR/cluster.env.tmp"
  mv "$DIR/cluster.env.tmp" "$DIR/cluster.env"
  echo "spark-cluster: up; env in $DIR/cluster.env"; cat "$DIR/cluster.env"
}

case "$cmd" in
  start) do_start ;;
  executors) [ $# -eq 2 ] || usage; [ ! -d "$DIR" ] || { DIR=$(cd "$DIR" && pwd -P); list_executors; } ;;
  stop) [ $# -eq 2 ] || usage; do_stop; echo "spark-cluster: stopped ($DIR)" ;;
  *) usage ;;
esac
