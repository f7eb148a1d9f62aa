package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// dropStray writes n stray text files, no archives, into drop.
func (e *env) dropStray(t testing.TB, prefix string, n int) []string {
	t.Helper()
	if err := os.MkdirAll(e.drop, 0o755); err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range n {
		name := fmt.Sprintf("%s-%03d.txt", prefix, i)
		if err := os.WriteFile(filepath.Join(e.drop, name), fmt.Appendf(nil, "not a pack %d\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// TestPassStateWritesBounded: a pass that rejects many archives writes
// rejections.json once and attempts.json at most once, whatever their
// number; it appends one try per archive unpacked (none for a file that
// is no archive, judged by its first bytes) and writes bytes in
// proportion to the records, not to their square; on Linux its flushes
// are a handful, not a few per archive. Each rejected archive rewrote
// both files whole (temp, flush, rename), so 3,000 stray files took 225 s.
func TestPassStateWritesBounded(t *testing.T) {
	skipUnderRace(t)
	e := newEnv(t)
	p := e.open(t)
	want := map[string]Result{}
	for _, n := range e.dropStray(t, "stray", 150) {
		want[n] = ResultRejected
	}
	for _, n := range []string{"bad-1.zip", "bad-2.zip"} {
		e.dropPack(t, n, spec{id: strings.TrimSuffix(n, ".zip"), version: "1.0.0", doors: 1, bad: true})
		want[n] = ResultRejected
	}
	for pass := 1; pass <= 2; pass++ {
		before, flushes := p.writes.snapshot(), atomicfile.Fsyncs()
		mustSync(t, p, want)
		w := p.writes.since(before)
		if w.files[rejectionsFile] != 1 || w.files[attemptsFile] > 1 || w.total() > 2 {
			t.Errorf("pass %d over %d archives replaced %v; want %s once and %s at most once", pass, len(want), w.files, rejectionsFile, attemptsFile)
		}
		unpacked := 0
		for n := range want {
			if strings.HasSuffix(n, ".zip") {
				unpacked++
			}
		}
		if w.appends != unpacked {
			t.Errorf("pass %d appended %d tries; want %d, one per archive unpacked", pass, w.appends, unpacked)
		}
		info, err := os.Stat(filepath.Join(e.state, rejectionsFile))
		if err != nil {
			t.Fatal(err)
		}
		if limit := info.Size() + 2048; w.bytes > limit {
			t.Errorf("pass %d wrote %d bytes of state; want at most %d, the records once", pass, w.bytes, limit)
		}
		if got := atomicfile.Fsyncs() - flushes; runtime.GOOS == "linux" && got > 8 {
			t.Errorf("pass %d flushed %d times; want a handful, not a few per archive", pass, got)
		}
		recs, err := Rejections(e.drop, e.state)
		if err != nil || len(recs) != len(want)*pass {
			t.Fatalf("pass %d: Rejections = %d records, %v; want %d", pass, len(recs), err, len(want)*pass)
		}
		for _, r := range recs {
			if len(r.Reasons) == 0 {
				t.Fatalf("pass %d: %s recorded without reasons", pass, r.Archive)
			}
		}
		// The same names again: kept apart as -2, the first ones kept.
		next := map[string]Result{}
		for n := range want {
			data, err := os.ReadFile(filepath.Join(e.drop, rejectedDir, n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(e.drop, n), data, 0o644); err != nil {
				t.Fatal(err)
			}
			next[n] = ResultRejected
		}
		want = next
	}
	if left := listFiles(t, filepath.Join(e.state, store.ProcessingDir)); len(left) != 0 {
		t.Errorf("processing holds %v", left)
	}
}

// TestStatusAnswersDuringAPass: while a pass over many stray files is
// stopped halfway through moving them to drop/rejected/, status answers
// at once from the snapshot: syncing, every archive of the pass queued,
// and as many rejected as drop/rejected/ holds with their notes. Once the
// pass ends the queue is empty and all of them are counted.
func TestStatusAnswersDuringAPass(t *testing.T) {
	e := newEnv(t)
	names := e.dropStray(t, "stray", 300)
	paused, release := make(chan struct{}), make(chan struct{})
	opts := e.options()
	opts.Step = func(name string) {
		if name == "reject:"+names[150] {
			close(paused)
			<-release
		}
	}
	r := startRunner(t, opts, RunnerOptions{})
	passed := make(chan error, 1)
	go func() {
		_, err := r.SyncDrop(t.Context())
		passed <- err
	}()
	select {
	case <-paused:
	case err := <-passed:
		t.Fatalf("the pass ended (%v) without reaching %s", err, names[150])
	}
	answer := make(chan Status, 1)
	go func() { answer <- r.Status() }()
	var st Status
	select {
	case st = <-answer:
	case <-t.Context().Done():
		t.Fatal("status waited for the pass")
	}
	if st.State != StateSyncing || len(st.Queue) != len(names) || st.Counts.Rejected != 150 || len(r.Rejections()) != 150 {
		t.Errorf("status mid-pass = %s, %d queued, %d rejected (listed %d); want syncing, %d, 150", st.State, len(st.Queue), st.Counts.Rejected, len(r.Rejections()), len(names))
	}
	close(release)
	if err := <-passed; err != nil {
		t.Fatal(err)
	}
	if st := r.Status(); st.State != StateIdle || len(st.Queue) != 0 || st.Counts.Rejected != len(names) {
		t.Errorf("status after = %s, %d queued, %d rejected; want idle, none, %d", st.State, len(st.Queue), st.Counts.Rejected, len(names))
	}
}
