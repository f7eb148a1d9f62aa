//go:build !windows

package intake

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// The differential corruption test: archives of a small pack made by the
// real tools, damaged in many deterministic ways, each judged by the
// format's reference tool and by forgesync. Whatever the reference tool
// refuses, forgesync refuses; whatever both accept, forgesync unpacks to
// the bytes the reference tool unpacks. Zero silent installs.

// diffPack is the pack every corpus archive holds: some compressible
// files, some random ones, a manifest.
func diffPack() map[string][]byte {
	var ucas bytes.Buffer
	for i := range 2400 {
		fmt.Fprintf(&ucas, "chunk %05d of the foundry container, ", i)
	}
	return map[string][]byte{
		"forgepack.json":       []byte(`{"schema":1,"id":"damage-corpus"}`),
		"content/foundry.utoc": randomBytes(11, 2<<10),
		"content/foundry.ucas": ucas.Bytes(),
		"content/random.pak":   randomBytes(12, 24<<10),
	}
}

// diffFormat is one archive format of the corpus: how the tools make it,
// test it and unpack it.
type diffFormat struct {
	name  string
	tools []string
	make  []string   // argv run in the pack folder; OUT is the archive
	test  [][]string // reference checks, all must pass; IN is the archive
	x     []string   // reference unpack; IN the archive, DIR the folder
	edits func(t *testing.T, b []byte, pack map[string][]byte) []damaged
	// thin keeps one generic damage in thin (all when 0): a format whose
	// layout another format's generic damage covers spends its time on
	// its edits.
	thin int
}

// damaged is one damaged archive and how it was made.
type damaged struct {
	how string
	b   []byte
}

