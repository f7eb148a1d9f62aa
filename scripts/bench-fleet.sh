#!/usr/bin/env bash
# The fleet figures of issue 13: HOSTS simulated hosts (a state folder each,
# concurrent processes of the real binary) sync a 10-pack set of MIB MiB
# from one local server, beside curl --parallel fetching the same files into
# as many folders; then all re-check with nothing changed; then the host
# publishes v2 of every pack (issue 25's edit, scaled to the pack), all
# apply it as a delta update (bytes served against a whole re-download),
# and re-check again (one 304 per host). A benchmark: it
# reports figures and asserts nothing about time. It needs curl for the
# reference figure, and about 3 x HOSTS x MIB MiB of disk (cache and store
# share blocks; the content is unpacked once more).
#   scripts/bench-fleet.sh                                  # 50 hosts, 200 MiB
#   FORGESYNC_FLEET_HOSTS=20 FORGESYNC_FLEET_MIB=50 scripts/bench-fleet.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v curl >/dev/null || echo "bench-fleet: curl is missing (apt-get install curl); only forgesync's figures are reported" >&2
go test ./cmd/forgesync -count=1 -run '^$' -bench 'Fleet$' -benchtime 1x -timeout 60m |
	grep -E '^Benchmark' | tr '\t' '\n' | sed -e 's/^ *//' -e '/^$/d'
