# benchpack.sh is sourced by the benchmark scripts: bench_pack WORK [MIB]
# builds the pack of scripts/bench-extract.sh (half incompressible, half
# text, in 16 content files; 256 MiB by default) with WORK/forgesync, and
# writes it as WORK/bench.zip, WORK/bench.tar.zst and WORK/bench.7z.
# Needs zstd and 7z.
bench_pack() {
	bp_work=$1
	bp_each=$(( ${2:-256} << 16 )) # bytes in each of the 16 files
	bp_pack="$bp_work/pack"
	mkdir -p "$bp_pack/content"
	cat > "$bp_pack/forgepack.json" <<'JSON'
{"schema":1,"id":"bench-pack","version":"1.0.0","name":"Bench","authors":["Bench"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\bench-pack\\deck","class":"/Game/MJOLNIR/Forge/bench-pack/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}
JSON
	bp_i=0
	while [ $bp_i -lt 8 ]; do
		head -c $bp_each /dev/urandom > "$bp_pack/content/random$bp_i.pak"
		# Text (.sig, which pack deflates: it stores .pak and .ucas): words
		# and numbers, compressible about 5:1, different in
		# every file (a solid archive would otherwise store a repeat in
		# nothing, which the ratio rule rightly calls a bomb).
		awk -v seed=$((bp_i * 7919 + 13)) -v file=$bp_i -v size=$bp_each 'BEGIN { srand(seed); while (n < size) { l = sprintf("file%d row %d lift door panel %06d gravity %.4f\n", file, int(rand()*1e6), k++, rand()); printf "%s", l; n += length(l) } }' | head -c $bp_each > "$bp_pack/content/text$bp_i.sig"
		bp_i=$((bp_i + 1))
	done
	"$bp_work/forgesync" pack "$bp_pack" -o "$bp_work/bench.zip" >/dev/null
	tar -C "$bp_pack" -cf - . | zstd -q -3 -T0 -o "$bp_work/bench.tar.zst"
	(cd "$bp_pack" && 7z a -bd -bso0 "$bp_work/bench.7z" . >/dev/null)
}

# bench_small WORK builds a pack of many small files with WORK/forgesync:
# 3,000 text files of about 1.4 KiB (deflated), as WORK/bench.small.zip.
bench_small() {
	bs_pack="$1/small"
	mkdir -p "$bs_pack/content"
	cat > "$bs_pack/forgepack.json" <<'JSON'
{"schema":1,"id":"bench-small","version":"1.0.0","name":"Bench small","authors":["Bench"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\bench-small\\deck","class":"/Game/MJOLNIR/Forge/bench-small/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}
JSON
	awk -v dir="$bs_pack/content" 'BEGIN { srand(7); for (i = 0; i < 3000; i++) { f = sprintf("%s/f%05d.sig", dir, i); for (k = 0; k < 28; k++) printf "file%d row %d lift door panel %06d gravity %.4f\n", i, int(rand()*1e6), k, rand() > f; close(f) } }'
	"$1/forgesync" pack "$bs_pack" -o "$1/bench.small.zip" >/dev/null
}
