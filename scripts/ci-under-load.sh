#!/usr/bin/env bash
# ci-under-load.sh: the CI job (.ci/run) on a clean clone while the machine
# is busy (issue 40's bar: a gate that holds under load).
#
# Clones the current HEAD (committed work only) into a temporary
# directory, copies the shared docs beside it as CI has them (shared/),
# starts BUSY shell busy loops (default 4: two per core on a 2-core
# machine), and runs .ci/run there, bounded by TIMEOUT. It prints the load
# average when the run starts, every INTERVAL seconds while it runs, and
# at the end, with the least, mean and greatest 1-minute load it ran at.
# The busy loops, the monitor and the clone are removed on exit, on
# Ctrl-C and on TERM.
#
#   scripts/ci-under-load.sh                     # 4 busy loops, 40 min at most
#   BUSY=6 TIMEOUT=45m scripts/ci-under-load.sh
#   KEEP=1 OUT=/tmp/ci1 scripts/ci-under-load.sh # keep the clone to look at
#
# Settings: BUSY (busy loops, default 4), TIMEOUT (timeout(1) duration,
# default 40m), INTERVAL (seconds between load lines, default 60), OUT
# (logs: ci.log and load.log, default /tmp/replaylab-ci-under-load),
# SHARED (the shared docs to copy, default ../shared of the checkout, if
# there), KEEP=1 keeps the clone. Runs as root, as CI does (.ci/run
# installs packages with apt-get). Exit status: .ci/run's (124 when
# TIMEOUT cut it), 2 when the clone or the set-up failed.
set -u
cd "$(dirname "$0")/.."
repo=$(pwd)
BUSY=${BUSY:-4}
TIMEOUT=${TIMEOUT:-40m}
INTERVAL=${INTERVAL:-60}
OUT=${OUT:-/tmp/replaylab-ci-under-load}
SHARED=${SHARED:-$repo/../shared}
KEEP=${KEEP:-}

die() {
	echo "ci-under-load: $*" >&2
	exit 2
}
case $BUSY in '' | *[!0-9]*) die "BUSY=$BUSY: want a whole number of busy loops" ;; esac
case $INTERVAL in '' | *[!0-9]* | 0) die "INTERVAL=$INTERVAL: want whole seconds, at least 1" ;; esac
[ "$(id -u)" -eq 0 ] || die "run as root, as CI does (.ci/run installs with apt-get): sudo $0"
mkdir -p "$OUT" || die "cannot create $OUT"

tmp=$(mktemp -d /tmp/replaylab-ci-under-load.XXXXXX) || die "mktemp failed"
busy=()
mon=
ci=
cleanup() {
	trap - EXIT INT TERM
	[ -n "$ci" ] && kill "$ci" 2>/dev/null
	for p in "${busy[@]}"; do
		kill "$p" 2>/dev/null
	done
	[ -n "$mon" ] && kill "$mon" 2>/dev/null
	wait 2>/dev/null
	if [ -z "$KEEP" ]; then
		rm -rf "$tmp"
	else
		echo "ci-under-load: clone kept in $tmp/replaylab"
	fi
}
trap cleanup EXIT
trap 'echo "ci-under-load: interrupted" >&2; exit 130' INT TERM

head=$(git rev-parse HEAD) || die "not a git checkout"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	echo "ci-under-load: uncommitted changes are not in the clone (it is HEAD $head)" >&2
git clone -q "$repo" "$tmp/replaylab" || die "git clone failed"
git -C "$tmp/replaylab" checkout -q --detach "$head" || die "checkout $head failed"
if [ -d "$SHARED" ]; then
	cp -RL "$SHARED" "$tmp/shared" || die "copying $SHARED failed"
fi

load() { cut -d' ' -f1-3 /proc/loadavg; }
: >"$OUT/load.log"
sample() { # prints and records one load line
	local l
	l=$(load)
	echo "$l" | cut -d' ' -f1 >>"$OUT/load.log"
	printf '%s %-7s load average %s\n' "$(date -u +%H:%M:%S)" "$1" "$l"
}

for _ in $(seq 1 "$BUSY"); do
	(while :; do :; done) &
	busy+=($!)
done
echo "ci-under-load: HEAD $head, $BUSY busy loops on $(nproc) cores, at most $TIMEOUT; log $OUT/ci.log"
sample start
(
	while sleep "$INTERVAL"; do
		sample during
	done
) &
mon=$!

start=$(date +%s)
timeout --kill-after=60s "$TIMEOUT" "$tmp/replaylab/.ci/run" >"$OUT/ci.log" 2>&1 &
ci=$!
wait "$ci"
rc=$?
ci=
took=$(($(date +%s) - start))
kill "$mon" 2>/dev/null
wait "$mon" 2>/dev/null
mon=
sample end
awk -v rc="$rc" -v took="$took" '
	NR == 1 || $1 < lo { lo = $1 }
	NR == 1 || $1 > hi { hi = $1 }
	{ sum += $1 }
	END { printf "ci-under-load: exit %d after %d s; 1-minute load least %.1f, mean %.1f, greatest %.1f over %d samples\n", rc, took, lo, sum / NR, hi, NR }
' "$OUT/load.log"
if [ "$rc" -ne 0 ]; then
	[ "$rc" -eq 124 ] && echo "ci-under-load: .ci/run was cut at $TIMEOUT"
	grep -E '^(--- FAIL|FAIL|panic:)|^==|WARNING: DATA RACE' "$OUT/ci.log" | tail -30 | sed 's/^/    /'
fi
exit "$rc"
