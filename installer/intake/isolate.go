package intake

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/prio"
)

// ChildCommand is the hidden sub-command that runs [RunChild]: the program
// re-runs itself with it to unpack one archive in a process of its own.
const ChildCommand = "__unpack"

// envBackground tells a child to lower its priority ("1") or not ("0"):
// see [Isolation.Background].
const envBackground = "FORGESYNC_UNPACK_BACKGROUND"

// Defaults of an [Isolation].
const (
	// defaultUnpackMemory is the memory an unpacking child may commit. The
	// decoders' bounds keep a good pack far below it (measured: under
	// 64 MiB for zip and tar, under 64 MiB plus the dictionary for 7z).
	defaultUnpackMemory = 256 << 20
	// defaultUnpackTime is the wall-clock budget of a small archive.
	defaultUnpackTime = 60 * time.Second
	// defaultUnpackRate is how many archive bytes a second of budget is
	// added for: a slow disk unpacks a 4 GiB pack within it.
	defaultUnpackRate = 4 << 20
)

// Isolation says how an [Extractor] runs its child process: identification,
// decoding, the file rules and the writes into staging. The child has hard
// limits on memory (Linux: RLIMIT_DATA, the memory it may commit; Windows:
// a Job Object's process memory limit) and processor time, and a
// wall-clock budget scaled by the archive's size. A child that crashes,
// hits a limit or runs out of time is a rejection of its archive with a
// plain reason, never an error. The parent trusts nothing the child says:
// it hashes the archive itself and checks the staging folder's every file
// against the rules before handing it over.
type Isolation struct {
	// Command starts the child: this program and ChildCommand.
	Command []string
	// Env is added to the child's environment.
	Env []string
	// Memory, Time and Rate default to DefaultUnpackMemory,
	// DefaultUnpackTime and DefaultUnpackRate.
	Memory int64
	Time   time.Duration
	Rate   int64
	// Background runs the child at the lowest priority, so that a game
	// running beside it keeps its frames: the child lowers itself before
	// it reads its request (Linux: nice 19 under SCHED_IDLE and the idle I/O class on
	// every thread; Windows: background mode, for low I/O and memory
	// priority), and on Windows it is created in
	// BELOW_NORMAL_PRIORITY_CLASS.
	Background bool
}

// errNoUnpacker is returned by [NewExtractor] for an Isolation without a
// command: there is no way to extract an archive but in a child.
var errNoUnpacker = errors.New("intake: no unpacker command to extract archives with")

// Extractor extracts pack archives, each in a child process under the
// limits of its [Isolation]; it is the only way this package extracts an
// archive. The decoders run in this process only inside [RunChild], the
// child's entry point. An Extractor is safe for concurrent use. After
// [Extractor.Warm] it keeps a child started ahead of need until
// [Extractor.Close]; after [Extractor.WarmOnce], one.
type Extractor struct {
	iso Isolation

	mu       sync.Mutex
	warm     *child         // started and confined, waiting for its request; nil: none
	keep     bool           // Warm was called: replace the warm child after each use
	starting bool           // the next warm child is being started
	started  chan struct{}  // closed when the start in progress has ended
	closed   bool           // Close was called: no more warm children
	starter  sync.WaitGroup // the goroutine starting the next warm child
}

// NewExtractor returns the Extractor whose children iso starts, its zero
// limits replaced by the defaults.
func NewExtractor(iso Isolation) (*Extractor, error) {
	if len(iso.Command) == 0 {
		return nil, errNoUnpacker
	}
	iso.Command = slices.Clone(iso.Command)
	iso.Env = slices.Clone(iso.Env)
	if iso.Memory <= 0 {
		iso.Memory = defaultUnpackMemory
	}
	if iso.Time <= 0 {
		iso.Time = defaultUnpackTime
	}
	if iso.Rate <= 0 {
		iso.Rate = defaultUnpackRate
	}
	return &Extractor{iso: iso}, nil
}

