#!/usr/bin/env bash
# Runs a private, throw-away Kafka broker for the Kafka end-to-end tests: one
# KRaft node that is both broker and controller, bound to 127.0.0.1.
#   ci/kafka-broker.sh start DIR   # then: source DIR/kafka.env
#   ci/kafka-broker.sh stop DIR    # idempotent, fine after a failed start
#   ci/kafka-broker.sh fetch       # only fill the jar cache (start does it too)
# DIR keeps the ports and the data across stop/start, so a test can take the
# broker away and bring it back while its clients keep their bootstrap address.
# The server (org.apache.kafka:kafka_2.13 and its runtime dependencies) comes
# from Maven Central, copied once by Maven into the cache below.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR | fetch" >&2; exit 2; }
cmd=${1:-}
case "$cmd" in
  start|stop) [ $# -eq 2 ] || usage; DIR=$2 ;;
  fetch) [ $# -eq 1 ] || usage ;;
  *) usage ;;
esac

KAFKA_VERSION=${WEIR_KAFKA_VERSION:-4.4.0}
CACHE=${WEIR_KAFKA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/weir/kafka-$KAFKA_VERSION}
WAIT_SECS=${WEIR_KAFKA_WAIT_SECS:-60}      # start: until the broker answers
STOP_SECS=${WEIR_KAFKA_STOP_SECS:-20}      # stop: SIGTERM grace before SIGKILL
FETCH_SECS=${WEIR_KAFKA_FETCH_SECS:-600}   # Maven copying the jars, cold cache
LOG4J_VERSION=2.25.4                       # the log4j and slf4j the other modules' tests use
SLF4J_VERSION=2.0.17
DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.8.1

die() { echo "kafka-broker: $*" >&2; exit 1; }

# Fills $CACHE/libs once. Builds in a temporary directory renamed into place,
# under a lock, so a concurrent or interrupted fetch never leaves half a cache.
# Runs Maven without any lock of the caller's: start is called from tests,
# inside a Maven build that may hold one.
fetch_libs() {
  [ -f "$CACHE/complete" ] && return 0
  command -v mvn >/dev/null || die "mvn missing: it copies the Kafka jars into $CACHE"
  mkdir -p "$(dirname "$CACHE")"
  local tmp rc=0
  exec 9>"$CACHE.lock"
  flock -w "$FETCH_SECS" 9 || die "another fetch still holds $CACHE.lock"
  if [ ! -f "$CACHE/complete" ]; then
    tmp=$(mktemp -d "$CACHE.tmp.XXXXXX")
    cat >"$tmp/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.weir.ci</groupId>
  <artifactId>kafka-broker-jars</artifactId>
  <version>$KAFKA_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <!-- kafka_2.13 declares slf4j-api (1.7) only; without a binding the broker logs
         nothing. slf4j-api 2 serves 1.7 callers and finds log4j's slf4j2 provider. -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-api</artifactId>
      <version>$SLF4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j2-impl</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-core</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
    echo "kafka-broker: copying kafka_2.13 $KAFKA_VERSION and its dependencies into $CACHE" >&2
    timeout "$FETCH_SECS" mvn -B -ntp -q -f "$tmp/pom.xml" "$DEPENDENCY_PLUGIN:copy-dependencies" \
      -DincludeScope=runtime -DoutputDirectory="$tmp/libs" >"$tmp/mvn.log" 2>&1 || rc=$?
    if [ $rc -ne 0 ]; then
      tail -n 40 "$tmp/mvn.log" >&2; rm -rf "$tmp"
      die "Maven could not copy kafka_2.13 $KAFKA_VERSION (exit $rc)"
    fi
    touch "$tmp/complete"
    rm -rf "$CACHE"
    mv "$tmp" "$CACHE"
  fi
  exec 9>&-   # the broker started next must not inherit the lock
}

java_bin() {
  local java=${JAVA_HOME:+$JAVA_HOME/bin/}java spec
  spec=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  [ "${spec%%.*}" -ge 17 ] 2>/dev/null || die "Kafka $KAFKA_VERSION needs Java 17 or later; $java is ${spec:-unknown}"
  echo "$java"
}

