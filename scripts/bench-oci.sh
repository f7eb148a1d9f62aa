#!/usr/bin/env bash
# The OCI figures of issue 26, against a real registry (distribution, run in
# the test process) behind a recording proxy:
#   fleet: HOSTS simulated hosts (concurrent processes of the real binary)
#     sync a 10-pack set of MIB MiB from oci://…:live, re-check with nothing
#     changed, then sync a one-pack update (BenchmarkOCIFleetSync);
#   push: forgesync export oci:// beside oras push of the same files, REPS
#     times each, then an unchanged re-push (BenchmarkOCIPush; the oras CLI
#     is built once into the user cache folder).
# A benchmark: it reports figures and asserts nothing about time. The fleet
# needs about 3 x HOSTS x MIB MiB of disk.
#   scripts/bench-oci.sh                        # 50 hosts, 200 MiB, 3 reps
#   FORGESYNC_FLEET_HOSTS=20 FORGESYNC_FLEET_MIB=50 FORGESYNC_PUSH_MIB=50 scripts/bench-oci.sh
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./cmd/forgesync -count=1 -run '^$' -bench "${FORGESYNC_OCI_BENCH:-OCIFleetSync\$|OCIPush\$}" -benchtime 1x -timeout 60m |
	grep -E '^Benchmark' | tr '\t' '\n' | sed -e 's/^ *//' -e '/^$/d'
