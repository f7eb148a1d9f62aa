package daemon

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kardianos/service"
)

func waitClosed(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-waitCtx(t).Done():
		t.Fatalf("%s did not happen", what)
	}
}

func TestProgramStartReturnsAtOnceAndStopCancels(t *testing.T) {
	running := make(chan struct{})
	cancelled := make(chan struct{})
	prg := newProgram(func(ctx context.Context) error {
		close(running)
		<-ctx.Done() // blocks until Stop: Start must not wait for this
		close(cancelled)
		return ctx.Err()
	}, time.Minute, nil)
	if err := prg.Start(nil); err != nil {
		t.Fatalf("Start = %v", err)
	}
	waitClosed(t, running, "the run function starting")
	select {
	case <-prg.Done():
		t.Fatal("Done closed while the run function runs")
	default:
	}
	if err := prg.Stop(nil); err != nil {
		t.Fatalf("Stop = %v; want nil", err)
	}
	select {
	case <-cancelled:
	default:
		t.Fatal("Stop returned before the run function saw its context cancelled")
	}
	waitClosed(t, prg.Done(), "Done after Stop")
	if err := prg.Err(); err != nil {
		t.Errorf("Err() after Stop = %v; want nil (cancellation is not an error)", err)
	}
	if err := prg.Stop(nil); err != nil {
		t.Errorf("second Stop = %v; want nil", err)
	}
	if err := prg.Start(nil); !errors.Is(err, errAlreadyStarted) {
		t.Errorf("second Start = %v; want ErrAlreadyStarted", err)
	}
}

func TestProgramStopTimeout(t *testing.T) {
	release := make(chan struct{})
	prg := newProgram(func(ctx context.Context) error {
		<-release // ignores its context, like a stuck shutdown
		return nil
	}, time.Millisecond, nil)
	if err := prg.Start(nil); err != nil {
		t.Fatal(err)
	}
	err := prg.Stop(nil)
	if !errors.Is(err, errStopTimeout) || !strings.Contains(err.Error(), "did not finish within 1ms") {
		t.Fatalf("Stop of a stuck run function = %v; want ErrStopTimeout saying the timeout", err)
	}
	close(release)
	waitClosed(t, prg.Done(), "Done after release")
}

// fakeService is a service.Service whose control calls are recorded.
type fakeService struct {
	service.Service // nil: calls not overridden panic
	status          service.Status
	statusErr       error
	actionErr       error
	notify          chan string // when set, receives every recorded call

	mu    sync.Mutex
	calls []string
}

func (f *fakeService) record(call string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
	if f.notify != nil {
		f.notify <- call
	}
	return f.actionErr
}

func (f *fakeService) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeService) Install() error                  { return f.record("install") }
func (f *fakeService) Uninstall() error                { return f.record("uninstall") }
func (f *fakeService) Start() error                    { return f.record("start") }
func (f *fakeService) Stop() error                     { return f.record("stop") }
func (f *fakeService) Status() (service.Status, error) { return f.status, f.statusErr }
func (f *fakeService) String() string                  { return "forgesync" }
func (f *fakeService) Platform() string                { return "fake" }

func TestProgramEndingByItselfStopsTheService(t *testing.T) {
	boom := errors.New("listen: already running")
	prg := newProgram(func(context.Context) error { return boom }, time.Minute, nil)
	prg.stopManager = true
	svc := &fakeService{notify: make(chan string, 4)}
	if err := prg.Start(svc); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, prg.Done(), "the run function ending")
	if err := prg.Err(); !errors.Is(err, boom) {
		t.Fatalf("Err() = %v; want %v", err, boom)
	}
	select {
	case call := <-svc.notify:
		if call != "stop" {
			t.Fatalf("service call = %q; want stop", call)
		}
	case <-waitCtx(t).Done():
		t.Fatal("the program did not ask the service manager to stop the service")
	}
	if err := prg.Stop(svc); err != nil {
		t.Errorf("Stop after the run function ended = %v", err)
	}
}

func TestProgramWithoutRun(t *testing.T) {
	if err := newProgram(nil, 0, nil).Start(nil); err == nil {
		t.Fatal("Start without a run function = nil error")
	}
	if err := newProgram(nil, 0, nil).Stop(nil); err != nil {
		t.Fatalf("Stop before Start = %v; want nil", err)
	}
}