func diffFormats() []diffFormat {
	tarTest := func(z, flag string) [][]string {
		return [][]string{{z, "-t", "-q", "IN"}, {"tar", flag, "-tf", "IN"}}
	}
	return []diffFormat{
		{
			name: "zip", tools: []string{"zip", "unzip"},
			make:  []string{"zip", "-qrX", "OUT", "forgepack.json", "content"},
			test:  [][]string{{"unzip", "-tqq", "-P", "none", "IN"}},
			x:     []string{"unzip", "-qq", "-o", "-P", "none", "IN", "-d", "DIR"},
			edits: zipEdits,
		},
		{
			name: "7z", tools: []string{"7z"},
			make:  []string{"7z", "a", "-bd", "-bso0", "OUT", "forgepack.json", "content"},
			test:  [][]string{{"7z", "t", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "IN"}},
			x:     []string{"7z", "x", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "-oDIR", "IN"},
			edits: sevenZipEdits,
		},
		{
			name: "7z LZMA2, plain header", tools: []string{"7z"},
			make:  []string{"7z", "a", "-bd", "-bso0", "-mhc=off", "-ms=off", "-m0=LZMA2", "OUT", "forgepack.json", "content"},
			test:  [][]string{{"7z", "t", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "IN"}},
			x:     []string{"7z", "x", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "-oDIR", "IN"},
			edits: sevenZipEdits,
		},
		{
			name: "7z LZMA, plain header", tools: []string{"7z"},
			make:  []string{"7z", "a", "-bd", "-bso0", "-mhc=off", "-ms=off", "-m0=LZMA", "OUT", "forgepack.json", "content"},
			test:  [][]string{{"7z", "t", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "IN"}},
			x:     []string{"7z", "x", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "-oDIR", "IN"},
			edits: sevenZipEdits, thin: 2,
		},
		{
			// bsdtar's 7z coder is LZMA, its streams end in an end marker.
			name: "7z by bsdtar", tools: []string{"bsdtar", "7z"},
			make:  []string{"bsdtar", "--format", "7zip", "-cf", "OUT", "forgepack.json", "content"},
			test:  [][]string{{"7z", "t", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "IN"}},
			x:     []string{"7z", "x", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "-oDIR", "IN"},
			edits: sevenZipEdits, thin: 2,
		},
		{
			name: "7z Deflate, plain header", tools: []string{"7z"},
			make:  []string{"7z", "a", "-bd", "-bso0", "-mhc=off", "-ms=off", "-m0=Deflate", "OUT", "forgepack.json", "content"},
			test:  [][]string{{"7z", "t", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "IN"}},
			x:     []string{"7z", "x", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "-oDIR", "IN"},
			edits: sevenZipEdits,
		},
		{
			name: "7z Copy, plain header", tools: []string{"7z"},
			make:  []string{"7z", "a", "-bd", "-bso0", "-mhc=off", "-ms=off", "-m0=Copy", "OUT", "forgepack.json", "content"},
			test:  [][]string{{"7z", "t", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "IN"}},
			x:     []string{"7z", "x", "-bd", "-bso0", "-bse0", "-bsp0", "-pnone", "-oDIR", "IN"},
			edits: sevenZipEdits,
		},
		{
			name: "tar", tools: []string{"tar"},
			make: []string{"tar", "-cf", "OUT", "forgepack.json", "content"},
			test: [][]string{{"tar", "-tf", "IN"}},
			x:    []string{"tar", "-xf", "IN", "-C", "DIR"},
			edits: func(t *testing.T, b []byte, pack map[string][]byte) []damaged {
				return tarEdits(t, b, []string{"cat"}, []string{"cat"})
			},
		},
		{
			name: "tar.gz", tools: []string{"tar", "gzip"},
			make: []string{"tar", "-czf", "OUT", "forgepack.json", "content"},
			test: tarTest("gzip", "-z"),
			x:    []string{"tar", "-xf", "IN", "-C", "DIR"},
			edits: func(t *testing.T, b []byte, pack map[string][]byte) []damaged {
				return tarEdits(t, b, []string{"gzip", "-dc"}, []string{"gzip", "-c", "-n"})
			},
		},
		{
			name: "tar.xz", tools: []string{"tar", "xz"},
			make: []string{"tar", "-cJf", "OUT", "forgepack.json", "content"},
			test: tarTest("xz", "-J"),
			x:    []string{"tar", "-xf", "IN", "-C", "DIR"},
			edits: func(t *testing.T, b []byte, pack map[string][]byte) []damaged {
				return tarEdits(t, b, []string{"xz", "-dc"}, []string{"xz", "-c"})
			},
		},
		{
			name: "tar.zst", tools: []string{"tar", "zstd"},
			make: []string{"tar", "--zstd", "-cf", "OUT", "forgepack.json", "content"},
			test: tarTest("zstd", "--zstd"),
			x:    []string{"tar", "-xf", "IN", "-C", "DIR"},
			edits: func(t *testing.T, b []byte, pack map[string][]byte) []damaged {
				return append(tarEdits(t, b, []string{"zstd", "-dcq"}, []string{"zstd", "-cq"}), zstdEdits(t, b)...)
			},
		},
		{
			// Three frames of other levels, no checksum: only the
			// decoders' own checks stand between damage and the files.
			name: "tar.zst, three frames, no checksum", tools: []string{"tar", "zstd", "sh"},
			make: []string{"sh", "-c", `tar -cf "$1.tar" forgepack.json content && head -c 20000 "$1.tar" | zstd -qc --no-check -19 >"$1" &&
				tail -c +20001 "$1.tar" | head -c 40000 | zstd -qc --no-check -1 >>"$1" && tail -c +60001 "$1.tar" | zstd -qc --no-check -6 >>"$1" && rm "$1.tar"`, "sh", "OUT"},
			test:  tarTest("zstd", "--zstd"),
			x:     []string{"tar", "-xf", "IN", "-C", "DIR"},
			edits: func(t *testing.T, b []byte, _ map[string][]byte) []damaged { return zstdEdits(t, b) },
			thin:  3,
		},
	}
}

