package store

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

func TestStoreSaveLoad(t *testing.T) {
	s, err := Open(t.Context(), t.TempDir())
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
	if err := os.WriteFile(s.Path(ManifestsDir, "abc-0.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
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

// TestStoreRefusesState checks that every state Load will not act on is
// refused with the problem and the safe step, in these words.
func TestStoreRefusesState(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := os.WriteFile(s.Path(ManifestsDir, "abc-1.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "packs.json")
	rename := "; nothing was changed. To start again from the kept archives, rename " + path + " to packs.json.damaged and start forgesync again: " +
		"it installs again the packs of the last generation from " + filepath.Join(dir, "archives") + ", each enabled or disabled as it was " +
		"(the copy of the generations, generations.json, says which; without it every kept archive, each one enabled). " +
		"Do not put back an older copy of packs.json: it names archives and manifests that later changes removed"
	rec := `{"id":"abc","version":"1.0.0","enabled":true,"archive_sha256":"","archive":"abc.zip","installed_at":"2026-01-01T00:00:00Z","manifest":"abc-1.json"}`
	head := `{"format":"forgesync-state","version":1,`
	for _, tt := range []struct {
		name, data, want string
	}{
		{"truncated", head + `"packs":[` + rec[:40],
			"the file is damaged (unexpected EOF)" + rename},
		{"unknown key", head + `"packs":[],"extra":1}`,
			`the file is damaged (json: unknown field "extra")` + rename},
		{"trailing data", head + `"packs":[]} {}`,
			"the file is damaged (data after its end)" + rename},
		{"null packs", head + `"packs":null}`,
			`"packs" is missing or null` + rename},
		{"no packs", head + `"pending_archives":["x.zip"]}`,
			`"packs" is missing or null` + rename},
		{"key twice", head + `"packs":[],"packs":null}`,
			`the file is damaged (key "packs" twice in one object)` + rename},
		{"nested key twice", head + `"packs":[` + strings.Replace(rec, `"enabled":true`, `"enabled":true,"enabled":false`, 1) + `]}`,
			`the file is damaged (key "enabled" twice in one object)` + rename},
		{"twice", head + `"packs":[` + rec + `,` + rec + `]}`,
			"pack abc is recorded twice (records 0 and 1)" + rename},
		{"other format", `{"format":"forge-installed","version":1,"packs":[]}`,
			`format "forge-installed" is not "forgesync-state"` + rename},
		{"old version", `{"format":"forgesync-state","version":0,"packs":[]}`,
			"version 0 is not a version of forgesync-state" + rename},
		{"newer version", `{"format":"forgesync-state","version":2,"packs":[]}`,
			"version 2 is newer than this forgesync reads (1); nothing was changed. It was written by a newer forgesync: run that version again, and leave the file as it is"},
		{"path in a name", head + `"packs":[` + strings.Replace(rec, `"abc.zip"`, `"../packs.json"`, 1) + `]}`,
			`record 0 (abc) names archive "../packs.json" and manifest "abc-1.json"; each must be a plain file name` + rename},
		{"older copy", head + `"packs":[` + strings.Replace(rec, "abc-1.json", "abc-0.json", 1) + `]}`,
			"it names the stored manifest abc-0.json of abc 1.0.0, which is not in " + filepath.Join(dir, "manifests") +
				": this copy of the file is older than the state folder (put back from a backup)" + rename},
	} {
		if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := s.Load()
		if want := "load state " + path + ": " + tt.want; err == nil || err.Error() != want || !errors.Is(err, ErrStateRefused) {
			t.Errorf("%s: Load() = %v;\nwant %s", tt.name, err, want)
		}
	}
	if err := os.WriteFile(path, []byte(head+`"packs":[`+rec+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Load(); err != nil || len(st.Packs) != 1 {
		t.Fatalf("Load(valid) = %+v, %v", st, err)
	}
}

// TestStoreLockAcrossProcesses holds the lock in this process and checks
// that another process (flock(1) from util-linux) cannot take it.
func TestStoreLockAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// In this process a second open (another file description) waits,
	// then fails naming our pid.
	start := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err = Open(ctx, dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second Open = %v; want ErrLocked naming pid %d", err, os.Getpid())
	}
	if time.Since(start) < 200*time.Millisecond {
		t.Fatalf("second Open gave up before its wait")
	}
	flock := toolcheck.Need(t, "flock")[0]
	if err := exec.Command(flock, "-n", filepath.Join(dir, lockFileName), "true").Run(); err == nil {
		t.Fatalf("another process took the lock while it was held")
	}
	s.Close()
	if out, err := exec.Command(flock, "-n", filepath.Join(dir, lockFileName), "true").CombinedOutput(); err != nil {
		t.Fatalf("lock not released on Close: %v %s", err, out)
	}
}
