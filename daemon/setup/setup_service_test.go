package setup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/daemon"
)

// fakeManager is a service manager for setup's tests: it keeps the one
// service's state, moves it as the actions say, and fails the action
// named in fail.
type fakeManager struct {
	state   string
	actions []string
	fail    string
}

func (f *fakeManager) control(_ daemon.ServiceConfig, action string, out io.Writer) error {
	f.actions = append(f.actions, action)
	if action == f.fail {
		return fmt.Errorf("service forgesync %s (fake): access is denied", action)
	}
	f.state = map[string]string{
		daemon.ActionInstall: daemon.StateStopped, daemon.ActionStart: daemon.StateRunning,
		daemon.ActionStop: daemon.StateStopped, daemon.ActionUninstall: daemon.StateNotInstalled,
	}[action]
	_, err := fmt.Fprintf(out, "service forgesync: %s done\n", action)
	return err
}

func (f *fakeManager) status(daemon.ServiceConfig) (string, error) { return f.state, nil }

// withService gives o a systemd machine (a temp root with
// /run/systemd/system) whose manager is f, and asks setup for the service.
func withService(t *testing.T, o *SetupOptions, f *fakeManager) {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "run", "systemd", "system"), 0o755); err != nil {
		t.Fatal(err)
	}
	o.Service = &daemon.ServiceOptions{GOOS: "linux", Root: root, Home: o.Env.Home, NoNative: true, Control: f.control, State: f.status}
}

// TestSetupUndoRemovesTheService: `setup --service` records the service
// it installs and starts; `setup --undo` stops and uninstalls it and says
// so, before it removes the config the service reads. A service that is
// gone already is named as gone; one that cannot be removed stops the
// undo before anything is removed.
func TestSetupUndoRemovesTheService(t *testing.T) {
	o := fakeGame(t)
	f := &fakeManager{state: daemon.StateNotInstalled}
	withService(t, &o, f)
	got := runSetup(t, o)
	if strings.Join(f.actions, ",") != "install,start" || f.state != daemon.StateRunning {
		t.Fatalf("setup --service asked for %v (service %s)\n%s", f.actions, f.state, got)
	}
	record, _ := os.ReadFile(filepath.Join(o.State, setupRecordName))
	if !strings.Contains(string(record), `"service": {`) {
		t.Errorf("the record does not hold the service:\n%s", record)
	}
	// Again: nothing to change, the service runs: nothing asked.
	f.actions = nil
	if got := runSetup(t, o); len(f.actions) != 0 || !strings.Contains(got, "service forgesync: running\n") {
		t.Errorf("second setup --service asked for %v\n%s", f.actions, got)
	}

	file := configFile(o.Env)
	undo := SetupOptions{Env: o.Env, Service: &daemon.ServiceOptions{GOOS: "linux", Root: o.Service.Root, Home: o.Env.Home, Control: f.control, State: f.status}}
	f.fail = daemon.ActionUninstall
	var out strings.Builder
	err := SetupUndo(t.Context(), undo, &out)
	if err == nil || !strings.Contains(err.Error(), "the forgesync service setup installed is still there") || !strings.Contains(err.Error(), "nothing else was removed") {
		t.Errorf("undo with an uninstall that fails = %v", err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("an undo that could not remove the service removed the config: %v", err)
	}

	if f.state != daemon.StateStopped {
		t.Errorf("the failed undo left the service %s; want it stopped", f.state)
	}
	f.fail, f.actions, f.state = "", nil, daemon.StateRunning
	out.Reset()
	if err := SetupUndo(t.Context(), undo, &out); err != nil {
		t.Fatalf("undo: %v\n%s", err, out.String())
	}
	if strings.Join(f.actions, ",") != "stop,uninstall" || f.state != daemon.StateNotInstalled {
		t.Errorf("undo asked for %v (service %s); want stop, uninstall", f.actions, f.state)
	}
	want := "service forgesync: stop done\nservice forgesync: uninstall done\n" +
		"removed " + filepath.Join(o.Env.Home, ".config", "systemd", "user", "forgesync.service") + "\n" +
		"removed " + file + "\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("undo printed\n%s\nwant it to begin\n%s", out.String(), want)
	}

	// A service removed by hand meanwhile is named as gone.
	f.actions = nil
	runSetup(t, o)
	f.state = daemon.StateNotInstalled
	out.Reset()
	if err := SetupUndo(t.Context(), undo, &out); err != nil || !strings.HasPrefix(out.String(), "service forgesync: not installed any more\nremoved "+file+"\n") {
		t.Errorf("undo of a service gone already = %v\n%s", err, out.String())
	}
}