// zstdEdits damages b's zstd frames where a decoder's checks lie: each
// frame's checksum flag and checksum, each block's type and size (one
// more, one less), and the first, middle and last bytes of each
// compressed block (its literals header, its Huffman and FSE streams, the
// byte holding the sequences stream's end marker).
func zstdEdits(t *testing.T, b []byte) []damaged {
	var out []damaged
	edit := func(how string, i int, f func(c []byte)) {
		c := bytes.Clone(b)
		f(c[i:])
		out = append(out, damaged{how, c})
	}
	xor := func(m byte) func(c []byte) { return func(c []byte) { c[0] ^= m } }
	for off, nf := 0, 0; off < len(b); nf++ {
		if len(b)-off < 6 || binary.LittleEndian.Uint32(b[off:]) != 0xfd2fb528 {
			t.Fatalf("zstd frame %d at byte %d: no frame magic", nf, off)
		}
		fhd := b[off+4]
		edit(fmt.Sprintf("zstd frame %d: checksum flag flipped", nf), off+4, xor(0x04))
		p := off + 4 + zstdHeaderLen(fhd)
		for nb := 0; ; nb++ {
			h := int(b[p]) | int(b[p+1])<<8 | int(b[p+2])<<16
			typ, size := h>>1&3, h>>3
			where := fmt.Sprintf("zstd frame %d, block %d", nf, nb)
			edit(where+": type changed", p, xor(0x02))
			for _, d := range []int{1, -1} {
				edit(fmt.Sprintf("%s: size %+d", where, d), p, func(c []byte) {
					v := h + d*8
					c[0], c[1], c[2] = byte(v), byte(v>>8), byte(v>>16)
				})
			}
			n := size
			if typ == 1 {
				n = 1
			}
			if typ == 2 {
				for _, k := range []int{0, n / 2, n - 1} {
					edit(fmt.Sprintf("%s: byte %d of %d ^0x20", where, k, n), p+3+k, xor(0x20))
				}
			}
			p += 3 + n
			if h&1 != 0 {
				break
			}
		}
		if fhd&0x04 != 0 {
			edit(fmt.Sprintf("zstd frame %d: checksum changed", nf), p, xor(0x01))
			p += 4
		}
		off = p
	}
	return out
}

// zstdHeaderLen is the length of a zstd frame header after the magic
// number, from its descriptor byte (RFC 8878 section 3.1.1.1).
func zstdHeaderLen(fhd byte) int {
	single := fhd&0x20 != 0
	n := 1 + [4]int{0, 1, 2, 4}[fhd&3] + [4]int{0, 2, 4, 8}[fhd>>6]
	if !single {
		n++
	}
	if single && fhd>>6 == 0 {
		n++
	}
	return n
}

// genericDamage flips bytes in the head, the body and the tail of b,
// appends zeros or junk to it, and cuts it at many lengths.
func genericDamage(b []byte) []damaged {
	var out []damaged
	n := len(b)
	masks := []byte{0x01, 0x80, 0xff, 0x10, 0x42}
	flip := func(where string, i int) {
		c := bytes.Clone(b)
		m := masks[len(out)%len(masks)]
		c[i] ^= m
		out = append(out, damaged{fmt.Sprintf("%s byte %d ^%#02x", where, i, m), c})
	}
	seen := map[int]bool{}
	for i := range 16 {
		if p := i * min(n, 256) / 16; !seen[p] {
			seen[p] = true
			flip("head", p)
		}
	}
	for i := range 32 {
		if p := n/10 + i*(n*8/10)/32; !seen[p] {
			seen[p] = true
			flip("body", p)
		}
	}
	for i := range 16 {
		if p := n - 1 - i*min(n, 96)/16; p >= 0 && !seen[p] {
			seen[p] = true
			flip("tail", p)
		}
	}
	for _, tail := range []struct {
		what string
		b    []byte
	}{{"4 zero bytes", make([]byte, 4)}, {"1000 zero bytes", make([]byte, 1000)}, {"junk", []byte("junk\n")}} {
		out = append(out, damaged{tail.what + " appended", append(bytes.Clone(b), tail.b...)})
	}
	cut := map[int]bool{}
	for i := 1; i <= 24; i++ {
		cut[i*n/25] = true
	}
	for _, d := range []int{1, 2, 3, 4, 5, 8, 12, 16, 20, 24, 32} {
		cut[n-d] = true
	}
	for _, l := range slices.Sorted(maps.Keys(cut)) {
		if l > 0 && l < n {
			out = append(out, damaged{fmt.Sprintf("cut to %d of %d bytes", l, n), bytes.Clone(b[:l])})
		}
	}
	return out
}

