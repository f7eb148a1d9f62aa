#!/usr/bin/env bash
# The LAN figures of issue 40: one host serving a set of MIB MiB (10 packs)
# over a counting HTTP server; CLIENTS client daemons on this machine
# (distinct state folders and ports, [lan] share on, peers by config) sync
# it, the first alone and then the rest at once: the bytes the mirror
# served for all of them against the set (goal <= 1.2; without peers it is
# CLIENTS), and the wall time against CLIENTS direct syncs at once. Then
# one pack is upgraded by a delta across the LAN: the index requests per
# client and the changed chunks' bytes the mirror served in all, against
# the first client's. A benchmark: it reports figures and asserts nothing
# about time. It needs about 4 x CLIENTS x MIB MiB of disk.
#   scripts/bench-lan.sh                                   # 10 clients, 200 MiB
#   FORGESYNC_LAN_CLIENTS=4 FORGESYNC_LAN_MIB=50 scripts/bench-lan.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./cmd/forgesync -count=1 -run '^$' -bench 'LAN$' -benchtime 1x -timeout 60m |
	grep -E '^Benchmark|FAIL|lan_bench' | tr '\t' '\n' | sed -e 's/^ *//' -e '/^$/d'
