//go:build windows

package daemon

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// TestServiceLogHeldByViewer: a log viewer that opens the log without
// delete sharing makes lumberjack's rotation (a rename) fail; no line is
// lost: the file keeps growing, and rotation is tried again later
// (TestRotatingLogKeepsLinesWhileHeld covers when). It makes its own folder rather than t.TempDir, whose cleanup wine
// cannot run.
func TestServiceLogHeldByViewer(t *testing.T) {
	dir, err := os.MkdirTemp("", "forgesync-log-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "forgesync.log")
	log, closer, err := newServiceLog(logOptions{File: file, Level: slog.LevelInfo, MaxSizeMB: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	log.Info("first")
	viewer, err := windows.CreateFile(windows.StringToUTF16Ptr(file), windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 1000)
	for i := range 1500 { // about 1.5 MB: past the 1 MB rotation size
		log.Info("line", "n", i, "pad", pad)
	}
	log.Info("last while held")
	windows.CloseHandle(viewer)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"msg":"first"`)) || !bytes.Contains(data, []byte(`"msg":"last while held"`)) {
		t.Fatalf("log file (%d bytes) lost lines while the viewer held it", len(data))
	}
	if n := bytes.Count(data, []byte(`"msg":"line"`)); n != 1500 {
		t.Errorf("log file holds %d of the 1500 lines written while held", n)
	}
}