// Extract checks the archive at archivePath against the rules of SPEC §2
// and extracts it, in a child process, into a new private folder under
// stagingParent, writing only through an os.Root opened on that folder.
// Every limit in lim is enforced on the bytes the decompressor produces,
// before they are written; sizes in headers are only used to reject early
// and to estimate progress.
//
// A rejected archive returns a *RejectError listing every problem found
// (errors.Is ErrRejected; ErrNotArchive when the format is not recognised).
// Other errors (I/O, a cancelled ctx, an unpacker that cannot start) are
// returned wrapped. On any error the staging folder is gone. progress,
// when not nil, is called with the bytes extracted so far and the expected
// total (0 when the format does not say up front).
func (x *Extractor) Extract(ctx context.Context, archivePath, stagingParent string, lim Limits, progress func(done, total int64)) (*Staged, error) {
	if err := lim.Validate(); err != nil {
		return nil, fmt.Errorf("extract %s: %w", archivePath, err)
	}
	return x.extract(ctx, archivePath, stagingParent, lim, progress)
}

// ErrStarved is wrapped by the error of an unpack that ran out of its
// wall-clock budget while the child had less than a quarter of it in
// processor time: the machine's condition (processors taken by the game,
// a slow disk), not its archive's, so it is no verdict. A child that used
// its time decoding is rejected (RuleUnpackTime): the archive's bytes kept
// it busy. No archive can make the child wait without working: it reads a
// regular file forgesync claimed and writes within the pack's limits.
var ErrStarved = errors.New("the unpacker ran out of time without getting the processor")

// starvedShare: a child that used less than budget/starvedShare of
// processor time before its budget ended was starved (see ErrStarved).
const starvedShare = 4

