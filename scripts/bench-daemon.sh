#!/usr/bin/env bash
# The daemon's measurements (issue 5): drop-to-published latency, idle cost,
# and status latency while a 256 MiB archive installs. They are benchmarks
# that drive the real binary over its real socket and report figures as
# metrics; nothing about time is asserted.
#   scripts/bench-daemon.sh            # all three (the idle one takes 60 s)
#   FORGESYNC_IDLE_SECONDS=20 scripts/bench-daemon.sh
#   FORGESYNC_BENCH_PRIORITY=normal scripts/bench-daemon.sh   # [performance] priority
set -euo pipefail
cd "$(dirname "$0")/.."
bench() { go test ./cmd/forgesync -count=1 -run '^$' -bench "$1" -benchtime "$2" -timeout 20m | grep -E '^(Benchmark|\s+measure_test.go)'; }
bench 'DaemonDropToPublished$' 30x
bench 'DaemonIdle$' 1x
bench 'DaemonStatusUnderLoad$' 1x
