package daemon

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/native"
)

// fakeControl records the actions a test's service was asked for.
type fakeControl struct{ actions []string }

func (f *fakeControl) control(_ ServiceConfig, action string, out io.Writer) error {
	f.actions = append(f.actions, action)
	_, err := io.WriteString(out, "service forgesync: "+action+" done\n")
	return err
}

// files lists every file and folder under root, relative to it.
func files(t *testing.T, root string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		got = append(got, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestControlServiceWithoutSystemdRefusesAndLeavesNothing(t *testing.T) {
	o := game(t)
	root := t.TempDir()
	fake := &fakeControl{}
	for _, action := range []string{"install", "uninstall", "start", "stop"} {
		var out strings.Builder
		err := ControlService(o.Config, action, ServiceOptions{GOOS: "linux", Root: root, Control: fake.control}, o.Log, &out)
		want := "this machine does not run systemd (there is no " + filepath.Join(root, "run", "systemd", "system") +
			"), so forgesync installs no service: " + withoutService(o.Config.File)
		if err == nil || err.Error() != want || !errors.Is(err, errNoServiceManager) {
			t.Errorf("%s: err = %v\nwant %s", action, err, want)
		}
		if out.Len() != 0 {
			t.Errorf("%s wrote %q; want nothing", action, out.String())
		}
	}
	if len(fake.actions) != 0 {
		t.Errorf("the service manager was asked for %q; want nothing", fake.actions)
	}
	if got := files(t, root); len(got) != 0 {
		t.Errorf("left behind %q", got)
	}
	var out strings.Builder
	if err := ControlService(o.Config, "status", ServiceOptions{GOOS: "linux", Root: root, Control: fake.control}, o.Log, &out); err != nil {
		t.Fatal(err)
	}
	if want := "not installed (this machine does not run systemd (there is no " + filepath.Join(root, "run", "systemd", "system") + "), so forgesync installs no service: " + withoutService(o.Config.File) + ")\n"; out.String() != want {
		t.Errorf("status wrote %q; want %q", out.String(), want)
	}
}

// TestWithoutServiceNamesTheConfigAndAlternatives: the refusal names the
// real config (never FILE), the executable, and the alternatives without
// systemd: an XDG autostart entry and a Steam launch option.
func TestWithoutServiceNamesTheConfigAndAlternatives(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	got := withoutService("/home/p/.config/forge sync/forgesync.toml")
	for _, want := range []string{
		"run `" + shellWord(exe) + " daemon --config '/home/p/.config/forge sync/forgesync.toml'` under your own supervisor",
		"~/.config/autostart/forgesync.desktop saying Exec=" + shellWord(exe) + " daemon --config '/home/p/.config/forge sync/forgesync.toml'",
		"Steam launch option `" + shellWord(exe) + " sync; %command%`",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("WithoutService = %s\nwant it to say %s", got, want)
		}
	}
	if strings.Contains(got, "FILE") {
		t.Errorf("WithoutService = %s; want the real config path, not FILE", got)
	}
	for in, want := range map[string]string{"/usr/bin/forgesync": "/usr/bin/forgesync", "/a b/it's": `'/a b/it'\''s'`, "": "''"} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s; want %s", in, got, want)
		}
	}
}

func TestControlServiceOtherOS(t *testing.T) {
	_, err := DetectServiceManager("freebsd", t.TempDir(), "/etc/forgesync/forgesync.toml")
	want := "forgesync installs services with systemd, launchd or the Windows service manager, and freebsd has none of them: " + withoutService("/etc/forgesync/forgesync.toml")
	if err == nil || err.Error() != want {
		t.Errorf("err = %v; want %s", err, want)
	}
	for goos, want := range map[string]string{"windows": "windows", "darwin": "launchd"} {
		if got, err := DetectServiceManager(goos, t.TempDir(), ""); got != want || err != nil {
			t.Errorf("%s: %q, %v; want %q", goos, got, err, want)
		}
	}
}

