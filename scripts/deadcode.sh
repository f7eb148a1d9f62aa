#!/usr/bin/env bash
# deadcode: fails when golang.org/x/tools/cmd/deadcode (a tool of go.mod)
# finds a function that no command of the module reaches, outside the
# test-helper packages (their functions serve only tests).
#
# deadcode answers for one GOOS at a time, and a function that only Windows
# calls (internal/longpath, the Job Object confinement) is unreachable on
# Linux. So it runs for linux and for windows, and a function is dead when
# it is unreachable on every GOOS that compiles its file: a line of one
# report counts when the other report has it too, or when the other GOOS
# does not build that file at all.
set -euo pipefail
cd "$(dirname "$0")/.."

helpers='^(sets/settest|internal/toolcheck|internal/casefold|inventory/render/rendertest|installer/iostore/tocfixture|internal/prio/priotest|installer/intake/intaketest|internal/registrytest)/'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The tool is built for this machine, whatever GOOS the reports are for.
bin=$(env -u GOOS -u GOARCH go tool -n deadcode)

for goos in linux windows; do
  GOOS=$goos GOARCH=amd64 "$bin" ./... >"$tmp/$goos.report"
  grep -Ev "$helpers" "$tmp/$goos.report" | sort -u >"$tmp/$goos" || true
  GOOS=$goos GOARCH=amd64 go list -f '{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}' ./... |
    sed "s|^$PWD/||" | sort -u >"$tmp/$goos.files"
done

# dead A B: the lines of A's report that are dead on B too.
dead() {
  awk -F: -v other="$tmp/$2" -v files="$tmp/$2.files" '
    BEGIN {
      while ((getline l < other) > 0) inOther[l] = 1
      while ((getline f < files) > 0) built[f] = 1
    }
    inOther[$0] || !built[$1]
  ' "$tmp/$1"
}
found=$( { dead linux windows; dead windows linux; } | sort -u)
if [ -n "$found" ]; then
  echo "deadcode: unreachable on every GOOS that builds it (delete it, or move what only tests need into a _test.go file):"
  echo "$found"
  exit 1
fi
echo "deadcode: nothing unreachable outside the test helpers (linux, windows)"
