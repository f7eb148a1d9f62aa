package installer

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestStoreSaveLoad(t *testing.T) {
	s, err := OpenStore(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Load()
	if err != nil || len(st.Packs) != 0 {
		t.Fatalf("Load(new) = %+v, %v", st, err)
	}
	st.Packs = append(st.Packs, PackRecord{ID: "abc", Version: "1.0.0", Enabled: true, Archive: "abc.zip",
		Content: []string{"MJOLNIRForge/abc/x.pak"}, Manifest: "abc-0.json"})
	if err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	again, err := s.Load()
	if err != nil || again.Find("abc") == nil || again.Find("abc").Content[0] != "MJOLNIRForge/abc/x.pak" {
		t.Fatalf("Load after Save = %+v, %v", again, err)
	}
	for _, d := range []string{ProcessingDir, ArchivesDir, StagingDir} {
		if fi, err := os.Stat(s.Path(d)); err != nil || !fi.IsDir() {
			t.Errorf("store folder %s missing: %v", d, err)
		}
	}
}

func TestStoreDamagedState(t *testing.T) {
	dir := t.TempDir()
	s, _ := OpenStore(dir, 0)
	defer s.Close()
	os.WriteFile(s.Path(stateFile), []byte(`{"format":"forgesync-state","version":1,"packs":[],"extra":1}`), 0o600)
	if _, err := s.Load(); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("Load(unknown field) = %v; want an error saying the file is damaged", err)
	}
}

// TestStoreLockAcrossProcesses holds the lock in this process and checks
// that another process (flock(1) from util-linux) cannot take it.
func TestStoreLockAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// In this process a second open (another file description) waits,
	// then fails naming our pid.
	start := time.Now()
	_, err = OpenStore(dir, 200*time.Millisecond)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second OpenStore = %v; want ErrLocked naming pid %d", err, os.Getpid())
	}
	if time.Since(start) < 200*time.Millisecond {
		t.Fatalf("second OpenStore gave up before its wait")
	}
	if flock, err := exec.LookPath("flock"); err == nil {
		if err := exec.Command(flock, "-n", filepath.Join(dir, lockFileName), "true").Run(); err == nil {
			t.Fatalf("another process took the lock while it was held")
		}
		s.Close()
		if out, err := exec.Command(flock, "-n", filepath.Join(dir, lockFileName), "true").CombinedOutput(); err != nil {
			t.Fatalf("lock not released on Close: %v %s", err, out)
		}
	}
}

func TestPlaceAndRemoveContent(t *testing.T) {
	staged, paks := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(staged, "content", "sub"), 0o755)
	os.WriteFile(filepath.Join(staged, "content", "a.pak"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(staged, "content", "sub", "b.utoc"), []byte("b"), 0o644)
	os.WriteFile(filepath.Join(staged, "forgepack.json"), []byte("{}"), 0o644)
	files := []File{{Path: "content/a.pak", Size: 1}, {Path: "content/sub/b.utoc", Size: 1}, {Path: "forgepack.json", Size: 2}}
	var steps []string
	placed, err := PlaceContent(staged, files, paks, "abc", func(s string) { steps = append(steps, s) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(placed, ",") != "MJOLNIRForge/abc/a.pak,MJOLNIRForge/abc/sub/b.utoc" || len(steps) != 2 {
		t.Fatalf("PlaceContent = %v (steps %v)", placed, steps)
	}
	// A file of the MJOLNIRForge mod itself, which content removal must not touch.
	os.WriteFile(filepath.Join(paks, "MJOLNIRForge", "own.pak"), []byte("x"), 0o644)
	if err := RemoveContent(paks, placed); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(paks, "MJOLNIRForge", "abc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty pack folder left behind")
	}
	if _, err := os.Stat(filepath.Join(paks, "MJOLNIRForge", "own.pak")); err != nil {
		t.Errorf("RemoveContent touched a file it did not place: %v", err)
	}
	if err := RemoveContent(paks, []string{"../etc/passwd", "Other/x"}); err == nil {
		t.Errorf("RemoveContent accepted paths outside MJOLNIRForge/")
	}
}
