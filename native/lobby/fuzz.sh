#!/usr/bin/env bash
# Builds the libFuzzer harness over the doors.txt / installed.txt parsers and
# runs it. Usage: native/lobby/fuzz.sh [SECONDS] [extra libFuzzer flags]
# Needs clang with libFuzzer (Debian: clang). Runs one process, writes new
# inputs to a scratch folder, then merges them into fuzz/corpus/ (-merge=1
# keeps only inputs that add coverage, so the corpus stays small).
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
# keep the committed corpus minimal: merge what was found into it
"$bin" -merge=1 "$here/fuzz/corpus" "$out/new" >/dev/null 2>&1
echo "fuzz: ${secs}s without a crash; corpus: $(ls "$here/fuzz/corpus" | wc -l) files"
