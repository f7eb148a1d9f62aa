package intake

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// RAR archives cannot be made with free tools, so rarBytes writes the
// RAR 5.0 format by hand (https://www.rarlab.com/technote.htm): stored
// (uncompressed) entries are enough to test how Extract reads rar.

// vint appends x as a RAR variable-length integer.
func vint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

// rarBlock appends one block: CRC32, size, then the header fields, then data.
func rarBlock(out *bytes.Buffer, fields []byte, data []byte) {
	hdr := vint(nil, uint64(len(fields)))
	hdr = append(hdr, fields...)
	var crc [4]byte
	binary.LittleEndian.PutUint32(crc[:], crc32.ChecksumIEEE(hdr))
	out.Write(crc[:])
	out.Write(hdr)
	out.Write(data)
}

// rarBytes writes entries as a RAR 5 archive made on a Unix host, so that
// a symlink is a mode bit like in zip.
func rarBytes(es []entry) []byte {
	var out bytes.Buffer
	out.WriteString("Rar!\x1a\x07\x01\x00")
	rarBlock(&out, vint(vint(vint(nil, 1), 0), 0), nil) // main header: type 1, no flags, archive flags 0
	for _, e := range es {
		body, fileFlags, attrs := e.body, uint64(0x4), uint64(0o100644)
		switch e.typ {
		case tar.TypeDir:
			fileFlags, attrs = 0x1, 0o40755
		case tar.TypeSymlink:
			body, attrs = []byte(e.link), 0o120777
		}
		f := vint(nil, 2)              // type: file
		f = vint(f, 0x2)               // flags: data area present
		f = vint(f, uint64(len(body))) // data size
		f = vint(f, fileFlags)         // file flags (0x4: CRC32 present)
		f = vint(f, uint64(len(body))) // unpacked size
		f = vint(f, attrs)             // attributes
		if fileFlags&0x4 != 0 {
			f = binary.LittleEndian.AppendUint32(f, crc32.ChecksumIEEE(body))
		}
		f = vint(f, 0) // compression: version 0, method store
		f = vint(f, 1) // host OS: Unix
		f = vint(f, uint64(len(e.name)))
		f = append(f, e.name...)
		if e.typ == tar.TypeDir {
			body = nil
		}
		rarBlock(&out, f, body)
	}
	rarBlock(&out, vint(vint(vint(nil, 5), 0), 0), nil) // end of archive
	return out.Bytes()
}

func TestExtractRar(t *testing.T) {
	for _, prefix := range []string{"", "foundry-wide/"} {
		st := mustExtract(t, writeArchive(t, "pack.bin", rarBytes(goodPack(prefix))), goodFiles())
		if st.Format != ".rar" {
			t.Errorf("Format = %q; want .rar", st.Format)
		}
	}
	mustReject(t, writeArchive(t, "code.rar", rarBytes(with(file("content/x.dll", "MZ"), file("../up.pak", "x")))), DefaultLimits(),
		w("content/x.dll", RuleNotAllowed), w("../up.pak", RuleDotDot))
	mustReject(t, writeArchive(t, "link.rar", rarBytes(with(entry{name: "content/l.pak", typ: tar.TypeSymlink, link: "/etc"}))), DefaultLimits(),
		w("content/l.pak", RuleSymlink))
}
