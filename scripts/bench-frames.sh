#!/bin/sh
# bench-frames.sh measures what installing costs a game running beside it
# (issue 24). A stand-in game (scripts/framegame: a 60 Hz loop doing 8 ms
# of processor work per frame on one thread) plays alone, then while
# `forgesync sync` installs the pack of scripts/bench-extract.sh (256 MiB
# by default), in each format, with [performance] priority = "background"
# and then "normal". Each row is one run: the game's frame times (p50, p99,
# max, in ms; late = frames whose work overran 16.7 ms) and, for an
# install, its wall and CPU seconds (forgesync and its child) and the p99 over the p99 of the "alone" row run
# just before it (goal with background: <= 1.10). The machine's other load
# counts as much as the install: compare rows of one run.
#
# Usage: scripts/bench-frames.sh [MiB]
# Needs: go, zstd, 7z, GNU time (/usr/bin/time).
set -eu
cd "$(dirname "$0")/.."
mib="${1:-256}"
for t in zstd 7z /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench-frames: needs $t" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/fsframes.XXXXXX")
game=
trap '[ -n "$game" ] && kill "$game" 2>/dev/null; rm -rf "$work"' EXIT
go build -o "$work/forgesync" ./cmd/forgesync
go build -o "$work/framegame" ./scripts/framegame
. scripts/benchpack.sh
bench_pack "$work" "$mib"
iters=$("$work/framegame" -calibrate)

# field NAME LINE: the value of NAME=... in a framegame report.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# row LABEL PRIORITY WALL REPORT [ALONE-P99]
row() {
	ratio=-
	[ -n "${5:-}" ] && ratio=$(echo "$(field p99 "$4") $5" | awk '{ printf "%.2f", $1 / $2 }')
	printf '%-8s %-10s %8s %7s %7s %7s %6s %6s\n' "$1" "$2" "$3" "$(field p50 "$4")" "$(field p99 "$4")" \
		"$(field max "$4")" "$(field late "$4")" "$ratio"
}

printf '%-8s %-10s %8s %7s %7s %7s %6s %6s\n' format priority "wall/cpu" p50 p99 max late p99/alone
for f in zip tar.zst 7z; do
	alone=$("$work/framegame" -iters "$iters" -for 5s)
	row "$f" alone - "$alone"
	for p in background normal; do
		g="$work/game"
		rm -rf "$g"
		mkdir -p "$g/mods/MJOLNIRForgePacks/drop" "$g/paks"
		printf '[paths]\nmods = "%s"\npaks = "%s"\nstate = "%s"\n[deploy]\nlua = false\nnative = false\n[performance]\npriority = "%s"\n' \
			"$g/mods" "$g/paks" "$g/state" "$p" > "$g/f.toml"
		cp "$work/bench.$f" "$g/mods/MJOLNIRForgePacks/drop/"
		sync
		"$work/framegame" -iters "$iters" > "$work/frames" &
		game=$!
		/usr/bin/time -f '%e %U %S' -o "$work/t" sh -c "'$work/forgesync' sync --config '$g/f.toml' >/dev/null; sync -f '$g/paks'"
		kill -INT "$game"
		wait "$game" || true
		game=
		if [ ! -f "$g/paks/MJOLNIRForge/bench-pack/random0.pak" ]; then
			echo "bench-frames: forgesync did not install the $f pack:" >&2
			cat "$g"/mods/MJOLNIRForgePacks/drop/rejected/*.txt >&2 || true
			exit 1
		fi
		row "$f" "$p" "$(awk '{ printf "%.1f/%.1f", $1, $2 + $3 }' "$work/t")" "$(cat "$work/frames")" "$(field p99 "$alone")"
	done
done