// cpuUsed is the processor time a child that ended used, user and system.
func cpuUsed(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

// budget is the wall-clock time the child has for an archive of size
// bytes.
func (iso *Isolation) budget(size int64) time.Duration {
	return iso.Time + time.Duration(size/iso.Rate)*time.Second
}

// childRequest is what the parent sends the child on its standard input.
// The paths go as bytes (base64 in the JSON): a JSON string would replace
// the bytes of a name that is not UTF-8 (a Latin-1 archive name, a folder
// of the state path) and the child would open another path. Archive and
// Staging carry the same paths as strings for a child of an older version
// (the program replaced while a daemon runs); a child reads the bytes when
// they are there.
type childRequest struct {
	ArchivePath []byte `json:"archive_path,omitempty"`
	StagingPath []byte `json:"staging_path,omitempty"`
	Archive     string `json:"archive"`
	Staging     string `json:"staging"`
	Limits      Limits `json:"limits"`
	Memory      int64  `json:"memory"`
	// LeaveSyncFS: the parent flushes the staging file system when the
	// child has gone (extractOptions.leaveSyncFS).
	LeaveSyncFS bool `json:"leave_syncfs,omitempty"`
}

// newChildRequest is the request to unpack archive into staging.
func newChildRequest(archive, staging string, lim Limits, memory int64) childRequest {
	return childRequest{ArchivePath: []byte(archive), StagingPath: []byte(staging), Archive: archive, Staging: staging, Limits: lim, Memory: memory,
		LeaveSyncFS: atomicfile.FlushesFileSystem}
}

// paths returns the archive and the staging folder of the request, with
// their every byte.
func (r *childRequest) paths() (archive, staging string) {
	archive, staging = r.Archive, r.Staging
	if r.ArchivePath != nil {
		archive = string(r.ArchivePath)
	}
	if r.StagingPath != nil {
		staging = string(r.StagingPath)
	}
	return archive, staging
}

// childMessage is one line the child writes on its standard output:
// progress, or (Final) the result.
type childMessage struct {
	Done     int64         `json:"done,omitempty"`
	Total    int64         `json:"total,omitempty"`
	Final    bool          `json:"final,omitempty"`
	Root     string        `json:"root,omitempty"`
	Files    []File        `json:"files,omitempty"`
	Format   string        `json:"format,omitempty"`
	Problems []wireProblem `json:"problems,omitempty"`
	Manifest []byte        `json:"manifest,omitempty"`
	Ignored  []string      `json:"ignored,omitempty"`
	Failure  string        `json:"failure,omitempty"`
	SyncFS   bool          `json:"syncfs,omitempty"` // the files are written, not flushed: the parent flushes them
}

// progressEvery is how often the child reports progress.
const progressEvery = 50 * time.Millisecond

// wireProblem is a Problem on the pipe: names are bytes, because JSON
// strings would replace invalid UTF-8, which a rule may need to quote.
type wireProblem struct {
	Entry, Rule, Value []byte
}

func toWire(ps []Problem) []wireProblem {
	out := make([]wireProblem, len(ps))
	for i, p := range ps {
		out[i] = wireProblem{[]byte(p.Entry), []byte(p.Rule), []byte(p.Value)}
	}
	return out
}

func fromWire(ws []wireProblem) []Problem {
	out := make([]Problem, len(ws))
	for i, w := range ws {
		out[i] = Problem{Entry: string(w.Entry), Rule: string(w.Rule), Value: string(w.Value)}
	}
	return out
}

// RunChild is the child process of an Isolation: it reads one request
// from in, unpacks the archive into the staging folder the parent made,
// and writes progress and the result to out. It returns the exit code.
func RunChild(in io.Reader, out io.Writer) int {
	// First of all, before the request comes (a warm child waits for it
	// at this priority).
	background := os.Getenv(envBackground) == "1"
	if background {
		if err := prio.Unpacker(); err != nil {
			fmt.Fprintln(os.Stderr, "forgesync: unpacker:", err) // it unpacks all the same, at the priority it has
		}
	}
	var req childRequest
	dec := json.NewDecoder(io.LimitReader(in, 1<<20))
	if err := dec.Decode(&req); err != nil {
		fmt.Fprintln(os.Stderr, "forgesync: the unpacker is started by forgesync itself:", err)
		return 2
	}
	if req.Memory > 0 {
		// Collect garbage harder before the hard limit is near.
		debug.SetMemoryLimit(req.Memory / 2)
	}
	if os.Getenv("GOGC") == "" {
		// A child lives for one archive: collect when the heap has grown
		// fivefold, not at every doubling, as the one-shot commands do
		// (cli.CollectSeldom). A pack of 3,000 small files allocates 9 MB
		// here, which Go's default collected three times, for 4 ms of
		// processor time; the large packs' peak stays where it was (their
		// buffers live for the whole archive), and the memory limit above
		// still collects harder near the limit.
		debug.SetGCPercent(400)
	}
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	var last time.Time
	var pending *childMessage // progress not sent yet
	progress := func(done, total int64) {
		pending = &childMessage{Done: done, Total: total}
		if now := time.Now(); now.Sub(last) >= progressEvery {
			last = now
			enc.Encode(pending)
			w.Flush()
			pending = nil
		}
	}
	archive, staging := req.paths()
	opts := extractOptions{progress: progress, writeback: unlimitedWriteback, leaveSyncFS: req.LeaveSyncFS}
	if background {
		opts.writeback = backgroundWriteback
	}
	st, err := extractAt(context.Background(), archive, staging, req.Limits, opts)
	if pending != nil {
		enc.Encode(pending)
	}
	msg := childMessage{Final: true}
	var re *RejectError
	switch {
	case err == nil:
		rel, _ := filepath.Rel(st.Dir, st.Root)
		msg.Root, msg.Files, msg.Format, msg.Ignored, msg.SyncFS = filepath.ToSlash(rel), st.Files, st.Format, st.Ignored, st.syncFSLeft
	case errors.As(err, &re):
		msg.Problems, msg.Manifest, msg.Ignored = toWire(re.Problems), re.Manifest, re.Ignored
	default:
		msg.Failure = err.Error()
	}
	enc.Encode(msg)
	if err := w.Flush(); err != nil {
		return 1
	}
	return 0
}

// stderrBuffer keeps the first and the last bytes the child writes on its
// standard error: a Go runtime's fatal error comes first, then a long
// dump of goroutines; a panic's line is near the end of its output.
type stderrBuffer struct {
	mu         sync.Mutex // guards head and tail
	head, tail []byte
}

const stderrKeep = 8 << 10

func (t *stderrBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := stderrKeep - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.tail = append(t.tail, p...)
	if len(t.tail) > stderrKeep {
		t.tail = append(t.tail[:0], t.tail[len(t.tail)-stderrKeep:]...)
	}
	return n, nil
}

func (t *stderrBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.head) + "\n" + string(t.tail)
}

