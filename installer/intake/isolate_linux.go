package intake

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// prepareChild makes the child die with the thread that started it, so a
// killed daemon leaves no unpacker behind. Its priority it lowers itself
// (see [RunChild]): Linux keeps it per thread, and only the child sees all
// of its threads before it reads a byte of its request.
func prepareChild(cmd *exec.Cmd, _ bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// limitChild sets the child's memory limit: RLIMIT_DATA bounds the memory
// it may commit (the Go runtime reserves address space it never uses, so
// RLIMIT_AS would stop it at start; reserved-but-unwritable mappings do
// not count against RLIMIT_DATA). The processor time limit, which depends
// on the archive, is set by the returned confinement's cpu with the
// request.
func limitChild(p *os.Process, mem int64, _ bool) (confinement, error) {
	if err := unix.Prlimit(p.Pid, unix.RLIMIT_DATA, &unix.Rlimit{Cur: uint64(mem), Max: uint64(mem)}, nil); err != nil {
		return confinement{release: func() {}}, err
	}
	return confinement{release: func() {}, cpu: func(cpu time.Duration) error { return limitCPU(p.Pid, cpu) }}, nil
}

// limitCPU sets RLIMIT_CPU, the child's processor time (the kernel kills
// it at the hard limit). A child waiting for its request has the limit
// it inherited (none), and only lowers it here: an unprivileged parent
// cannot raise a hard limit again, so it is set once, with the request.
func limitCPU(pid int, cpu time.Duration) error {
	secs := uint64((cpu + time.Second - 1) / time.Second)
	return unix.Prlimit(pid, unix.RLIMIT_CPU, &unix.Rlimit{Cur: secs, Max: secs}, nil)
}

// outOfMemory reports whether the system says the child ran out of memory
// (the Go runtime says so itself on its standard error).
func outOfMemory(*os.ProcessState) bool { return false }

// cpuExceeded reports whether the child, given limit of processor time,
// was killed for it: the kernel sends SIGKILL at the hard limit.
func cpuExceeded(ps *os.ProcessState, limit time.Duration) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return false
	}
	used := ps.UserTime() + ps.SystemTime()
	return ws.Signal() == syscall.SIGXCPU || ws.Signal() == syscall.SIGKILL && used >= limit-time.Second
}

// watchData samples the child's committed data until stop is called,
// which returns the largest sample. The Go runtime does not always say
// "out of memory" when a mapping is refused (it may fault inside the
// collector instead); a child that died with its data near the limit died
// of the limit.
//
// A sample is the data field of /proc/<pid>/statm (what RLIMIT_DATA
// counts, VmData, plus the stack, a few hundred KiB), read again from one
// open file every 5 ms: /proc/<pid>/status, opened and read whole each
// time, cost the parent 2% of a core while a child ran.
func watchData(pid int) (stop func() int64) {
	done := make(chan struct{})
	peak := make(chan int64, 1)
	go func() {
		var max int64
		f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/statm")
		if err != nil {
			<-done
			peak <- 0
			return
		}
		defer f.Close()
		page := int64(os.Getpagesize())
		buf := make([]byte, 128)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if n, err := f.ReadAt(buf, 0); n > 0 && (err == nil || err == io.EOF) {
				// size resident shared text lib data dt, in pages
				if f := strings.Fields(string(buf[:n])); len(f) > 5 {
					if pages, err := strconv.ParseInt(f[5], 10, 64); err == nil && pages*page > max {
						max = pages * page
					}
				}
			}
			select {
			case <-done:
				peak <- max
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 { close(done); return <-peak }
}
