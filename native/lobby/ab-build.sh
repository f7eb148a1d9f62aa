# ab-build.sh is sourced by bench-ab.sh and callgrind-ab.sh:
#   ab_build HERE OUT BASE CC
# builds forge_doors_bench.c (HERE's) twice: OUT/before/bench against
# forge_doors_runtime.h at git revision BASE, OUT/after/bench against
# HERE's header.
ab_build() {
  local here="$1" out="$2" base="$3" cc="$4" v
  mkdir -p "$out/before" "$out/after"
  git -C "$here" show "$base:native/lobby/forge_doors_runtime.h" >"$out/before/forge_doors_runtime.h"
  cp "$here/forge_doors_runtime.h" "$out/after/"
  for v in before after; do
    cp "$here/forge_doors_bench.c" "$out/$v/"
    "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -O2 -o "$out/$v/bench" "$out/$v/forge_doors_bench.c" -lm
  done
}
