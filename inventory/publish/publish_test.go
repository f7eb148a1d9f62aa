package publish

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

var names = []string{"installed.json", "lifts.txt", "doors.txt", "installed.txt"}

// generation returns the four files with contents tagged gen.
func generation(gen string) []File {
	var fs []File
	for _, n := range names {
		fs = append(fs, File{n, []byte(gen + " " + n + "\n")})
	}
	return fs
}

// contents returns every entry of dir and its bytes.
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func want(files []File) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		out[f.Name] = string(f.Data)
	}
	return out
}

func publish(t *testing.T, dir string, files []File, opts Options) Result {
	t.Helper()
	res, err := Publish(dir, files, opts)
	if err != nil {
		t.Fatalf("Publish = %v", err)
	}
	return res
}

// TestOrder checks that every file is prepared before the first rename,
// that renames follow the order given, and that the folder is synced once,
// last.
func TestOrder(t *testing.T) {
	dir := t.TempDir()
	publish(t, dir, generation("old"), Options{})
	var events []string
	opts := Options{
		Renamer: atomicfile.Renamer{Rename: func(o, n string) error {
			events = append(events, "os.Rename:"+filepath.Base(n))
			return os.Rename(o, n)
		}},
		SyncDir: func(d string) error {
			events = append(events, "os.SyncDir")
			return atomicfile.SyncDir(d)
		},
		AfterStep: func(s string) { events = append(events, s) },
	}
	files := generation("new")
	res := publish(t, dir, files, opts)
	wantEvents := []string{
		"prepare:installed.json", "prepare:lifts.txt", "prepare:doors.txt", "prepare:installed.txt",
		"os.Rename:installed.json", "rename:installed.json",
		"os.Rename:lifts.txt", "rename:lifts.txt",
		"os.Rename:doors.txt", "rename:doors.txt",
		"os.Rename:installed.txt", "rename:installed.txt",
		"os.SyncDir", "sync",
	}
	if !reflect.DeepEqual(events, wantEvents) {
		t.Errorf("events:\n %q\nwant\n %q", events, wantEvents)
	}
	if !reflect.DeepEqual(res.Written, names) || len(res.Unchanged) != 0 {
		t.Errorf("Result = %+v; want all written in order", res)
	}
	if got := contents(t, dir); !reflect.DeepEqual(got, want(files)) {
		t.Errorf("folder = %q; want %q", got, want(files))
	}
}

