#!/usr/bin/env bash
# live-walltime.sh: the live suite's wall time before and after the lab
# clock, timed with hyperfine (alternating runs of the two commands).
#
# "before" is a build of BEFORE (default 656ce42^, the commit before the
# lab clock landed) in a git worktree under $OUT; "after" is this checkout.
# Both run `replaylab run --driver browser --concurrency CONC` (default 8)
# on the feature files both trees have (same file name), each in its own
# tree (its own goldens and sessions). A run that fails still counts: the
# figure is the wall time; the failures are printed after the table.
#
#   scripts/live-walltime.sh                  # RUNS=3, OUT=/tmp/replaylab-walltime
#   RUNS=5 CONC=4 scripts/live-walltime.sh
#
# Take the figures on a quiet machine (1-minute load average below ~3).
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
CONC=${CONC:-8}
BEFORE=${BEFORE:-656ce42^}
OUT=${OUT:-/tmp/replaylab-walltime}
after=$(pwd)
before="$OUT/before"
mkdir -p "$OUT"
command -v hyperfine >/dev/null || { echo "live-walltime: hyperfine is not installed" >&2; exit 2; }
if [ ! -d "$before" ]; then
	git worktree add --detach "$before" "$BEFORE" >/dev/null
fi
(cd "$before" && go build -o "$OUT/replaylab-before" ./cmd/replaylab)
go build -o "$OUT/replaylab-after" ./cmd/replaylab
features=""
for f in features/*.feature; do
	[ -f "$before/$f" ] && features="$features $f"
done
echo "features in both trees:$features"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
hyperfine --runs "$RUNS" --warmup 0 -i --export-markdown "$OUT/walltime.md" \
	-n before "sh -c 'cd $before && exec $OUT/replaylab-before run --driver browser --concurrency $CONC$features >>$OUT/before.log 2>&1'" \
	-n after "sh -c 'cd $after && exec $OUT/replaylab-after run --driver browser --concurrency $CONC$features >>$OUT/after.log 2>&1'"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$OUT/walltime.md"
for s in before after; do
	echo "$s: $(grep -E '^[0-9]+ scenarios \(' "$OUT/$s.log" | tr '\n' ';')"
done
