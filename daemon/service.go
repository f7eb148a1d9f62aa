package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kardianos/service"
)

// defaultStopTimeout is how long Stop waits for the daemon to finish by
// default.
const defaultStopTimeout = 15 * time.Second

// Errors of the service lifecycle.
var (
	// errStopTimeout is returned by Program.Stop when the run function did
	// not return within the stop timeout after its context was cancelled.
	errStopTimeout = errors.New("daemon: stop timed out")
	// errAlreadyStarted is returned by Program.Start when called twice.
	errAlreadyStarted = errors.New("daemon: program already started")
)

// Interactive reports whether the process runs in a terminal rather than
// under a service manager (systemd, the Windows service manager, launchd);
// logs are JSON when it does not. A systemd user service counts as a
// service too: systemd sets INVOCATION_ID in every unit's environment,
// while kardianos/service only looks for a parent of pid 1.
func Interactive() bool {
	return service.Interactive() && os.Getenv("INVOCATION_ID") == ""
}

// program runs the daemon's main function for a service manager: Start
// returns at once and runs it in a goroutine with a cancellable context;
// Stop cancels that context and waits for the function to return, for at
// most the stop timeout. It implements service.Interface.
type program struct {
	run         func(ctx context.Context) error
	stopTimeout time.Duration
	log         *slog.Logger
	// stopManager, when set, asks the service manager to stop the service
	// when run returns by itself, so the service does not linger without
	// a daemon (the Windows service manager only ends a service that way).
	stopManager bool

	mu     sync.Mutex // guards cancel, done and err
	cancel context.CancelFunc
	done   chan struct{} // closed when run has returned; nil before Start
	err    error         // run's error, set before done is closed
}

// newProgram returns a Program for run. A stopTimeout of 0 means
// [defaultStopTimeout]; a nil logger logs nothing.
func newProgram(run func(ctx context.Context) error, stopTimeout time.Duration, log *slog.Logger) *program {
	if stopTimeout <= 0 {
		stopTimeout = defaultStopTimeout
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &program{run: run, stopTimeout: stopTimeout, log: log}
}

// Start starts the run function in a goroutine and returns at once.
func (p *program) Start(s service.Service) error {
	if p.run == nil {
		return errors.New("start forgesync: no run function; the service was built for control only")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done != nil {
		return errAlreadyStarted
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel, p.done = cancel, make(chan struct{})
	go p.loop(ctx, s, p.done)
	return nil
}

// loop runs the run function and records how it ended.
func (p *program) loop(ctx context.Context, s service.Service, done chan struct{}) {
	err := p.run(ctx)
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = nil // stopped as asked: cancellation is not an error
	}
	p.mu.Lock()
	p.err = err
	p.mu.Unlock()
	close(done)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		p.log.Error("daemon ended", attrErr(err))
	} else {
		p.log.Info("daemon ended")
	}
	if p.stopManager && s != nil {
		if err := s.Stop(); err != nil {
			p.log.Error("ask the service manager to stop the service", attrErr(err))
		}
	}
}

// Stop cancels the run function's context and waits for it to return, for
// at most the stop timeout; then it fails with [errStopTimeout]. Stop before
// Start, or a second Stop, returns at once.
func (p *program) Stop(service.Service) error {
	p.mu.Lock()
	cancel, done := p.cancel, p.done
	p.mu.Unlock()
	if done == nil {
		return nil
	}
	cancel()
	t := time.NewTimer(p.stopTimeout)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		return fmt.Errorf("stop forgesync: the daemon did not finish within %s: %w", p.stopTimeout, errStopTimeout)
	}
}

// Done returns a channel closed when the run function has returned, or nil
// before Start.
func (p *program) Done() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// Err returns the run function's error once it has returned: nil when it
// ended cleanly or because Stop cancelled it.
func (p *program) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// ServiceConfig describes the forgesync service for [NewService] and
// [runService].
type ServiceConfig struct {
	// Name is the service's name; "forgesync" by default.
	Name        string
	DisplayName string
	Description string
	// Executable is the program the service starts, an absolute path; the
	// running executable by default.
	Executable string
	// Arguments follow the executable, e.g. daemon --config /abs/forgesync.toml.
	// A relative --config path is refused: a service starts in another
	// working directory (system32 on Windows, / under systemd).
	Arguments []string
	// UserService installs a service of the current user (systemd --user
	// on Linux, a LaunchAgent on macOS) instead of a system one.
	UserService bool
	// StopTimeout bounds Stop; DefaultStopTimeout by default.
	StopTimeout time.Duration
	// Run is the daemon's main function, for RunService. Control actions
	// need none.
	Run func(ctx context.Context) error
	// Logger receives lifecycle messages; nothing is logged when nil.
	Logger *slog.Logger
}

// serviceFor returns the service described by cfg, for [control]. Running
// it is [runService]'s job.
func serviceFor(cfg ServiceConfig) (service.Service, error) {
	svc, _, err := newService(cfg)
	return svc, err
}

