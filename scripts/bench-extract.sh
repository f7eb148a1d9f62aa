#!/bin/bash
# bench-extract.sh puts `forgesync sync` of a 256 MiB pack (half
# incompressible, half text, in 16 content files) side by side with the
# fastest common extractor made durable the same way, in one run:
#   zip, tar.zst:  bsdtar -xf X -C DIR && sync -f DIR
#   7z:            7z x -oDIR X && sync -f DIR
# forgesync's side is the whole intake (claim, unpack in its child, hash,
# validate, flush the files, place, flush the folders, publish) followed by
# the same `sync -f` of the paks folder, so both sides end with the bytes
# on disk. The runs of the two sides alternate, and each cell is the
# median of N runs (default 5):
#   wall   the elapsed seconds; wall ratio is forgesync's over the tool's
#          (targets: zip <= 0.8, tar.zst <= 1.0, 7z <= 1.2);
#   CPU    user + system seconds of the whole process tree (bash's time,
#          to the millisecond, which holds every waited-for descendant:
#          forgesync and its unpacking child; the tool; the sync), and the
#          CPU ratio
#          (target <= 1.3 for every format);
#   machine  the busy time of the whole machine over the same run (user,
#          nice, system, irq and softirq of every processor, from
#          /proc/stat): what a game beside it loses. It holds the
#          kernel's flusher threads, which write back the tool's files
#          when `sync -f` asks, where forgesync writes back its own (paced,
#          in its process) and so pays for it in its own CPU; on an
#          otherwise idle machine this is the fairest of the three;
#   +sha   the tool's CPU plus that of `openssl sha256` of the archive (with
#          the processor's SHA instructions, as Go's), and our CPU over
#          it: forgesync identifies every archive by its SHA-256, which the
#          tools do not compute;
#   m+sha  our machine time over the tool's plus that of `openssl sha256`:
#          both counted, the hash and each side's writeback;
#   peak   the largest resident size of any of forgesync's processes over
#          all runs (target < 64 MiB, plus the dictionary for 7z).
# A fourth row, small.zip, is a pack of many small files (3,000 text files
# of about 1.4 KiB, deflated) against bsdtar: the cost of each file
# (create, flush, place) rather than of decoding.
# A last row unpacks the zip on one processor (GOMAXPROCS=1, for forgesync
# and its child) beside the usual parallel run, to compare their CPU
# (target: parallel costs at most 10% more).
#
# Usage: scripts/bench-extract.sh [runs]
#   FORGESYNC_BENCH_MIB=64 scripts/bench-extract.sh   # a smaller pack (16 files)
#   FORGESYNC_BENCH_BEFORE=9c0668b scripts/bench-extract.sh
#       also runs forgesync as built from that git revision, in turn with
#       this tree's and the tool (before, after, tool, then after, before,
#       tool, ...), and prints its row, marked "before", above each
#       format's: a before and after from one run, on the same machine
#       state.
#   FORGESYNC_BENCH_KEEP=1 scripts/bench-extract.sh
#       deletes nothing (the work folder's path is printed), so that runs
#       one after the other (two trees side by side) do not start on the
#       deletes of the one before (see below); remove the folders after.
#   FORGESYNC_BENCH_FORMATS="7z small.zip" scripts/bench-extract.sh
#       only these rows (of zip, tar.zst, 7z and small.zip), and no
#       one-processor row unless zip is among them.
#   FORGESYNC_BENCH_PROFILE=DIR scripts/bench-extract.sh 1
#       also writes CPU profiles of one more run per format into DIR:
#       FORMAT.parent.pprof (forgesync, from FORGESYNC_CPUPROFILE) and
#       FORMAT.child.pprof (its unpacking child, from
#       FORGESYNC_UNPACK_CPUPROFILE, which only the child reads); read
#       them with `go tool pprof -top DIR/FORMAT.child.pprof`.
# Needs: bash, go, bsdtar, zstd, 7z, openssl, GNU time (/usr/bin/time).
set -eu
cd "$(dirname "$0")/.."
runs="${1:-5}"
mib="${FORGESYNC_BENCH_MIB:-256}"
prof="${FORGESYNC_BENCH_PROFILE:-}"
formats="${FORGESYNC_BENCH_FORMATS:-zip tar.zst 7z small.zip}"
for f in $formats; do
	case "$f" in
	zip | tar.zst | 7z | small.zip) ;;
	*) echo "bench-extract: FORGESYNC_BENCH_FORMATS: no format $f (zip, tar.zst, 7z, small.zip)" >&2; exit 2 ;;
	esac
done
for t in bsdtar zstd 7z openssl /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench-extract: needs $t" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/fsbench.XXXXXX")
if [ -n "${FORGESYNC_BENCH_KEEP:-}" ]; then
	echo "bench-extract: keeping $work (FORGESYNC_BENCH_KEEP)"
else
	trap 'rm -rf "$work"' EXIT