// zipEdits edits the CRC-32 and sizes a zip declares for its entries, in
// the local header, the central directory or both.
func zipEdits(t *testing.T, b []byte, _ map[string][]byte) []damaged {
	var out []damaged
	type field struct {
		sig        uint32
		crc, csize int // offsets from the signature; usize follows csize
	}
	for _, f := range []field{{0x04034b50, 14, 18}, {0x02014b50, 16, 20}} {
		var sig [4]byte
		binary.LittleEndian.PutUint32(sig[:], f.sig)
		where := "local"
		if f.sig == 0x02014b50 {
			where = "central"
		}
		at := 0
		for k := 0; ; k++ {
			i := bytes.Index(b[at:], sig[:])
			if i < 0 {
				break
			}
			i += at
			at = i + 4
			if k%2 == 1 {
				continue // every other entry is enough
			}
			edit := func(what string, off int, delta int32) {
				c := bytes.Clone(b)
				v := binary.LittleEndian.Uint32(c[i+off:])
				binary.LittleEndian.PutUint32(c[i+off:], uint32(int32(v)+delta))
				out = append(out, damaged{fmt.Sprintf("%s header %d: %s %+d", where, k, what, delta), c})
			}
			edit("CRC-32", f.crc, 1)
			edit("compressed size", f.csize, -1)
			edit("size", f.csize+4, 1)
			edit("size", f.csize+4, -7)
		}
	}
	return out
}

// sevenZipEdits flips the bits that end the packed streams, and changes
// the CRC-32 a plain 7z header stores for each file and repairs the
// header's own checksums, so only the file's check can tell (a packed
// header hides the values).
func sevenZipEdits(t *testing.T, b []byte, pack map[string][]byte) []damaged {
	var out []damaged
	off := int64(binary.LittleEndian.Uint64(b[12:]))
	size := int64(binary.LittleEndian.Uint64(b[20:]))
	// The last bytes before the header end the last packed stream: a
	// coder's end marker, or the last block of a Deflate stream.
	for k := int64(1); k <= 12 && k <= off; k++ {
		c := bytes.Clone(b)
		c[32+off-k] ^= 0x01 << (k % 8)
		out = append(out, damaged{fmt.Sprintf("byte %d before the header ^%#02x", k, 0x01<<(k%8)), c})
	}
	// A packed header's own pack stream comes last: the files' streams
	// end before it.
	if end := int64(dataPackEnd(b)); end != 32+off {
		for k := int64(1); k <= 8 && k <= end-32; k++ {
			c := bytes.Clone(b)
			c[end-k] ^= 0x01 << (k % 8)
			out = append(out, damaged{fmt.Sprintf("byte %d before the header's pack stream ^%#02x", k, 0x01<<(k%8)), c})
		}
	}
	if 32+off+size > int64(len(b)) || size < 2 || b[32+off] != 0x01 {
		return out // a packed header (kEncodedHeader)
	}
	for _, name := range slices.Sorted(maps.Keys(pack)) {
		var sum [4]byte
		binary.LittleEndian.PutUint32(sum[:], crc32.ChecksumIEEE(pack[name]))
		bad := sum
		bad[1] ^= 0x04
		if !bytes.Contains(b[32+off:32+off+size], sum[:]) {
			continue
		}
		out = append(out, damaged{"stored CRC-32 of " + name + " changed, header checksums repaired", patch7z(t, bytes.Clone(b), sum[:], bad[:])})
	}
	return out
}