// TestSetupServiceRefusedBeforeWriting: what stops the service from being
// installed is found before setup writes anything: the user's config on
// Windows, a machine without a service manager, a missing release bundle,
// and a service of that name setup did not install.
func TestSetupServiceRefusedBeforeWriting(t *testing.T) {
	tests := []struct {
		name   string
		change func(o *SetupOptions, f *fakeManager)
		want   string
	}{
		{"windows without --machine", func(o *SetupOptions, f *fakeManager) { o.Service.GOOS = "windows" },
			"--service on Windows installs the machine service, which reads the machine's config: run `forgesync setup --machine --service` from an administrator prompt"},
		{"no systemd", func(o *SetupOptions, f *fakeManager) { o.Service.Root = t.TempDir() },
			"--service: this machine does not run systemd"},
		{"no bundle", func(o *SetupOptions, f *fakeManager) { o.Service.NoNative = false },
			"--service: the release bundle "},
		{"a service setup did not install", func(o *SetupOptions, f *fakeManager) { f.state = daemon.StateRunning },
			"--service: a forgesync service is installed already (running), and setup did not install it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := fakeGame(t)
			f := &fakeManager{state: daemon.StateNotInstalled}
			withService(t, &o, f)
			tt.change(&o, f)
			var out strings.Builder
			err := Setup(t.Context(), o, &out)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant %s…", err, tt.want)
			}
			if out.Len() != 0 || len(f.actions) != 0 {
				t.Errorf("a refused setup printed %q and asked for %v", out.String(), f.actions)
			}
			drop := filepath.Join(o.Mods, "MJOLNIRForgePacks")
			for _, p := range []string{configFile(o.Env), filepath.Dir(configFile(o.Env)), o.State, drop} {
				if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a refused setup made %s", p)
				}
			}
		})
	}
}

// TestSetupRefusesTwoWritersOverOneGame: `setup --machine` refuses while
// the user's config (found first, SPEC §1) or $FORGESYNC_CONFIG would
// shadow the machine's; a user's setup refuses a game the machine's
// config keeps, and a config $FORGESYNC_CONFIG shadows. Nothing is
// written, and the message names the shadowing file and the fix.
func TestSetupRefusesTwoWritersOverOneGame(t *testing.T) {
	refused := func(t *testing.T, o SetupOptions, want string) {
		t.Helper()
		var out strings.Builder
		err := Setup(t.Context(), o, &out)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("err = %v\nwant %s…", err, want)
		}
		if _, err := os.Stat(configFile(o.Env)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused setup wrote %s", configFile(o.Env))
		}
	}
	t.Run("machine under the user's config", func(t *testing.T) {
		o := fakeGame(t)
		runSetup(t, o)
		m := o
		m.Env.Machine = true
		m.State = o.State + "-machine"
		refused(t, m, "setup --machine: "+o.Env.UserFile()+" (the user's file) is found before the machine's config "+o.Env.MachineFile())
		if _, err := os.Stat(m.State); err == nil {
			t.Errorf("the refused setup made %s", m.State)
		}
	})
	t.Run("user over the machine's game", func(t *testing.T) {
		o := fakeGame(t)
		m := o
		m.Env.Machine = true
		runSetup(t, m)
		u := o
		u.State = o.State + "-user"
		refused(t, u, "setup: the machine's config "+o.Env.MachineFile()+" already keeps this game")
	})
	t.Run("FORGESYNC_CONFIG", func(t *testing.T) {
		o := fakeGame(t)
		elsewhere := filepath.Join(t.TempDir(), "forgesync.toml")
		vars := map[string]string{"FORGESYNC_CONFIG": elsewhere}
		o.Env.Getenv = func(k string) string { return vars[k] }
		refused(t, o, "setup: $FORGESYNC_CONFIG names "+elsewhere+", which every command reads before")
		o.Env.Machine = true
		refused(t, o, "setup: $FORGESYNC_CONFIG names "+elsewhere)
	})
}