func TestUnchangedNotRewritten(t *testing.T) {
	dir := t.TempDir()
	files := generation("one")
	publish(t, dir, files, Options{})
	before := map[string]os.FileInfo{}
	for _, n := range names {
		fi, err := os.Stat(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		before[n] = fi
	}
	renames := 0
	opts := Options{
		Renamer:   atomicfile.Renamer{Rename: func(o, n string) error { renames++; return os.Rename(o, n) }},
		AfterStep: func(s string) { t.Errorf("step %q for an unchanged publication", s) },
	}
	res := publish(t, dir, files, opts)
	if len(res.Written) != 0 || !reflect.DeepEqual(res.Unchanged, names) || renames != 0 {
		t.Fatalf("republishing the same bytes: %+v, %d renames; want all unchanged, none renamed", res, renames)
	}
	for _, n := range names {
		fi, _ := os.Stat(filepath.Join(dir, n))
		if !os.SameFile(fi, before[n]) {
			t.Errorf("%s was replaced although unchanged", n)
		}
	}

	// One file changes (same length, other bytes): only it is written.
	files[2].Data = []byte(strings.Replace(string(files[2].Data), "one", "two", 1))
	opts.AfterStep = nil
	res = publish(t, dir, files, opts)
	if !reflect.DeepEqual(res.Written, []string{"doors.txt"}) || len(res.Unchanged) != 3 || renames != 1 {
		t.Errorf("one changed file: %+v, %d renames; want doors.txt alone written", res, renames)
	}
	if got := contents(t, dir); !reflect.DeepEqual(got, want(files)) {
		t.Errorf("folder = %q; want %q", got, want(files))
	}
}

// faultyTemp wraps a real temp file and fails one of its steps.
type faultyTemp struct {
	Temp
	failWrite, failPrepare error
}

func (f *faultyTemp) Write(b []byte) (int, error) {
	if f.failWrite != nil {
		// Write part of it, as a full disk does.
		n, _ := f.Temp.Write(b[:len(b)/2])
		return n, f.failWrite
	}
	return f.Temp.Write(b)
}

func (f *faultyTemp) Prepare() error {
	if f.failPrepare != nil {
		f.Temp.Prepare()
		return f.failPrepare
	}
	return f.Temp.Prepare()
}

// meetingTemp is a real temp file whose Prepare waits, at most a while,
// for every other temp file's Prepare to begin.
type meetingTemp struct {
	Temp
	arrived *sync.WaitGroup
	all     chan struct{} // closed once every Prepare began
}

func (m meetingTemp) Prepare() error {
	m.arrived.Done()
	select {
	case <-m.all:
	case <-time.After(5 * time.Second):
		return errors.New("the other temp files were not flushed meanwhile")
	}
	return m.Temp.Prepare()
}

// TestPreparesAtOnce: the changed files are flushed all at once, each
// flush waiting together with the others (so that they share a journal
// commit), not one after the other; then renamed in order.
func TestPreparesAtOnce(t *testing.T) {
	dir := t.TempDir()
	publish(t, dir, generation("old"), Options{})
	var arrived sync.WaitGroup
	arrived.Add(len(names))
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	res, err := Publish(dir, generation("new"), Options{Create: func(target string, perm fs.FileMode) (Temp, error) {
		p, err := atomicfile.Create(target, perm)
		if err != nil {
			return nil, err
		}
		return meetingTemp{Temp: p, arrived: &arrived, all: all}, nil
	}})
	if err != nil || !reflect.DeepEqual(res.Written, names) {
		t.Fatalf("Publish = %+v, %v; want all written", res, err)
	}
}

// failAt returns a Create that fails step of file name with err.
func failAt(name, step string, err error) func(string, fs.FileMode) (Temp, error) {
	return func(target string, perm fs.FileMode) (Temp, error) {
		if filepath.Base(target) == name && step == stepCreate {
			return nil, &fs.PathError{Op: "open", Path: target, Err: err}
		}
		p, cerr := atomicfile.Create(target, perm)
		if cerr != nil || filepath.Base(target) != name {
			return p, cerr
		}
		ft := &faultyTemp{Temp: p}
		switch step {
		case stepWrite:
			ft.failWrite = &fs.PathError{Op: "write", Path: p.Name(), Err: err}
		case stepPrepare:
			ft.failPrepare = &fs.PathError{Op: "sync", Path: p.Name(), Err: err}
		}
		return ft, nil
	}
}

// TestFailureBeforeRenames: a full disk or a denied write while preparing
// leaves every old file as it was, no temp file behind, and says which file
// and step failed.
func TestFailureBeforeRenames(t *testing.T) {
	for _, tc := range []struct {
		name, file, step string
		err              error
	}{
		{"disk full creating doors.txt", "doors.txt", stepCreate, syscall.ENOSPC},
		{"disk full writing lifts.txt", "lifts.txt", stepWrite, syscall.ENOSPC},
		{"disk full flushing installed.txt", "installed.txt", stepPrepare, syscall.ENOSPC},
		{"permission denied creating installed.json", "installed.json", stepCreate, syscall.EACCES},
		{"permission denied writing installed.txt", "installed.txt", stepWrite, syscall.EACCES},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			old := generation("old")
			publish(t, dir, old, Options{})
			var steps []string
			res, err := Publish(dir, generation("new"), Options{
				Create:    failAt(tc.file, tc.step, tc.err),
				AfterStep: func(s string) { steps = append(steps, s) },
			})
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, tc.err) {
				t.Fatalf("Publish = %v; want *Error wrapping %v", err, tc.err)
			}
			if pe.Name != tc.file || pe.Step != tc.step || len(pe.Replaced) != 0 {
				t.Errorf("Error = {Name %q, Step %q, Replaced %v}; want {%q, %q, none}", pe.Name, pe.Step, pe.Replaced, tc.file, tc.step)
			}
			for _, s := range []string{tc.file, tc.step, "no file was replaced"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if len(res.Written) != 0 {
				t.Errorf("Result.Written = %v; want none", res.Written)
			}
			for _, s := range steps {
				if strings.HasPrefix(s, "rename:") {
					t.Errorf("step %s ran after a failed prepare", s)
				}
			}
			if got := contents(t, dir); !reflect.DeepEqual(got, want(old)) {
				t.Errorf("folder after failure = %q; want the old files only, no temp files: %q", got, want(old))
			}
		})
	}
}

