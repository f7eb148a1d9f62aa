package intake

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bodgit/sevenzip"
)

// The intake's tests unpack every archive in a child process, as the
// program does: this test binary, re-run with envUnpackChild set, is the
// child. envInProcess turns isolation off to compare.
const (
	envUnpackChild = "FORGESYNC_TEST_UNPACK_CHILD"
	envInProcess   = "FORGESYNC_TEST_IN_PROCESS"
	// envLZMADict raises the LZMA dictionary rule in the child, so a test
	// can show that the memory limit holds on its own.
	envLZMADict = "FORGESYNC_TEST_LZMA_DICT"
	// envLie makes the child lie about what it unpacked, as its value
	// says (see lyingChild); envLieTarget names a file or folder outside
	// staging for the lies that point there.
	envLie       = "FORGESYNC_TEST_LIE"
	envLieTarget = "FORGESYNC_TEST_LIE_TARGET"
	// envSayReady makes the child write "ready" on its standard output
	// when RunChild first reads its request: after everything it does
	// before (lowering its priority), while it waits.
	envSayReady = "FORGESYNC_TEST_SAY_READY"
)

// testCoder is a 7z coder id that only the test child knows: an archive
// "built to run forever" or to crash names it. Its first property byte
// says what it does: 1 spins without end, 2 panics, 3 sleeps.
var testCoder = []byte{0x03, 0x01, 0x7f}

func TestMain(m *testing.M) {
	if os.Getenv(envUnpackChild) != "" {
		if d, err := strconv.ParseUint(os.Getenv(envLZMADict), 10, 64); err == nil {
			lzmaDictLimit = d
		}
		sevenZipAllowed[string(testCoder)] = "test coder"
		sevenzip.RegisterDecompressor(testCoder, func(p []byte, _ uint64, _ []io.ReadCloser) (io.ReadCloser, error) {
			switch p[0] {
			case 1:
				for n := uint64(0); ; n++ {
					if n == 1<<63 {
						return nil, errors.New("unreachable")
					}
				}
			case 3:
				time.Sleep(time.Hour) // the processor never comes (see ErrStarved)
				return nil, errors.New("test coder: slept an hour")
			case 2:
				var table []int
				_ = table[binary.LittleEndian.Uint32(p[1:])] // an index out of range, as lzip-go's was
			}
			return nil, errors.New("test coder: unknown mode")
		})
		if mode := os.Getenv(envLie); mode != "" {
			os.Exit(lyingChild(mode, os.Getenv(envLieTarget)))
		}
		if os.Getenv(envSayReady) != "" {
			os.Exit(RunChild(&readyReader{r: os.Stdin}, os.Stdout))
		}
		os.Exit(RunChild(os.Stdin, os.Stdout))
	}
	if os.Getenv(envInProcess) == "" && !raceEnabled {
		// Under the race detector a child takes long to start: the bulk
		// runs in process there, the isolation tests ask for a child.
		testIsolate(&Isolation{Command: []string{os.Args[0]}, Env: []string{envUnpackChild + "=1"}})
	}
	os.Exit(m.Run())
}

// isolateFor runs the test with another Isolation, restoring the default.
func isolateFor(t *testing.T, iso *Isolation) {
	t.Helper()
	old := testExtractor.Load()
	iso.Command = []string{os.Args[0]}
	iso.Env = append(iso.Env, envUnpackChild+"=1")
	if iso.Memory == 0 {
		iso.Memory = raceMemory()
	}
	testIsolate(iso)
	t.Cleanup(func() { testExtractor.Store(old) })
}

// waitingChild returns the Extractor's warm child once it is started.
func waitingChild(t *testing.T, x *Extractor) *child {
	t.Helper()
	x.starter.Wait()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.warm == nil {
		t.Fatal("no warm child was started")
	}
	return x.warm
}

// raceMemory lifts the child's memory limit under the race detector, whose
// shadow memory counts against it; 0 keeps the default.
func raceMemory() int64 {
	if raceEnabled {
		return 1 << 40
	}
	return 0
}

// testExtractor is the Extractor of these tests: this test binary as the
// child. Nil (under the race detector, or with envInProcess set) unpacks
// in process, through extractInProcess.
var testExtractor atomic.Pointer[Extractor]

// testIsolate makes the tests' extractions run in the children iso
// starts; a nil iso unpacks them in process.
func testIsolate(iso *Isolation) {
	if iso == nil {
		testExtractor.Store(nil)
		return
	}
	x, err := NewExtractor(*iso)
	if err != nil {
		panic(err)
	}
	testExtractor.Store(x)
}

// testExtract extracts as the tests are set up to: in a child through
// testExtractor, or in process.
func testExtract(ctx context.Context, archivePath, stagingParent string, lim Limits, progress func(done, total int64)) (*Staged, error) {
	if x := testExtractor.Load(); x != nil {
		return x.Extract(ctx, archivePath, stagingParent, lim, progress)
	}
	return extractInProcess(ctx, archivePath, stagingParent, lim, progress)
}

// extractInProcess is Extractor.Extract without the child, which only the
// tests may run: the program extracts in a child, always.
func extractInProcess(ctx context.Context, archivePath, stagingParent string, lim Limits, progress func(done, total int64)) (*Staged, error) {
	if err := lim.Validate(); err != nil {
		return nil, fmt.Errorf("extract %s: %w", archivePath, err)
	}
	staging, err := newStaging(stagingParent)
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", archivePath, err)
	}
	st, err := extractAt(ctx, archivePath, staging, lim, extractOptions{progress: progress, hash: true, writeback: unlimitedWriteback})
	if err != nil {
		removeStaging(staging)
	}
	return st, err
}

// readyReader says "ready" on the standard output at its first Read, then
// reads r.
type readyReader struct {
	r    io.Reader
	said bool
}

func (rr *readyReader) Read(p []byte) (int, error) {
	if !rr.said {
		rr.said = true
		os.Stdout.WriteString("ready\n")
	}
	return rr.r.Read(p)
}
