#!/bin/sh
# bench-replay.sh [RUNS] [-- RUN-FLAGS…]: the wall time and the CPU time
# (user + sys, the run and every process it starts) of the replay suite
# with default flags (or the flags given after --), RUNS times (default
# 3), and their medians, with the load average before and after. Wall
# figures from a loaded machine are not comparable with a quiet one: say
# the load average next to any figure you quote. CPU time barely moves
# with the load; on a quiet machine with N cores the wall time is about
# the CPU time ÷ N plus what the scenarios wait. CPU time needs GNU time
# (/usr/bin/time, Debian package time); without it only wall is shown.
#
#   scripts/bench-replay.sh            # 3 runs, default flags
#   scripts/bench-replay.sh 5 -- --concurrency 1
set -eu
runs=3
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
	runs=$1
	shift
fi
[ "${1:-}" = "--" ] && shift
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/replaylab" ./cmd/replaylab
echo "cpus $(getconf _NPROCESSORS_ONLN)  flags: ${*:-(defaults)}"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
run_once() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$tmp/cpu1" "$tmp/replaylab" run --format progress "$@"
	else
		"$tmp/replaylab" run --format progress "$@"
	fi
}
i=1
while [ "$i" -le "$runs" ]; do
	start=$(date +%s.%N)
	if ! run_once "$@" >"$tmp/out" 2>&1; then
		tail -20 "$tmp/out"
		echo "run $i failed" >&2
		exit 1
	fi
	end=$(date +%s.%N)
	t=$(echo "$end - $start" | bc)
	echo "$t" >>"$tmp/times"
	cpu=""
	if [ -s "$tmp/cpu1" ]; then
		c=$(awk '{print $1 + $2}' "$tmp/cpu1")
		echo "$c" >>"$tmp/cpus"
		cpu=$(printf ', cpu %.2f s' "$c")
	fi
	printf 'run %d: wall %.2f s%s  (%s)\n' "$i" "$t" "$cpu" "$(grep -E '^replaylab: [0-9]+ scenarios' "$tmp/out" | head -1)"
	i=$((i + 1))
done
median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf 'median of %d: wall %.2f s\n' "$runs" "$(median "$tmp/times")"
[ ! -s "$tmp/cpus" ] || printf 'median of %d: cpu %.2f s (user + sys)\n' "$runs" "$(median "$tmp/cpus")"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