func TestControl(t *testing.T) {
	failing := errors.New("access denied")
	tests := []struct {
		name    string
		action  string
		svc     *fakeService
		want    string // output
		wantErr string
		calls   []string
	}{
		{"status running", "status", &fakeService{status: service.StatusRunning}, "running\n", "", nil},
		{"status stopped", "status", &fakeService{status: service.StatusStopped}, "stopped\n", "", nil},
		{"status not installed", "status", &fakeService{statusErr: service.ErrNotInstalled}, "not installed\n", "", nil},
		{"status failing", "status", &fakeService{statusErr: failing}, "", "access denied", nil},
		{"status unknown", "status", &fakeService{status: service.StatusUnknown}, "", "cannot tell", nil},
		{"install", "install", &fakeService{}, "service forgesync: install done\n", "", []string{"install"}},
		{"uninstall", "uninstall", &fakeService{}, "service forgesync: uninstall done\n", "", []string{"uninstall"}},
		{"start", "start", &fakeService{}, "service forgesync: start done\n", "", []string{"start"}},
		{"stop", "stop", &fakeService{}, "service forgesync: stop done\n", "", []string{"stop"}},
		{"install failing", "install", &fakeService{actionErr: failing}, "", "service forgesync install (fake): access denied", []string{"install"}},
		{"unknown", "restart", &fakeService{}, "", `unknown service action "restart"`, nil},
	}
	for _, tc := range tests {
		var out strings.Builder
		err := control(tc.svc, tc.action, &out)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: Control(%s) = %v; want error %q", tc.name, tc.action, err, tc.wantErr)
		}
		if out.String() != tc.want {
			t.Errorf("%s: Control(%s) wrote %q; want %q", tc.name, tc.action, out.String(), tc.want)
		}
		if got := tc.svc.callLog(); strings.Join(got, ",") != strings.Join(tc.calls, ",") {
			t.Errorf("%s: service calls = %q; want %q", tc.name, got, tc.calls)
		}
	}
}

func TestCheckArguments(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr bool
	}{
		{[]string{"daemon", "--config", "/etc/forgesync.toml"}, false},
		{[]string{"daemon", "--config=/etc/forgesync.toml"}, false},
		{[]string{"daemon"}, false},
		{[]string{"daemon", "--config", "forgesync.toml"}, true},
		{[]string{"daemon", "-config=./forgesync.toml"}, true},
		{[]string{"daemon", "--config"}, true},
	}
	for _, tc := range tests {
		if err := checkArguments(tc.args); (err != nil) != tc.wantErr {
			t.Errorf("checkArguments(%q) = %v; want error %v", tc.args, err, tc.wantErr)
		}
	}
}

func TestNewServiceRefusesRelativePaths(t *testing.T) {
	if _, err := serviceFor(ServiceConfig{Executable: "forgesync"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("NewService(relative executable) = %v; want an error asking for an absolute path", err)
	}
	if _, err := serviceFor(ServiceConfig{Arguments: []string{"daemon", "--config", "rel.toml"}}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("NewService(relative --config) = %v; want an error asking for an absolute path", err)
	}
}

// TestRunServiceForeground runs the foreground path (tests are not started
// by a service manager): the run function's own error comes back.
func TestRunServiceForeground(t *testing.T) {
	if !Interactive() {
		t.Skip("running under a service manager")
	}
	boom := errors.New("boom")
	if err := runService(ServiceConfig{Run: func(context.Context) error { return boom }}); !errors.Is(err, boom) {
		t.Errorf("RunService(run returning boom) = %v; want boom", err)
	}
	if err := runService(ServiceConfig{Run: func(context.Context) error { return nil }}); err != nil {
		t.Errorf("RunService(run returning nil) = %v; want nil", err)
	}
	if err := runService(ServiceConfig{}); err == nil {
		t.Error("RunService without a run function = nil error")
	}
}

func TestNewService(t *testing.T) {
	svc, err := serviceFor(ServiceConfig{DisplayName: "forgesync", Arguments: []string{"daemon", "--config", "/etc/forgesync.toml"}, UserService: true})
	if errors.Is(err, service.ErrNoServiceSystemDetected) {
		t.Skip("no service manager on this machine")
	}
	if err != nil {
		t.Fatalf("NewService = %v", err)
	}
	if svc.String() != "forgesync" {
		t.Errorf("service name = %q; want forgesync", svc.String())
	}
}
