#!/usr/bin/env bash
# Compares the C benchmark of two versions of forge_doors_runtime.h on the
# same machine in one run: builds forge_doors_bench.c (this tree's) against
# the header at git revision BASE (default main) and against this tree's,
# runs them alternately RUNS times (default 3), and prints each figure's
# runs, the median of their medians, and the ratio after/before.
# Usage: native/lobby/bench-ab.sh [RUNS] [BASE]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
runs="${1:-3}"
base="${2:-main}"
cc="${CC:-cc}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
. "$here/ab-build.sh"
ab_build "$here" "$out" "$base" "$cc"
for i in $(seq "$runs"); do
  for v in before after; do
    # the bench exits 1 when a target is missed; the figures still count
    "$out/$v/bench" | sed "s/^/$v /" || true
  done
done >"$out/all.txt"
awk '$2 != "" && $3 == "median" {
       runs[$2 " " $1] = runs[$2 " " $1] " " $4
     }
     END { for (k in runs) print k, runs[k] }' "$out/all.txt" | sort |
  while read -r name v rest; do
    med=$(printf '%s\n' $rest | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    echo "$name $v $med $rest"
  done |
  awk '{ printf "%-12s %-6s median of medians %8.2f us   runs:", $1, $2, $3
         for (i = 4; i <= NF; i++) printf " %s", $i
         printf "\n"
         m[$1 " " $2] = $3; names[$1] = 1 }
       END { for (n in names) printf "%-12s after/before %.3f\n", n, m[n " after"] / m[n " before"] }'
