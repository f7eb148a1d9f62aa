package intake

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// hostileCase is one bad archive built with Go writers.
type hostileCase struct {
	name  string
	build func(t *testing.T) []byte // archive bytes
	lim   func(*Limits)             // lowers limits for the case
	wants []want
}

func zipOf(es ...entry) func(*testing.T) []byte {
	return func(t *testing.T) []byte { return zipBytes(t, es) }
}

func tarOf(es ...entry) func(*testing.T) []byte {
	return func(t *testing.T) []byte { return tarBytes(t, es) }
}

func tgzOf(es ...entry) func(*testing.T) []byte {
	return func(t *testing.T) []byte { return gzipBytes(t, tarBytes(t, es)) }
}

func w(entry, rule string) want { return want{entry: entry, rule: rule} }

// hostileCases is the Go-built half of the hostile corpus: every case is a
// distinct bad archive, rejected for the reasons it lists.
func hostileCases() []hostileCase {
	zeros := func(n int) []byte { return make([]byte, n) }
	nfc := norm.NFC.String("content/caf\u00e9.pak")
	nfd := norm.NFD.String("content/caf\u00e9.pak")
	long := "content/" + strings.Repeat("a", 200) + ".pak"
	deep := "content/1/2/3/4/5/6/7/8/x.pak"
	return []hostileCase{
		{name: "absolute path", build: tarOf(with(file("/etc/evil.pak", "x"))...), wants: []want{w("/etc/evil.pak", RuleAbsolute)}},
		{name: "drive letter", build: zipOf(with(file("C:/evil.pak", "x"))...), wants: []want{w("C:/evil.pak", RuleDriveLetter)}},
		{name: "dotdot escape zip", build: zipOf(with(file("../sentinel/evil.pak", "x"))...), wants: []want{w("../sentinel/evil.pak", RuleDotDot)}},
		{name: "dotdot inside tar", build: tarOf(with(file("content/../../sentinel/evil.pak", "x"))...), wants: []want{w("content/../../sentinel/evil.pak", RuleDotDot)}},
		{name: "backslash", build: zipOf(with(file(`content\evil.pak`, "x"))...), wants: []want{w(`content\evil.pak`, RuleBackslash)}},
		{name: "backslash dotdot", build: zipOf(with(file(`..\..\evil.pak`, "x"))...), wants: []want{w(`..\..\evil.pak`, RuleBackslash)}},
		{name: "NUL in name", build: zipOf(with(file("content/a\x00.pak", "x"))...), wants: []want{w("content/a\x00.pak", RuleControlChar)}},
		{name: "control char", build: tarOf(with(file("content/a\x07b.pak", "x"))...), wants: []want{w("content/a\x07b.pak", RuleControlChar)}},
		{name: "invalid UTF-8", build: zipOf(with(file("content/\xff\xfe.pak", "x"))...), wants: []want{w("content/\xff\xfe.pak", RuleInvalidUTF8)}},
		{name: "reserved CON", build: zipOf(with(file("content/CON.pak", "x"))...), wants: []want{w("content/CON.pak", RuleReserved)}},
		{name: "reserved lpt1 any case", build: tarOf(with(file("content/lPt1.utoc", "x"), file("content/lPt1.ucas", "x"))...), wants: []want{w("content/lPt1.utoc", RuleReserved), w("content/lPt1.ucas", RuleReserved)}},
		{name: "8.3 short-name alias", build: zipOf(with(file("content/averylongname.pak", "x"), file("content/AVERYL~1.PAK", "y"))...), wants: []want{w("content/AVERYL~1.PAK", RuleShortName)}},
		{name: "8.3 short-name folder", build: tarOf(with(file("content/MAPS~1/x.pak", "x"))...), wants: []want{w("content/MAPS~1/x.pak", RuleShortName)}},
		{name: "reserved aux folder", build: zipOf(with(file("content/aux/x.pak", "x"))...), wants: []want{w("content/aux/x.pak", RuleReserved)}},
		{name: "trailing dot", build: zipOf(with(file("content/maps./x.pak", "x"))...), wants: []want{w("content/maps./x.pak", RuleTrailingDotSpace)}},
		{name: "trailing space", build: tarOf(with(file("content/maps /x.pak", "x"))...), wants: []want{w("content/maps /x.pak", RuleTrailingDotSpace)}},
		{name: "windows colon stream", build: zipOf(with(file("content/x.pak:evil", "x"))...), wants: []want{w("content/x.pak:evil", RuleWindowsChar)}},
		{name: "path too long", build: zipOf(with(file(long, "x"))...), wants: []want{w(long, RulePathTooLong)}},
		{name: "path too deep", build: tarOf(with(file(deep, "x"))...), wants: []want{w(deep, RuleTooDeep)}},
		{name: "empty component", build: tarOf(with(file("content//x.pak", "x"))...), wants: []want{w("content//x.pak", RuleEmptyComponent)}},
		{name: "dot component", build: zipOf(with(file("content/./x.pak", "x"))...), wants: []want{w("content/./x.pak", RuleDotComponent)}},
		{name: "duplicate by case", build: zipOf(with(file("content/Extra.pak", "x"))...), wants: []want{w("content/Extra.pak", RuleDuplicate)}},
		{name: "duplicate by NFC", build: zipOf(with(file(nfc, "x"), file(nfd, "y"))...), wants: []want{w(nfd, RuleDuplicate)}},
		{name: "duplicate exact", build: tarOf(with(file("content/extra.pak", "again"))...), wants: []want{w("content/extra.pak", RuleDuplicate)}},
		{name: "file and folder clash", build: tarOf(with(file("content/extra.pak/x.pak", "x"))...), wants: []want{w("content/extra.pak/x.pak", RuleFileDirClash)}},
		{name: "folder case clash", build: zipOf(with(file("Content/x.pak", "x"))...), wants: []want{w("Content/x.pak", RuleDuplicate)}},
		{name: "symlink tar", build: tarOf(with(entry{name: "content/link.pak", typ: tar.TypeSymlink, link: "/etc/passwd"})...), wants: []want{w("content/link.pak", RuleSymlink)}},
		{name: "symlink zip", build: zipOf(with(entry{name: "content/link.pak", typ: tar.TypeSymlink, link: "../../sentinel"})...), wants: []want{w("content/link.pak", RuleSymlink)}},
		{name: "hard link tar", build: tarOf(with(entry{name: "content/hard.pak", typ: tar.TypeLink, link: "content/extra.pak"})...), wants: []want{w("content/hard.pak", RuleHardLink)}},
		{name: "char device", build: tarOf(with(entry{name: "content/null.pak", typ: tar.TypeChar})...), wants: []want{w("content/null.pak", RuleDevice)}},
		{name: "block device", build: tarOf(with(entry{name: "content/sda.pak", typ: tar.TypeBlock})...), wants: []want{w("content/sda.pak", RuleDevice)}},
		{name: "fifo", build: tgzOf(with(entry{name: "content/pipe.pak", typ: tar.TypeFifo})...), wants: []want{w("content/pipe.pak", RuleFIFO)}},
		{name: "named pipe in zip", build: zipOf(with(entry{name: "content/pipe.pak", mode: fs.ModeNamedPipe})...), wants: []want{w("content/pipe.pak", RuleFIFO)}},
		{name: "dll in content", build: zipOf(with(file("content/x.dll", "MZ"))...), wants: []want{w("content/x.dll", RuleNotAllowed)}},
		{name: "every kind of code", build: tarOf(with(file("lifts.lua", "x"), file("content/run.ps1", "x"), file("setup.bat", "x"), file("content/a/b.js", "x"), file("tool.py", "x"), file("Setup.EXE", "x"))...),
			wants: []want{w("lifts.lua", RuleNotAllowed), w("content/run.ps1", RuleNotAllowed), w("setup.bat", RuleNotAllowed), w("content/a/b.js", RuleNotAllowed), w("tool.py", RuleNotAllowed), w("Setup.EXE", RuleNotAllowed)}},
		{name: "nested archive", build: zipOf(with(file("content/inner.zip", string(zipBytesNoT(goodPack("")))))...), wants: []want{w("content/inner.zip", RuleNotAllowed)}},
		{name: "unknown file", build: tgzOf(with(file("notes.docx", "x"))...), wants: []want{w("notes.docx", RuleNotAllowed)}},
		{name: "missing manifest", build: zipOf(without("forgepack.json")...), wants: []want{w("forgepack.json", RuleMissingManifest)}},
		{name: "utoc without ucas", build: zipOf(without("content/foundry.ucas")...), wants: []want{w("content/foundry.utoc", RuleMissingUcas)}},
		{name: "ucas without utoc", build: tarOf(without("content/foundry.utoc")...), wants: []want{w("content/foundry.ucas", RuleMissingUtoc)}},
		{name: "pak outside content", build: zipOf(with(file("loose.pak", "x"))...), wants: []want{w("loose.pak", RuleNotAllowed)}},
		{name: "readme inside content", build: zipOf(with(file("content/README.md", "x"))...), wants: []want{w("content/README.md", RuleNotAllowed)}},
		{name: "two top folders", build: zipOf(append(goodPack("a/"), file("b/README.md", "x"))...), wants: []want{w("", RuleTopFolders)}},
		{name: "manifest too large", build: zipOf(append(without("forgepack.json"), entry{name: "forgepack.json", body: zeros(maxManifestBytes + 1)})...), wants: []want{w("forgepack.json", RuleEntryTooLarge)}},
		{name: "readme too large tar", build: tarOf(append(without("README.md"), entry{name: "README.md", body: bytes.Repeat([]byte("readme "), maxDocBytes/7+1)})...), wants: []want{w("README.md", RuleEntryTooLarge)}},
		{name: "too many entries", build: zipOf(with(file("content/1.pak", ""), file("content/2.pak", ""))...), lim: func(l *Limits) { l.MaxEntries = 10 }, wants: []want{w("content/2.pak", RuleTooManyEntries)}},
		{name: "total too large", build: tgzOf(with(entry{name: "content/big1.pak", body: randomish(600 << 10)}, entry{name: "content/big2.pak", body: randomish(600 << 10)})...), lim: func(l *Limits) { l.MaxTotalBytes = 1 << 20 }, wants: []want{w("content/big2.pak", RuleTotalTooLarge)}},
		{name: "entry too large by tar header", build: tarOf(with(entry{name: "content/big.pak", body: randomish(3 << 20)})...), lim: func(l *Limits) { l.MaxEntryBytes = 2 << 20 }, wants: []want{w("content/big.pak", RuleEntryTooLarge)}},
		{name: "ratio bomb zip", build: zipOf(with(entry{name: "content/bomb.pak", body: zeros(64 << 20)})...), wants: []want{w("content/bomb.pak", RuleRatio)}},
		{name: "ratio bomb tar.gz", build: tgzOf(with(entry{name: "content/bomb.pak", body: zeros(64 << 20)})...), wants: []want{w("content/bomb.pak", RuleRatio)}},
		{name: "ratio bomb tar.zst", build: func(t *testing.T) []byte {
			return zstdBytes(t, tarBytes(t, with(entry{name: "content/bomb.pak", body: zeros(64 << 20)})))
		}, wants: []want{w("content/bomb.pak", RuleRatio)}},
		{name: "code in tar.xz", build: func(t *testing.T) []byte { return xzBytes(t, tarBytes(t, with(file("content/x.dll", "MZ")))) }, wants: []want{w("content/x.dll", RuleNotAllowed)}},
		{name: "lying zip sizes", build: lyingZip, wants: []want{w("content/liar.pak", RuleCorrupt)}},
		{name: "zip sizes overstated, counted bytes stop it", build: overstatedZip, lim: func(l *Limits) { l.MaxTotalBytes = 16 << 20 }, wants: []want{w("content/over.pak", RuleTotalTooLarge)}},
		{name: "tar entry longer than header", build: tarOf(with(entry{name: "content/liar.pak", body: randomish(4096), size: 10})...), wants: []want{{rule: RuleCorrupt, anyEntry: true}}},
		{name: "truncated zip", build: func(t *testing.T) []byte { b := zipBytes(t, goodPack("")); return b[:len(b)/2] }, wants: []want{{rule: RuleCorrupt, anyEntry: true}}},
		{name: "truncated tar.gz", build: func(t *testing.T) []byte {
			b := gzipBytes(t, tarBytes(t, with(entry{name: "content/big.pak", body: randomish(1 << 20)})))
			return b[:len(b)/2]
		}, wants: []want{{rule: RuleCorrupt, anyEntry: true}}},
		{name: "not an archive", build: func(*testing.T) []byte { return []byte("just some text, renamed to .zip\n") }, wants: []want{{rule: RuleNotArchive}}},
		{name: "gzip of a text file", build: func(t *testing.T) []byte { return gzipBytes(t, []byte("not a tar\n")) }, wants: []want{{rule: RuleNotArchive}}},
		{name: "everything at once", build: zipOf(file("../x", "x"), file("a.dll", "x"), file("CON", "x"), entry{name: "l", typ: tar.TypeSymlink, link: "/"}),
			wants: []want{w("../x", RuleDotDot), w("a.dll", RuleNotAllowed), w("CON", RuleReserved), w("l", RuleSymlink), w("forgepack.json", RuleMissingManifest)}},
	}
}

