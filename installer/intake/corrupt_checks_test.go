package intake

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomBytes returns n bytes that do not compress, the same every run.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// zipPlusRaw is goodPack as a zip plus one entry written raw: its stored
// bytes and its header (method, CRC-32 and both sizes) as given.
func zipPlusRaw(t *testing.T, h *zip.FileHeader, stored []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range goodPack("") {
		if e.typ != 0 {
			continue
		}
		w, err := zw.Create(e.name)
		if err == nil {
			_, err = w.Write(e.body)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	w, err := zw.CreateRaw(h)
	if err == nil {
		_, err = w.Write(stored)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCorruptZipEntryCutShort: a zip entry whose data ends before its
// declared size, stored or deflated, was installed truncated, the
// decoder's io.ErrUnexpectedEOF taken for the end of the entry. It is a
// damaged archive, naming the entry.
func TestCorruptZipEntryCutShort(t *testing.T) {
	body := append(randomBytes(1, 40<<10), strings.Repeat("pak!", 10000)...)
	deflated := deflateRaw(t, body)
	cases := []struct {
		name   string
		method uint16
		stored []byte
	}{
		{"stored, shorter than declared", zip.Store, body[:len(body)-1000]},
		{"deflate stream cut short", zip.Deflate, deflated[:len(deflated)/2]},
		{"deflate stream cut by a byte", zip.Deflate, deflated[:len(deflated)-1]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := &zip.FileHeader{
				Name:               "content/cut.pak",
				Method:             tc.method,
				CRC32:              crc32.ChecksumIEEE(body),
				CompressedSize64:   uint64(len(tc.stored)),
				UncompressedSize64: uint64(len(body)),
			}
			archive := writeArchive(t, "cut.zip", zipPlusRaw(t, h, tc.stored))
			re := mustReject(t, archive, DefaultLimits(), want{entry: "content/cut.pak", rule: RuleCorrupt})
			checkDamageValue(t, re, "content/cut.pak", "ends")
		})
	}
}

// TestCorruptZipCRC: a zip entry of the right size whose bytes differ from
// its CRC-32 is a damaged archive naming the entry and the CRC.
func TestCorruptZipCRC(t *testing.T) {
	body := randomBytes(2, 30<<10)
	h := &zip.FileHeader{
		Name:               "content/crc.pak",
		Method:             zip.Store,
		CRC32:              crc32.ChecksumIEEE(body) ^ 1,
		CompressedSize64:   uint64(len(body)),
		UncompressedSize64: uint64(len(body)),
	}
	archive := writeArchive(t, "crc.zip", zipPlusRaw(t, h, body))
	re := mustReject(t, archive, DefaultLimits(), want{entry: "content/crc.pak", rule: RuleCorrupt})
	checkDamageValue(t, re, "content/crc.pak", "CRC-32 mismatch")
}

// checkDamageValue checks that the damage problem of entry says what.
func checkDamageValue(t *testing.T, re *RejectError, entry, what string) {
	t.Helper()
	for _, p := range re.Problems {
		if p.Entry == entry && p.Rule == RuleCorrupt && strings.Contains(p.Value, what) {
			return
		}
	}
	t.Errorf("problems = %v; want %s: %s (%s…)", re.Problems, entry, RuleCorrupt, what)
}

// goodTarPlus is goodPack as a tar with a larger random file, so that the
// compressed streams span many blocks.
func goodTarPlus(t *testing.T) []byte {
	return tarBytes(t, with(entry{name: "content/random.pak", body: randomBytes(3, 100<<10)}))
}

// TestCorruptTarGzTrailer: the gzip CRC-32 and length trailer never ran,
// because after the tar end marker only the raw file was drained, not the
// decoder. A wrong trailer in any member is damage.
func TestCorruptTarGzTrailer(t *testing.T) {
	tb := goodTarPlus(t)
	one := gzipBytes(t, tb)
	half := len(tb) / 2
	two := append(gzipBytes(t, tb[:half]), gzipBytes(t, tb[half:])...)
	flip := func(b []byte, fromEnd int) []byte {
		b = bytes.Clone(b)
		b[len(b)-fromEnd] ^= 0x55
		return b
	}
	cases := []struct {
		name string
		b    []byte
	}{
		{"CRC-32", flip(one, 8)},
		{"length", flip(one, 2)},
		{"second member's CRC-32", flip(two, 6)},
		{"first member's CRC-32", flip(two, len(gzipBytes(t, tb[half:]))+5)},
		{"bytes after the last member", append(bytes.Clone(one), "junk"...)},
		{"bytes after zero padding", append(append(bytes.Clone(one), make([]byte, 600)...), 1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mustReject(t, writeArchive(t, "p.tar.gz", tc.b), DefaultLimits(), want{rule: RuleCorrupt, anyEntry: true})
		})
	}
	t.Run("intact, padded with zeros", func(t *testing.T) {
		mustExtractAny(t, writeArchive(t, "p.tar.gz", append(bytes.Clone(one), make([]byte, 600)...)))
	})
	t.Run("intact, two members", func(t *testing.T) {
		st := mustExtractAny(t, writeArchive(t, "p.tar.gz", two))
		if st.Format != ".tar.gz" {
			t.Errorf("format = %q", st.Format)
		}
	})
}

// TestCorruptTarZstChecksum: the zstd content checksum never ran, for the
// same reason. A wrong checksum in any frame is damage.
func TestCorruptTarZstChecksum(t *testing.T) {
	tb := goodTarPlus(t)
	one := zstdBytes(t, tb)
	half := len(tb) / 2
	second := zstdBytes(t, tb[half:])
	two := append(zstdBytes(t, tb[:half]), second...)
	flip := func(b []byte, fromEnd int) []byte {
		b = bytes.Clone(b)
		b[len(b)-fromEnd] ^= 0x55
		return b
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"checksum", flip(one, 1)},
		{"last frame's checksum", flip(two, 2)},
		{"first frame's checksum", flip(two, len(second)+3)},
		{"zeros after the last frame", append(bytes.Clone(one), make([]byte, 64)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustReject(t, writeArchive(t, "p.tar.zst", tc.b), DefaultLimits(), want{rule: RuleCorrupt, anyEntry: true})
		})
	}
	t.Run("intact, two frames", func(t *testing.T) {
		mustExtractAny(t, writeArchive(t, "p.tar.zst", two))
	})
}

// mustExtractAny extracts an archive that must be accepted, whatever files
// it holds.
func mustExtractAny(t *testing.T, archive string) *Staged {
	t.Helper()
	iso := newIsolated(t)
	st, err := testExtract(t.Context(), archive, iso.staging, DefaultLimits(), nil)
	if err != nil {
		t.Fatalf("Extract = %v; want success", err)
	}
	t.Cleanup(func() { st.Remove() })
	return st
}

// TestCorruptZipLocalHeader: the zip reader trusts the central directory
// alone, so a local header that says otherwise (which unzip reads) passed
// unseen, and so did an end record that splits the archive over disks.
func TestCorruptZipLocalHeader(t *testing.T) {
	good := zipBytes(t, goodPack(""))
	local := bytes.Index(good, []byte("PK\x03\x04"))
	name := bytes.Index(good[local:], []byte("content/")) + local
	end := bytes.LastIndex(good, []byte("PK\x05\x06"))
	edit := func(at int, f func([]byte)) []byte {
		b := bytes.Clone(good)
		f(b[at:])
		return b
	}
	for _, tc := range []struct {
		name, entry, value string
		b                  []byte
	}{
		{"local CRC-32", "content/", "disagree on the CRC-32", edit(local+14, func(b []byte) { b[0] ^= 1 })},
		{"local size", "content/", "disagree on the size", edit(local+22, func(b []byte) { b[0] ^= 1 })},
		{"local compressed size", "content/", "disagree on the compressed size", edit(local+18, func(b []byte) { b[0] ^= 1 })},
		{"local method", "content/", "disagree on the method", edit(local+8, func(b []byte) { b[0] ^= 8 })},
		{"local name", "content/", "disagree on the name", edit(name+2, func(b []byte) { b[0] ^= 0x20 })},
		{"local extra field runs into the next entry", "content/", "runs into the local header", edit(local+29, func(b []byte) { b[0] ^= 1 })},
		{"end record on another disk", "", "split archive", edit(end+4, func(b []byte) { b[0] = 1 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			re := mustReject(t, writeArchive(t, "p.zip", tc.b), DefaultLimits(), want{entry: tc.entry, rule: RuleCorrupt})
			checkDamageValue(t, re, tc.entry, tc.value)
		})
	}
}

// TestCorruptZipZeroCRC: the zip reader compares an entry's CRC-32 only
// when it is not 0, so an entry whose stored CRC-32 was zeroed in both
// headers installed whatever its bytes were.
func TestCorruptZipZeroCRC(t *testing.T) {
	body := randomBytes(4, 20<<10)
	h := &zip.FileHeader{
		Name:               "content/zero.pak",
		Method:             zip.Store,
		CompressedSize64:   uint64(len(body)),
		UncompressedSize64: uint64(len(body)),
	}
	re := mustReject(t, writeArchive(t, "zero.zip", zipPlusRaw(t, h, body)), DefaultLimits(), want{entry: "content/zero.pak", rule: RuleCorrupt})
	checkDamageValue(t, re, "content/zero.pak", "CRC-32 mismatch")

	// An empty entry's CRC-32 is 0.
	h = &zip.FileHeader{Name: "content/empty.pak", Method: zip.Store}
	mustExtractAny(t, writeArchive(t, "empty.zip", zipPlusRaw(t, h, nil)))
}

// TestCorruptDrainCounted: reading a decoder to its end decodes what
// follows the tar end marker too, so those bytes count against the pack's
// limits: a stream cannot hide a bomb after the tar.
func TestCorruptDrainCounted(t *testing.T) {
	tb := append(tarBytes(t, goodPack("")), make([]byte, 6<<20)...)
	lim := DefaultLimits()
	lim.MaxTotalBytes = 4 << 20
	for _, tc := range []struct{ name, file string }{
		{"gzip", "p.tar.gz"}, {"zstd", "p.tar.zst"}, {"xz", "p.tar.xz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := map[string]func(testing.TB, []byte) []byte{"gzip": gzipBytes, "zstd": zstdBytes, "xz": xzBytes}[tc.name](t, tb)
			mustReject(t, writeArchive(t, tc.file, b), lim, want{rule: RuleTotalTooLarge, anyEntry: true})
		})
	}
	t.Run("within the limits", func(t *testing.T) {
		mustExtractAny(t, writeArchive(t, "p.tar.gz", gzipBytes(t, tb)))
	})
}