fi
# Built as the release is (Makefile's dist): static, without cgo. With
# cgo the program is linked against libc, and each of its two processes
# spends about a millisecond more loading it.
release_build() { CGO_ENABLED=0 go build -trimpath "$@"; }
release_build -o "$work/forgesync" ./cmd/forgesync
before="${FORGESYNC_BENCH_BEFORE:-}"
if [ -n "$before" ]; then
	mkdir -p "$work/before.src"
	git archive "$before" | tar -x -C "$work/before.src"
	(cd "$work/before.src" && release_build -o "$work/forgesync.before" ./cmd/forgesync)
	rm -rf "$work/before.src"
fi

# The pack (scripts/benchpack.sh): bench.zip, bench.tar.zst and bench.7z.
. scripts/benchpack.sh
bench_pack "$work" "$mib"
bench_small "$work"

# median prints the middle of the numbers on its input (the lower middle
# of an even count).
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Every run, on either side, writes into a new folder, and a format's
# folders are removed once its row is done: deleting thousands of files
# just before a timed run makes ext4 slow to create files for minutes
# after (small.zip: bsdtar's 0.09 s became 0.36 s), whichever side comes
# next. On ext4 without a journal (as some virtual machines' disks are)
# that lasts up to 6 minutes: the inode allocator then skips, with a
# buffer lookup each, every inode deleted in the last 60 s (360 s while
# its block is unwritten). Run this more than 6 minutes after anything
# deleted thousands of files on TMPDIR's file system (an earlier run of
# this script, a test suite), or point TMPDIR at a journaled one.
# The 256 MiB packs' folders (17 files each) are removed as soon as their
# run is timed instead: on a virtual machine that hands free memory back
# to its host, page cache that keeps growing by gigabytes is new memory,
# each page faulted in by the host, and the runs went 2.5 to 3 times
# slower (on both sides) from the fourth round or so of a row on: a median
# then said which side the slowdown began with. Memory freed and taken
# again at once, as a player's machine has it, keeps every run alike.
n=0

# done_with DIR removes the folder of a run once it is timed, for the
# 256 MiB packs (see above), unless FORGESYNC_BENCH_KEEP is set.
done_with() {
	case "$f" in
	small.zip) ;;
	*) [ -n "${FORGESYNC_BENCH_KEEP:-}" ] || rm -rf "$1" ;;
	esac
}

# game makes a new game folder with the FORMAT pack in its drop folder.
game() {
	n=$((n + 1))
	g="$work/game.$n"
	mkdir -p "$g/mods/MJOLNIRForgePacks/drop" "$g/paks"
	printf '[paths]\nmods = "%s"\npaks = "%s"\nstate = "%s"\n[deploy]\nlua = false\nnative = false\n' \
		"$g/mods" "$g/paks" "$g/state" > "$g/f.toml"
	cp "$work/bench.$1" "$g/mods/MJOLNIRForgePacks/drop/"
	sync
}

# timed CMD: runs the shell command CMD and writes "wall cpu rss(KiB)" to
# $work/t: bash's time to the millisecond (GNU time's two decimals were
# a seventh of a small pack's 0.07 s), GNU time for the peak resident
# size of the largest process.
timed() {
	local TIMEFORMAT='%3R %3U %3S'
	{ time /usr/bin/time -f '%M' -o "$work/m" sh -c "$1" ; } 2> "$work/tt"
	echo "$(tail -n 1 "$work/tt") $(tail -n 1 "$work/m")" > "$work/t"
}