// TestReadOnlyFolder uses a real read-only folder. Root ignores folder
// permissions, and CI runs as root: there the test runs itself again as
// uid 65534 (nobody) with setpriv (util-linux). Windows folders have ACLs
// instead; TestFailureBeforeRenames injects EACCES there.
func TestReadOnlyFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("folder permissions are ACLs on Windows")
	}
	if os.Geteuid() == 0 {
		runAsNobody(t, "TestReadOnlyFolder")
		return
	}
	dir := t.TempDir()
	old := generation("old")
	publish(t, dir, old, Options{})
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	_, err := Publish(dir, generation("new"), Options{})
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrPermission) || pe.Name != "installed.json" || pe.Step != stepCreate {
		t.Fatalf("Publish into a read-only folder = %v; want a permission error creating installed.json", err)
	}
	if got := contents(t, dir); !reflect.DeepEqual(got, want(old)) {
		t.Errorf("folder = %q; want the old files", got)
	}
}

// runAsNobody runs the named test of this binary as uid and gid 65534 and
// fails unless it ran and passed there.
func runAsNobody(t *testing.T, name string) {
	setpriv := toolcheck.Need(t, "setpriv")[0]
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The go tool's build folder is root's alone: copy the test binary
	// where nobody can run it.
	dir, err := os.MkdirTemp("", "publish-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "publish.test")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--",
		bin, "-test.run=^"+name+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+os.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("%s as uid 65534: %v\n%s", name, err, out)
	}
}

// busyRenamer simulates a Windows reader holding target open for the first
// busyFor tries (forever when busyFor < 0).
func busyRenamer(target string, busyFor int, slept *[]time.Duration) atomicfile.Renamer {
	return atomicfile.Renamer{
		Rename: func(o, n string) error {
			if filepath.Base(n) == target && busyFor != 0 {
				busyFor--
				return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EBUSY}
			}
			return os.Rename(o, n)
		},
		Busy:    func(err error) bool { return errors.Is(err, syscall.EBUSY) },
		MaxWait: 2 * time.Second,
		Sleep:   func(d time.Duration) { *slept = append(*slept, d) },
	}
}

func TestBusyTargetRetried(t *testing.T) {
	dir := t.TempDir()
	publish(t, dir, generation("old"), Options{})
	var slept []time.Duration
	files := generation("new")
	res := publish(t, dir, files, Options{Renamer: busyRenamer("lifts.txt", 3, &slept)})
	if len(slept) != 3 || !slices.IsSorted(slept) || slept[0] == slept[2] {
		t.Errorf("back-off = %v; want 3 growing waits", slept)
	}
	if !reflect.DeepEqual(res.Written, names) {
		t.Errorf("Written = %v; want %v", res.Written, names)
	}
	if got := contents(t, dir); !reflect.DeepEqual(got, want(files)) {
		t.Errorf("folder = %q; want %q", got, want(files))
	}
}

