#!/bin/sh
# bench-replay.sh [RUNS] [-- RUN-FLAGS…]: the wall time of the replay
# suite with default flags (or the flags given after --), RUNS times
# (default 3), and its median, with the load average before and after.
# Figures from a loaded machine are not comparable with a quiet one: say
# the load average next to any figure you quote.
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
i=1
while [ "$i" -le "$runs" ]; do
	start=$(date +%s.%N)
	if ! "$tmp/replaylab" run --format progress "$@" >"$tmp/out" 2>&1; then
		tail -20 "$tmp/out"
		echo "run $i failed" >&2
		exit 1
	fi
	end=$(date +%s.%N)
	t=$(echo "$end - $start" | bc)
	echo "$t" >>"$tmp/times"
	printf 'run %d: %.2f s  (%s)\n' "$i" "$t" "$(grep -E '^[0-9]+ scenarios' "$tmp/out" | head -1)"
	i=$((i + 1))
done
printf 'median of %d: %.2f s\n' "$runs" "$(sort -n "$tmp/times" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
