#!/usr/bin/env bash
# loaded-live.sh: the live suite under load (issue 12's bar).
#
# Builds replaylab, keeps both cores busy with `stress-ng --cpu 2`, runs the
# whole live suite RUNS times (default 5) with
#   replaylab run --driver browser --concurrency CONC --format progress
# (CONC default 8), prints one table row per run (scenarios, passed, failed,
# golden drift = distinct "golden trace drift for …" scenarios, wall
# seconds, load average at the end of the run), then stops stress-ng and
# runs the replay suite once: 0 failures there and 0 drift live mean every
# live trace equals its golden and every replayed trace equals it too, byte
# for byte (the golden comparison is bytes.Equal).
#
#   scripts/loaded-live.sh                       # 5 runs, logs in ${TMPDIR:-/tmp}/replaylab-loaded
#   RUNS=1 CONC=4 OUT=/tmp/x scripts/loaded-live.sh features/site.feature
#   LOCK="${TMPDIR:-/tmp}/replaylab-stress.lock" scripts/loaded-live.sh   # hold a lock other load runs share while stressing
#
# LOCK (default: none) is a directory the script creates while it stresses
# the machine and removes at the end; another run given the same LOCK
# refuses to start while it exists. A relative LOCK is taken from the
# directory the script was started in. LOCK_WHO (default: $USER) is written
# into it, so a refused run can say who holds it.
#
# Arguments are passed to `replaylab run` (features, lines); none: the whole
# suite. Exit status: 0 every run passed with no drift, 1 otherwise, 2 the
# build, the lock or stress-ng failed. Needs Chromium and stress-ng.
set -u
LOCK=${LOCK:-}
case "$LOCK" in
"" | /*) ;;
*) LOCK="$PWD/$LOCK" ;;
esac
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
CONC=${CONC:-8}
OUT=${OUT:-${TMPDIR:-/tmp}/replaylab-loaded}
STRESS_TIMEOUT=${STRESS_TIMEOUT:-900s}
mkdir -p "$OUT"
go build -o "$OUT/replaylab" ./cmd/replaylab || exit 2
command -v stress-ng >/dev/null || { echo "loaded-live: stress-ng is not installed" >&2; exit 2; }

if [ -n "$LOCK" ]; then
	if ! mkdir "$LOCK" 2>/dev/null; then
		echo "loaded-live: $LOCK is held by $(cat "$LOCK/who" 2>/dev/null)" >&2
		exit 2
	fi
	echo "${LOCK_WHO:-${USER:-loaded-live}}" >"$LOCK/who"
fi
SPID=
cleanup() {
	if [ -n "$SPID" ]; then
		kill "$SPID" 2>/dev/null
		wait "$SPID" 2>/dev/null
		SPID=
	fi
	if [ -n "$LOCK" ] && [ -d "$LOCK" ]; then
		rm -f "$LOCK/who"
		rmdir "$LOCK"
	fi
}
trap cleanup EXIT
stress-ng --cpu 2 --timeout "$STRESS_TIMEOUT" >"$OUT/stress.log" 2>&1 &
SPID=$!
sleep 2
kill -0 "$SPID" 2>/dev/null || { echo "loaded-live: stress-ng did not start ($OUT/stress.log)" >&2; exit 2; }

bad=0
printf '| run | scenarios | passed | failed | golden drift | wall s | load (1 min) |\n|---|---|---|---|---|---|---|\n'
for i in $(seq 1 "$RUNS"); do
	log="$OUT/run-$i.log"
	start=$(date +%s.%N)
	"$OUT/replaylab" run --driver browser --concurrency "$CONC" --format progress "$@" >"$log" 2>&1
	rc=$?
	end=$(date +%s.%N)
	sum=$(grep -E '^[0-9]+ scenarios \(' "$log" | tail -1)
	total=$(echo "$sum" | sed -E 's/^([0-9]+) scenarios.*/\1/')
	passed=$(echo "$sum" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || true)
	failed=$(echo "$sum" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+' || true)
	drift=$(grep -oE 'golden trace drift for [^;]+' "$log" | sort -u | wc -l)
	load=$(cut -d' ' -f1 /proc/loadavg)
	printf '| %d | %s | %s | %s | %d | %.0f | %s |\n' "$i" "${total:-?}" "${passed:-0}" "${failed:-0}" "$drift" "$(echo "$end - $start" | bc)" "$load"
	if [ "$rc" -ne 0 ] || [ "${failed:-0}" != 0 ] || [ "$drift" -ne 0 ]; then
		bad=1
		grep -E 'Scenario.*features/|Error:' "$log" | head -20 | sed 's/^/    /'
	fi
done
cleanup
"$OUT/replaylab" run "$@" >"$OUT/replay.log" 2>&1
rc=$?
echo "replay suite (no load): $(grep -E '^[0-9]+ scenarios \(' "$OUT/replay.log" | tail -1), exit $rc"
[ "$rc" -eq 0 ] || bad=1
exit "$bad"
