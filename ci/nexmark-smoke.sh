#!/usr/bin/env bash
# Nexmark's SMOKE suite in batch and in streaming on WeirRunner and on the DirectRunner, into one results history
# and dashboard (nexmark/nexmark-results/), then the dashboard in headless Chromium: a
# screenshot (nexmark/nexmark-results/dashboard.png, not committed) and a check that every
# runner's panel rendered with the runs of this smoke. Each launch fails (and so this script)
# when a query it was asked for is wrong or refused by the runner. Run after `mvn install`.
set -euo pipefail
cd "$(dirname "$0")/.."
out=nexmark/nexmark-results
mkdir -p "$out"
# Every run of this smoke is recorded under this id; the history keeps earlier smokes' runs
# too (the dashboard draws them all), so the check below looks for this id, not just for panels.
run_id="smoke-$(date -u +%Y%m%dT%H%M%SZ)-$$"
# Query 12 counts bids in processing-time panes: WeirRunner refuses processing time in batch
# unless told (its batch default is FAIL), so the suite allows it there; and triggers are
# honoured (its batch default fires each window once), as on any Beam runner.
mvn -B -ntp -q -pl nexmark exec:exec -Dnexmark.args="--runner=WeirRunner --suite=SMOKE --runId=$run_id \
  --processingTimeTimers=ALLOW --processingTimeEndOfInput=FIRE_AND_QUIESCE --windowTriggers=ALLOW"
mvn -B -ntp -q -pl nexmark exec:exec -Dnexmark.args="--runner=DirectRunner --suite=SMOKE --runId=$run_id"
# Streaming: the unbounded source. The DirectRunner takes about ten minutes for
# query 7 (a side input per window) and one for query 10 in streaming, so those two run on
# WeirRunner only here.
mvn -B -ntp -q -pl nexmark exec:exec -Dnexmark.args="--runner=WeirRunner --suite=SMOKE --mode=STREAMING --runId=$run_id"
mvn -B -ntp -q -pl nexmark exec:exec -Dnexmark.args="--runner=DirectRunner --suite=SMOKE --mode=STREAMING \
  --runId=$run_id --query=0,1,2,3,4,5,6,8,9,11,12,13,14"
command -v chromium >/dev/null || { echo "chromium missing: run ci/install-test-deps.sh" >&2; exit 1; }
page="file://$(pwd)/$out/dashboard.html"
# Flags as this workplace's closed network needs them; a throw-away profile each time.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
  --disable-component-update --disable-sync --user-data-dir="$(mktemp -d)")
timeout 120 chromium "${flags[@]}" --window-size=1280,2000 --screenshot="$out/dashboard.png" "$page" 2>/dev/null
dom=$(timeout 120 chromium "${flags[@]}" --dump-dom "$page" 2>/dev/null)
# Each panel names the launch of its latest run and how many queries that launch recorded in it:
# this smoke's id, with every query the launch above was asked for.
for expected in "WeirRunner / BATCH=15" "DirectRunner / BATCH=15" "WeirRunner / STREAMING=15" "DirectRunner / STREAMING=13"; do
  panel=${expected%=*} queries=${expected##*=}
  grep -qF "data-panel=\"$panel\" data-last-run=\"$run_id\" data-last-run-queries=\"$queries\"" <<<"$dom" \
    || { echo "dashboard has no panel '$panel' with the $queries queries of run $run_id" >&2; exit 1; }
done
[ -s "$out/dashboard.png" ] || { echo "no screenshot was taken" >&2; exit 1; }
echo "nexmark-smoke: run $run_id, dashboard rendered in Chromium; screenshot $out/dashboard.png"
