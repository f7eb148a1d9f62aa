package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestWriteFlushedFlushesWhatItSays replaces a file at each Flush and
// counts the flushes: the file and its folder, the file alone, nothing;
// the new bytes are in place every time, and no temp file is left.
func TestWriteFlushedFlushesWhatItSays(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	folder := int64(1)
	if runtime.GOOS == "windows" {
		folder = 0 // folders are not flushed there
	}
	for _, c := range []struct {
		flush Flush
		want  int64
	}{{FlushAll, 1 + folder}, {FlushFile, 1}, {FlushNone, 0}} {
		data := []byte{byte('a' + c.flush)}
		before := Fsyncs()
		if err := WriteFlushed(path, data, 0o600, c.flush); err != nil {
			t.Fatalf("WriteFlushed(%d) = %v", c.flush, err)
		}
		if got := Fsyncs() - before; got != c.want {
			t.Errorf("WriteFlushed(%d) flushed %d times; want %d", c.flush, got, c.want)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != string(data) {
			t.Errorf("after WriteFlushed(%d) the file holds %q, %v; want %q", c.flush, got, err, data)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d entries; want the file alone", len(entries))
	}
}

// TestFlushFiles: few files are flushed one by one; from SyncFSFiles on,
// one flush of their file system does it where there is one (Linux). A
// missing file is an error that names it.
func TestFlushFiles(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range SyncFSFiles + 4 {
		p := filepath.Join(dir, fmt.Sprintf("f%02d.pak", i))
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	many := int64(len(paths))
	if runtime.GOOS == "linux" {
		many = 1
	}
	for _, c := range []struct {
		paths []string
		want  int64
	}{{nil, 0}, {paths[:3], 3}, {paths[:SyncFSFiles-1], SyncFSFiles - 1}, {paths, many}} {
		before := Fsyncs()
		if err := FlushFiles(Renamer{}, c.paths); err != nil {
			t.Fatalf("FlushFiles(%d files) = %v", len(c.paths), err)
		}
		if got := Fsyncs() - before; got != c.want {
			t.Errorf("FlushFiles(%d files) flushed %d times; want %d", len(c.paths), got, c.want)
		}
	}
	gone := filepath.Join(dir, "gone.pak")
	if err := FlushFiles(Renamer{}, []string{paths[0], gone}); err == nil || !strings.Contains(err.Error(), gone) {
		t.Errorf("FlushFiles with a missing file = %v; want an error naming it", err)
	}
}