// extract is Extractor.Extract: the archive unpacked in a child process;
// see Isolation.
func (x *Extractor) extract(ctx context.Context, archivePath, stagingParent string, lim Limits, progress func(done, total int64)) (_ *Staged, err error) {
	iso := &x.iso
	f, size, err := openArchive(archivePath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	staging, err := newStaging(stagingParent)
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", archivePath, err)
	}
	defer func() {
		if err != nil {
			removeStaging(staging)
		}
	}()
	dir, err := openForSyncFS(staging)
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", archivePath, err)
	}
	if dir != nil {
		defer dir.Close()
	}

	// The parent's own hash of the archive, alongside the child.
	hctx, stopHash := context.WithCancel(ctx)
	defer stopHash()
	hashed := hashAsync(hctx, io.NewSectionReader(f, 0, size), iso.Background)

	abs, err := filepath.Abs(archivePath)
	if err != nil {
		abs = archivePath
	}
	req, _ := json.Marshal(newChildRequest(abs, staging, lim, iso.Memory))
	// The budget starts with the request: a warm child has waited for it.
	budget := iso.budget(size)
	wctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	c, err := x.send(wctx, req, 2*budget)
	if err != nil {
		return nil, fmt.Errorf("extract %s: %w", archivePath, err)
	}
	defer c.release()
	final := readChild(c.stdout, progress)
	werr := c.cmd.Wait()
	x.prewarm()
	c.stopKill()
	peak := c.stopWatch()
	cmd, stderr := c.cmd, c.stderr
	reject := func(rule, value string) error {
		return &RejectError{Archive: archivePath, Problems: []Problem{{Rule: rule, Value: value}}}
	}
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("extract %s: %w", archivePath, ctx.Err())
	case wctx.Err() != nil:
		if used := cpuUsed(cmd.ProcessState); used < budget/starvedShare {
			// Out of time without having had the processor: the machine
			// was busy (the game, at background priority) or its disk
			// slow. The archive's bytes did not decide this.
			return nil, fmt.Errorf("extract %s: %w: %.1f s of processor time in its budget of %s (the machine is busy or its disk slow)",
				archivePath, ErrStarved, used.Seconds(), seconds(budget))
		}
		return nil, reject(RuleUnpackTime, "more than "+seconds(budget))
	case werr != nil || final == nil:
		return nil, reject(iso.death(stderr.String(), cmd.ProcessState, werr, peak, budget))
	case final.Failure != "":
		return nil, fmt.Errorf("extract %s: %s", archivePath, final.Failure)
	case len(final.Problems) > 0:
		return nil, &RejectError{Archive: archivePath, Problems: fromWire(final.Problems), Manifest: final.Manifest, Ignored: final.Ignored}
	}
	st, err := checkStaged(archivePath, staging, final, dir, lim, iso.Background)
	if err != nil {
		return nil, err
	}
	if st.SHA256 = <-hashed; st.SHA256 == "" {
		return nil, fmt.Errorf("extract %s: could not hash the archive", archivePath)
	}
	return st, nil
}

// checkStaged checks what the child that unpacked archivePath into
// staging left there, as its final message lists it (verifyStaged), and
// flushes it to stable storage where the child left that to the parent
// (syncStaging), both at once.
func checkStaged(archivePath, staging string, final *childMessage, dir *os.File, lim Limits, background bool) (*Staged, error) {
	st := &Staged{Dir: staging, Root: filepath.Join(staging, filepath.FromSlash(final.Root)), Files: final.Files, Format: final.Format, Ignored: final.Ignored}
	flushed := syncStaging(dir, final, background)
	unreadable, err := verifyStaged(st, lim)
	ferr := <-flushed
	if err != nil {
		return nil, &RejectError{Archive: archivePath, Problems: []Problem{{Rule: RuleUnpackerOutput, Value: err.Error()}}}
	}
	// Not verdicts: the archive's bytes are good, the machine failed.
	if ferr != nil {
		return nil, fmt.Errorf("extract %s: write the staged files: %w", archivePath, ferr)
	}
	for _, p := range unreadable {
		if err := os.Chmod(p, stagedPerm); err != nil {
			return nil, fmt.Errorf("extract %s: make a staged file readable: %w", archivePath, err)
		}
	}
	return st, nil
}

