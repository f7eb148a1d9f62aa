#!/bin/sh
# bench-extract.sh compares installer.Extract with the system tools on the
# same 256 MiB pack, side by side in one run: a deflate zip against
# `unzip -q`, and a .tar.zst against `tar --zstd -xf`. Each benchmark
# reports forgesync-MB/s, tool-MB/s, ratio (>= 0.9 is the target; above 1
# means faster than the tool) and peak-RSS-MiB of one Extract in a child
# process (the budget is 64 MiB).
#
# Usage: scripts/bench-extract.sh [iterations]   (default 6)
# Needs: unzip, tar, zstd. On a shared machine run it more than once:
# both sides share the noise, the ratio is what to read.
set -eu
cd "$(dirname "$0")/.."
n="${1:-6}"
exec go test ./installer -run '^$' -bench 'ExtractVs' -benchtime "${n}x" -count 1
