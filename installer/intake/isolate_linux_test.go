package intake

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mjolnir-forge/forgesync/internal/prio"
	"github.com/mjolnir-forge/forgesync/internal/prio/priotest"
)

// lzmaCoder returns the offset of the first LZMA coder in a 7z's plain
// header: flags 0x23, id 03 01 01, 5 property bytes.
func lzmaCoder(t *testing.T, b []byte) (hdr []byte, i int) {
	t.Helper()
	hdr = b[32+binary.LittleEndian.Uint64(b[12:]):]
	i = bytes.Index(hdr, []byte{0x23, 0x03, 0x01, 0x01, 0x05})
	if i < 0 {
		t.Fatal("no LZMA coder in the header")
	}
	return hdr, i
}

// mustRejectFor extracts archive and wants one problem with rule.
func mustRejectFor(t *testing.T, archive, rule string) Problem {
	t.Helper()
	re := mustReject(t, archive, DefaultLimits(), want{rule: rule, anyEntry: true})
	for _, p := range re.Problems {
		if p.Rule == rule {
			return p
		}
	}
	return Problem{}
}

// TestIsolationMemoryLimit: an archive built to need a 1 GiB dictionary,
// with the dictionary rule lifted in the child, is stopped by the child's
// memory limit (the allocation past it fails) and reported as such.
func TestIsolationMemoryLimit(t *testing.T) { forColdAndWarm(t, testIsolationMemoryLimit) }

func testIsolationMemoryLimit(t *testing.T, warm bool) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory counts against the limit")
	}
	isolateWarmFor(t, warm, &Isolation{Env: []string{envLZMADict + "=" + strconv.Itoa(4<<30)}})
	b := sevenZip(t, nil, "-mhc=off", "-m0=lzma2")
	hdr := b[32+binary.LittleEndian.Uint64(b[12:]):]
	i := bytes.Index(hdr, []byte{0x21, 0x21, 0x01}) // LZMA2: one property byte
	if i < 0 {
		t.Fatal("no LZMA2 coder in the header")
	}
	b = patch7z(t, b, hdr[i:i+4], []byte{0x21, 0x21, 0x01, 36}) // a 1 GiB dictionary
	p := mustRejectFor(t, writeArchive(t, "huge.7z", b), RuleUnpackMemory)
	if p.Value != "more than 256 MiB" {
		t.Errorf("value = %q; want the limit named", p.Value)
	}
}

// TestIsolationWallBudget: an archive whose coder never ends (a stand-in,
// known only to the test child, for the 2^62 AES rounds that the coder
// rules now refuse before they start) is stopped at its budget.
func TestIsolationWallBudget(t *testing.T) { forColdAndWarm(t, testIsolationWallBudget) }

func testIsolationWallBudget(t *testing.T, warm bool) {
	isolateWarmFor(t, warm, &Isolation{Time: time.Second})
	b := sevenZip(t, nil, "-mhc=off", "-m0=lzma")
	hdr, i := lzmaCoder(t, b)
	b = patch7z(t, b, hdr[i:i+10], []byte{0x23, 0x03, 0x01, 0x7f, 0x05, 1, 0, 0, 0, 0})
	p := mustRejectFor(t, writeArchive(t, "forever.7z", b), RuleUnpackTime)
	if p.Value != "more than 1 s" {
		t.Errorf("value = %q; want the budget named", p.Value)
	}
}

// TestIsolationStarved: a child that runs out of its budget without using
// the processor (a stand-in that sleeps, as a child at background priority
// does while the game takes both cores) is no verdict: the error says the
// unpacker was starved (ErrStarved, which the pipeline takes for a fault),
// and the archive is not rejected.
func TestIsolationStarved(t *testing.T) { forColdAndWarm(t, testIsolationStarved) }

func testIsolationStarved(t *testing.T, warm bool) {
	isolateWarmFor(t, warm, &Isolation{Time: time.Second})
	b := sevenZip(t, nil, "-mhc=off", "-m0=lzma")
	hdr, i := lzmaCoder(t, b)
	b = patch7z(t, b, hdr[i:i+10], []byte{0x23, 0x03, 0x01, 0x7f, 0x05, 3, 0, 0, 0, 0})
	iso := newIsolated(t)
	_, err := testExtract(t.Context(), writeArchive(t, "asleep.7z", b), iso.staging, DefaultLimits(), nil)
	var re *RejectError
	if errors.As(err, &re) || !errors.Is(err, ErrStarved) || !strings.Contains(err.Error(), "in its budget of 1 s") {
		t.Fatalf("err = %v; want ErrStarved naming the budget, no rejection", err)
	}
}

// TestIsolationCrash: a decoder that panics (as lzip-go did) rejects its
// archive with the panic named; the caller goes on.
func TestIsolationCrash(t *testing.T) { forColdAndWarm(t, testIsolationCrash) }

func testIsolationCrash(t *testing.T, warm bool) {
	isolateWarmFor(t, warm, &Isolation{})
	b := sevenZip(t, nil, "-mhc=off", "-m0=lzma")
	hdr, i := lzmaCoder(t, b)
	b = patch7z(t, b, hdr[i:i+10], []byte{0x23, 0x03, 0x01, 0x7f, 0x05, 2, 9, 0, 0, 0})
	p := mustRejectFor(t, writeArchive(t, "crash.7z", b), RuleUnpackerCrashed)
	if !strings.HasPrefix(p.Value, "panic: runtime error: index out of range") {
		t.Errorf("value = %q; want the panic", p.Value)
	}
}

