#!/bin/sh
# Start N ssr instances behind HAProxy and nginx on loopback, restart them
# one at a time, or stop them all. Needs Go, haproxy and nginx
# (Debian: apt-get install haproxy nginx).
#
#   examples/ssr/deploy/run.sh start [N]  # nginx :9000, HAProxy :9001, stats page :8999,
#                                         # instances :9002.., their agents :9102..
#   examples/ssr/deploy/run.sh restart    # rolling restart, one instance at a time
#   examples/ssr/deploy/run.sh stop
#
# Configs, logs and sockets go to $SSR_DEPLOY_DIR (default /tmp/frontdoor-ssr).
set -eu
cd "$(dirname "$0")/../../.."
PATH="$PATH:/usr/sbin:/usr/local/go/bin"
DIR=${SSR_DEPLOY_DIR:-${TMPDIR:-/tmp}/frontdoor-ssr}
PIDFILE="$DIR/deploy.pid"

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

case "${1:-}" in
start)
	if running; then echo "already running (pid $(cat "$PIDFILE"))"; exit 1; fi
	mkdir -p "$DIR"
	go build -o "$DIR/ssr" ./examples/ssr
	go build -o "$DIR/deploy" ./examples/ssr/deploy
	: >"$DIR/deploy.log"
	"$DIR/deploy" -n "${2:-3}" -dir "$DIR" -bin "$DIR/ssr" >>"$DIR/deploy.log" 2>&1 &
	echo $! >"$PIDFILE"
	i=0
	until grep -q "ready:" "$DIR/deploy.log"; do
		if ! running || [ $i -ge 300 ]; then cat "$DIR/deploy.log"; rm -f "$PIDFILE"; exit 1; fi
		sleep 0.1; i=$((i + 1))
	done
	grep "ready:" "$DIR/deploy.log"
	echo "try: curl -d '{\"component\":\"App\",\"props\":{\"title\":\"hi\"}}' http://127.0.0.1:9000/render"
	;;
restart)
	running || { echo "not running"; exit 1; }
	n=$(grep -c "rolling restart done" "$DIR/deploy.log" || true)
	kill -HUP "$(cat "$PIDFILE")"
	until [ "$(grep -c "rolling restart done" "$DIR/deploy.log")" -gt "$n" ]; do
		running || { cat "$DIR/deploy.log"; exit 1; }
		sleep 0.2
	done
	echo "rolling restart done"
	;;
stop)
	running || { echo "not running"; rm -f "$PIDFILE"; exit 0; }
	pid=$(cat "$PIDFILE")
	kill -TERM "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
	rm -f "$PIDFILE"
	tail -n 1 "$DIR/deploy.log"
	;;
*)
	echo "usage: $0 start [N] | restart | stop" >&2
	exit 2
	;;
esac
