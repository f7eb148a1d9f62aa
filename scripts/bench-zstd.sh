#!/bin/sh
# bench-zstd.sh puts internal/zstd's decoder beside klauspost's and beside
# `zstd -d -T1` (libzstd on one thread) on the same three corpora of 16
# MiB (text, random, a .pak-like mix), compressed by `zstd -3`, in one run:
#   - the CLI: the median of N runs of `zstd -d -T1 -c FILE > /dev/null`
#     (FILE: the corpus's frame eight times), wall and user+system seconds
#     (GNU time), as MB/s of decoded bytes;
#   - ours and klauspost's: `go test -bench Decode -count N` of
#     internal/zstd, whose medians it prints as MB/s of wall time and of
#     the process's CPU time (stream: io.Copy of a Reader of a plain
#     io.Reader, as of a file; all: DecodeAll into a buffer of the right
#     size).
# The machine's load (uptime) is printed before and after: the figures are
# noisy when other work runs.
#
# Usage: scripts/bench-zstd.sh [runs]   (default 5)
set -eu
cd "$(dirname "$0")/.."
runs=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v zstd >/dev/null || { echo "bench-zstd: the zstd CLI is missing" >&2; exit 1; }

echo "load before: $(uptime)"
ZSTD_BENCH_OUT=$tmp go test -count=1 -run TestWriteBenchCorpora ./internal/zstd >/dev/null
# The CLI decodes each .zst eight times in a row (eight frames, 128 MiB):
# one decode of 16 MiB is too short for time's 10 ms resolution.
for c in text random pak; do
  zstd -q -3 -f "$tmp/$c" -o "$tmp/$c.zst"
  for _ in 1 2 3 4 5 6 7 8; do cat "$tmp/$c.zst"; done >"$tmp/$c.8.zst"
done

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo
echo "zstd -d -T1 ($(zstd --version | sed 's/.*v\([0-9.]*\).*/\1/')), median of $runs:"
for c in text random pak; do
  size=$(( $(wc -c <"$tmp/$c") * 8 ))
  : >"$tmp/wall"; : >"$tmp/cpu"
  i=0
  while [ "$i" -lt "$runs" ]; do
    /usr/bin/time -f '%e %U %S' -o "$tmp/t" zstd -q -d -T1 -c "$tmp/$c.8.zst" >/dev/null
    awk '{print $1}' "$tmp/t" >>"$tmp/wall"
    awk '{print $2+$3}' "$tmp/t" >>"$tmp/cpu"
    i=$((i + 1))
  done
  w=$(median <"$tmp/wall"); u=$(median <"$tmp/cpu")
  awk -v c="$c" -v s="$size" -v w="$w" -v u="$u" 'BEGIN {
    printf "  %-7s wall %.3f s  cpu %.3f s  %7.1f MB/s (wall)  %7.1f MB/s (cpu)\n", c, w, u, s/1e6/(w>0?w:0.001), s/1e6/(u>0?u:0.001) }'
done

echo
echo "go test -bench Decode -count $runs (medians):"
/usr/bin/time -f 'go test: wall %e s, cpu %U+%S s' -o "$tmp/gt" \
  go test -run XXX -bench Decode -benchtime 20x -count "$runs" ./internal/zstd >"$tmp/bench"
awk '/^BenchmarkDecode/ { sub(/-[0-9]+$/, "", $1); n = split($1, p, "/"); key = p[2] "/" p[3] "/" p[4]
  for (i = 1; i < NF; i++) {
    if ($(i+1) == "MB/s") w[key] = w[key] " " $i
    if ($(i+1) == "cpu-MB/s") c[key] = c[key] " " $i
  } }
  END { for (k in w) print k, w[k], "|", c[k] }' "$tmp/bench" | sort | while read -r key rest; do
  wmed=$(echo "${rest%%|*}" | tr ' ' '\n' | grep . | median)
  cmed=$(echo "${rest#*|}" | tr ' ' '\n' | grep . | median)
  printf "  %-26s %8.1f MB/s (wall)  %8.1f MB/s (cpu)\n" "$key" "$wmed" "$cmed"
done
cat "$tmp/gt"
echo "load after: $(uptime)"