# The broker's java process for DIR, if the recorded pid is still it (a pid
# reused after a crash by an unrelated process is never touched).
live_pid() {
  local pid
  [ -f "$DIR/kafka.pid" ] || return 1
  pid=$(cat "$DIR/kafka.pid" 2>/dev/null || true)
  [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null \
    | grep -qF -- "kafka.Kafka $DIR/server.properties" && echo "$pid"
}

# Alive and not a zombie waiting for a parent that does not reap (a container's init).
alive() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

do_stop() {
  [ -d "$DIR" ] || return 0
  DIR=$(cd "$DIR" && pwd)
  rm -f "$DIR/kafka.env"   # a stale env would point tests at a dead port
  local pid deadline
  if pid=$(live_pid); then
    # SIGTERM: a controlled shutdown that flushes the logs, so the restart
    # needs no recovery. SIGKILL only if it hangs.
    kill "$pid" 2>/dev/null || true
    deadline=$((SECONDS + STOP_SECS))
    while alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    if alive "$pid"; then
      echo "kafka-broker: pid $pid still up after ${STOP_SECS}s, SIGKILL" >&2
      kill -9 "$pid" 2>/dev/null || true
      deadline=$((SECONDS + 10))
      while alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    fi
  fi
  rm -f "$DIR/kafka.pid"
}

# A free port below the kernel's ephemeral range: while the broker is stopped
# no client connection can take it as its local port, so start finds it free.
pick_port() {
  local low p _
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range
  for _ in $(seq 1 100); do
    p=$((10000 + RANDOM % (low - 10000)))
    if [ "$p" != "${1:-}" ] && ! port_open "$p"; then echo "$p"; return 0; fi
  done
  die "no free port found below $low"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# True once the broker serves requests: it answers an ApiVersions request
# (v0: api key 18, correlation id 7, null client id) with error code 0. The
# broker enables request handling only after it has caught up with the
# metadata log and been unfenced, so topics can be created right away.
broker_answers() {
  local reply
  reply=$(timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1 || exit 1
    printf '\x00\x00\x00\x0a\x00\x12\x00\x00\x00\x00\x00\x07\xff\xff' >&3
    od -An -tx1 -N10 <&3" 2>/dev/null | tr -d ' \n') || return 1
  [ "${reply:8:12}" = "000000070000" ]
}

# 22 characters of URL-safe base64 over 16 random bytes, as Kafka's Uuid
# prints them; never starting with '-', which a command line takes for a flag.
cluster_id() {
  local id
  while :; do
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
    [ "${id:0:1}" != "-" ] && { echo "$id"; return; }
  done
}

show_log() {
  echo "----- $DIR/kafka.log (since this start)" >&2
  sed -n "/^=== kafka-broker.sh start $START_STAMP/,\$p" "$DIR/kafka.log" | tail -n 60 >&2
}

do_start() {
  fetch_libs
  local java; java=$(java_bin)
  do_stop   # a second start on the same DIR must not orphan the first broker
  mkdir -p "$DIR"
  DIR=$(cd "$DIR" && pwd)

  # Ports are chosen once per DIR and kept: clients of a restarted broker
  # reconnect to the bootstrap address they were given.
  if [ ! -f "$DIR/ports" ]; then
    local p c
    p=$(pick_port); c=$(pick_port "$p")
    printf 'BROKER_PORT=%s\nCONTROLLER_PORT=%s\n' "$p" "$c" >"$DIR/ports"
  fi
  # shellcheck disable=SC1091
  . "$DIR/ports"

  # Single node: every internal topic has one replica; a missing topic is an
  # error (no auto-creation); consumer groups start without the usual delay;
  # few partitions for the internal topics, which this node creates on first use.
  cat >"$DIR/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$BROKER_PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$BROKER_PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
log.dirs=$DIR/data
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=4
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
EOF
  cat >"$DIR/log4j2.properties" <<'EOF'
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = out
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
# Each component prints its whole configuration at INFO; server.properties
# says what differs, and a failed start's log tail stays readable.
logger.config.name = org.apache.kafka.common.config.AbstractConfig
logger.config.level = WARN
EOF

  START_STAMP=$(date +%s%N)
  echo "=== kafka-broker.sh start $START_STAMP $(date -Is)" >>"$DIR/kafka.log"
  local jvm=(-Xms64m -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true
             "-Dlog4j2.configurationFile=$DIR/log4j2.properties" -cp "$CACHE/libs/*")
  if [ ! -f "$DIR/data/meta.properties" ]; then
    "$java" "${jvm[@]}" kafka.tools.StorageTool format -t "$(cluster_id)" \
      -c "$DIR/server.properties" >>"$DIR/kafka.log" 2>&1 || { show_log; die "formatting $DIR/data failed"; }
  fi

  # nohup + </dev/null let the broker outlive the calling shell (a test's
  # ProcessBuilder, a CI step); the fixture or a CI step stops it.
  nohup "$java" "${jvm[@]}" kafka.Kafka "$DIR/server.properties" </dev/null >>"$DIR/kafka.log" 2>&1 &
  local pid=$!
  echo "$pid" >"$DIR/kafka.pid"

  local deadline=$((SECONDS + WAIT_SECS))
  until broker_answers "$BROKER_PORT"; do
    if [ $SECONDS -ge $deadline ] || ! alive "$pid"; then
      echo "kafka-broker: broker not up within ${WAIT_SECS}s on 127.0.0.1:$BROKER_PORT" >&2
      show_log; do_stop; exit 1
    fi
    sleep 0.2
  done

  cat >"$DIR/kafka.env" <<EOF
WEIR_KAFKA_BOOTSTRAP=127.0.0.1:$BROKER_PORT
WEIR_KAFKA_PID=$pid
WEIR_KAFKA_VERSION=$KAFKA_VERSION
WEIR_KAFKA_LOG=$DIR/kafka.log
EOF
  echo "kafka-broker: up; env in $DIR/kafka.env"; cat "$DIR/kafka.env"
}

case "$cmd" in
  start) do_start ;;
  stop) do_stop; echo "kafka-broker: stopped ($DIR)" ;;
  fetch) fetch_libs; echo "kafka-broker: kafka_2.13 $KAFKA_VERSION in $CACHE/libs" ;;
esac
