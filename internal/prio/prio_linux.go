package prio

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Scheduling policies, as Linux's sched_setattr(2) names them. The
// unpacker runs under SCHED_IDLE: it gets a processor only when nothing
// else wants it, and a game's thread that wakes takes the processor from
// it at once, where a nice value alone still lets it finish its slice.
const (
	schedOther = 0
	SchedIdle  = 5
)

// I/O scheduling classes and the level the installer uses, as Linux's
// ioprio_set(2) names them.
const (
	ioClassNone       = 0
	ioClassBestEffort = 2
	IOClassIdle       = 3
	// ioLevelLowest is the lowest level of the best-effort class.
	ioLevelLowest = 7
)

// ioprioWhoProcess makes ioprio_set and ioprio_get act on one thread
// (Linux keeps the I/O priority per thread, as the nice value).
const ioprioWhoProcess = 1

// ioprio is the I/O priority value of class and level.
func ioprio(class, level int) int { return class<<13 | level }

// Unpacker lowers this process to the unpacker's priority: nice 19 under
// the SCHED_IDLE policy, which gets a processor only when nobody else
// wants it (a nice-19 thread of the normal policy still finishes its
// slice before a game's thread that wakes gets the processor), and the
// idle I/O class, which gets the disk only when nobody else wants it.
func Unpacker() error { return lower(UnpackerNice, ioprio(IOClassIdle, 0), SchedIdle) }

// Do runs fn on a thread of this process lowered to the unpacker's
// priority and returns when fn has: for one long computation of a
// process that keeps its own priority for the rest. The threads (two) are
// started on first use, each locked to a goroutine of its own, and live
// as long as the process: a thread that ended would take with it every
// child process it had started with a death signal (Pdeathsig follows
// the thread, not the process), such as the warm unpacker. When both are
// busy (a read that hangs on a failing drive, say), fn runs at once on
// the caller's thread, at its priority, rather than wait for them; a
// thread that cannot be lowered runs fn at the priority it has.
func Do(fn func()) {
	idle.once.Do(startIdleThreads)
	if idle.free.Add(-1) < 0 {
		idle.free.Add(1)
		fn()
		return
	}
	// A thread is free: it takes fn as soon as it gets the processor,
	// which at its priority may be once nothing else wants it.
	done := make(chan struct{})
	idle.jobs <- func() {
		defer close(done)
		fn()
	}
	<-done
}

// idleThreads is how many threads Do runs functions on at once.
const idleThreads = 2

var idle struct {
	once sync.Once
	jobs chan func()
	free atomic.Int32 // threads not running a function, each claimed by one Do
}

// startIdleThreads starts Do's threads and returns once each is free.
func startIdleThreads() {
	idle.jobs = make(chan func())
	ready := make(chan struct{})
	for range idleThreads {
		go idleThread(ready)
	}
	for range idleThreads {
		<-ready
	}
}

// idleThread locks its goroutine to its thread for good, lowers it, says
// it is free, and runs Do's functions one after the other.
func idleThread(ready chan<- struct{}) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The main thread, whose priority ps and top show for the whole
		// process: it is left as it is, held here for good (as the
		// runtime holds a main thread whose locked goroutine ended), and
		// a successor runs on another thread.
		go idleThread(ready)
		select {}
	}
	_ = lowerThread(unix.Gettid(), UnpackerNice, ioprio(IOClassIdle, 0), SchedIdle)
	idle.free.Add(1)
	ready <- struct{}{}
	for fn := range idle.jobs {
		fn()
		idle.free.Add(1)
	}
}

// Installer lowers this process to the installer's priority: nice 10 and
// the lowest best-effort I/O level.
func Installer() error {
	return lower(installerNice, ioprio(ioClassBestEffort, ioLevelLowest), schedOther)
}

// lower sets nice, the scheduling policy (SchedOther keeps the one a
// thread has) and the I/O priority io on every thread of this process.
// Linux keeps all three per thread, and a new thread takes them from
// the thread that starts it: once every thread is lowered, every later one
// is too. A thread started while the list is read is caught by the next
// pass; the passes end when one finds no thread it had not lowered. A nice
// value already above nice is kept (nobody is raised).
func lower(nice, io, policy int) error {
	done := map[int]bool{}
	for pass := 0; pass < 100; pass++ {
		tids, err := threads()
		if err != nil {
			return fmt.Errorf("lower the priority: %w", err)
		}
		fresh := 0
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			fresh++
			if err := lowerThread(tid, nice, io, policy); err != nil && !errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("lower the priority of thread %d: %w", tid, err)
			}
			done[tid] = true
		}
		if fresh == 0 {
			return nil
		}
	}
	return errors.New("lower the priority: threads keep starting")
}

// lowerThread sets the nice value (unless it is already higher), the
// scheduling policy and the I/O priority of thread tid.
func lowerThread(tid, nice, io, policy int) error {
	// getpriority returns 20 - nice, so that it is never negative.
	cur, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return err
	}
	if 20-cur < nice {
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, nice); err != nil {
			return err
		}
	}
	if policy != schedOther {
		// The nice value stays, and counts again should the policy
		// ever be the normal one.
		if err := unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: uint32(policy), Nice: int32(max(nice, 20-cur))}, 0); err != nil {
			return fmt.Errorf("sched_setattr: %w", err)
		}
	}
	if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(tid), uintptr(io)); e != 0 {
		return e
	}
	return nil
}

// threads lists the ids of this process's threads.
func threads() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}
