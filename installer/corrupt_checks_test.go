package installer

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
