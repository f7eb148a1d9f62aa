package intake

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// TestExtractWithFewDescriptors: a process allowed few descriptors (48)
// keeps fewer written files open (a quarter of them, below the
// atomicfile.SyncFSFiles kept open for the flush otherwise), and still
// unpacks a pack of more files than that.
func TestExtractWithFewDescriptors(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	low := old
	low.Cur = 48
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
	if keepOpen() != 12 {
		t.Fatalf("keepOpen() = %d with 48 descriptors; want 12", keepOpen())
	}
	es := goodPack("")
	for i := range 400 {
		es = append(es, file(fmt.Sprintf("content/f%05d.sig", i), "sig"))
	}
	st, err := extractInProcess(t.Context(), writeArchive(t, "p.zip", zipBytes(t, es)), t.TempDir(), DefaultLimits(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Files) != len(goodFiles())+400 {
		t.Errorf("%d files staged; want %d", len(st.Files), len(goodFiles())+400)
	}
}

// TestWrittenFilesClosedAsWritten: where a pack of many files is flushed
// with one syncfs, only the files a flush of each would need stay open
// (keeping thousands open made a pack of 3,000 small files half as slow
// again); the others are closed as they are written.
func TestWrittenFilesClosedAsWritten(t *testing.T) {
	if keepOpen() != atomicfile.SyncFSFiles {
		t.Fatalf("keepOpen() = %d; want atomicfile.SyncFSFiles (%d)", keepOpen(), atomicfile.SyncFSFiles)
	}
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	l := syncList{keep: keepOpen()}
	for i := range 3 * atomicfile.SyncFSFiles {
		name := fmt.Sprintf("f%03d", i)
		f, err := root.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.add(f, name); err != nil {
			t.Fatal(err)
		}
	}
	if l.opened != atomicfile.SyncFSFiles {
		t.Errorf("%d written files kept open; want %d", l.opened, atomicfile.SyncFSFiles)
	}
	if _, err := l.flush(root, false); err != nil {
		t.Fatal(err)
	}
}