# busy prints the machine's busy time so far, in 1/100 s (USER_HZ): user,
# nice, system, irq and softirq of all processors.
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# ours FORMAT [ENV=VALUE [BINARY [TIMES]]]: one run of `forgesync sync`
# (BINARY, default this tree's); appends "wall cpu rss(KiB) machine" to
# TIMES (default ours.times).
ours() {
	game "$1"
	b0=$(busy)
	timed "env ${2:-} '${3:-$work/forgesync}' sync --config '$g/f.toml' >/dev/null; sync -f '$g/paks'"
	if [ ! -f "$g/paks/MJOLNIRForge/bench-pack/random0.pak" ] && [ ! -f "$g/paks/MJOLNIRForge/bench-small/f00000.sig" ]; then
		echo "bench-extract: forgesync did not install the $1 pack:" >&2
		cat "$g"/mods/MJOLNIRForgePacks/drop/rejected/*.txt >&2 || true
		exit 1
	fi
	b1=$(busy)
	awk -v m=$((b1 - b0)) '{ printf "%s %.3f %s %.2f\n", $1, $2 + $3, $4, m / 100 }' "$work/t" >> "${4:-$work/ours.times}"
	done_with "$g"
}

# tool FORMAT: one run of the reference extractor, made durable; appends
# "wall cpu machine".
tool() {
	n=$((n + 1))
	d="$work/out.$n"
	mkdir -p "$d"
	sync
	b0=$(busy)
	if [ "$1" = 7z ]; then
		timed "7z x -bd -bso0 -o'$d' '$work/bench.7z' && sync -f '$d'"
	else
		timed "bsdtar -xf '$work/bench.$1' -C '$d' && sync -f '$d'"
	fi
	b1=$(busy)
	awk -v m=$((b1 - b0)) '{ printf "%s %.3f %.2f\n", $1, $2 + $3, m / 100 }' "$work/t" >> "$work/tool.times"
	done_with "$d"
	timed "openssl sha256 '$work/bench.$1' >/dev/null"
	awk '{ printf "%.3f\n", $2 + $3 }' "$work/t" >> "$work/sha.times"
}

ratio() { echo "$1 $2" | awk '{ printf "%.2f", $1 / $2 }'; }

echo "pack: $mib MiB in 16 files (small.zip: 3,000 files of 1.4 KiB); median of $runs runs each"
printf '%-8s %8s | %9s %8s %6s | %7s %7s %6s | %7s %7s %6s | %7s %6s | %5s | %8s\n' format archive "fs wall" "tool" ratio "fs CPU" "tool" ratio "machine" "tool" ratio "+sha" ratio "m+sha" "peak RSS"
# row LABEL TIMES: a format's row for the runs in TIMES, against the
# tool's runs of the same rounds.
row() {
	ow=$(cut -d' ' -f1 "$2" | median)
	oc=$(cut -d' ' -f2 "$2" | median)
	rss=$(cut -d' ' -f3 "$2" | sort -g | tail -n 1)
	om=$(cut -d' ' -f4 "$2" | median)
	printf '%-8s %4d MiB | %6.3f s %6.3f s %6s | %5.3f s %5.3f s %6s | %5.2f s %5.2f s %6s | %5.3f s %6s | %5s | %4d MiB  (%s)\n' "$1" $((size >> 20)) \
		"$ow" "$tw" "$(ratio "$ow" "$tw")" "$oc" "$tc" "$(ratio "$oc" "$tc")" "$om" "$tm" "$(ratio "$om" "$tm")" "$ts" "$(ratio "$oc" "$ts")" \
		"$(ratio "$om" "$tms")" $((rss >> 10)) "$ref"
}

for f in $formats; do
	size=$(wc -c < "$work/bench.$f")
	: > "$work/ours.times"
	: > "$work/before.times"
	: > "$work/tool.times"
	: > "$work/sha.times"
	r=0
	while [ $r -lt "$runs" ]; do
		# Before and after swap places every round, so that neither
		# always follows the other: on a virtual machine a run's cost
		# moves with the memory it is given and what ran just before (one
		# 7z row once put the same 7z code 15% apart).
		if [ -n "$before" ] && [ $((r % 2)) = 0 ]; then
			ours "$f" "" "$work/forgesync.before" "$work/before.times"
			ours "$f"
		elif [ -n "$before" ]; then
			ours "$f"
			ours "$f" "" "$work/forgesync.before" "$work/before.times"
		else
			ours "$f"
		fi
		tool "$f"
		r=$((r + 1))
	done
	tw=$(cut -d' ' -f1 "$work/tool.times" | median)
	tc=$(cut -d' ' -f2 "$work/tool.times" | median)
	tm=$(cut -d' ' -f3 "$work/tool.times" | median)
	ts=$(echo "$tc $(median < "$work/sha.times")" | awk '{ printf "%.3f", $1 + $2 }')
	tms=$(echo "$tm $(median < "$work/sha.times")" | awk '{ printf "%.3f", $1 + $2 }')
	ref=bsdtar
	[ "$f" = 7z ] && ref="7z x"
	[ -z "$before" ] || row before "$work/before.times"
	row "$f" "$work/ours.times"
	if [ -n "$prof" ]; then
		mkdir -p "$prof"
		game "$f"
		FORGESYNC_CPUPROFILE="$prof/$f.parent.pprof" FORGESYNC_UNPACK_CPUPROFILE="$prof/$f.child.pprof" \
			"$work/forgesync" sync --config "$g/f.toml" >/dev/null
	fi
	[ -n "${FORGESYNC_BENCH_KEEP:-}" ] || rm -rf "$work"/game.* "$work"/out.*
done

# Parallel against serial: the zip on all processors and on one, runs
# alternating.
case " $formats " in
*" zip "*)
	: > "$work/ours.times"
	f=zip # done_with's format
	r=0
	while [ $r -lt "$runs" ]; do
		ours zip
		ours zip GOMAXPROCS=1
		r=$((r + 1))
	done
	pc=$(awk 'NR % 2 == 1 { print $2 }' "$work/ours.times" | median)
	pw=$(awk 'NR % 2 == 1 { print $1 }' "$work/ours.times" | median)
	sc=$(awk 'NR % 2 == 0 { print $2 }' "$work/ours.times" | median)
	sw=$(awk 'NR % 2 == 0 { print $1 }' "$work/ours.times" | median)
	printf 'zip on all processors: %.2f s wall, %.2f CPU-s; on one: %.2f s wall, %.2f CPU-s; CPU parallel/serial %s\n' \
		"$pw" "$pc" "$sw" "$sc" "$(ratio "$pc" "$sc")"
	;;
esac