// openForSyncFS opens the staging folder, where one flush of its file
// system stands for a flush of each of many files ([atomicfile.FlushesFileSystem]),
// for syncStaging: before the child writes there, so that the flush
// reports every write error since (syncfs reports those after the
// descriptor was opened). Elsewhere it returns nil.
func openForSyncFS(staging string) (*os.File, error) {
	if !atomicfile.FlushesFileSystem {
		return nil, nil
	}
	return os.Open(staging)
}

// syncStaging flushes the staging file system through dir, once the child
// has gone, when the child left that flush to the parent
// (childRequest.LeaveSyncFS): it said so, or it listed as many files as
// make the flush one of the file system (a child is not taken at its word
// that it flushed them). The flush runs beside the parent's checks of the
// staged files, where in the child it came before them: 16 to 30 ms of a
// pack of 3,000 small files, while the checks take 8. With background it
// flushes at the unpacker's priority, as the child did (see [prio.Do]).
// It sends the result (nil when there was nothing to flush); the caller
// receives it before closing dir.
func syncStaging(dir *os.File, final *childMessage, background bool) <-chan error {
	flushed := make(chan error, 1)
	if dir == nil || !(final.SyncFS || len(final.Files) >= atomicfile.SyncFSFiles) {
		flushed <- nil
		return flushed
	}
	go aside(background, func() {
		_, err := atomicfile.SyncFileSystem(dir)
		flushed <- err
	})
	return flushed
}

// command returns the unpacker's command, ready to start, with its pipes:
// stdin for the request, stdout for its messages; stderr is kept. Whoever
// starts it ends it: it is not bound to a context, since a warm child
// waits for a request that has no context yet.
func (iso *Isolation) command(stderr io.Writer) (*exec.Cmd, io.WriteCloser, io.ReadCloser, error) {
	cmd := exec.Command(iso.Command[0], iso.Command[1:]...)
	background := "0"
	if iso.Background {
		background = "1"
	}
	cmd.Env = append(append(os.Environ(), iso.Env...), envBackground+"="+background)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	prepareChild(cmd, iso.Background)
	return cmd, stdin, stdout, nil
}

// hashBuffer is the read size of the archive's hash: large reads keep the
// system calls few beside the hashing itself.
const hashBuffer = 1 << 20

// hashAsync hashes what r reads, returning the hex SHA-256 on the channel
// ("" when reading failed or ctx ended). With background, it hashes on a
// thread at the unpacker's priority (see [prio.Do]): the hash is the
// parent's one long computation, and at the installer's priority it
// shared the processors as an equal with the threads that answer status
// requests.
func hashAsync(ctx context.Context, r io.Reader, background bool) <-chan string {
	hashed := make(chan string, 1)
	hash := func() {
		h := sha256.New()
		if _, err := io.CopyBuffer(h, &ctxReader{ctx: ctx, r: r}, make([]byte, hashBuffer)); err != nil {
			hashed <- ""
			return
		}
		hashed <- hex.EncodeToString(h.Sum(nil))
	}
	go aside(background, hash)
	return hashed
}

// aside runs fn, a long piece of the parent's work beside the child's:
// with background on a thread at the unpacker's priority ([prio.Do]),
// else on the caller's.
func aside(background bool, fn func()) {
	if background {
		prio.Do(fn)
	} else {
		fn()
	}
}

// readChild reads the child's messages until it closes stdout: progress
// goes to progress, and the final message is returned (nil when none
// came).
func readChild(stdout io.Reader, progress func(done, total int64)) *childMessage {
	var final *childMessage
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		var m childMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if m.Final {
			final = &m
			continue
		}
		if progress != nil {
			progress(m.Done, m.Total)
		}
	}
	io.Copy(io.Discard, stdout)
	return final
}