// TestIsolationKilledChild: a child killed mid-extraction (kill -9) leaves
// nothing in staging, and its archive is rejected.
func TestIsolationKilledChild(t *testing.T) {
	isolateFor(t, &Isolation{})
	iso := newIsolated(t)
	archive := writeArchive(t, "big.tar", tarBytes(t, with(entry{name: "content/big.pak", body: randomish(128 << 20)})))
	var mu sync.Mutex
	pid := 0
	childStarted = func(p int) { mu.Lock(); pid = p; mu.Unlock() }
	t.Cleanup(func() { childStarted = nil })
	killed := false
	_, err := testExtract(t.Context(), archive, iso.staging, DefaultLimits(), func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if !killed && done > 0 {
			killed = true
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	var re *RejectError
	if !errors.As(err, &re) || len(re.Problems) != 1 || re.Problems[0].Rule != RuleUnpackerCrashed {
		t.Fatalf("Extract with the child killed = %v; want the crash rule", err)
	}
	iso.verify(t, true)
}

// processGone reports whether no process pid exists (it was reaped).
func processGone(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH }

// killAndAwait kills process pid and waits until it has exited, without
// reaping it: its owner still waits for it.
func killAndAwait(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatalf("waitid(%d): %v", pid, err)
	}
}

// TestChildPriority: a background child runs, while it waits for its
// request and so while it works, with every thread at nice 19, under
// SCHED_IDLE and in the idle I/O class, as /proc/<pid>/task/*/stat and ioprio_get read them
// from outside; a normal one at this process's priority. Its memory limit
// is in force while it waits.
func TestChildPriority(t *testing.T) {
	self, err := priotest.Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	parent := self[os.Getpid()]
	for _, background := range []bool{true, false} {
		t.Run(fmt.Sprint("background=", background), func(t *testing.T) {
			mem := int64(200 << 20)
			if raceEnabled {
				mem = raceMemory() // the detector's shadow memory counts against the limit
			}
			x, _ := warmExtractor(t, Isolation{Background: background, Memory: mem, Env: []string{envSayReady + "=1"}})
			c := waitingChild(t, x)
			readyChild(t, c)
			pid := c.cmd.Process.Pid
			got, err := priotest.Read(pid)
			if err != nil {
				t.Fatal(err)
			}
			want := priotest.Priority{Nice: prio.UnpackerNice, IOClass: prio.IOClassIdle, Policy: prio.SchedIdle}
			if !background {
				want = parent
			}
			for tid, p := range got {
				if p != want {
					t.Errorf("child %d, thread %d: %+v; want %+v", pid, tid, p, want)
				}
			}
			limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
			if err != nil {
				t.Fatal(err)
			}
			if !raceEnabled && !regexp.MustCompile(`Max data size +209715200 +209715200 `).Match(limits) {
				t.Errorf("the waiting child's limits:\n%s\nwant its data size limited to 200 MiB", limits)
			}
		})
	}
}

// isolateWarmFor is isolateFor, with a warm child kept when warm is set:
// the waiting child must hold every limit a child started for the archive
// does.
func isolateWarmFor(t *testing.T, warm bool, iso *Isolation) {
	t.Helper()
	isolateFor(t, iso)
	if warm {
		x := testExtractor.Load()
		x.Warm()
		t.Cleanup(func() { x.Close() })
		waitingChild(t, x) // the archive goes to the waiting child
	}
}

// forColdAndWarm runs test with a child started for the archive, then
// with a warm one.
func forColdAndWarm(t *testing.T, test func(t *testing.T, warm bool)) {
	for _, warm := range []bool{false, true} {
		t.Run(fmt.Sprint("warm=", warm), func(t *testing.T) { test(t, warm) })
	}
}

// TestArchiveHashOnAnIdleThread: for a background extraction the parent
// hashes the archive on a thread at the unpacker's priority (nice 19,
// SCHED_IDLE, the idle I/O class), which is not one of those that run the
// rest of the process (which answers status requests); for a normal one
// the hash runs at the process's priority. Either way no thread of the
// process ends: a warm unpacker dies with the thread that started it
// (Pdeathsig), and a hash on a thread locked and let go did kill one.
func TestArchiveHashOnAnIdleThread(t *testing.T) {
	self, err := priotest.Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	normal := self[os.Getpid()]
	lowered := priotest.Priority{Nice: prio.UnpackerNice, IOClass: prio.IOClassIdle, Policy: prio.SchedIdle}
	for _, background := range []bool{false, true, true, false, true} {
		src := &gatedReader{r: strings.NewReader("forge"), started: make(chan struct{}), gate: make(chan struct{})}
		hashed := hashAsync(t.Context(), src, background)
		<-src.started
		got, err := priotest.Read(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		want := normal
		if background {
			want = lowered
		}
		if p := got[src.tid]; p != want {
			t.Errorf("background=%v: the hashing thread %d at %+v; want %+v", background, src.tid, p, want)
		}
		if p := got[os.Getpid()]; p != normal {
			t.Errorf("background=%v: the main thread at %+v; want %+v", background, p, normal)
		}
		close(src.gate)
		if h := <-hashed; h != sha256Hex("forge") {
			t.Errorf("background=%v: hash %q; want %q", background, h, sha256Hex("forge"))
		}
	}
	after, err := priotest.Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for tid := range self {
		if _, ok := after[tid]; !ok {
			t.Errorf("thread %d ended during the hashes", tid)
		}
	}
}

// gatedReader reads r once gate is closed, noting the thread of its
// first Read and closing started then.
type gatedReader struct {
	r       io.Reader
	started chan struct{}
	gate    chan struct{}
	once    sync.Once
	tid     int
}

func (g *gatedReader) Read(p []byte) (int, error) {
	g.once.Do(func() {
		g.tid = unix.Gettid()
		close(g.started)
	})
	<-g.gate
	return g.r.Read(p)
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
