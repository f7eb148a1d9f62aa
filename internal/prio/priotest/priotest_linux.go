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
	Policy  int // the scheduling policy (prio.SchedOther, prio.SchedIdle), from the same stat file
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
		nice, policy, err := statPriority(string(stat))
		if err != nil {
			return nil, fmt.Errorf("read the priority of %d: %s: %w", pid, dir+"/"+e.Name()+"/stat", err)
		}
		v, _, errno := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(tid), 0)
		if errno != 0 {
			return nil, fmt.Errorf("read the priority of %d: ioprio_get(%d): %w", pid, tid, errno)
		}
		out[tid] = Priority{Nice: nice, IOClass: int(v) >> 13, IOLevel: int(v) & 0x1fff, Policy: policy}
	}
	return out, nil
}

// statPriority is the nice and policy fields of a stat file: the 19th
// and the 41st, counted from the process name in parentheses, which may
// itself hold spaces and parentheses (hence the last ")").
func statPriority(stat string) (nice, policy int, err error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, errors.New("no process name")
	}
	f := strings.Fields(stat[i+1:])
	// After the name: state (3), ppid (4) ... priority (18), nice (19) ...
	// rt_priority (40), policy (41).
	if len(f) < 39 {
		return 0, 0, errors.New("too few fields")
	}
	if nice, err = strconv.Atoi(f[16]); err != nil {
		return 0, 0, fmt.Errorf("nice: %w", err)
	}
	if policy, err = strconv.Atoi(f[38]); err != nil {
		return 0, 0, fmt.Errorf("policy: %w", err)
	}
	return nice, policy, nil
}