// death says why a child ended without its final message: out of memory,
// out of processor time, or a crash; it returns the rule and the value.
func (iso *Isolation) death(stderr string, ps *os.ProcessState, werr error, peak int64, budget time.Duration) (rule, value string) {
	switch {
	case strings.Contains(stderr, "out of memory"), strings.Contains(stderr, "cannot allocate memory"), outOfMemory(ps),
		peak >= iso.Memory-arenaBytes, runtimeFault(stderr):
		return RuleUnpackMemory, "more than " + sizeText(iso.Memory)
	case cpuExceeded(ps, 2*budget):
		return RuleUnpackTime, "more than " + seconds(2*budget) + " of processor time"
	}
	return RuleUnpackerCrashed, crashText(stderr, werr)
}

// runtimeFault reports whether the child died of a fault inside the Go
// runtime itself: a signal the runtime caught while its own code ran (the
// first frame of the first stack is in package runtime). Under the data
// limit that is the runtime failing to map memory, which it does not always
// report as "out of memory": it may fault in the collector instead. A fault
// in the child's own code is a panic, and stays a crash.
func runtimeFault(stderr string) bool {
	if !strings.HasPrefix(stderr, "SIGSEGV") && !strings.HasPrefix(stderr, "unexpected fault address") &&
		!strings.HasPrefix(stderr, "fatal error: unexpected signal") {
		return false
	}
	_, trace, ok := strings.Cut(stderr, "\ngoroutine ")
	if !ok {
		return false
	}
	lines := strings.SplitN(trace, "\n", 3)
	return len(lines) > 1 && strings.HasPrefix(lines[1], "runtime.")
}

// arenaBytes is how much memory the Go runtime maps at a time for its
// heap: a child that died within one arena of its limit hit the limit.
const arenaBytes = 64 << 20

// errUnconfined is matched by the error of an extraction whose unpacker
// could not be given its limits (on Windows: put in its Job Object, which
// a launcher's own job may forbid). The unpacker is never run without
// them; the archive gets no verdict, and the fault is this machine's.
var errUnconfined = errors.New("intake: the unpacker could not be confined, so it was not run")

// confine gives a child that was started suspended its limits, then lets
// it run: assign puts it in its confinement and resume starts it. When
// assign fails, resume is never called, so the child runs no instruction
// unconfined; the caller ends it.
func confine(assign, resume func() error) error {
	if err := assign(); err != nil {
		return fmt.Errorf("put it in its Job Object: %w", err)
	}
	if err := resume(); err != nil {
		return fmt.Errorf("resume it once confined: %w", err)
	}
	return nil
}

// childStarted, when set (by tests), is told the pid of each child.
var childStarted func(pid int)

// seconds writes a duration in whole seconds.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%d s", int64((d+time.Second-1)/time.Second))
}

// crashText is the value of the crash rule: the child's panic or fatal
// error line when it wrote one, else how it ended.
func crashText(stderr string, werr error) string {
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			return strings.TrimSpace(line)
		}
	}
	if werr != nil {
		return werr.Error()
	}
	return "it ended without a result"
}

// installable reports whether a staged file's mode m is the one it is
// installed with. On Windows a mode only tells read-only (0444) from not
// (0666), and a file must not be read-only to be replaced later.
func installable(m fs.FileMode) bool {
	if runtime.GOOS == "windows" {
		return m&0o200 != 0
	}
	return m == stagedPerm
}

// stagedFile is what verifyStaged reads of a staged file: its size, how
// many names it has, and its mode (type and permission bits, as Lstat
// gives them).
type stagedFile struct {
	size  int64
	links uint64
	mode  fs.FileMode
}

