package iostore_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/go-faster/city"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
)

// TestPackageIDVectors checks every vector of testdata/package_ids.tsv, a
// copy of shared/testdata/package_ids.tsv.
func TestPackageIDVectors(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "package_ids.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	if got := sc.Text(); got != "slug_length\tpackage_name\tpackage_id_hex\tpackage_id_decimal" {
		t.Fatalf("header = %q", got)
	}
	n := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 4 {
			t.Fatalf("line %d: %d columns", n+2, len(cols))
		}
		name, hex, dec := cols[1], cols[2], cols[3]
		wantHex, err := strconv.ParseUint(hex, 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		wantDec, err := strconv.ParseUint(dec, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if wantHex != wantDec {
			t.Fatalf("line %d: hex %s and decimal %s disagree", n+2, hex, dec)
		}
		slug := strings.Split(name, "/")[4]
		if l, _ := strconv.Atoi(cols[0]); l != len(slug) {
			t.Errorf("line %d: slug %q has length %d, column says %s", n+2, slug, len(slug), cols[0])
		}
		if got := iostore.PackageID(name); got != wantHex {
			t.Errorf("PackageID(%q) = %016X; want %s", name, got, hex)
		}
		if got := iostore.ChunkID(iostore.PackageID(name)).String(); got != hex {
			t.Errorf("ChunkID(PackageID(%q)).String() = %s; want %s", name, got, hex)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 15 {
		t.Fatalf("read %d vectors; want 15", n)
	}
}

func TestPackageIDEngine(t *testing.T) {
	for _, tc := range []struct {
		name string
		want uint64
	}{
		{"/Game/Fixtures/Maps/Empty", 0x910BAD3EBD32CC77},
		{"/Game/PatchFixtures/DA_PatchTarget", 0xEA6DCAF69ECA2F7A},
		{"/Game/Fixtures/Maps/WorldPartition/_Generated_/1WD4NAK7SVY0JF8AXYPOSA7U8", 0x3BB041DA9A851DE5},
	} {
		if got := iostore.PackageID(tc.name); got != tc.want {
			t.Errorf("PackageID(%q) = %016X; want %016X", tc.name, got, tc.want)
		}
	}
}

// reference hashes name the slow, obvious way: lower ASCII, encode the
// runes as UTF-16, lay them out little-endian.
func reference(name string) uint64 {
	rs := []rune(name)
	for i, r := range rs {
		if 'A' <= r && r <= 'Z' {
			rs[i] = r + 32
		}
	}
	var b []byte
	for _, u := range utf16.Encode(rs) {
		b = append(b, byte(u), byte(u>>8))
	}
	return city.Hash64(b)
}

func TestPackageIDCaseAndEncoding(t *testing.T) {
	// Only ASCII letters fold.
	if a, b := iostore.PackageID("/Game/MJOLNIR/X"), iostore.PackageID("/game/mjolnir/x"); a != b {
		t.Errorf("ASCII case changes the id: %016X vs %016X", a, b)
	}
	for _, pair := range [][2]string{
		{"/Game/Ä", "/Game/ä"},
		{"/Game/Ω", "/Game/ω"},
		{"/Game/K", "/Game/\u212A"}, // Kelvin sign lowers to k under Unicode
	} {
		if iostore.PackageID(pair[0]) == iostore.PackageID(pair[1]) {
			t.Errorf("PackageID(%q) == PackageID(%q); non-ASCII must not fold", pair[0], pair[1])
		}
	}
	for _, name := range []string{
		"",
		"/Game/MJOLNIR/Forge/abc/Surfaces/MI_GlassCyan",
		"/Game/Ünïcödé/Ω",
		"/Game/emoji/😀/𝄞", // outside the BMP: surrogate pairs
		strings.Repeat("/Game/Long", 60),
	} {
		if got, want := iostore.PackageID(name), reference(name); got != want {
			t.Errorf("PackageID(%q) = %016X; want %016X", name, got, want)
		}
	}
	// A surrogate pair, spelled out: U+1F600 is D83D DE00.
	b := []byte{'/', 0, 0x3D, 0xD8, 0x00, 0xDE}
	if got, want := iostore.PackageID("/😀"), city.Hash64(b); got != want {
		t.Errorf("PackageID(%q) = %016X; want %016X", "/😀", got, want)
	}
}

func FuzzPackageID(f *testing.F) {
	f.Add("/Game/MJOLNIR/Forge/abc/Surfaces/MI_GlassCyan")
	f.Add("/Game/Ä/😀")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := iostore.PackageID(name), reference(name); got != want {
			t.Errorf("PackageID(%q) = %016X; want %016X", name, got, want)
		}
		upper := strings.Map(func(r rune) rune {
			if 'a' <= r && r <= 'z' {
				return r - 32
			}
			return r
		}, name)
		if got, want := iostore.PackageID(upper), iostore.PackageID(name); got != want {
			t.Errorf("PackageID(%q) = %016X; want %016X as for %q", upper, got, want, name)
		}
	})
}
