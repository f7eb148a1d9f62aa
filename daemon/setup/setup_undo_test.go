package setup

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/config"
)

// editRecord rewrites the made list of the setup record in state, as a
// player editing it by hand, or restoring an old copy, would.
func editRecord(t *testing.T, state string, made func([]string) []string) {
	t.Helper()
	path := filepath.Join(state, setupRecordName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	var list []string
	for _, m := range rec["made"].([]any) {
		list = append(list, m.(string))
	}
	rec["made"] = made(list)
	data, _ = json.Marshal(rec)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSetupUndoKeepsWhatItDidNotMake: undo removes only the folders its
// record names that are folders and empty; a regular file named there, a
// link, a relative path and a folder holding files are kept, named, and
// left as they were.
func TestSetupUndoKeepsWhatItDidNotMake(t *testing.T) {
	o := fakeGame(t)
	runSetup(t, o)
	other := t.TempDir()
	notes := filepath.Join(other, "notes.txt")
	shared := filepath.Join(other, "shared")
	link := filepath.Join(other, "link")
	for _, err := range []error{
		os.WriteFile(notes, []byte("mine\n"), 0o644),
		os.Mkdir(shared, 0o755),
		os.WriteFile(filepath.Join(shared, "x"), []byte("x"), 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	linkTarget := filepath.Join(other, "empty")
	if err := os.Mkdir(linkTarget, 0o755); err != nil {
		t.Fatal(err)
	}
	hasLink := runtime.GOOS != "windows" && os.Symlink(linkTarget, link) == nil
	editRecord(t, o.State, func(m []string) []string {
		m = append(m, notes, shared, "relative")
		if hasLink {
			m = append(m, link)
		}
		return m
	})
	var out strings.Builder
	if err := SetupUndo(t.Context(), SetupOptions{Env: o.Env}, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	wants := []string{
		"kept " + notes + ": a file, not a folder setup made\n",
		"kept folder " + shared + ": it is not empty\n",
		"kept relative: not an absolute path, so not a folder setup made\n",
		"removed folder " + o.State + "\n",
	}
	if hasLink {
		wants = append(wants, "kept "+link+": a link, not a folder setup made\n")
	}
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("undo printed\n%s\nwant a line %q", got, want)
		}
	}
	if strings.Contains(got, "removed folder "+notes) {
		t.Errorf("undo reported a file as a removed folder:\n%s", got)
	}
	if data, err := os.ReadFile(notes); err != nil || string(data) != "mine\n" {
		t.Errorf("the file the record named = %q, %v; want it kept as it was", data, err)
	}
	for _, p := range []string{filepath.Join(shared, "x"), linkTarget} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("undo removed %s: %v", p, err)
		}
	}
	if _, err := os.Lstat(link); hasLink && err != nil {
		t.Errorf("undo removed the link %s", link)
	}
}

// TestSetupTwoAtOnce: a second setup of the same state folder that starts
// while the first is making its folders waits for it, and its record
// keeps what the first made: undo removes every folder either made.
func TestSetupTwoAtOnce(t *testing.T) {
	o := fakeGame(t)
	firstMade, releaseFirst := make(chan struct{}), make(chan struct{})
	first := o
	first.step = func(step string) {
		if step == "made" {
			close(firstMade)
			<-releaseFirst
		}
	}
	events := make(chan string, 8)
	releaseSecond := make(chan struct{})
	second := o
	second.step = func(step string) {
		events <- step
		if step == "made" {
			<-releaseSecond
		}
	}
	done := make(chan error, 2)
	go func() { done <- Setup(t.Context(), first, &strings.Builder{}) }()
	wait := func(c <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-c:
		case err := <-done:
			t.Fatalf("a setup ended (%v) before %s", err, what)
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s after 20 s", what)
		}
	}
	wait(firstMade, "first setup making its folders")
	go func() { done <- Setup(t.Context(), second, &strings.Builder{}) }()
	select {
	case ev := <-events: // "waiting" on the lock; without one, "made"
		t.Logf("the second setup, started while the first made its folders: %s", ev)
	case <-time.After(20 * time.Second):
		t.Fatal("the second setup neither waited nor made its folders")
	}
	close(releaseFirst)
	if err := <-done; err != nil {
		t.Fatalf("a setup: %v", err)
	}
	close(releaseSecond)
	if err := <-done; err != nil {
		t.Fatalf("a setup: %v", err)
	}
	var out strings.Builder
	if err := SetupUndo(t.Context(), SetupOptions{Env: o.Env}, &out); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{o.State, filepath.Join(o.Mods, "MJOLNIRForgePacks"), filepath.Dir(configFile(o.Env))} {
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("undo after two setups at once left %s\n%s", gone, out.String())
		}
	}
}

// TestSetupThatFailsLeavesNothing: a setup that fails after making
// folders (here: a file where the drop folder's parent goes) removes the
// folders it made, its lock file with them, and writes no config.
func TestSetupThatFailsLeavesNothing(t *testing.T) {
	o := fakeGame(t)
	blocker := filepath.Join(o.Mods, "MJOLNIRForgePacks")
	if err := os.WriteFile(blocker, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Setup(t.Context(), o, &strings.Builder{})
	if err == nil || !strings.HasPrefix(err.Error(), "setup: make folder "+blocker) {
		t.Fatalf("err = %v; want setup: make folder %s…", err, blocker)
	}
	for _, p := range []string{o.State, filepath.Dir(configFile(o.Env))} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the failed setup left %s", p)
		}
	}
	if data, _ := os.ReadFile(blocker); string(data) != "not a folder" {
		t.Errorf("the file in the way was changed")
	}
}

// TestUninstallAsksOnATerminal: on a terminal uninstall asks y/N after
// naming what it removes; anything but yes removes nothing, yes removes
// it all; without a terminal and --yes it refuses, removing nothing.
func TestUninstallAsksOnATerminal(t *testing.T) {
	o := fakeGame(t)
	runSetup(t, o)
	file := configFile(o.Env)
	cfg, err := config.LoadEnv(file, o.Env)
	if err != nil {
		t.Fatal(err)
	}
	uo := UninstallOptions{Config: cfg, LockWait: time.Second}
	var out strings.Builder
	if err := Uninstall(t.Context(), uo, &out); !errors.Is(err, errNotConfirmed) {
		t.Errorf("Uninstall without a terminal = %v; want ErrNotConfirmed", err)
	}
	uo.Terminal = true
	for _, answer := range []string{"n\n", "\n", ""} {
		out.Reset()
		uo.In = strings.NewReader(answer)
		if err := Uninstall(t.Context(), uo, &out); err != nil || !strings.HasSuffix(out.String(), "remove all of this? [y/N]: nothing removed\n") {
			t.Errorf("Uninstall answered %q = %v\n%s", answer, err, out.String())
		}
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("Uninstall answered %q removed the config: %v", answer, err)
		}
	}
	out.Reset()
	uo.In = strings.NewReader("yes\n")
	if err := Uninstall(t.Context(), uo, &out); err != nil || !strings.Contains(out.String(), "removed "+file+"\n") {
		t.Errorf("Uninstall answered yes = %v\n%s", err, out.String())
	}
	for _, gone := range []string{file, o.State, filepath.Join(o.Mods, "MJOLNIRForgePacks")} {
		if _, err := os.Stat(gone); err == nil {
			t.Errorf("Uninstall left %s\n%s", gone, out.String())
		}
	}
}