func TestControlServiceUnderSystemdSaysWhatItWrote(t *testing.T) {
	o := game(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "run", "systemd", "system"), 0o755); err != nil {
		t.Fatal(err)
	}
	fake := &fakeControl{}
	opts := ServiceOptions{GOOS: "linux", Root: root, Home: "/home/p", Control: fake.control}
	var out strings.Builder
	if err := ControlService(o.Config, "install", opts, o.Log, &out); err != nil {
		t.Fatal(err)
	}
	want := "service forgesync: install done\nwrote /etc/systemd/system/forgesync.service\nthe service logs to " + o.Config.Log.File + "\n"
	if out.String() != want {
		t.Errorf("install wrote %q; want %q", out.String(), want)
	}
	out.Reset()
	opts.User = true
	if err := ControlService(o.Config, "uninstall", opts, o.Log, &out); err != nil {
		t.Fatal(err)
	}
	if want := "service forgesync: uninstall done\nremoved " + filepath.Join("/home/p", ".config", "systemd", "user", "forgesync.service") + "\n"; out.String() != want {
		t.Errorf("uninstall wrote %q; want %q", out.String(), want)
	}
	if strings.Join(fake.actions, ",") != "install,uninstall" {
		t.Errorf("actions = %q", fake.actions)
	}
}

func TestControlServiceRefusesABundleWithoutModules(t *testing.T) {
	o := game(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "run", "systemd", "system"), 0o755); err != nil {
		t.Fatal(err)
	}
	o.Config.Deploy.Native = true
	o.Config.Deploy.Modules = filepath.Join(root, "modules")
	fake := &fakeControl{}
	opts := ServiceOptions{GOOS: "linux", Root: root, Control: fake.control}
	var out strings.Builder
	err := ControlService(o.Config, "install", opts, o.Log, &out)
	want := "the release bundle " + o.Config.Deploy.Modules + " has no " + native.ModulePath() +
		", so the service could not deploy the native door module: install from the unzipped release archive (or `make dist`), set [deploy] modules, or pass --no-native (or set [deploy] native = false) for a server that needs no door module"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if len(fake.actions) != 0 {
		t.Errorf("installed anyway: %q", fake.actions)
	}
	opts.NoNative = true
	if err := ControlService(o.Config, "install", opts, o.Log, &out); err != nil {
		t.Errorf("--no-native: %v", err)
	}
	o.Config.Deploy.Native = false
	opts.NoNative = false
	if err := ControlService(o.Config, "install", opts, o.Log, &out); err != nil {
		t.Errorf("[deploy] native = false: %v", err)
	}
	if strings.Join(fake.actions, ",") != "install,install" {
		t.Errorf("actions = %q", fake.actions)
	}
}

func TestServiceArgumentsOwnerOnlyOnWindows(t *testing.T) {
	o := game(t)
	args := strings.Join(Service(o.Config, false, o.Log, nil).Arguments, " ")
	want := "daemon --config " + o.Config.File + " --machine"
	if runtime.GOOS == "windows" {
		if !strings.HasPrefix(args, want+" --owner ") {
			t.Errorf("arguments = %q; want %q --owner SID", args, want)
		}
	} else if args != want {
		t.Errorf("arguments = %q; want %q (--owner is a Windows SID)", args, want)
	}
}

func TestSetupService(t *testing.T) {
	if _, err := SetupService("windows", false); err == nil || err.Error() != "--service on Windows installs the machine service, which reads the machine's config: run `forgesync setup --machine --service` from an administrator prompt" {
		t.Errorf("windows without --machine: %v", err)
	}
	for _, tc := range []struct {
		goos    string
		machine bool
		user    bool
	}{{"windows", true, false}, {"linux", false, true}, {"linux", true, false}, {"darwin", false, true}} {
		o, err := SetupService(tc.goos, tc.machine)
		if err != nil || o.User != tc.user || o.GOOS != tc.goos {
			t.Errorf("%s machine=%v: %+v, %v; want user=%v", tc.goos, tc.machine, o, err, tc.user)
		}
	}
}

// TestControlServiceUserNeedsAHome: a user service's file lies in the home
// folder; without one, nothing is done, rather than a file named relative
// to wherever the command runs.
func TestControlServiceUserNeedsAHome(t *testing.T) {
	o := game(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "run", "systemd", "system"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", "")
	t.Setenv("USERPROFILE", "")
	fake := &fakeControl{}
	opts := ServiceOptions{GOOS: "linux", Root: root, User: true, Control: fake.control}
	var out strings.Builder
	err := ControlService(o.Config, "install", opts, o.Log, &out)
	if err == nil || !strings.Contains(err.Error(), "home folder") {
		t.Errorf("install of a user service without a home = %v (wrote %q); want an error naming the home folder", err, out.String())
	}
	if len(fake.actions) != 0 {
		t.Errorf("actions = %q; want none", fake.actions)
	}
}