func newService(cfg ServiceConfig) (service.Service, *program, error) {
	if cfg.Name == "" {
		cfg.Name = "forgesync"
	}
	if cfg.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, fmt.Errorf("service %s: find the executable: %w", cfg.Name, err)
		}
		cfg.Executable = exe
	}
	if !filepath.IsAbs(cfg.Executable) {
		return nil, nil, fmt.Errorf("service %s: executable %q is relative; a service needs an absolute path", cfg.Name, cfg.Executable)
	}
	if err := checkArguments(cfg.Arguments); err != nil {
		return nil, nil, fmt.Errorf("service %s: %w", cfg.Name, err)
	}
	prg := newProgram(cfg.Run, cfg.StopTimeout, cfg.Logger)
	opts := service.KeyValue{
		"UserService": cfg.UserService,
		// Under systemd and launchd, Run waits here: a stop signal, or
		// the daemon ending by itself (it must not linger without one).
		"RunWait": func() {
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
			defer signal.Stop(sig)
			select {
			case <-sig:
			case <-prg.Done():
			}
		},
	}
	svc, err := service.New(prg, &service.Config{
		Name:        cfg.Name,
		DisplayName: cfg.DisplayName,
		Description: cfg.Description,
		Executable:  cfg.Executable,
		Arguments:   cfg.Arguments,
		Option:      opts,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("service %s: %w", cfg.Name, err)
	}
	return svc, prg, nil
}

// checkArguments refuses a relative --config path.
func checkArguments(args []string) error {
	for i, a := range args {
		var path string
		switch {
		case a == "--config" || a == "-config":
			if i+1 == len(args) {
				return fmt.Errorf("argument %s has no value", a)
			}
			path = args[i+1]
		case strings.HasPrefix(a, "--config="), strings.HasPrefix(a, "-config="):
			path = a[strings.IndexByte(a, '=')+1:]
		default:
			continue
		}
		if !filepath.IsAbs(path) {
			return fmt.Errorf("argument %s %q is a relative path; a service starts in another working directory, so pass an absolute one", a, path)
		}
	}
	return nil
}

// runService runs cfg.Run until it is told to stop: under the service
// manager when the process was started by one, else in the foreground
// until SIGINT or SIGTERM. Either way Stop cancels the run function's
// context and waits for it for cfg.StopTimeout. RunService returns the run
// function's error (nil for a clean stop), or the stop timeout.
func runService(cfg ServiceConfig) error {
	if cfg.Run == nil {
		return errors.New("run forgesync: no run function")
	}
	if Interactive() {
		return runForeground(newProgram(cfg.Run, cfg.StopTimeout, cfg.Logger))
	}
	svc, prg, err := newService(cfg)
	if err != nil {
		return err
	}
	prg.stopManager = runtime.GOOS == "windows"
	if err := svc.Run(); err != nil {
		return fmt.Errorf("run service %s: %w", svc, err)
	}
	return prg.Err()
}

// runForeground runs prg until SIGINT or SIGTERM, or until it ends.
func runForeground(prg *program) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(sig)
	if err := prg.Start(nil); err != nil {
		return err
	}
	select {
	case <-sig:
	case <-prg.Done():
	}
	if err := prg.Stop(nil); err != nil {
		return err
	}
	return prg.Err()
}

// Service actions of [control].
const (
	ActionInstall   = "install"
	ActionUninstall = "uninstall"
	ActionStart     = "start"
	ActionStop      = "stop"
	actionStatus    = "status"
)

// The states of a service, as [serviceState] returns them and `service
// status` prints them.
const (
	StateRunning      = "running"
	StateStopped      = "stopped"
	StateNotInstalled = "not installed"
)

// serviceState returns whether svc is running, stopped or not installed.
func serviceState(svc service.Service) (string, error) {
	st, err := svc.Status()
	switch {
	case errors.Is(err, service.ErrNotInstalled):
		return StateNotInstalled, nil
	case err != nil:
		return "", fmt.Errorf("service %s status: %w", svc, err)
	case st == service.StatusRunning:
		return StateRunning, nil
	case st == service.StatusStopped:
		return StateStopped, nil
	}
	return "", fmt.Errorf("service %s status: the service manager (%s) cannot tell", svc, svc.Platform())
}

// control runs a service action: install, uninstall, start, stop or
// status. Status writes one line to out: running, stopped or not installed.
// The other actions write what they did.
func control(svc service.Service, action string, out io.Writer) error {
	var err error
	switch action {
	case ActionInstall:
		err = svc.Install()
	case ActionUninstall:
		err = svc.Uninstall()
	case ActionStart:
		err = svc.Start()
	case ActionStop:
		err = svc.Stop()
	case actionStatus:
		state, err := serviceState(svc)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(out, state)
		return err
	default:
		return fmt.Errorf("unknown service action %q; want install, uninstall, start, stop or status", action)
	}
	if err != nil {
		return fmt.Errorf("service %s %s (%s): %w", svc, action, svc.Platform(), err)
	}
	_, err = fmt.Fprintf(out, "service %s: %s done\n", svc, action)
	return err
}
