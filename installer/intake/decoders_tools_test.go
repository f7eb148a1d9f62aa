//go:build !windows

package intake

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// patch7z rewrites bytes of a 7z's plain (uncompressed) header at the
// first place old occurs and fixes both header checksums.
func patch7z(t *testing.T, b []byte, old, new []byte) []byte {
	t.Helper()
	off := int64(binary.LittleEndian.Uint64(b[12:]))
	size := int64(binary.LittleEndian.Uint64(b[20:]))
	hdr := b[32+off : 32+off+size]
	i := bytes.Index(hdr, old)
	if i < 0 {
		t.Fatalf("patch7z: % x not in the header % x", old, hdr)
	}
	copy(hdr[i:], new)
	binary.LittleEndian.PutUint32(b[28:], crc32.ChecksumIEEE(hdr))
	binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:32]))
	return b
}

// sevenZip makes a 7z of a good pack with the given switches.
func sevenZip(t *testing.T, files map[string]string, switches ...string) []byte {
	t.Helper()
	toolcheck.Need(t, "7z")
	work := t.TempDir()
	goodTree(t, work)
	for name, body := range files {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(work, name)), 0o755))
		must(t, os.WriteFile(filepath.Join(work, name), []byte(body), 0o644))
	}
	out := filepath.Join(t.TempDir(), "p.7z")
	args := append([]string{"a", "-bd", "-bso0", out, "."}, switches...)
	cmd := exec.Command("7z", args...)
	cmd.Dir = work
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("7z %v: %v\n%s", args, err, b)
	}
	b, err := os.ReadFile(out)
	must(t, err)
	return b
}

// TestExtractRejects7zCoders checks every 7z coder's properties before a
// byte is decoded: the cases of issue 10, which took gigabytes or spun
// forever before.
func TestExtractRejects7zCoders(t *testing.T) {
	many := map[string]string{}
	for i := range 41 {
		many[filepath.Join("content", string(rune('a'+i%26))+string(rune('a'+i/26))+".pak")] = string(randomish(4 << 10))
	}
	lzma2Dict := func(prop byte) func(t *testing.T, b []byte) []byte {
		return func(t *testing.T, b []byte) []byte {
			// Coder: flags 0x21 (1-byte id, has properties), id 0x21,
			// one property byte: the dictionary size code.
			for bytes.Contains(b[32+binary.LittleEndian.Uint64(b[12:]):], []byte{0x21, 0x21, 0x01}) {
				hdr := b[32+binary.LittleEndian.Uint64(b[12:]):]
				i := bytes.Index(hdr, []byte{0x21, 0x21, 0x01})
				if hdr[i+3] == prop {
					break
				}
				b = patch7z(t, b, hdr[i:i+4], []byte{0x21, 0x21, 0x01, prop})
			}
			return b
		}
	}
	for _, tc := range []struct {
		name     string
		files    map[string]string
		switches []string
		patch    func(t *testing.T, b []byte) []byte
		rule     string
	}{
		{"non-solid LZMA2 coders claiming 1.5 GiB", many, []string{"-ms=off", "-mhc=off", "-m0=lzma2"}, lzma2Dict(37), RuleDecoderMemory},
		{"LZMA2 with a 768 MiB dictionary", nil, []string{"-mhc=off", "-m0=lzma2"}, lzma2Dict(35), RuleDecoderMemory},
		{"LZMA with a 1 GiB dictionary", nil, []string{"-mhc=off", "-m0=lzma"}, func(t *testing.T, b []byte) []byte {
			// Coder: flags 0x23, id 03 01 01, 5 property bytes (lc/lp/pb,
			// then the dictionary size).
			hdr := b[32+binary.LittleEndian.Uint64(b[12:]):]
			i := bytes.Index(hdr, []byte{0x23, 0x03, 0x01, 0x01, 0x05})
			if i < 0 {
				t.Fatal("no LZMA coder in the header")
			}
			return patch7z(t, b, hdr[i:i+10], append(slicesClone(hdr[i:i+6]), 0, 0, 0, 0x40))
		}, RuleDecoderMemory},
		{"encoded header with a 1 GiB dictionary", nil, nil, func(t *testing.T, b []byte) []byte {
			hdr := b[32+binary.LittleEndian.Uint64(b[12:]):]
			if hdr[0] != 0x17 {
				t.Fatalf("header is not encoded: % x", hdr[:4])
			}
			i := bytes.Index(hdr, []byte{0x23, 0x03, 0x01, 0x01, 0x05})
			if i < 0 {
				t.Fatal("no LZMA coder in the encoded header")
			}
			return patch7z(t, b, hdr[i:i+10], append(slicesClone(hdr[i:i+6]), 0, 0, 0, 0x40))
		}, RuleDecoderMemory},
		{"AES with 2^62 key rounds", nil, []string{"-psecret", "-mhc=off"}, func(t *testing.T, b []byte) []byte {
			hdr := b[32+binary.LittleEndian.Uint64(b[12:]):]
			i := bytes.Index(hdr, []byte{0x06, 0xf1, 0x07, 0x01})
			if i < 0 {
				t.Fatal("no AES coder in the header")
			}
			// After the id: the property size, then the first property
			// byte whose low 6 bits are the power of the round count.
			return patch7z(t, b, hdr[i:i+6], []byte{0x06, 0xf1, 0x07, 0x01, hdr[i+4], hdr[i+5]&0xc0 | 62})
		}, RuleEncrypted},
		{"AES encrypted headers", nil, []string{"-psecret", "-mhe=on"}, nil, RuleEncrypted},
		{"bzip2 coder", nil, []string{"-m0=bzip2"}, nil, RuleMethod},
		{"PPMd coder", nil, []string{"-m0=ppmd"}, nil, RuleMethod},
		{"ARM64 filter", nil, []string{"-mf=ARM64"}, nil, RuleMethod},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := sevenZip(t, tc.files, tc.switches...)
			if tc.patch != nil {
				b = tc.patch(t, b)
			}
			mustReject(t, writeArchive(t, "evil.7z", b), DefaultLimits(), want{rule: tc.rule, anyEntry: true})
		})
	}
	t.Run("LZMA2 at 64 MiB installs", func(t *testing.T) {
		b := sevenZip(t, nil, "-mhc=off", "-m0=lzma2")
		st := mustExtract(t, writeArchive(t, "ok.7z", lzma2Dict(26)(t, b)), goodFiles())
		st.Remove()
	})
}