// tarEdits decompresses the tar with the decompress command, edits the
// size a tar header declares (its checksum repaired) or a byte of a file's
// data (tar has no checksum of data: both tools must agree on the changed
// bytes), and compresses it again with compress: the damage is in the tar,
// the compressed stream intact.
func tarEdits(t *testing.T, b []byte, decompress, compress []string) []damaged {
	cmd := exec.Command(decompress[0], decompress[1:]...)
	cmd.Stdin = bytes.NewReader(b)
	tb, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v", decompress, err)
	}
	repack := func(how string, c []byte) damaged {
		cmd := exec.Command(compress[0], compress[1:]...)
		cmd.Stdin = bytes.NewReader(c)
		z, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", compress, err)
		}
		return damaged{how, z}
	}
	var out []damaged
	for off := 0; off+512 <= len(tb); {
		h := tb[off : off+512]
		if h[0] == 0 {
			break
		}
		size, err := parseOctal(h[124:136])
		if err != nil {
			t.Fatalf("tar header at %d: %v", off, err)
		}
		name := strings.TrimRight(string(h[:100]), "\x00")
		if size > 0 {
			for _, d := range []int64{1, -1, 512, -size} {
				c := bytes.Clone(tb)
				setTarSize(c[off:off+512], size+d)
				out = append(out, repack(fmt.Sprintf("tar header of %s: size %+d", name, d), c))
			}
			c := bytes.Clone(tb)
			c[off+512+int(size)/2] ^= 0x08
			out = append(out, repack(fmt.Sprintf("tar data of %s: byte %d changed", name, size/2), c))
		}
		off += 512 + int((size+511)/512*512)
	}
	return out
}

// parseOctal reads a tar header's octal number field.
func parseOctal(f []byte) (int64, error) {
	s := strings.TrimRight(strings.TrimLeft(string(f), " "), " \x00")
	var n int64
	for _, c := range s {
		if c < '0' || c > '7' {
			return 0, fmt.Errorf("not octal: %q", f)
		}
		n = n*8 + int64(c-'0')
	}
	return n, nil
}

// setTarSize writes size into a tar header and repairs its checksum.
func setTarSize(h []byte, size int64) {
	copy(h[124:136], fmt.Sprintf("%011o\x00", size))
	copy(h[148:156], "        ")
	var sum int64
	for _, c := range h {
		sum += int64(c)
	}
	copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
}

// diffCount is what happened to the damaged archives of one format.
type diffCount struct {
	total, refRefused, fsRefused, bothAccepted, changed int
	fsOnly                                              map[string]int // refused by forgesync alone, by rule
}

// runTool runs argv with the words IN and DIR (and 7z's -oDIR) replaced
// and reports whether it exited 0.
func runTool(ctx context.Context, argv []string, in, dir string) bool {
	args := slices.Clone(argv)
	for i, a := range args {
		switch a {
		case "IN":
			args[i] = in
		case "DIR":
			args[i] = dir
		case "-oDIR":
			args[i] = "-o" + dir
		}
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	return cmd.Run() == nil
}

// readTree returns every regular file below root by slash path.
func readTree(root string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	return files, err
}

// sameFiles reports whether two trees hold the same files and bytes.
func sameFiles(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, bytes.Equal)
}

