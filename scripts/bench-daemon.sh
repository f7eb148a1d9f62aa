#!/usr/bin/env bash
# The daemon's measurements (issue 5): drop-to-published latency, idle cost,
# and status latency while a 256 MiB archive installs. They drive the real
# binary over its real socket and print figures; nothing is asserted.
#   scripts/bench-daemon.sh            # all three (the idle one takes 60 s)
#   FORGESYNC_IDLE_SECONDS=20 scripts/bench-daemon.sh
set -euo pipefail
cd "$(dirname "$0")/.."
FORGESYNC_MEASURE=1 go test ./cmd/forgesync -count=1 -run 'TestMeasure' -v -timeout 20m | grep -E '^(=== RUN|--- |\s+measure_test.go)'