func slicesClone(b []byte) []byte { return append([]byte(nil), b...) }

// TestExtractRejectsSparseTar holds the sparse cases: hole-only files that
// expand from nothing, in PAX and old GNU form.
func TestExtractRejectsSparseTar(t *testing.T) {
	for _, format := range []string{"pax", "gnu"} {
		t.Run(format, func(t *testing.T) {
			toolcheck.Need(t, "tar")
			work := t.TempDir()
			goodTree(t, work)
			for _, n := range []string{"a.pak", "b.pak"} {
				f, err := os.Create(filepath.Join(work, "content", n))
				must(t, err)
				must(t, f.Truncate(2000<<20))
				f.Close()
			}
			out := filepath.Join(t.TempDir(), "sparse.tar")
			cmd := exec.Command("tar", "--format="+format, "-S", "-cf", out, ".")
			cmd.Dir = work
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("tar: %v\n%s", err, b)
			}
			if st, _ := os.Stat(out); st.Size() > 1<<20 {
				t.Fatalf("tar made %d bytes; want a sparse archive", st.Size())
			}
			mustReject(t, out, DefaultLimits(), w("content/a.pak", RuleSparse))
		})
	}
}

// TestExtractRefuses7zCodersNotAllowed: only a denylist ran, so a coder
// the 7z reader supports but the allowlist does not name was decoded (a
// new one in a reader upgrade too), and the ones the reader lacks were
// refused as damage without their name. Each is refused by name, with
// its method id, before anything is decoded.
func TestExtractRefuses7zCodersNotAllowed(t *testing.T) {
	for _, tc := range []struct {
		switches []string
		value    string
	}{
		{[]string{"-mf=ARM64"}, "7z coder ARM64 filter (0A) is not allowed"},
		{[]string{"-mf=ARMT"}, "7z coder ARM Thumb filter (03030701) is not allowed"},
		{[]string{"-mf=RISCV"}, "7z coder RISC-V filter (0B) is not allowed"},
		{[]string{"-mf=IA64"}, "7z coder IA64 filter (03030401) is not allowed"},
		{[]string{"-mf=ARM"}, "7z coder ARM filter (03030501) is not allowed"},
		{[]string{"-mf=PPC"}, "7z coder PowerPC filter (03030205) is not allowed"},
		{[]string{"-mf=SPARC"}, "7z coder SPARC filter (03030805) is not allowed"},
		{[]string{"-mf=Delta:4"}, "7z coder Delta filter (03) is not allowed"},
		{[]string{"-mf=SWAP4"}, "7z coder Swap4 filter (020304) is not allowed"},
		{[]string{"-mf=BCJ2"}, "7z coder BCJ2 filter (0303011B) is not allowed"},
		{[]string{"-m0=bzip2"}, "7z coder bzip2 (040202) is not allowed"},
		{[]string{"-m0=PPMd"}, "7z coder PPMd (030401) is not allowed"},
	} {
		t.Run(strings.Join(tc.switches, " "), func(t *testing.T) {
			b := sevenZip(t, nil, tc.switches...)
			re := mustReject(t, writeArchive(t, "p.7z", b), DefaultLimits(), want{rule: RuleMethod, anyEntry: true})
			if !slices.ContainsFunc(re.Problems, func(p Problem) bool { return strings.HasPrefix(p.Value, tc.value+": use LZMA2, LZMA, Deflate or Copy") }) {
				t.Errorf("problems = %v; want %q", re.Problems, tc.value)
			}
		})
	}
}

// TestCheck7zCodersDamagedHeader: the coder check reads the header before
// the 7z reader does, so every damage to it is an error or a pass to the
// reader, never a panic or a loop; an intact header passes.
func TestCheck7zCodersDamagedHeader(t *testing.T) {
	for _, switches := range [][]string{{"-mhc=off", "-mf=BCJ"}, {"-m0=LZMA"}, {"-m0=Deflate", "-ms=off"}} {
		b := sevenZip(t, nil, switches...)
		if err := check7zCoders(bytes.NewReader(b), int64(len(b))); err != nil {
			t.Fatalf("%v: intact archive: %v", switches, err)
		}
		start := 32 + int(binary.LittleEndian.Uint64(b[12:]))
		for i := start; i < len(b); i++ {
			for _, v := range []byte{0x00, 0xff, b[i] ^ 0x01, b[i] ^ 0x80} {
				c := slicesClone(b)
				c[i] = v
				// Fix the header CRC so the parser, not the checksum,
				// meets the damage.
				binary.LittleEndian.PutUint32(c[28:], crc32.ChecksumIEEE(c[start:]))
				check7zCoders(bytes.NewReader(c), int64(len(c)))
			}
			check7zCoders(bytes.NewReader(b[:i]), int64(i))
		}
	}
}
