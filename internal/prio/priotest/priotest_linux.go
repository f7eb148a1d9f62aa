//go:build linux

package priotest

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ioprioWhoProcess makes ioprio_get act on one thread.
const ioprioWhoProcess = 1

// Priority is one thread's priority as the system reports it.
type Priority struct {
	Nice    int // the nice value, from /proc/<pid>/task/<tid>/stat
	IOClass int // the I/O class (IOClassNone: derived from the nice value)
	IOLevel int // the level within the class
}

// Read returns the priority of every thread of process pid, by thread
// id: the nice value in its stat file and ioprio_get's answer.
func Read(pid int) (map[int]Priority, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read the priority of %d: %w", pid, err)
	}
	out := map[int]Priority{}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(dir + "/" + e.Name() + "/stat")
		if err != nil {
			return nil, fmt.Errorf("read the priority of %d: %w", pid, err)
		}
		nice, err := statNice(string(stat))
		if err != nil {
			return nil, fmt.Errorf("read the priority of %d: %s: %w", pid, dir+"/"+e.Name()+"/stat", err)
		}
		v, _, errno := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(tid), 0)
		if errno != 0 {
			return nil, fmt.Errorf("read the priority of %d: ioprio_get(%d): %w", pid, tid, errno)
		}
		out[tid] = Priority{Nice: nice, IOClass: int(v) >> 13, IOLevel: int(v) & 0x1fff}
	}
	return out, nil
}

// statNice is the nice field of a stat file: the 19th, counted from the
// process name in parentheses, which may itself hold spaces and
// parentheses (hence the last ")").
func statNice(stat string) (int, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("no process name")
	}
	f := strings.Fields(stat[i+1:])
	// After the name: state (3), ppid (4) ... priority (18), nice (19).
	if len(f) < 17 {
		return 0, errors.New("too few fields")
	}
	return strconv.Atoi(f[16])
}