// walkStaged calls file for every name under the folder root that is not
// a real folder, with its slash path relative to root, its folder and
// name, and what statIn reads of it; it walks the folders (never a link),
// one at a time, in no order. Anything but a regular file (a link, a
// device, a FIFO) is an error naming it.
func walkStaged(root string, file func(rel, dir, name string, s stagedFile) error) error {
	var walk func(dir, rel string) error
	walk = func(dir, rel string) error {
		f, err := os.Open(dir)
		if err != nil {
			return err
		}
		defer f.Close()
		entries, err := f.ReadDir(-1)
		if err != nil {
			return err
		}
		for _, e := range entries {
			r := e.Name()
			if rel != "" {
				r = rel + "/" + r
			}
			if e.IsDir() {
				if err := walk(filepath.Join(dir, e.Name()), r); err != nil {
					return err
				}
				continue
			}
			var s stagedFile
			if e.Type().IsRegular() {
				s, err = statIn(f, dir, e.Name())
				if err != nil {
					return err
				}
			}
			if !e.Type().IsRegular() || !s.mode.IsRegular() {
				return fmt.Errorf("%s is not a regular file", filepath.Join(dir, e.Name()))
			}
			if err := file(r, dir, e.Name(), s); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root, "")
}

// checkListed checks the files a child listed, under the pack root
// prefix (empty, or a folder name and a slash): each listed once, and the
// list passing the file rules again, that root among them. It returns the
// listed sizes by path.
func checkListed(listed []File, prefix string, lim Limits) (map[string]int64, error) {
	check := newPackCheck(lim)
	// Sized once: growing them rehashed every key again and again.
	check.keys = make(map[string]keyInfo, len(listed)+16)
	want := make(map[string]int64, len(listed))
	for _, f := range listed {
		if _, dup := want[f.Path]; dup {
			return nil, fmt.Errorf("%s listed twice", f.Path)
		}
		want[f.Path] = f.Size
		_, _, _, idx, ok := check.admit(prefix+f.Path, typeFile, f.Size)
		if !ok {
			return nil, fmt.Errorf("%s: over a limit", f.Path)
		}
		if idx < 0 {
			return nil, fmt.Errorf("%s is not a pack file", f.Path)
		}
		check.items[idx].size = f.Size
	}
	root, files, problems := check.finish()
	switch {
	case len(problems) > 0:
		return nil, fmt.Errorf("%s", problems[0])
	case root != prefix:
		return nil, fmt.Errorf("pack root %q, the files say %q", prefix, root)
	case len(files) != len(listed):
		return nil, fmt.Errorf("%d files listed, %d allowed", len(listed), len(files))
	}
	return want, nil
}

// verifyStaged checks what a child left in staging: the pack root lies in
// the staging folder; every item there is a folder or a regular file of
// one link (no hard link); the regular files are exactly the listed ones,
// with their sizes; and the list passes the file rules again. Nothing the
// child says is trusted, nor any mode it set: it returns the files not of
// stagedPerm, to be made so (a child could set a setuid bit, and the
// staged files are installed as they are).
func verifyStaged(st *Staged, lim Limits) (unreadable []string, err error) {
	rel, err := filepath.Rel(st.Dir, st.Root)
	if err != nil || !filepath.IsLocal(rel) && rel != "." || strings.Contains(filepath.ToSlash(rel), "/") {
		return nil, fmt.Errorf("pack root %q outside staging", st.Root)
	}
	prefix := ""
	if rel != "." {
		prefix = filepath.ToSlash(rel) + "/"
	}
	want, err := checkListed(st.Files, prefix, lim)
	if err != nil {
		return nil, err
	}
	found := 0
	err = walkStaged(st.Dir, func(rel, dir, name string, s stagedFile) error {
		r, ok := strings.CutPrefix(rel, prefix)
		size, listed := want[r]
		switch {
		case !ok:
			return fmt.Errorf("%s (outside the pack root %s) was not listed", rel, filepath.ToSlash(st.Root))
		case !listed:
			return fmt.Errorf("%s was not listed", r)
		case s.size != size:
			return fmt.Errorf("%s holds %d bytes, listed %d", r, s.size, size)
		case s.links != 1:
			// A hard link is a regular file too: one the child made to a
			// file outside staging would install (and expose) that file.
			return fmt.Errorf("%s has %d links (a hard link, which may be a file outside staging)", r, s.links)
		}
		if !installable(s.mode) {
			unreadable = append(unreadable, filepath.Join(dir, name))
		}
		found++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if found != len(want) {
		return nil, fmt.Errorf("%d files listed, %d found", len(want), found)
	}
	return unreadable, nil
}
