package prio

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mjolnir-forge/forgesync/internal/prio/priotest"
)

// envLower makes this test binary a child that lowers itself as its value
// says ("unpacker" or "installer"), says "ready" and waits for its
// standard input to close.
const envLower = "FORGESYNC_TEST_PRIO_LOWER"

func TestMain(m *testing.M) {
	switch os.Getenv(envLower) {
	case "":
		os.Exit(m.Run())
	case "unpacker":
		if err := Unpacker(); err != nil {
			os.Exit(3)
		}
	case "installer":
		if err := Installer(); err != nil {
			os.Exit(3)
		}
	case "do":
		os.Stdout.WriteString(doNeverWaits() + "\n")
		os.Exit(0)
	}
	os.Stdout.WriteString("ready\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(0)
}

// TestLowerEveryThread: a process that lowers itself has every thread at
// the role's nice value, scheduling policy and I/O priority, as /proc and
// ioprio_get report them from outside.
func TestLowerEveryThread(t *testing.T) {
	for _, tt := range []struct {
		role string
		want priotest.Priority
	}{
		{"unpacker", priotest.Priority{Nice: UnpackerNice, IOClass: IOClassIdle, Policy: SchedIdle}},
		{"installer", priotest.Priority{Nice: installerNice, IOClass: ioClassBestEffort, IOLevel: ioLevelLowest, Policy: schedOther}},
	} {
		t.Run(tt.role, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), envLower+"="+tt.role)
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer stdin.Close()
			if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
				t.Fatalf("the child said %q, %v; want ready", line, err)
			}
			got, err := priotest.Read(cmd.Process.Pid)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < 2 {
				t.Errorf("the child has %d threads; a Go program has several", len(got))
			}
			for tid, p := range got {
				if p != tt.want {
					t.Errorf("thread %d: %+v; want %+v", tid, p, tt.want)
				}
			}
		})
	}
}

// TestReadSelf: this test process, not lowered, reads back as it runs.
func TestReadSelf(t *testing.T) {
	got, err := priotest.Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for tid, p := range got {
		if p.IOClass == IOClassIdle {
			t.Errorf("thread %d of the test is in the idle class: %+v", tid, p)
		}
	}
}

// TestDoNeverWaits: with both of Do's threads busy (a read that hangs, in
// life), a third Do runs its function at once on the caller's thread, at
// the caller's priority, instead of waiting for a thread. It runs in a
// child (doNeverWaits), whose Do threads then leave the others' view of
// this process's threads alone.
func TestDoNeverWaits(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envLower+"=do")
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "ok\n" {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// doNeverWaits is TestDoNeverWaits' child: it holds both of Do's threads
// busy, then checks where a third Do runs, and says "ok" or what failed.
func doNeverWaits() string {
	lowered := func() bool {
		got, err := priotest.Read(os.Getpid())
		return err == nil && got[unix.Gettid()].Policy == SchedIdle
	}
	release := make(chan struct{})
	defer close(release)
	held := 0
	for try := 0; held < idleThreads && try < idleThreads; try++ {
		on := make(chan bool)
		go Do(func() {
			on <- lowered()
			<-release
		})
		if <-on {
			held++
		}
	}
	if held < idleThreads {
		return fmt.Sprintf("only %d of Do's threads ran a job", held)
	}
	ran := make(chan bool, 1)
	go Do(func() { ran <- lowered() })
	select {
	case low := <-ran:
		if low {
			return "the third Do ran on a lowered thread; want the caller's"
		}
		return "ok"
	case <-time.After(10 * time.Second):
		return "a Do waited 10 s for a busy thread"
	}
}
