package daemon

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSystemLog records what a service writes to the OS log.
type fakeSystemLog struct{ lines []string }

func (f *fakeSystemLog) Error(v ...any) error   { return f.add("E", v) }
func (f *fakeSystemLog) Warning(v ...any) error { return f.add("W", v) }
func (f *fakeSystemLog) Info(v ...any) error    { return f.add("I", v) }
func (f *fakeSystemLog) Errorf(s string, v ...any) error {
	return f.add("E", []any{fmt.Sprintf(s, v...)})
}
func (f *fakeSystemLog) Warningf(s string, v ...any) error {
	return f.add("W", []any{fmt.Sprintf(s, v...)})
}
func (f *fakeSystemLog) Infof(s string, v ...any) error {
	return f.add("I", []any{fmt.Sprintf(s, v...)})
}
func (f *fakeSystemLog) add(level string, v []any) error {
	f.lines = append(f.lines, level+" "+fmt.Sprint(v...))
	return nil
}

// TestServiceLogsToOSLogAndFile: a service had no logs at all (JSON to a
// stderr that a Windows service does not have). It now logs to the OS log
// at each record's level and to a rotated file under the state folder.
func TestServiceLogsToOSLogAndFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state", "logs", "forgesync.log")
	sys := &fakeSystemLog{}
	log, closer, err := NewServiceLog(LogOptions{File: file, Level: slog.LevelInfo, System: sys})
	if err != nil {
		t.Fatal(err)
	}
	log.With("pack", "foundry-wide").Error("install failed", "err", "disk full")
	log.Warn("held", "path", `C:\Mods\x.dll`)
	log.Debug("not logged")
	closer.Close()
	if len(sys.lines) != 2 || !strings.HasPrefix(sys.lines[0], "E ") || !strings.Contains(sys.lines[0], "pack=foundry-wide") || !strings.HasPrefix(sys.lines[1], "W ") {
		t.Fatalf("OS log lines = %q; want an error with its attributes, then a warning", sys.lines)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("log file: %v", err)
	}
	if n := bytes.Count(data, []byte("\n")); n != 2 || !bytes.Contains(data, []byte(`"msg":"install failed"`)) {
		t.Fatalf("log file holds %d lines:\n%s\nwant the two records as JSON", n, data)
	}
}

func TestServiceLogsJSONToStderrWithoutOSLog(t *testing.T) {
	var stderr bytes.Buffer
	log, closer, err := NewServiceLog(LogOptions{Level: slog.LevelInfo, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	log.Info("daemon started")
	if !strings.Contains(stderr.String(), `"msg":"daemon started"`) {
		t.Fatalf("stderr = %q; want a JSON line for the journal", stderr.String())
	}
}
