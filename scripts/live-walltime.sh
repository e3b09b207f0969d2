#!/usr/bin/env bash
# live-walltime.sh: the live suite's wall time at a git revision BEFORE
# and in this checkout, in alternating runs (before, after, before, after,
# …) so a change of the machine's load during the call hits both alike;
# each run's wall time, the medians and the after/before ratio of the
# medians are printed.
#
# "before" is a build of BEFORE (required: any revision git names here, a
# branch, a tag, HEAD~3) in a git worktree under $OUT, checked out afresh
# at BEFORE on every call; "after" is this checkout.
# Both run `replaylab run --driver browser --concurrency CONC` (default 8)
# on the feature files both trees have (same file name), each in its own
# tree (its own goldens and sessions). A run that fails still counts: the
# figure is the wall time; the failures are printed after the table.
#
#   BEFORE=main scripts/live-walltime.sh            # RUNS=3, OUT=/tmp/replaylab-walltime
#   BEFORE=HEAD~5 RUNS=5 CONC=4 scripts/live-walltime.sh
#   BEFORE=$(git log --format=%H --grep='^clock: engine/clock' -1)^ scripts/live-walltime.sh   # without the lab clock
#
# Take the figures on a quiet machine (1-minute load average below ~3).
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
CONC=${CONC:-8}
if [ -z "${BEFORE:-}" ]; then
	echo "usage: BEFORE=REV $0  (REV: the revision to compare this checkout with, e.g. main or HEAD~3)" >&2
	exit 2
fi
rev=$(git rev-parse --verify --quiet "$BEFORE^{commit}") || {
	echo "live-walltime.sh: BEFORE=$BEFORE is no revision of this clone" >&2
	exit 2
}
OUT=${OUT:-/tmp/replaylab-walltime}
after=$(pwd)
before="$OUT/before"
mkdir -p "$OUT"
if [ -d "$before" ]; then
	git -C "$before" checkout -q --detach "$rev"
else
	git worktree add --quiet --detach "$before" "$rev"
fi
echo "before: $BEFORE ($(git log --format='%h %s' -1 "$rev" | cut -c1-72))"
(cd "$before" && go build -o "$OUT/replaylab-before" ./cmd/replaylab)
go build -o "$OUT/replaylab-after" ./cmd/replaylab
features=""
for f in features/*.feature; do
	[ -f "$before/$f" ] && features="$features $f"
done
echo "features in both trees:$features"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # name dir binary
	local t0 t1
	t0=$(date +%s.%N)
	(cd "$2" && "$3" run --driver browser --concurrency "$CONC" $features >>"$OUT/$1.log" 2>&1) || true
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}
: >"$OUT/before.log"
: >"$OUT/after.log"
: >"$OUT/times.txt"
for i in $(seq 1 "$RUNS"); do
	b=$(run before "$before" "$OUT/replaylab-before")
	a=$(run after "$after" "$OUT/replaylab-after")
	printf '%d before %.1f after %.1f load %s\n' "$i" "$b" "$a" "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT/times.txt"
done
median() { sort -n | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
mb=$(awk '{print $3}' "$OUT/times.txt" | median)
ma=$(awk '{print $5}' "$OUT/times.txt" | median)
printf 'median wall: before %.1f s, after %.1f s, after/before %.2f\n' "$mb" "$ma" "$(echo "$ma / $mb" | bc -l)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
for s in before after; do
	echo "$s: $(grep -E '^[0-9]+ scenarios \(' "$OUT/$s.log" | tr '\n' ';')"
done
