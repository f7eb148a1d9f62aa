package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// unpackChildrenOf returns the pids of the daemon's unpacking children that
// hold archive open: the daemon keeps a warm child waiting for its next
// request, and killing that one is no death of the archive's (it is
// replaced without counting).
func unpackChildrenOf(daemonPid int, archive string) []int {
	var out []int
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(daemonPid), "task", "*", "children"))
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(data)) {
			pid, _ := strconv.Atoi(s)
			cmdline, _ := os.ReadFile(filepath.Join("/proc", s, "cmdline"))
			if strings.Contains(string(cmdline), intake.ChildCommand) && holds(pid, archive) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// holds reports whether process pid has a file named name open.
func holds(pid int, name string) bool {
	fds, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "fd", "*"))
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && filepath.Base(target) == name {
			return true
		}
	}
	return false
}

// TestDaemonServesWhileUnpackerWorksOrDies: the daemon answers
// /v1/status while an unpacking child works and after it is killed; the
// archive whose child is killed three times (once is retried) is rejected
// with the crash rule, a good pack of the same batch installs, and staging
// is left empty.
func TestDaemonServesWhileUnpackerWorksOrDies(t *testing.T) {
	g := newGame(t)
	cmd := g.start(t)
	ev := g.follow(t)
	c := daemon.NewClient(g.sock)
	defer c.Close()
	status := func(when string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		if _, err := c.Status(ctx); err != nil {
			t.Fatalf("status %s: %v", when, err)
		}
	}
	os.WriteFile(filepath.Join(g.drop, "big.zip.part"), packZip(t, "big-pack", "1.0.0", 96<<20), 0o644)
	os.WriteFile(filepath.Join(g.drop, "small.zip.part"), packZip(t, "small-pack", "1.0.0", 1024), 0o644)
	os.Rename(filepath.Join(g.drop, "big.zip.part"), filepath.Join(g.drop, "big.zip"))
	os.Rename(filepath.Join(g.drop, "small.zip.part"), filepath.Join(g.drop, "small.zip"))

	ev.wait(t, 60*time.Second, "extraction under way", func(all []api.Event) bool {
		return count(all, api.EventProgress) >= 1
	})
	status("while the unpacker works")
	// Poison is dying on the same bytes pipeline.MaxAttempts times: a
	// child killed once is unpacked again, so each of its children is.
	killed := map[int]bool{}
	for death := 1; death <= pipeline.MaxAttempts; death++ {
		var kids []int
		deadline := time.Now().Add(10 * time.Second)
		for {
			kids = slices.DeleteFunc(unpackChildrenOf(cmd.cmd.Process.Pid, "big.zip"), func(pid int) bool { return killed[pid] })
			if len(kids) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no unpacking child found for death %d", death)
			}
			time.Sleep(5 * time.Millisecond)
		}
		for _, pid := range kids {
			killed[pid] = true
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	status("after the unpacker was killed")
	all := ev.wait(t, 60*time.Second, "a rejection and an install", func(all []api.Event) bool {
		return count(all, api.EventPackRejected) >= 1 && count(all, api.EventPackInstalled) >= 1
	})
	status("after the batch")
	var rejected string
	for _, e := range all {
		if e.Type == api.EventPackRejected {
			rejected = string(e.Data)
		}
	}
	if !strings.Contains(rejected, "big.zip") || !strings.Contains(rejected, intake.RuleUnpackerCrashed) {
		t.Errorf("rejection = %s; want big.zip with the crash rule", rejected)
	}
	inst, _ := os.ReadFile(filepath.Join(g.inv, "installed.txt"))
	if !strings.Contains(string(inst), "small-pack") {
		t.Errorf("installed.txt lacks the good pack of the batch:\n%s", inst)
	}
	if left, _ := os.ReadDir(filepath.Join(g.state, store.StagingDir)); len(left) != 0 {
		t.Errorf("staging holds %d items after the killed child", len(left))
	}
}

// warmChildOf returns the pid of an unpacking child of the daemon that
// holds no archive open (the warm child waiting for its request), or 0.
func warmChildOf(daemonPid int) int {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(daemonPid), "task", "*", "children"))
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(data)) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", s, "cmdline"))
			if strings.Contains(string(cmdline), intake.ChildCommand) {
				pid, _ := strconv.Atoi(s)
				return pid
			}
		}
	}
	return 0
}

// alive reports whether process pid still runs: it exists and is not a
// zombie (a child whose parent died waits, dead, for init to reap it, and
// in a container nobody may).
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	state := stat[i+2]
	return state != 'Z' && state != 'X'
}

// TestDaemonKill9EndsWarmChild: the daemon keeps an unpacker started ahead
// of the next archive; when the daemon is killed outright (kill -9, so no
// Close runs), that waiting child dies with it (it is started with a
// parent-death signal) instead of waiting for a request forever, even
// while another process holds its standard input open.
func TestDaemonKill9EndsWarmChild(t *testing.T) {
	g := newGame(t)
	d := g.start(t)
	var warm int
	deadline := time.Now().Add(20 * time.Second)
	for warm = warmChildOf(d.cmd.Process.Pid); warm == 0; warm = warmChildOf(d.cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("the daemon started no warm unpacker")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !alive(warm) {
		t.Fatalf("the warm unpacker %d is not running before the daemon is killed", warm)
	}
	// The test holds the write end of the child's standard input too, so
	// that the daemon's death does not end the request with an end of
	// file: only the parent-death signal can end the child, as it must a
	// child busy unpacking, which reads no more input.
	stdin, err := os.OpenFile(filepath.Join("/proc", strconv.Itoa(warm), "fd", "0"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("open the warm unpacker's standard input: %v", err)
	}
	defer stdin.Close()
	d.cmd.Process.Signal(syscall.SIGKILL)
	<-d.done
	deadline = time.Now().Add(10 * time.Second)
	for alive(warm) {
		if time.Now().After(deadline) {
			syscall.Kill(warm, syscall.SIGKILL) // leave nothing behind
			t.Fatalf("the warm unpacker %d still runs 10 s after its daemon was killed", warm)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
