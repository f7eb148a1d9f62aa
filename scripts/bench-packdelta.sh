#!/bin/sh
# bench-packdelta.sh measures how much of a zip written by `forgesync pack`
# changes when one big file of the pack changes (issue 25): a 200 MiB pack
# (forgepack.json, a 1 MiB README.md of text, a 3 MiB random preview.png,
# random content/Alpha.pak and content/Zeta.pak of 8 MiB and content/Big.pak
# of 180 MiB) is packed, 1 MiB of new random bytes is inserted in the middle
# of Big.pak, and the pack is packed again. It prints the sizes of both zips,
# the byte ranges that differ between them, entry by entry (an entry whose
# bytes only moved counts as unchanged), the bytes a chunk-based delta
# fetches (content-defined chunks of 64 KiB on average, as casync cuts),
# and the size of a `zstd --patch-from` delta from v1 to v2: see
# cmd/zipdelta.
#
# Usage: scripts/bench-packdelta.sh [REF]
#   with a git REF (e.g. main), also builds that commit's forgesync (from
#   `git archive REF`, in a temp folder) and measures it on the same trees,
#   side by side.
# Needs: go, zstd.
set -eu
cd "$(dirname "$0")/.."
ref="${1:-}"
work=$(mktemp -d "${TMPDIR:-/var/tmp}/fspackdelta.XXXXXX")
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$work/forgesync.new" ./cmd/forgesync # as the release is built
go build -o "$work/zipdelta" ./cmd/zipdelta
sides=new
if [ -n "$ref" ]; then
	mkdir "$work/src"
	git archive "$ref" | tar -x -C "$work/src"
	(cd "$work/src" && CGO_ENABLED=0 go build -trimpath -o "$work/forgesync.$ref" ./cmd/forgesync)
	sides="$ref new"
fi

v1="$work/v1"
mkdir -p "$v1/content"
cat > "$v1/forgepack.json" <<'JSON'
{"schema":1,"id":"delta-pack","version":"1.0.0","name":"Delta","authors":["Bench"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\delta-pack\\deck","class":"/Game/MJOLNIR/Forge/delta-pack/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}
JSON
awk 'BEGIN { srand(7); while (n < 1048576) { l = sprintf("row %d lift door panel %06d gravity %.4f\n", int(rand()*1e6), k++, rand()); printf "%s", l; n += length(l) } }' | head -c 1048576 > "$v1/README.md"
head -c $((3 << 20)) /dev/urandom > "$v1/preview.png"
head -c $((8 << 20)) /dev/urandom > "$v1/content/Alpha.pak"
head -c $((180 << 20)) /dev/urandom > "$v1/content/Big.pak"
head -c $((8 << 20)) /dev/urandom > "$v1/content/Zeta.pak"
v2="$work/v2"
cp -r "$v1" "$v2"
sed 's/"1.0.0"/"1.0.1"/' "$v1/forgepack.json" > "$v2/forgepack.json"
half=$(((90 << 20) + 4321)) # not on a Deflate block boundary
{ head -c $half "$v1/content/Big.pak"; head -c $((1 << 20)) /dev/urandom; tail -c +$((half + 1)) "$v1/content/Big.pak"; } > "$v2/content/Big.pak"

echo "pack of 200 MiB; v2 inserts 1 MiB at 90 MiB into the 180 MiB content/Big.pak (and bumps the version)"
for side in $sides; do
	"$work/forgesync.$side" pack "$v1" -o "$work/$side.v1.zip" >/dev/null
	"$work/forgesync.$side" pack "$v2" -o "$work/$side.v2.zip" >/dev/null
	echo "$side:"
	"$work/zipdelta" "$work/$side.v1.zip" "$work/$side.v2.zip" | sed 's/^/    /'
	zstd -q -f --patch-from="$work/$side.v1.zip" "$work/$side.v2.zip" -o "$work/$side.patch.zst"
	echo "    zstd --patch-from v1 to v2: $(wc -c < "$work/$side.patch.zst") B"
done
