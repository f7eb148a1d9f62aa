#!/usr/bin/env bash
# Counts the instructions of the door runtime's hot paths for two versions
# of forge_doors_runtime.h, under valgrind's callgrind (an instruction
# count does not move with the machine's load, unlike bench-ab.sh's
# times): builds forge_doors_bench.c (this tree's) against the header at
# git revision BASE (default main) and against this tree's, runs each
# figure N times (default 50) and once with no work, and prints the
# instructions of one run of each figure and the ratio after/before.
# Usage: native/lobby/callgrind-ab.sh [N] [BASE]
# Needs valgrind.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
n="${1:-50}"
base="${2:-main}"
cc="${CC:-cc}"
command -v valgrind >/dev/null || { echo "callgrind-ab: needs valgrind" >&2; exit 2; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
. "$here/ab-build.sh"
ab_build "$here" "$out" "$base" "$cc"
# refs BIN FIGURE COUNT: the instructions callgrind counts for the run.
refs() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" "$2" "$3" 2>&1 |
    awk '/Collected/ { gsub(",", "", $NF); print $NF }'
}
for fig in parse parse-17dig parse+bind scan+step; do
  for v in before after; do
    zero=$(refs "$out/$v/bench" "$fig" 0)
    many=$(refs "$out/$v/bench" "$fig" "$n")
    echo "$fig $v $(( (many - zero) / n ))"
  done
done | awk '{ printf "%-12s %-6s %10d instructions per run\n", $1, $2, $3
              c[$1 " " $2] = $3; names[$1] = 1 }
            END { for (f in names) printf "%-12s after/before %.3f\n", f, c[f " after"] / c[f " before"] }'
