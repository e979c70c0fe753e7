#!/usr/bin/env bash
# Checks the shipped Prometheus rules with promtool: the alerting rules (check rules), their unit
# tests (test rules), and the Grafana board's queries, as a rules file generated from the board
# (one recording rule per query) with their unit tests. promtool comes from PATH, else from Debian's prometheus package,
# downloaded and unpacked under target/ (never installed, no service started). apt-get download
# needs no root, but needs the package lists: run `sudo apt-get update` first on a fresh machine.
# Exits non-zero if any check fails.
set -euo pipefail
cd "$(dirname "$0")/../.."

tools=target/prometheus-tools
promtool="$(command -v promtool || true)"
if [ -z "$promtool" ]; then
  promtool="$tools/usr/bin/promtool"
  if [ ! -x "$promtool" ]; then
    echo "== promtool: downloading Debian's prometheus package into $tools"
    mkdir -p "$tools/deb"
    rm -f "$tools"/deb/prometheus_*.deb
    if ! (cd "$tools/deb" && apt-get download prometheus); then
      echo "apt-get download prometheus failed; on a fresh machine run 'sudo apt-get update' first" >&2
      exit 1
    fi
    dpkg -x "$tools"/deb/prometheus_*.deb "$tools"
  fi
fi
echo "== $("$promtool" --version 2>&1 | head -1)"

echo "== promtool check rules docs/prometheus/workerpool-alerts.yml"
"$promtool" check rules docs/prometheus/workerpool-alerts.yml

echo "== promtool test rules docs/prometheus/workerpool-alerts.test.yml"
"$promtool" test rules docs/prometheus/workerpool-alerts.test.yml

echo "== the Grafana board's queries: promtool check rules target/grafana-queries.rules.yml"
java docs/prometheus/GrafanaQueryRules.java docs/grafana/workerpool-dashboard.json target/grafana-queries.rules.yml
"$promtool" check rules target/grafana-queries.rules.yml

echo "== promtool test rules docs/prometheus/grafana-queries.test.yml (what the board's queries return)"
"$promtool" test rules docs/prometheus/grafana-queries.test.yml
