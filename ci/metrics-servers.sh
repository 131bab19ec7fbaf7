#!/usr/bin/env bash
# Runs private, throw-away metric servers for the metrics-sink integration
# tests: Graphite carbon-cache (plaintext line protocol -> whisper files) and
# the Prometheus Pushgateway, both bound to 127.0.0.1 on free ports.
#   ci/metrics-servers.sh start DIR   # then: source DIR/servers.env
#   ci/metrics-servers.sh stop DIR    # idempotent, fine after a failed start
# Packages come from ci/install-test-deps.sh.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1 DIR=$2
WAIT_SECS=${WEIR_METRICS_WAIT_SECS:-30}

# Stops one recorded process; checks its cmdline first so that a pid reused
# by an unrelated process after a crash is never killed.
stop_one() {
  local pidfile=$1 pattern=$2 pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$pattern"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

do_stop() {
  [ -d "$DIR" ] || return 0
  stop_one "$DIR/carbon-cache.pid" carbon-cache
  stop_one "$DIR/pushgateway.pid" prometheus-pushgateway
  rm -f "$DIR/servers.env"   # a stale env would point tests at dead ports
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

show_logs() {
  local f; for f in "$DIR"/carbon-cache.out "$DIR"/pushgateway.log; do
    if [ -f "$f" ]; then echo "----- $f" >&2; tail -n 50 "$f" >&2; fi; done
}

do_start() {
  for b in carbon-cache prometheus-pushgateway /usr/bin/python3; do
    command -v "$b" >/dev/null || { echo "$b missing: run ci/install-test-deps.sh" >&2; exit 1; }; done
  do_stop   # a second start on the same DIR must not orphan the first pair
  mkdir -p "$DIR"
  DIR=$(cd "$DIR" && pwd)   # carbon resolves relative paths against its cwd
  local c=$DIR/carbon
  mkdir -p "$c/conf" "$c/whisper" "$c/log" "$c/run"

  # Bind the sockets together so the three ports differ (small race until the
  # servers bind them). Debian's python, not a pyenv shim that may be absent.
  read -r line_port query_port pgw_port < <(/usr/bin/python3 -c '
import socket; ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')

  # Pickle receiver off (port 0 = not started); the cache-query listener
  # cannot be disabled in carbon 1.1, so it gets a loopback port. Rate limits
  # are lifted because carbon drops (not delays) creates over the limit.
  # Self-metrics off so only the test's metrics appear under whisper/.
  cat >"$c/conf/carbon.conf" <<EOF
[cache]
STORAGE_DIR = $c/
LOCAL_DATA_DIR = $c/whisper/
CONF_DIR = $c/conf/
LOG_DIR = $c/log/
PID_DIR = $c/run/
ENABLE_LOGROTATION = False
ENABLE_TAGS = False
MAX_CACHE_SIZE = inf
MAX_UPDATES_PER_SECOND = 100000
MAX_CREATES_PER_MINUTE = inf
CACHE_WRITE_STRATEGY = naive
LINE_RECEIVER_INTERFACE = 127.0.0.1
LINE_RECEIVER_PORT = $line_port
PICKLE_RECEIVER_INTERFACE = 127.0.0.1
PICKLE_RECEIVER_PORT = 0
CACHE_QUERY_INTERFACE = 127.0.0.1
CACHE_QUERY_PORT = $query_port
CARBON_METRIC_INTERVAL = 0
LOG_CREATES = True
LOG_LISTENER_CONN_SUCCESS = False
WHISPER_AUTOFLUSH = False
WHISPER_FALLOCATE_CREATE = False
EOF
  # 1-second points so every value a test sends keeps its own slot.
  printf '[default]\npattern = .*\nretentions = 1s:1h\n' >"$c/conf/storage-schemas.conf"
  # "last" + xFilesFactor 0: a counter read back equals what was last sent.
  printf '[default]\npattern = .*\nxFilesFactor = 0\naggregationMethod = last\n' \
    >"$c/conf/storage-aggregation.conf"

  # --nodaemon keeps the pid we get from $! valid; nohup + </dev/null let the
  # servers outlive the calling shell (Maven's exec or a CI step). In this
  # mode carbon logs to stdout; PYTHONWARNINGS hides twisted's crypto noise.
  PYTHONWARNINGS=ignore nohup carbon-cache --config="$c/conf/carbon.conf" \
    --nodaemon start </dev/null >"$DIR/carbon-cache.out" 2>&1 &
  echo $! >"$DIR/carbon-cache.pid"

  # Debian's default persistence file is /var/lib/prometheus/pushgateway.data:
  # an empty value keeps state in memory so runs never see each other's data.
  # Admin API lets a test wipe all groups (PUT /api/v1/admin/wipe).
  nohup prometheus-pushgateway --web.listen-address="127.0.0.1:$pgw_port" \
    --persistence.file="" --web.enable-admin-api --log.level=info \
    </dev/null >"$DIR/pushgateway.log" 2>&1 &
  echo $! >"$DIR/pushgateway.pid"

  local deadline=$((SECONDS + WAIT_SECS))
  until port_open "$line_port" && port_open "$pgw_port"; do
    if [ $SECONDS -ge $deadline ] \
       || ! kill -0 "$(cat "$DIR/carbon-cache.pid")" 2>/dev/null \
       || ! kill -0 "$(cat "$DIR/pushgateway.pid")" 2>/dev/null; then
      echo "metrics-servers: servers not up (carbon :$line_port, pushgateway :$pgw_port)" >&2
      show_logs; do_stop; exit 1
    fi
    sleep 0.2
  done

  cat >"$DIR/servers.env" <<EOF
WEIR_CARBON_HOST=127.0.0.1
WEIR_CARBON_PORT=$line_port
WEIR_CARBON_WHISPER_DIR=$c/whisper
WEIR_PUSHGATEWAY_URL=http://127.0.0.1:$pgw_port
EOF
  echo "metrics-servers: up; env in $DIR/servers.env"; cat "$DIR/servers.env"
}

case "$cmd" in
  start) do_start ;;
  stop) do_stop; echo "metrics-servers: stopped ($DIR)" ;;
  *) usage ;;
esac
