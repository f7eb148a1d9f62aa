#!/usr/bin/env bash
# Builds the libFuzzer harness over the doors.txt / installed.txt parsers and
# runs it. Usage: native/lobby/fuzz.sh [SECONDS] [extra libFuzzer flags]
# Needs clang with libFuzzer (Debian: clang). Runs one process, writes new
# inputs to a scratch folder (FUZZ_OUT, default a temp folder; crashes land
# in FUZZ_OUT/artifacts), then merges them into fuzz/corpus/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
secs="${1:-600}"
shift || true
out="${FUZZ_OUT:-$(mktemp -d)}"
mkdir -p "$out"
bin="$out/fuzz_parser"
clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -o "$bin" "$here/fuzz/fuzz_parser.c" -lm
mkdir -p "$out/new" "$out/artifacts"
"$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 \
  -artifact_prefix="$out/artifacts/" "$@" "$out/new" "$here/fuzz/corpus"
# Keep the committed corpus small: merge into it only inputs that reach new
# edges. -use_counters=0 counts edges, not hit-count buckets; with counters
# the merge keeps ten times as many files for little extra coverage.
"$bin" -merge=1 -use_counters=0 "$here/fuzz/corpus" "$out/new" >/dev/null 2>&1
echo "fuzz: ${secs}s without a crash; corpus: $(ls "$here/fuzz/corpus" | wc -l) files"
