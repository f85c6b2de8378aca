#!/usr/bin/env bash
# Serves the seed scenario with each variant in turn and loads it with wrk:
# 200 connections, limit 50, 200 ms handler, server GOMAXPROCS=1 on CPU 0,
# wrk on CPU 1. Variants take turns for ROUNDS rounds so that noise hits
# them alike. Needs wrk (apt-get install -y wrk). Loopback only.
#
#	examples/first/wrk.sh [ROUNDS] [SECONDS]
set -euo pipefail
rounds=${1:-3}
secs=${2:-5}
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/first" ./examples/first
port=18$((RANDOM % 900 + 100))
printf '%-10s %5s %12s %10s %12s\n' variant round "requests/s" "2xx/s" "p50 latency"
for round in $(seq "$rounds"); do
	for v in frontdoor chi atomic; do
		GOMAXPROCS=1 taskset -c 0 "$bin/first" -variant "$v" -addr "127.0.0.1:$port" >/dev/null &
		pid=$!
		for _ in $(seq 50); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
		out=$(taskset -c 1 wrk -t1 -c200 -d"${secs}s" --latency "http://127.0.0.1:$port/hello")
		kill -INT "$pid"
		wait "$pid" || true
		rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
		total=$(awk '/requests in/ {print $1}' <<<"$out")
		non2xx=$(awk '/Non-2xx/ {print $5}' <<<"$out")
		p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
		ok=$(awk -v t="$total" -v n="${non2xx:-0}" -v s="$secs" 'BEGIN {printf "%.0f", (t - n) / s}')
		printf '%-10s %5d %12s %10s %12s\n' "$v" "$round" "$rps" "$ok" "$p50"
	done
done