// zipBytesNoT is zipBytes for use while building a table.
func zipBytesNoT(es []entry) []byte { return zipBytes(&testing.T{}, es) }

// randomish returns n bytes that deflate a little but not much.
func randomish(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x) & 0x3f
	}
	return b
}

// lyingZip is a zip whose headers say its entry holds 1,000 bytes from
// its real compressed size while the deflate data inflates to 64 MiB.
func lyingZip(t *testing.T) []byte {
	data := make([]byte, 64<<20)
	raw := deflateRaw(t, data)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range goodPack("") {
		if e.typ == tar.TypeDir {
			continue
		}
		fw, _ := zw.Create(e.name)
		fw.Write(e.body)
	}
	h := &zip.FileHeader{
		Name: "content/liar.pak", Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE(data[:1000]), CompressedSize64: uint64(len(raw)), UncompressedSize64: 1000,
	}
	fw, err := zw.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(raw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// overstatedZip is a zip whose directory says its entry holds 1 GiB
// (within the 2 GiB entry limit): only counting the bytes that really
// come out stops it at a lowered total limit.
func overstatedZip(t *testing.T) []byte {
	data := randomish(24 << 20)
	raw := deflateRaw(t, data)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range goodPack("") {
		if e.typ != tar.TypeDir {
			fw, _ := zw.Create(e.name)
			fw.Write(e.body)
		}
	}
	fw, err := zw.CreateRaw(&zip.FileHeader{
		Name: "content/over.pak", Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE(data), CompressedSize64: uint64(len(raw)), UncompressedSize64: 1 << 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(raw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExtractRejectsHostileGoArchives(t *testing.T) {
	if raceEnabled {
		t.Skip("decodes hundreds of MiB on one goroutine per entry: the plain run covers it, and the race detector's minutes buy nothing TestExtractToolArchives does not")
	}
	cases := hostileCases()
	if len(cases) < 40 {
		t.Errorf("hostile corpus has %d cases; want at least 40", len(cases))
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.build(t)
			sum := sha256.Sum256(b)
			if seen[string(sum[:])] {
				t.Fatalf("archive bytes repeat another case")
			}
			seen[string(sum[:])] = true
			lim := DefaultLimits()
			if tc.lim != nil {
				tc.lim(&lim)
			}
			mustReject(t, writeArchive(t, "pack.zip", b), lim, tc.wants...)
		})
	}
}

func TestExtractProblemText(t *testing.T) {
	re := mustReject(t, writeArchive(t, "p.zip", zipBytes(t, with(file("content/x.dll", "MZ")))), DefaultLimits(), w("content/x.dll", RuleNotAllowed))
	got := re.Problems[0].String()
	if want := "content/x.dll: not allowed in a pack (packs carry data, never code)"; got != want {
		t.Errorf("Problem.String() = %q; want %q", got, want)
	}
	if !strings.Contains(re.Error(), "content/x.dll") {
		t.Errorf("RejectError.Error() = %q; want the entry named", re.Error())
	}
	re = mustReject(t, writeArchive(t, "n.zip", zipBytes(t, with(file("content/\x00.pak", "x")))), DefaultLimits())
	if s := re.Problems[0].String(); !strings.HasPrefix(s, `"content/\x00.pak": `) {
		t.Errorf("Problem.String() = %q; want the name quoted", s)
	}
}

func TestExtractNotArchiveIs(t *testing.T) {
	iso := newIsolated(t)
	_, err := testExtract(t.Context(), writeArchive(t, "x.zip", []byte("hello")), iso.staging, DefaultLimits(), nil)
	if !errors.Is(err, errNotArchive) || !errors.Is(err, errRejected) {
		t.Errorf("Extract(text) = %v; want ErrNotArchive and ErrRejected", err)
	}
	_, err = testExtract(t.Context(), writeArchive(t, "x.zip", zipBytes(t, without("forgepack.json"))), iso.staging, DefaultLimits(), nil)
	if errors.Is(err, errNotArchive) || !errors.Is(err, errRejected) {
		t.Errorf("Extract(no manifest) = %v; want ErrRejected only", err)
	}
	iso.verify(t, true)
}

func TestExtractGoodGoArchives(t *testing.T) {
	for _, tc := range []struct {
		name, format string
		build        func(t *testing.T, es []entry) []byte
	}{
		{"zip", ".zip", func(t *testing.T, es []entry) []byte { return zipBytes(t, es) }},
		{"tar", ".tar", func(t *testing.T, es []entry) []byte { return tarBytes(t, es) }},
		{"tgz", ".tar.gz", func(t *testing.T, es []entry) []byte { return gzipBytes(t, tarBytes(t, es)) }},
		{"txz", ".tar.xz", func(t *testing.T, es []entry) []byte { return xzBytes(t, tarBytes(t, es)) }},
		{"tzst", ".tar.zst", func(t *testing.T, es []entry) []byte { return zstdBytes(t, tarBytes(t, es)) }},
	} {
		for _, prefix := range []string{"", "foundry-wide/", "./"} {
			t.Run(tc.name+"/"+prefix, func(t *testing.T) {
				b := tc.build(t, goodPack(prefix))
				// The name says nothing: formats are known by content.
				st := mustExtract(t, writeArchive(t, "pack.bin", b), goodFiles())
				if st.Format != tc.format {
					t.Errorf("Format = %q; want %q", st.Format, tc.format)
				}
				sum := sha256.Sum256(b)
				if st.SHA256 != hex.EncodeToString(sum[:]) {
					t.Errorf("SHA256 = %s; want %x", st.SHA256, sum)
				}
				wantRoot := filepath.Join(st.Dir, filepath.FromSlash(strings.TrimPrefix(prefix, "./")))
				if filepath.Clean(st.Root) != filepath.Clean(wantRoot) {
					t.Errorf("Root = %s; want %s", st.Root, wantRoot)
				}
				got, err := os.ReadFile(filepath.Join(st.Root, "content", "foundry.ucas"))
				if err != nil || string(got) != strings.Repeat("ucas", 5000) {
					t.Errorf("content/foundry.ucas = %d bytes, %v; want the archived bytes", len(got), err)
				}
				if err := st.Remove(); err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(st.Dir); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("after Remove, Stat(staging) = %v; want not exist", err)
				}
			})
		}
	}
}

func TestExtractProgress(t *testing.T) {
	iso := newIsolated(t)
	b := zipBytes(t, with(entry{name: "content/big.pak", body: randomish(3 << 20)}))
	var calls int
	var last, total int64
	st, err := testExtract(t.Context(), writeArchive(t, "p.zip", b), iso.staging, DefaultLimits(), func(done, tot int64) {
		if done < last {
			t.Errorf("progress went back: %d after %d", done, last)
		}
		calls++
		last, total = done, tot
	})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Remove()
	want := int64(3<<20 + 20000 + 10 + 3 + 3 + 4 + 32 + 15 + 4)
	if calls == 0 || last != want || total != want {
		t.Errorf("progress: %d calls, last (%d, %d); want (%d, %d)", calls, last, total, want, want)
	}
}

func TestExtractCancelled(t *testing.T) {
	iso := newIsolated(t)
	b := tarBytes(t, with(entry{name: "content/big.pak", body: randomish(8 << 20)}))
	ctx, cancel := context.WithCancel(t.Context())
	_, err := testExtract(ctx, writeArchive(t, "p.tar", b), iso.staging, DefaultLimits(), func(done, total int64) {
		if done > 1<<20 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || errors.Is(err, errRejected) {
		t.Errorf("Extract(cancelled) = %v; want context.Canceled, not a rejection", err)
	}
	iso.verify(t, true)
}

func TestExtractBadLimits(t *testing.T) {
	lim := DefaultLimits()
	lim.MaxEntries++
	_, err := testExtract(t.Context(), writeArchive(t, "p.zip", zipBytes(t, goodPack(""))), t.TempDir(), lim, nil)
	if !errors.Is(err, ErrLimitRaised) {
		t.Errorf("Extract(raised limit) = %v; want ErrLimitRaised", err)
	}
}

func TestExtractMissingArchive(t *testing.T) {
	_, err := testExtract(t.Context(), filepath.Join(t.TempDir(), "gone.zip"), t.TempDir(), DefaultLimits(), nil)
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, errRejected) {
		t.Errorf("Extract(missing) = %v; want fs.ErrNotExist", err)
	}
}

// textLike returns n bytes of JSON-like text with some noise: it
// compresses about 10:1, far from a bomb but well enough that decoder
// read-ahead matters when measuring an entry's compressed size.
func textLike(n, seed int) []byte {
	var b []byte
	r := randomish(1<<20 + seed)
	for i := 0; len(b) < n; i++ {
		b = fmt.Appendf(b, `{"piece":"lift_pad_%d","kind":"block","n":%d},`+"\n", i%977, (i*(seed+1))%100000)
		b = append(b, r[(i*7)%(1<<20)], r[(i*11)%(1<<20)])
	}
	return b[:n]
}

// TestExtractCompressibleIsNoBomb checks that the ratio rule does not
// flag well-compressed data that follows a small entry in a stream.
func TestExtractCompressibleIsNoBomb(t *testing.T) {
	if raceEnabled {
		t.Skip("decodes hundreds of MiB on one goroutine per entry: the plain run covers it, and the race detector's minutes buy nothing TestExtractToolArchives does not")
	}
	var extra []entry
	var want []File
	for i := range 3 {
		small := fmt.Sprintf("content/s%d.pak", i)
		big := fmt.Sprintf("content/b%d.pak", i)
		extra = append(extra, entry{name: small, body: randomish(1000 + i)}, entry{name: big, body: textLike(6<<20, i)})
		want = append(want, File{big, 6 << 20}, File{small, int64(1000 + i)})
	}
	want = append(want, goodFiles()...)
	slices.SortFunc(want, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	tb := tarBytes(t, with(extra...))
	for name, b := range map[string][]byte{"tgz": gzipBytes(t, tb), "txz": xzBytes(t, tb), "tzst": zstdBytes(t, tb), "zip": zipBytes(t, with(extra...))} {
		t.Run(name, func(t *testing.T) { mustExtract(t, writeArchive(t, "p", b), want) })
	}
}

// TestExtractRootNeedsManifest checks that a lone top folder is the pack
// root only when it holds forgepack.json: an archive of content/ alone
// lacks a manifest, and its containers are where they belong.
func TestExtractRootNeedsManifest(t *testing.T) {
	re := mustReject(t, writeArchive(t, "p.zip", zipBytes(t, without("forgepack.json", "README.md", "preview.png"))), DefaultLimits(),
		w("forgepack.json", RuleMissingManifest))
	if len(re.Problems) != 1 {
		t.Errorf("problems = %v; want only the missing manifest", re.Problems)
	}
	re = mustReject(t, writeArchive(t, "p.zip", zipBytes(t, append(goodPack("top/"), file("top/sub/forgepack.json", "{}"))[1:])), DefaultLimits(),
		w("top/sub/forgepack.json", RuleNotAllowed))
	if len(re.Problems) != 1 {
		t.Errorf("problems = %v; want only the misplaced manifest", re.Problems)
	}
}
