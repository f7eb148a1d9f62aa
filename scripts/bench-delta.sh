#!/usr/bin/env bash
# The delta-update figures of issue 25: a pack of MIB MiB (default 200)
# whose large stored .pak gets 1 MiB inserted, 2 MiB overwritten and
# 512 KiB appended, as a zip made by `forgesync pack` (text deflated,
# containers stored) and as a tar.zst made with zstd --rsyncable. A host exports v1 and v2;
# a machine (the real binary) syncs v1, then v2 through a counting server,
# beside a fresh machine that downloads v2 whole. It prints the update's
# bytes served against the changed bytes (goal <= 3x) and the archive
# (goal <= 5% for the zip, <= 10% for the tar.zst), its requests
# (goal <= 300), and both syncs' wall and CPU seconds. A benchmark: it
# reports figures and asserts nothing about time. Needs tar, zstd and
# about 12 x MIB MiB of disk.
#   scripts/bench-delta.sh
#   FORGESYNC_DELTA_MIB=50 FORGESYNC_DELTA_FORMS=zip scripts/bench-delta.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./cmd/forgesync -count=1 -run '^$' -bench 'Delta$' -benchtime 1x -timeout 60m |
	grep -E '^Benchmark' | tr '\t' '\n' | sed -e 's/^ *//' -e '/^$/d'
