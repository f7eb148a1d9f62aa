package daemon

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	log, closer, err := newServiceLog(logOptions{File: file, Level: slog.LevelInfo, System: sys})
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
	log, closer, err := newServiceLog(logOptions{Level: slog.LevelInfo, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	log.Info("daemon started")
	if !strings.Contains(stderr.String(), `"msg":"daemon started"`) {
		t.Fatalf("stderr = %q; want a JSON line for the journal", stderr.String())
	}
}

// failingRotation stands in for lumberjack while a viewer holds the log
// without delete sharing: every write fails as its rotation does, until
// release.
type failingRotation struct {
	file     string
	held     bool
	attempts int
}

func (f *failingRotation) Write(p []byte) (int, error) {
	f.attempts++
	if f.held {
		return 0, errors.New("can't rename log file: The process cannot access the file because it is being used by another process.")
	}
	fh, err := os.OpenFile(f.file+".rotated", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	return fh.Write(p)
}

func (f *failingRotation) Close() error { return nil }

// TestRotatingLogKeepsLinesWhileHeld: while rotation fails every line goes
// to the current file; rotation is tried again only after rotateRetry (not
// on every line), and once it works the lines go through it again.
func TestRotatingLogKeepsLinesWhileHeld(t *testing.T) {
	file := filepath.Join(t.TempDir(), "forgesync.log")
	inner := &failingRotation{file: file, held: true}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := &rotatingLog{inner: inner, name: file, now: func() time.Time { return now }}
	for i := range 100 {
		if _, err := fmt.Fprintf(r, "line %d\n", i); err != nil {
			t.Fatalf("write %d while held = %v; want it appended", i, err)
		}
	}
	if inner.attempts != 1 {
		t.Errorf("rotation tried %d times within rotateRetry; want 1", inner.attempts)
	}
	now = now.Add(rotateRetry)
	fmt.Fprintf(r, "line 100\n") // retried, still held
	inner.held = false
	now = now.Add(rotateRetry)
	fmt.Fprintf(r, "after\n")
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n != 101 || !bytes.HasSuffix(data, []byte("line 100\n")) {
		t.Errorf("log file holds %d lines; want the 101 written while held", n)
	}
	if inner.attempts != 3 {
		t.Errorf("rotation tried %d times; want 3 (first, after one retry period, after the next)", inner.attempts)
	}
	if rotated, err := os.ReadFile(file + ".rotated"); err != nil || string(rotated) != "after\n" {
		t.Errorf("after release the line went to %q (%v); want it through the rotating writer", rotated, err)
	}
}
