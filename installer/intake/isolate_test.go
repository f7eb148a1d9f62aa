package intake

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// TestDeathReasons: how a child that ended without its result is reported.
// The stderr texts are what the Go runtime writes in each case (trimmed).
func TestDeathReasons(t *testing.T) {
	iso := &Isolation{Memory: 256 << 20}
	exit2 := errors.New("exit status 2")
	// A process that ended on its own, neither signalled nor limited.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	ps := cmd.ProcessState
	for _, c := range []struct {
		name, stderr string
		peak         int64
		rule         string
	}{
		{"runtime says out of memory", "fatal error: out of memory\n\ngoroutine 1 [running]:\nruntime.throw(...)\n", 0, RuleUnpackMemory},
		{"mapping refused", "runtime: cannot allocate memory\nfatal error: runtime: cannot allocate memory\n", 0, RuleUnpackMemory},
		{"died near the limit", "", 250 << 20, RuleUnpackMemory},
		// Seen in CI: a refused mapping made the collector fault, far
		// below the limit as VmData counts it.
		{"collector faulted", "SIGSEGV: segmentation violation\nPC=0x4352fd m=0 sigcode=1 addr=0x0\n\ngoroutine 0 gp=0xd0a5a0 m=0 mp=0xd0b5a0 [idle]:\n" +
			"runtime.(*spanQueue).tryDrain(0x7fff00000400?, 0x43db45?, 0xd0abe8?)\n\t/usr/local/go/src/runtime/mgcmark_greenteagc.go:520 +0x5d\n", 119 << 20, RuleUnpackMemory},
		{"nil dereference in a decoder", "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4f6a1b]\n\n" +
			"goroutine 1 [running]:\ngithub.com/bodgit/sevenzip.(*Reader).init(...)\n", 20 << 20, RuleUnpackerCrashed},
		{"a signal in a library's own code", "SIGSEGV: segmentation violation\nPC=0x4f6a1b m=0 sigcode=1\n\ngoroutine 7 [running]:\ngithub.com/klauspost/compress/zstd.(*blockDec).decode(...)\n", 20 << 20, RuleUnpackerCrashed},
		{"nothing said", "", 10 << 20, RuleUnpackerCrashed},
	} {
		rule, value := iso.death(c.stderr, ps, exit2, c.peak, time.Minute)
		if rule != c.rule {
			t.Errorf("%s: death = %q, %q; want %q", c.name, rule, value, c.rule)
		}
	}
}

// TestConfine: a child started suspended is resumed only once it is
// confined; a failed assignment never lets it run.
func TestConfine(t *testing.T) {
	denied := errors.New("access denied")
	for _, tc := range []struct {
		name              string
		assign, resume    error
		wantResume, fails bool
	}{
		{"confined", nil, nil, true, false},
		{"assignment refused", denied, nil, false, true},
		{"resume failed", nil, denied, true, true},
	} {
		var steps []string
		err := confine(
			func() error { steps = append(steps, "assign"); return tc.assign },
			func() error { steps = append(steps, "resume"); return tc.resume })
		resumed := len(steps) == 2 && steps[0] == "assign" && steps[1] == "resume"
		if resumed != tc.wantResume || (len(steps) == 1 && steps[0] != "assign") {
			t.Errorf("%s: steps %q; want assign then resume = %v", tc.name, steps, tc.wantResume)
		}
		if (err != nil) != tc.fails || (err != nil && !errors.Is(err, denied)) {
			t.Errorf("%s: confine = %v; want failure %v wrapping the cause", tc.name, err, tc.fails)
		}
	}
}

// TestRejectedStagingUsesRetryingRemover: every removal of a staging
// folder goes through the retrying remover (atomicfile.RemoveAll), which
// waits out a scanner's hold on Windows where os.RemoveAll gives up.
func TestRejectedStagingUsesRetryingRemover(t *testing.T) {
	for _, isolated := range []bool{true, false} {
		t.Run(map[bool]string{true: "isolated", false: "in process"}[isolated], func(t *testing.T) {
			if isolated {
				isolateFor(t, &Isolation{})
			} else {
				old := testExtractor.Load()
				testExtractor.Store(nil)
				t.Cleanup(func() { testExtractor.Store(old) })
			}
			var removed []string
			saved := removeStaging
			removeStaging = func(dir string) error { removed = append(removed, dir); return saved(dir) }
			t.Cleanup(func() { removeStaging = saved })
			parent := t.TempDir()
			archive := writeArchive(t, "p.zip", zipBytes(t, with(entry{name: "content/zz-big.pak", body: make([]byte, 4096)})))
			lim := DefaultLimits()
			lim.MaxEntryBytes = 2048
			_, err := testExtract(t.Context(), archive, parent, lim, nil)
			var re *RejectError
			if !errors.As(err, &re) {
				t.Fatalf("Extract = %v; want a rejection", err)
			}
			if len(removed) != 1 || filepath.Dir(removed[0]) != parent {
				t.Errorf("staging removed through the retrying remover: %q; want the one staging folder under %s", removed, parent)
			}
			if left, _ := os.ReadDir(parent); len(left) != 0 {
				t.Errorf("staging parent holds %v; want it empty", left)
			}
		})
	}
}

// TestExtractorNeedsUnpacker: an Extractor without the child's command is
// refused when built; there is no extraction in process to fall back on.
func TestExtractorNeedsUnpacker(t *testing.T) {
	if x, err := NewExtractor(Isolation{}); x != nil || !errors.Is(err, errNoUnpacker) {
		t.Fatalf("NewExtractor(no command) = %v, %v; want ErrNoUnpacker", x, err)
	}
}

// TestParentFlushesManyFiles: the child leaves the one flush of the
// staging file system that a pack of many files gets (Linux) to the
// parent, which runs it beside its checks of the staged files: the parent
// flushes once for such a pack, also when the child says it flushed them
// itself, and never for a pack of few files, which the child flushes file
// by file (as it does every pack on the systems without that flush).
func TestParentFlushesManyFiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files int
		lie   string
	}{
		{name: "few files", files: atomicfile.SyncFSFiles - 1},
		{name: "many files", files: atomicfile.SyncFSFiles + 100},
		{name: "many files, the child says it flushed them", files: atomicfile.SyncFSFiles + 100, lie: "flushed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			iso := &Isolation{}
			if tc.lie != "" {
				iso.Env = []string{envLie + "=" + tc.lie}
			}
			isolateFor(t, iso)
			es := goodPack("")
			for i := len(goodFiles()); i < tc.files; i++ {
				es = append(es, file(fmt.Sprintf("content/f%05d.sig", i), "sig"))
			}
			path := writeArchive(t, "p.zip", zipBytes(t, es))
			before := atomicfile.Fsyncs()
			st, err := testExtract(t.Context(), path, t.TempDir(), DefaultLimits(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Remove()
			if len(st.Files) != tc.files {
				t.Fatalf("%d files staged; want %d", len(st.Files), tc.files)
			}
			want := int64(0)
			if tc.files >= atomicfile.SyncFSFiles && atomicfile.FlushesFileSystem {
				want = 1
			}
			if got := atomicfile.Fsyncs() - before; got != want {
				t.Errorf("the parent flushed %d times for %d files; want %d", got, tc.files, want)
			}
		})
	}
}