// TestBusyTargetReported: a target held for longer than MaxWait is reported
// after a bounded wait; the files renamed before it are new, the rest old,
// and no temp file is left.
func TestBusyTargetReported(t *testing.T) {
	dir := t.TempDir()
	old, files := generation("old"), generation("new")
	publish(t, dir, old, Options{})
	var slept []time.Duration
	res, err := Publish(dir, files, Options{Renamer: busyRenamer("doors.txt", -1, &slept)})
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, atomicfile.ErrBusy) {
		t.Fatalf("Publish = %v; want *Error wrapping atomicfile.ErrBusy", err)
	}
	var total time.Duration
	for _, d := range slept {
		total += d
	}
	if total != 2*time.Second {
		t.Errorf("waited %v in all; want the renamer's MaxWait 2s", total)
	}
	done := []string{"installed.json", "lifts.txt"}
	if pe.Name != "doors.txt" || pe.Step != stepRename || !reflect.DeepEqual(pe.Replaced, done) || !reflect.DeepEqual(res.Written, done) {
		t.Errorf("Error = {%q, %q, %v}, Written %v; want doors.txt, rename, %v", pe.Name, pe.Step, pe.Replaced, res.Written, done)
	}
	if !strings.Contains(err.Error(), "publish again") {
		t.Errorf("error %q does not say what to do", err)
	}
	wantDir := want(old)
	wantDir["installed.json"] = string(files[0].Data)
	wantDir["lifts.txt"] = string(files[1].Data)
	if got := contents(t, dir); !reflect.DeepEqual(got, wantDir) {
		t.Errorf("folder = %q; want %q", got, wantDir)
	}
}

func TestSyncFailureReported(t *testing.T) {
	dir := t.TempDir()
	_, err := Publish(dir, generation("new"), Options{SyncDir: func(string) error { return syscall.EIO }})
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, syscall.EIO) || pe.Step != stepSync || len(pe.Replaced) != 4 {
		t.Fatalf("Publish with a failing folder sync = %v; want *Error at step sync after 4 renames", err)
	}
	if !strings.Contains(err.Error(), "power loss") {
		t.Errorf("error %q does not say what a failed folder sync risks", err)
	}
}

func TestBadNames(t *testing.T) {
	for _, name := range []string{"", ".", "..", "../x.txt", "sub/x.txt", `sub\x.txt`, "/abs.txt", atomicfile.TempPrefix + "x", "lifts.txt"} {
		dir := t.TempDir()
		files := append(generation("new"), File{name, []byte("x")})
		_, err := Publish(dir, files, Options{})
		var pe *Error
		if !errors.As(err, &pe) || pe.Step != stepCheck {
			t.Errorf("Publish with file name %q = %v; want a check error", name, err)
		}
		if got := contents(t, dir); len(got) != 0 {
			t.Errorf("file name %q: folder holds %v; want nothing written", name, got)
		}
	}
}

func TestTargetIsAFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "doors.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Publish(dir, generation("new"), Options{})
	var pe *Error
	if !errors.As(err, &pe) || pe.Step != stepRead || pe.Name != "doors.txt" {
		t.Fatalf("Publish over a folder = %v; want a read error on doors.txt", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("folder holds %v; want only the folder doors.txt", entries)
	}
}

// TestClean: what a crash leaves in the folder is what the pipeline's
// start removes with atomicfile.CleanTemps, and only that.
func TestClean(t *testing.T) {
	dir := t.TempDir()
	publish(t, dir, generation("old"), Options{})
	// What a crash between prepare and rename leaves.
	p, err := atomicfile.Create(filepath.Join(dir, "lifts.txt"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p.Write([]byte("half"))
	p.Prepare()
	removed, err := atomicfile.CleanTemps(dir)
	if err != nil || len(removed) != 1 || removed[0] != filepath.Base(p.Name()) {
		t.Fatalf("Clean = %v, %v; want [%s]", removed, err, filepath.Base(p.Name()))
	}
	if got := contents(t, dir); !reflect.DeepEqual(got, want(generation("old"))) {
		t.Errorf("folder after Clean = %q; want the published files only", got)
	}
}
