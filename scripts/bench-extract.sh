#!/bin/sh
# bench-extract.sh puts `forgesync sync` of a 256 MiB pack (half
# incompressible, half text, in 16 content files) side by side with the
# fastest common extractor made durable the same way, in one run:
#   zip, tar.zst:  bsdtar -xf X -C DIR && sync -f DIR
#   7z:            7z x -oDIR X && sync -f DIR
# forgesync's side is the whole intake (claim, unpack in its child, hash,
# validate, flush the files, place, flush the folders, publish) followed by
# the same `sync -f` of the paks folder, so both sides end with the bytes
# on disk. Each cell is the best of N runs
# (default 3); ratio is forgesync's time over the tool's (targets: zip
# <= 0.9, tar.zst <= 1.0, 7z <= 1.5); peak RSS is the largest resident
# size of forgesync's processes (the daemon side and its unpacking child).
#
# Usage: scripts/bench-extract.sh [runs]
# Needs: go, bsdtar, zstd, 7z, GNU time (/usr/bin/time).
set -eu
cd "$(dirname "$0")/.."
runs="${1:-3}"
for t in bsdtar zstd 7z /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench-extract: needs $t" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/var/tmp}/fsbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
go build -o "$work/forgesync" ./cmd/forgesync

# The pack: 8 files of random bytes and 8 of text, 16 MiB each.
pack="$work/pack"
mkdir -p "$pack/content"
cat > "$pack/forgepack.json" <<'EOF'
{"schema":1,"id":"bench-pack","version":"1.0.0","name":"Bench","authors":["Bench"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\bench-pack\\deck","class":"/Game/MJOLNIR/Forge/bench-pack/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}
EOF
i=0
while [ $i -lt 8 ]; do
	head -c $((16 << 20)) /dev/urandom > "$pack/content/random$i.pak"
	# Text: words and numbers, compressible about 5:1, different in every
	# file (a solid archive would otherwise store a repeat in nothing,
	# which the ratio rule rightly calls a bomb).
	awk -v seed=$((i * 7919 + 13)) -v file=$i 'BEGIN { srand(seed); while (n < 16777216) { l = sprintf("file%d row %d lift door panel %06d gravity %.4f\n", file, int(rand()*1e6), k++, rand()); printf "%s", l; n += length(l) } }' | head -c $((16 << 20)) > "$pack/content/text$i.pak"
	i=$((i + 1))
done

"$work/forgesync" pack "$pack" -o "$work/bench.zip" >/dev/null
tar -C "$pack" -cf - . | zstd -q -3 -T0 -o "$work/bench.tar.zst"
(cd "$pack" && 7z a -bd -bso0 "$work/bench.7z" . >/dev/null)

# best prints the smallest of the numbers on its input.
best() { sort -g | head -n 1; }

# ours FORMAT: the best wall time of `forgesync sync` and its peak RSS in KiB.
ours() {
	: > "$work/ours.times"
	r=0
	while [ $r -lt "$runs" ]; do
		g="$work/game"
		rm -rf "$g"
		mkdir -p "$g/mods/MJOLNIRForgePacks/drop" "$g/paks"
		printf '[paths]\nmods = "%s"\npaks = "%s"\nstate = "%s"\n[deploy]\nlua = false\nnative = false\n' \
			"$g/mods" "$g/paks" "$g/state" > "$g/f.toml"
		cp "$work/bench.$1" "$g/mods/MJOLNIRForgePacks/drop/"
		sync
		/usr/bin/time -f '%e %M' -o "$work/t" sh -c "'$work/forgesync' sync --config '$g/f.toml' >/dev/null; sync -f '$g/paks'"
		if [ ! -f "$g/paks/MJOLNIRForge/bench-pack/random0.pak" ]; then
			echo "bench-extract: forgesync did not install the $1 pack:" >&2
			cat "$g"/mods/MJOLNIRForgePacks/drop/rejected/*.txt >&2 || true
			exit 1
		fi
		tail -n 1 "$work/t" >> "$work/ours.times"
		r=$((r + 1))
	done
	t=$(cut -d' ' -f1 "$work/ours.times" | best)
	m=$(cut -d' ' -f2 "$work/ours.times" | sort -g | tail -n 1)
	echo "$t $m"
}

# tool FORMAT: the best wall time of the reference extractor, made durable.
tool() {
	: > "$work/tool.times"
	r=0
	while [ $r -lt "$runs" ]; do
		d="$work/out"
		rm -rf "$d"
		mkdir -p "$d"
		sync
		if [ "$1" = 7z ]; then
			/usr/bin/time -f '%e' -o "$work/t" sh -c "7z x -bd -bso0 -o'$d' '$work/bench.7z' && sync -f '$d'"
		else
			/usr/bin/time -f '%e' -o "$work/t" sh -c "bsdtar -xf '$work/bench.$1' -C '$d' && sync -f '$d'"
		fi
		cat "$work/t" >> "$work/tool.times"
		r=$((r + 1))
	done
	best < "$work/tool.times"
}

printf '%-8s %10s %12s %8s %16s %10s\n' format archive forgesync tool ratio "peak RSS"
for f in zip tar.zst 7z; do
	size=$(wc -c < "$work/bench.$f")
	set -- $(ours "$f")
	o=$1
	rss=$2
	t=$(tool "$f")
	ref=bsdtar
	[ "$f" = 7z ] && ref="7z x"
	printf '%-8s %7d MiB %10.2f s %6.2f s %6.2f (%s) %6d MiB\n' "$f" $((size >> 20)) "$o" "$t" \
		"$(echo "$o $t" | awk '{ printf "%.2f", $1 / $2 }')" "$ref" $((rss >> 10))
done
