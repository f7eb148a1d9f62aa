#!/bin/sh
# bench-frames.sh measures what installing costs a game running beside it
# (issue 24). A stand-in game (cmd/framegame: a 60 Hz loop doing 8 ms
# of processor work per frame on one thread) plays alone, then through N
# installs one after the other (default 4, so that a p99 is not just the
# worst frame: one install of 256 MiB lasts about 50 frames) of the pack of
# scripts/bench-extract.sh, in each format:
#   alone       the game by itself for 5 s;
#   reference   the reference extractor (bsdtar -xf; 7z x) at the lowest
#               priority there is (chrt --idle, nice 19, ionice -c3), then
#               sync -f: what writing these bytes costs the game on this
#               machine whoever unpacks them;
#   background  forgesync sync with [performance] priority = "background"
#               (the default), then sync -f;
#   normal      the same with priority = "normal".
# Each row gives the game's frame times (p50, p99, max, in ms; late =
# frames whose work overran 16.7 ms), the wall and CPU seconds of the
# installs (forgesync and its child, or the tool), the seconds the
# hypervisor stole from this machine's processors meanwhile (/proc/stat;
# on a virtual machine a busy host costs frames no program here causes),
# and the p99 over the p99 of the "alone" row of its format (goal with
# background: <= 1.10). The installs' archives are put in place before the
# game starts, so only the installs run beside it.
#
# Usage: scripts/bench-frames.sh [MiB] [N]
# Needs: go, bsdtar, zstd, 7z, chrt, ionice, GNU time (/usr/bin/time).
set -eu
cd "$(dirname "$0")/.."
mib="${1:-256}"
n="${2:-4}"
for t in bsdtar zstd 7z chrt ionice /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench-frames: needs $t" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/fsframes.XXXXXX")
game=
trap '[ -n "$game" ] && kill "$game" 2>/dev/null; rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$work/forgesync" ./cmd/forgesync # as the release is built
go build -o "$work/framegame" ./cmd/framegame
. scripts/benchpack.sh
bench_pack "$work" "$mib"
iters=$("$work/framegame" -calibrate)
hz=$(getconf CLK_TCK)

# field NAME LINE: the value of NAME=... in a framegame report.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# steal: the clock ticks stolen from this machine so far.
steal() { awk '/^cpu / { print $9 }' /proc/stat; }

# row LABEL PRIORITY WALL/CPU STEAL REPORT [ALONE-P99]
row() {
	ratio=-
	[ -n "${6:-}" ] && ratio=$(echo "$(field p99 "$5") $6" | awk '{ printf "%.2f", $1 / $2 }')
	printf '%-8s %-10s %9s %6s %7s %7s %7s %5s %6s\n' "$1" "$2" "$3" "$4" "$(field p50 "$5")" "$(field p99 "$5")" \
		"$(field max "$5")" "$(field late "$5")" "$ratio"
}

# prepare FORMAT PRIORITY: N game folders, each with the pack in its drop
# folder (or N empty folders for the reference tool).
prepare() {
	i=1
	while [ "$i" -le "$n" ]; do
		g="$work/game$i"
		rm -rf "$g"
		mkdir -p "$g/mods/MJOLNIRForgePacks/drop" "$g/paks" "$g/out"
		printf '[paths]\nmods = "%s"\npaks = "%s"\nstate = "%s"\n[deploy]\nlua = false\nnative = false\n[performance]\npriority = "%s"\n' \
			"$g/mods" "$g/paks" "$g/state" "$2" > "$g/f.toml"
		[ "$2" = reference ] || cp "$work/bench.$1" "$g/mods/MJOLNIRForgePacks/drop/"
		i=$((i + 1))
	done
	sync
	sleep 1
}

# installs FORMAT PRIORITY: the N installs, one after the other, as one
# shell script for GNU time.
installs() {
	i=1
	while [ "$i" -le "$n" ]; do
		g="$work/game$i"
		if [ "$2" = reference ]; then
			if [ "$1" = 7z ]; then
				echo "chrt --idle 0 nice -n 19 ionice -c3 7z x -bd -bso0 '-o$g/out' '$work/bench.7z' >/dev/null"
			else
				echo "chrt --idle 0 nice -n 19 ionice -c3 bsdtar -xf '$work/bench.$1' -C '$g/out'"
			fi
			echo "sync -f '$g/out'"
		else
			echo "'$work/forgesync' sync --config '$g/f.toml' >/dev/null"
			echo "sync -f '$g/paks'"
		fi
		i=$((i + 1))
	done > "$work/installs.sh"
}

printf '%-8s %-10s %9s %6s %7s %7s %7s %5s %6s\n' format priority "wall/cpu" steal p50 p99 max late p99/alone
for f in zip tar.zst 7z; do
	s0=$(steal)
	alone=$("$work/framegame" -iters "$iters" -for 5s)
	row "$f" alone - "$(echo "$s0 $(steal) $hz" | awk '{ printf "%.2f", ($2 - $1) / $3 }')" "$alone"
	for p in reference background normal; do
		prepare "$f" "$p"
		installs "$f" "$p"
		"$work/framegame" -iters "$iters" > "$work/frames" &
		game=$!
		s0=$(steal)
		/usr/bin/time -f '%e %U %S' -o "$work/t" sh "$work/installs.sh"
		s1=$(steal)
		kill -INT "$game"
		wait "$game" || true
		game=
		if [ "$p" != reference ] && [ ! -f "$work/game$n/paks/MJOLNIRForge/bench-pack/random0.pak" ]; then
			echo "bench-frames: forgesync did not install the $f pack:" >&2
			cat "$work/game$n"/mods/MJOLNIRForgePacks/drop/rejected/*.txt >&2 || true
			exit 1
		fi
		row "$f" "$p" "$(awk '{ printf "%.1f/%.1f", $1, $2 + $3 }' "$work/t")" \
			"$(echo "$s0 $s1 $hz" | awk '{ printf "%.2f", ($2 - $1) / $3 }')" "$(cat "$work/frames")" "$(field p99 "$alone")"
	done
	rm -rf "$work"/game*
done
