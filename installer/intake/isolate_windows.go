package intake

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// prepareChild starts the child suspended, so that it runs no instruction
// before limitChild has put it in its Job Object and resumed it. The Job
// Object kills the child when the parent's handle to it closes, at the
// latest when the parent exits. A background child starts in
// BELOW_NORMAL_PRIORITY_CLASS (it enters background mode itself: see
// [RunChild]).
func prepareChild(cmd *exec.Cmd, background bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: childFlags(background)}
}

// childFlags are the creation flags of a child.
func childFlags(background bool) uint32 {
	if background {
		return windows.CREATE_SUSPENDED | windows.BELOW_NORMAL_PRIORITY_CLASS
	}
	return windows.CREATE_SUSPENDED
}

// limitChild puts the child, started suspended, in a Job Object of its own
// with a process memory limit and kill-on-close, so the child cannot
// outlive the handle that release closes; only then does it resume the
// child ([confine]). When the assignment fails (a launcher's job may
// forbid it) the child is never resumed: the caller ends it, and it has
// run nothing outside its limits. The processor time limit, which depends
// on the archive, is added to the job by the confinement's cpu with the
// request. A background child's priority class is set again here, while
// it is suspended: wine ignores the class among the creation flags.
func limitChild(p *os.Process, mem int64, background bool) (confinement, error) {
	none := confinement{release: func() {}}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return none, err
	}
	release := func() { windows.CloseHandle(job) }
	if err := setJobLimits(job, mem, 0); err != nil {
		release()
		return none, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME|windows.PROCESS_SET_INFORMATION, false, uint32(p.Pid))
	if err != nil {
		release()
		return none, err
	}
	defer windows.CloseHandle(h)
	if background {
		if err := windows.SetPriorityClass(h, windows.BELOW_NORMAL_PRIORITY_CLASS); err != nil {
			release()
			return none, fmt.Errorf("set its priority class: %w", err)
		}
	}
	if err := confine(func() error { return assignProcess(job, h) }, func() error { return resumeProcess(h) }); err != nil {
		release()
		return none, err
	}
	return confinement{release: release, cpu: func(cpu time.Duration) error { return setJobLimits(job, mem, cpu) }}, nil
}

// setJobLimits sets the job's limits: the process memory limit,
// kill-on-close, death on an unhandled exception, and (cpu > 0) the
// processor time limit.
func setJobLimits(job windows.Handle, mem int64, cpu time.Duration) error {
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY |
				windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | windows.JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION,
		},
		ProcessMemoryLimit: uintptr(mem),
	}
	if cpu > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PROCESS_TIME
		info.BasicLimitInformation.PerProcessUserTimeLimit = int64(cpu / 100) // in 100 ns units
	}
	_, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	return err
}

// ntResumeProcess resumes every thread of a process; exec closes the
// handle of the main thread that CreateProcess returns, so ResumeThread
// has none to resume.
var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// resumeProcess lets the suspended process h run.
func resumeProcess(h windows.Handle) error {
	if err := ntResumeProcess.Find(); err != nil {
		return err
	}
	if st, _, _ := ntResumeProcess.Call(uintptr(h)); st != 0 {
		return windows.NTStatus(st)
	}
	return nil
}

// assignProcess is windows.AssignProcessToJobObject; tests make it fail.
var assignProcess = windows.AssignProcessToJobObject

// outOfMemory reports whether the child died of the job's memory limit
// without saying so (an allocation outside the Go runtime).
func outOfMemory(ps *os.ProcessState) bool {
	return ps != nil && strings.Contains(strings.ToLower(ps.String()), "0xc0000017") // STATUS_NO_MEMORY
}

// cpuExceeded reports whether the child used up its processor time: the
// job ends it with ERROR_NOT_ENOUGH_QUOTA.
func cpuExceeded(ps *os.ProcessState, limit time.Duration) bool {
	return ps != nil && ps.UserTime() >= limit-time.Second
}

// watchData has nothing to sample here: the job's limit makes the Go
// runtime report "out of memory".
func watchData(int) func() int64 { return func() int64 { return 0 } }
