package prio

import (
	"bufio"
	"os"
	"os/exec"
	"testing"

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