// TestCorruptDifferential is the differential corruption test of issue
// 20: over 500 damaged archives, no silent install.
func TestCorruptDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (every damage of every format against the tools); run without -short")
	}
	pack := diffPack()
	src := t.TempDir()
	for name, body := range pack {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	work := t.TempDir()
	var (
		mu       sync.Mutex
		counts   = map[string]*diffCount{}
		refused  = map[string][]string{} // refused by both, for the isolated run
		total    int
		failures int
	)
	for _, f := range diffFormats() {
		toolcheck.Need(t, f.tools...)
		out := filepath.Join(work, strings.NewReplacer(" ", "-", ",", "").Replace(f.name)+".bin")
		argv := slices.Clone(f.make)
		for i, a := range argv {
			if a == "OUT" {
				argv[i] = out
			}
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = src
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		// The intact archive: both accept, the same bytes.
		if !runAll(t.Context(), f.test, out) {
			t.Fatalf("%s: the reference tool refuses the intact archive", f.name)
		}
		staging, err := os.MkdirTemp(work, "intact-")
		if err != nil {
			t.Fatal(err)
		}
		st, err := extractAt(t.Context(), out, staging, DefaultLimits(), extractOptions{hash: true, writeback: unlimitedWriteback})
		if err != nil {
			t.Fatalf("%s: the intact archive: %v", f.name, err)
		}
		if got, err := readTree(st.Root); err != nil || !sameFiles(got, pack) {
			t.Fatalf("%s: the intact archive unpacks to other files (%v)", f.name, err)
		}
		os.RemoveAll(staging)
		cases := genericDamage(b)
		if f.thin > 1 {
			var kept []damaged
			for i, d := range cases {
				if i%f.thin == 0 {
					kept = append(kept, d)
				}
			}
			cases = kept
		}
		cases = append(cases, f.edits(t, b, pack)...)
		counts[f.name] = &diffCount{fsOnly: map[string]int{}}
		total += len(cases)

		g, ctx := errgroup.WithContext(t.Context())
		g.SetLimit(3)
		for i, d := range cases {
			g.Go(func() error {
				dir, err := os.MkdirTemp(work, "case-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				archive := filepath.Join(dir, fmt.Sprintf("%s-%03d.bin", strings.ReplaceAll(f.name, " ", "-"), i))
				if err := os.WriteFile(archive, d.b, 0o644); err != nil {
					return err
				}
				refOK := runAll(ctx, f.test, archive)
				staging := filepath.Join(dir, "staging")
				if err := os.Mkdir(staging, 0o700); err != nil {
					return err
				}
				st, xerr := extractAt(ctx, archive, staging, DefaultLimits(), extractOptions{hash: true, writeback: unlimitedWriteback})
				var re *RejectError
				if xerr != nil && !errors.As(xerr, &re) {
					return fmt.Errorf("%s, %s: a failure, not a verdict: %v", f.name, d.how, xerr)
				}
				var got map[string][]byte
				if xerr == nil {
					if got, err = readTree(st.Root); err != nil {
						return err
					}
				}
				// What the reference tool unpacks, when it accepts and the
				// bytes are not the original ones.
				var refGot map[string][]byte
				if refOK && (xerr != nil || !sameFiles(got, pack)) {
					xdir := filepath.Join(dir, "ref")
					if err := os.Mkdir(xdir, 0o755); err != nil {
						return err
					}
					if !runTool(ctx, f.x, archive, xdir) {
						return fmt.Errorf("%s, %s: the reference tool tests it whole but cannot unpack it", f.name, d.how)
					}
					if refGot, err = readTree(xdir); err != nil {
						return err
					}
				}

				mu.Lock()
				defer mu.Unlock()
				c := counts[f.name]
				c.total++
				if !refOK {
					c.refRefused++
				}
				if xerr != nil {
					c.fsRefused++
				}
				switch {
				case !refOK && xerr == nil:
					failures++
					t.Errorf("SILENT INSTALL: %s, %s: the reference tool refuses it, forgesync installed it", f.name, d.how)
				case refOK && xerr == nil:
					c.bothAccepted++
					if !sameFiles(got, pack) {
						c.changed++
						if !sameFiles(got, refGot) {
							failures++
							t.Errorf("%s, %s: both accept it, but forgesync unpacked other bytes than the reference tool", f.name, d.how)
						}
					}
				case refOK && xerr != nil:
					// Fine when a rule of forgesync's explains it (a zip's
					// two headers must agree, its end record must be
					// sound), never a claim of damaged bytes the reference
					// tool unpacked intact.
					var kinds []string
					for _, p := range re.Problems {
						kinds = append(kinds, problemKind(p))
						if p.Rule == RuleCorrupt && claimsDamagedBytes(p.Value) && sameFiles(refGot, pack) {
							failures++
							t.Errorf("%s, %s: forgesync calls intact data damaged: %s", f.name, d.how, re)
						}
					}
					slices.Sort(kinds)
					c.fsOnly[strings.Join(slices.Compact(kinds), " + ")]++
					t.Logf("%s, %s: refused by forgesync alone: %s", f.name, d.how, re)
				default:
					if len(refused[f.name]) < 2 && slices.ContainsFunc(re.Problems, func(p Problem) bool { return p.Rule == RuleCorrupt }) {
						keep := filepath.Join(work, fmt.Sprintf("refused-%s-%d.bin", strings.ReplaceAll(f.name, " ", "-"), len(refused[f.name])))
						if err := os.WriteFile(keep, d.b, 0o644); err != nil {
							return err
						}
						refused[f.name] = append(refused[f.name], keep)
					}
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
	}

	names := slices.Collect(maps.Keys(counts))
	sort.Strings(names)
	var line []string
	for _, n := range names {
		c := counts[n]
		s := fmt.Sprintf("%s: %d damaged, %d refused by reference, %d by forgesync, %d accepted by both (identical; %d with changed bytes)", n, c.total, c.refRefused, c.fsRefused, c.bothAccepted, c.changed)
		if len(c.fsOnly) > 0 {
			s += fmt.Sprintf(", refused by forgesync alone: %v", c.fsOnly)
		}
		line = append(line, s)
	}
	t.Logf("differential corruption: %d damaged archives; %s", total, strings.Join(line, "; "))
	if total < 500 {
		t.Errorf("the corpus has %d damaged archives; want at least 500", total)
	}
	if failures > 0 {
		t.Errorf("%d damaged archives judged wrong", failures)
	}

	// A few of the damaged archives through the isolated child the
	// pipeline uses: the damage reaches a rejection there too.
	t.Run("isolated", func(t *testing.T) {
		isolateFor(t, &Isolation{})
		for _, n := range names {
			for _, archive := range refused[n] {
				iso := newIsolated(t)
				st, err := testExtract(t.Context(), archive, iso.staging, DefaultLimits(), nil)
				var re *RejectError
				switch {
				case err == nil:
					st.Remove()
					t.Errorf("%s: %s installed in the child; want a rejection", n, filepath.Base(archive))
				case !errors.As(err, &re):
					t.Errorf("%s: %s: %v; want a rejection", n, filepath.Base(archive), err)
				case !slices.ContainsFunc(re.Problems, func(p Problem) bool { return p.Rule == RuleCorrupt }):
					t.Errorf("%s: %s: %v; want %q", n, filepath.Base(archive), err, RuleCorrupt)
				}
				iso.verify(t, true)
			}
			if len(refused[n]) == 0 {
				t.Errorf("%s: no damaged archive refused as damaged to run in the child", n)
			}
		}
	})
}

// claimsDamagedBytes reports whether a damage problem's value says an
// entry's bytes are not the ones stored, rather than that the archive's
// structure is unsound.
func claimsDamagedBytes(value string) bool {
	for _, claim := range []string{"CRC-32 mismatch", "data ends", "data runs on", "stream ends early", "gzip CRC-32", "zstd checksum"} {
		if strings.Contains(value, claim) {
			return true
		}
	}
	return false
}

// problemKind is a problem's rule, and for damage what kind: the value
// up to its first colon, without its numbers.
func problemKind(p Problem) string {
	if p.Rule != RuleCorrupt {
		return p.Rule
	}
	v, _, _ := strings.Cut(p.Value, ":")
	words := strings.Fields(v)
	words = slices.DeleteFunc(words, func(w string) bool { return w[0] >= '0' && w[0] <= '9' })
	return "damaged (" + strings.Join(words, " ") + ")"
}

// runAll runs every reference check on archive and reports whether all
// passed.
func runAll(ctx context.Context, checks [][]string, archive string) bool {
	for _, c := range checks {
		if !runTool(ctx, c, archive, "") {
			return false
		}
	}
	return true
}
