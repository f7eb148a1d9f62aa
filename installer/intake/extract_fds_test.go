package intake

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"os"
	"runtime"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// openFDs counts this process's open descriptors (Linux).
func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}

// TestExtractClosesWrittenFiles: the files an extraction writes stay open
// until its flush; whether it ends installed or rejected half way, none is
// left open (on Windows an open file keeps the staging folder from being
// removed). Many files, so that some are kept open and some closed and
// opened again, in more folders than are held open to create files in; a
// zip goes through its workers, a tar through the writer.
func TestExtractClosesWrittenFiles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts descriptors in /proc/self/fd")
	}
	many := goodPack("")
	for i := range keepOpen() + 100 {
		many = append(many, file(fmt.Sprintf("content/f%05d.sig", i), "sig"))
	}
	for i := range heldFolders + 8 {
		many = append(many, file(fmt.Sprintf("content/d%02d/g.sig", i), "sig"))
	}
	// badZip: the same files, then one whose CRC-32 is wrong.
	badZip := func(t *testing.T) []byte {
		b := zipBytes(t, many)
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, f := range zr.File {
			if err := zw.Copy(f); err != nil {
				t.Fatal(err)
			}
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: "content/zz.pak", Method: zip.Store, CRC32: crc32.ChecksumIEEE([]byte("other")) + 1, CompressedSize64: 5, UncompressedSize64: 5})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("other"))
		zw.Close()
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name   string
		build  func(t *testing.T) []byte
		reject bool
	}{
		{"zip.zip", func(t *testing.T) []byte { return zipBytes(t, many) }, false},
		{"tar.tar", func(t *testing.T) []byte { return tarBytes(t, many) }, false},
		{"damaged.zip", badZip, true},
		{"over.tar", func(t *testing.T) []byte { return tarBytes(t, append(many, file("content/x.dll", "MZ"))) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeArchive(t, tc.name, tc.build(t))
			before := openFDs(t)
			st, err := extractInProcess(t.Context(), path, t.TempDir(), DefaultLimits(), nil)
			if tc.reject != (err != nil) {
				t.Fatalf("extract = %v; want rejected %v", err, tc.reject)
			}
			if st != nil {
				if want := len(goodFiles()) + keepOpen() + 100 + heldFolders + 8; len(st.Files) != want {
					t.Errorf("%d files staged; want %d", len(st.Files), want)
				}
			}
			if after := openFDs(t); after != before {
				t.Errorf("%d descriptors open after the extraction, %d before", after, before)
			}
		})
	}
}

// TestFlushOncePerPackOfManyFiles: a pack of many files is flushed with
// one syncfs of the staging file system on Linux, not a flush (and a
// cache flush of the disk) per file; a pack of few files, and every pack
// elsewhere, flushes each file.
func TestFlushOncePerPackOfManyFiles(t *testing.T) {
	for _, n := range []int{atomicfile.SyncFSFiles - len(goodFiles()) - 1, atomicfile.SyncFSFiles + 100} {
		es := goodPack("")
		for i := range n {
			es = append(es, file(fmt.Sprintf("content/f%05d.sig", i), "sig"))
		}
		files := len(goodFiles()) + n
		t.Run(fmt.Sprint(files, " files"), func(t *testing.T) {
			path := writeArchive(t, "p.zip", zipBytes(t, es))
			before := atomicfile.Fsyncs()
			if _, err := extractInProcess(t.Context(), path, t.TempDir(), DefaultLimits(), nil); err != nil {
				t.Fatal(err)
			}
			want := files
			if files >= atomicfile.SyncFSFiles && runtime.GOOS == "linux" {
				want = 1
			}
			if got := atomicfile.Fsyncs() - before; got != int64(want) {
				t.Errorf("%d flushes for %d files; want %d", got, files, want)
			}
		})
	}
}
