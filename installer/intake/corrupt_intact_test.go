//go:build !windows

package intake

import "testing"

// TestCorruptIntactVariants: the integrity checks refuse no intact
// archive in the forms the tools write: zip64 and data descriptor
// headers, a zip streamed through a pipe, 7z LZMA as bsdtar and 7-Zip
// write it, gzip, xz and zstd streams of several members or frames, and
// the zeros gzip -t and xz -t accept after a stream.
func TestCorruptIntactVariants(t *testing.T) {
	split := func(z string) string {
		return "tar -cf ../t.tar . && head -c 9000 ../t.tar | " + z + " > $OUT && tail -c +9001 ../t.tar | " + z + " >> $OUT"
	}
	for _, tc := range []toolCase{
		{name: "zip64 headers", tools: []string{"zip"}, cmd: "zip -qr -fz OUT ."},
		{name: "zip data descriptors", tools: []string{"zip"}, cmd: "zip -qr -fd OUT ."},
		{name: "zip through a pipe", tools: []string{"zip"}, sh: "cd pack && zip -qr - . | cat > $OUT"},
		{name: "7z LZMA by bsdtar", tools: []string{"bsdtar"}, cmd: "bsdtar --format 7zip -cf OUT ."},
		{name: "7z LZMA by 7-Zip", tools: []string{"7z"}, cmd: "7z a -bd -bso0 -m0=LZMA OUT ."},
		{name: "7z LZMA2 with BCJ", tools: []string{"7z"}, cmd: "7z a -bd -bso0 -mf=BCJ -ms=on OUT ."},
		{name: "tar.gz of two members", tools: []string{"tar", "gzip"}, sh: "cd pack && " + split("gzip -c")},
		{name: "tar.xz of two streams", tools: []string{"tar", "xz"}, sh: "cd pack && " + split("xz -c")},
		{name: "tar.zst of two frames", tools: []string{"tar", "zstd"}, sh: "cd pack && " + split("zstd -qc")},
		{name: "tar.gz padded with zeros", tools: []string{"tar", "gzip"}, sh: "cd pack && tar -czf $OUT . && head -c 1000 /dev/zero >> $OUT"},
		{name: "tar.xz with stream padding", tools: []string{"tar", "xz"}, sh: "cd pack && tar -cJf $OUT . && head -c 1024 /dev/zero >> $OUT"},
	} {
		tc.tree, tc.inDir = goodTree, true
		t.Run(tc.name, func(t *testing.T) {
			mustExtract(t, tc.build(t), goodFiles())
		})
	}
}
