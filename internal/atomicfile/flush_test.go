package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
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
