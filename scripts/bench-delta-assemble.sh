#!/bin/sh
# bench-delta-assemble.sh puts rebuilding a pack from its older version
# plus the new chunks (issue 25) side by side with `sha256sum` of the same
# new file, in one run. cmd/deltaassemble prepares v1 (200 MiB of random
# bytes) and v2 (v1 with 1 MiB inserted, 2 MiB overwritten and 512 KiB
# appended), their chunk indexes, and a chunk store holding only v2's chunks
# that v1's index lacks; it prints how many bytes those are (new_bytes: what
# a host would fetch). Each run then times, alternating and with both files
# in the page cache:
#   sha256sum v2
#   deltaassemble assemble, as sets/fetch rebuilds an archive: read both
#   indexes; every chunk of v2 from the seed v1, read, or from the store,
#   decompressed and checked against its SHA-512/256 id; written into a
#   new file and hashed as written, the seed's chunks checked by the whole
#   file's SHA-256 (and each one only when that is wrong)
#   deltaassemble assemble ... checked, as hosts did until 2026-12-07:
#   each seed chunk checked against its id, then the file read back and
#   hashed (the "checked" row)
# and checks that the rebuilt file is v2. It reports the medians over N runs
# (default 5) of wall seconds and CPU seconds (user + system) of each side,
# the median of the per-run ratios assemble/sha256sum (target <= 1.5) and
# checked/assemble (how much faster the rebuild is than before), and the
# peak resident size of the assembling process (target <= 64 MiB).
# coreutils' sha256sum may not use the processor's SHA instructions; where
# openssl is installed, `openssl dgst -sha256 v2` (which does) runs in each
# round too, as a stricter reference with its own ratios.
#
# Usage: scripts/bench-delta-assemble.sh [runs]
#   FORGESYNC_BENCH_MIB=64 scripts/bench-delta-assemble.sh 3   # a smaller pack
#   FORGESYNC_BENCH_WORKERS=1 scripts/bench-delta-assemble.sh   # one chunk at a
#       time (Assemble's Parallel; default 4): seed chunks checked serially
# The Go benchmark beside it (in-process, no RSS):
#   go test -run XXX -bench BenchmarkAssembleDelta -benchtime 3x ./sets/casync
# Needs: go, sha256sum, GNU time (/usr/bin/time).
set -eu
cd "$(dirname "$0")/.."
runs="${1:-5}"
mib="${FORGESYNC_BENCH_MIB:-200}"
workers="${FORGESYNC_BENCH_WORKERS:-4}"
for t in sha256sum /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench-delta-assemble: needs $t" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/fsdelta.XXXXXX")
trap 'rm -rf "$work"' EXIT
go build -o "$work/deltaassemble" ./cmd/deltaassemble
mkdir "$work/data"
echo "prepare: $("$work/deltaassemble" prepare "$work/data" "$mib")"
want=$(sha256sum < "$work/data/v2" | cut -d' ' -f1)
cat "$work/data/v1" "$work/data/v2" > /dev/null

# timed FILE CMD...: runs CMD under GNU time, appending "wall cpu maxrss_kb"
# to FILE.
timed() {
	out=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$work/t" "$@" > "$work/stdout"
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/t" >> "$out"
}

ossl=$(command -v openssl || true)
i=0
while [ $i -lt "$runs" ]; do
	timed "$work/sha" sha256sum "$work/data/v2"
	[ -z "$ossl" ] || timed "$work/ossl" "$ossl" dgst -sha256 "$work/data/v2"
	# The two ways of rebuilding swap places every round.
	for mode in $( [ $((i % 2)) = 0 ] && echo "asm chk" || echo "chk asm"); do
		rm -f "$work/out"
		if [ "$mode" = asm ]; then
			timed "$work/asm" "$work/deltaassemble" assemble "$work/data" "$work/out" "$workers"
		else
			timed "$work/chk" "$work/deltaassemble" assemble "$work/data" "$work/out" "$workers" checked
		fi
		[ $i -eq 0 ] && echo "$mode: $(cat "$work/stdout")"
		got=$(sha256sum < "$work/out" | cut -d' ' -f1)
		[ "$got" = "$want" ] || { echo "bench-delta-assemble: run $i ($mode) rebuilt a file that is not v2" >&2; exit 1; }
	done
	i=$((i + 1))
done

# median FILE COLUMN
median() {
	cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# ratios REF OUT [SIDE]: the per-run ratios SIDE/REF (SIDE: assemble's
# times by default) of wall and CPU.
ratios() {
	paste -d' ' "${3:-$work/asm}" "$1" | awk '{ printf "%.3f %.3f\n", ($4 > 0 ? $1 / $4 : 0), ($5 > 0 ? $2 / $5 : 0) }' > "$2"
}
ratios "$work/sha" "$work/ratio"
peak=$(cut -d' ' -f3 "$work/asm" | sort -n | tail -1)
shapeak=$(cut -d' ' -f3 "$work/sha" | sort -n | tail -1)
printf '%-10s %8s %8s %10s\n' side wall_s cpu_s peak_MiB
printf '%-10s %8s %8s %10s\n' sha256sum "$(median "$work/sha" 1)" "$(median "$work/sha" 2)" "$((shapeak / 1024))"
[ -z "$ossl" ] || printf '%-10s %8s %8s %10s\n' openssl "$(median "$work/ossl" 1)" "$(median "$work/ossl" 2)" "$(($(cut -d' ' -f3 "$work/ossl" | sort -n | tail -1) / 1024))"
printf '%-10s %8s %8s %10s\n' assemble "$(median "$work/asm" 1)" "$(median "$work/asm" 2)" "$((peak / 1024))"
printf '%-10s %8s %8s %10s\n' checked "$(median "$work/chk" 1)" "$(median "$work/chk" 2)" "$(($(cut -d' ' -f3 "$work/chk" | sort -n | tail -1) / 1024))"
echo "workers: $workers"
echo "median ratio assemble/sha256sum over $runs runs: wall $(median "$work/ratio" 1) (target <= 1.5), cpu $(median "$work/ratio" 2)"
if [ -n "$ossl" ]; then
	ratios "$work/ossl" "$work/oratio"
	echo "median ratio assemble/openssl-sha256 over $runs runs: wall $(median "$work/oratio" 1), cpu $(median "$work/oratio" 2)"
fi
ratios "$work/asm" "$work/cratio" "$work/chk"
echo "median ratio checked/assemble over $runs runs: wall $(median "$work/cratio" 1), cpu $(median "$work/cratio" 2) (above 1: the rebuild is that much faster than before)"
echo "peak RSS of assemble: $((peak / 1024)) MiB (target <= 64)"
