#!/usr/bin/env bash
# Installs the real metric servers used by the metrics-sink integration tests:
#   graphite-carbon        -> /usr/bin/carbon-cache (Graphite plaintext receiver)
#   python3-whisper        -> whisper-fetch, to read back what carbon stored
#   prometheus-pushgateway -> /usr/bin/prometheus-pushgateway
#   chromium               -> /usr/bin/chromium, to render the Nexmark dashboard headless
# Idempotent: does nothing when everything is already there. The tests start
# their own private instances (ci/metrics-servers.sh), so the Debian system
# services must not be left running: they would listen on all interfaces on
# the default ports (pushgateway :9091, carbon :2003/:2004/:7002).
set -euo pipefail

PKGS=(graphite-carbon python3-whisper prometheus-pushgateway chromium)

die() { echo "install-test-deps: ERROR: $*" >&2; exit 1; }

pkg_ok() {
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}

missing=()
for p in "${PKGS[@]}"; do pkg_ok "$p" || missing+=("$p"); done
# A package can be "installed" while its binary was removed by hand; check both.
for b in carbon-cache whisper-fetch prometheus-pushgateway chromium; do
  command -v "$b" >/dev/null 2>&1 || { missing=("${PKGS[@]}"); break; }
done

if [ "${#missing[@]}" -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || die "need root to apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # The postinst scripts call invoke-rc.d start. A policy-rc.d that exits 101
  # makes invoke-rc.d skip that; docker-style images ship one, a plain VM
  # does not, so add a temporary one only if none exists (and remove it after).
  tmp_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    tmp_policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' >"$tmp_policy" && chmod 755 "$tmp_policy"
    trap 'rm -f "$tmp_policy"' EXIT
  fi
  echo "install-test-deps: installing ${missing[*]}"
  # An empty/stale package list makes install fail with "Unable to locate";
  # refresh once in that case only, to keep the common path quick.
  if ! apt-get install -y --no-install-recommends "${missing[@]}"; then
    apt-get update || die "apt-get update failed"
    apt-get install -y --no-install-recommends "${missing[@]}" \
      || die "apt-get install ${missing[*]} failed"
  fi
  for p in "${PKGS[@]}"; do pkg_ok "$p" || die "package $p is not installed after apt-get"; done
fi

for b in carbon-cache whisper-fetch prometheus-pushgateway chromium; do
  command -v "$b" >/dev/null 2>&1 || die "$b not on PATH after install"
done

# Belt and braces against auto-started system daemons (no policy-rc.d, or a
# machine booted with systemd): disable them at boot and stop them now.
for svc in prometheus-pushgateway carbon-cache; do
  if [ -x "/etc/init.d/$svc" ]; then
    update-rc.d "$svc" disable >/dev/null 2>&1 || true
    "/etc/init.d/$svc" stop >/dev/null 2>&1 || true
  fi
  if command -v deb-systemd-helper >/dev/null 2>&1; then
    deb-systemd-helper disable "$svc.service" >/dev/null 2>&1 || true
  fi
  if [ -d /run/systemd/system ]; then
    systemctl stop "$svc.service" >/dev/null 2>&1 || true
  fi
done

# Anything still listening on the Debian default ports that is one of these
# binaries is a leftover system instance: kill it by pid (never by name, so
# that private instances on other ports are left alone).
for port in 9091 2003 2004 7002; do
  for pid in $(ss -Htlnp "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u); do
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
    case "$cmd" in
      *prometheus-pushgateway*|*carbon-cache*)
        echo "install-test-deps: stopping system daemon pid $pid on :$port ($cmd)"
        kill "$pid" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$pid" 2>/dev/null || true ;;
    esac
  done
done

echo "install-test-deps: OK ($(dpkg-query -W -f='${Package} ${Version}, ' "${PKGS[@]}" | sed 's/, $//'))"
