package setup

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSetupRegistersLinks: setup writes a .desktop file that runs this
// program's open-link for forgesync:// links, writes it once, and undo
// removes exactly it; one that was there before is kept, untouched.
func TestSetupRegistersLinks(t *testing.T) {
	if urlHandlerOS == "windows" || urlHandlerOS == "darwin" {
		t.Skip("the .desktop handler is for Linux and the other Unixes")
	}
	o := fakeGame(t)
	runSetup(t, o)
	exe, _ := os.Executable()
	data, err := os.ReadFile(desktopFile(o))
	if err != nil {
		t.Fatalf("setup wrote no %s: %v", desktopFile(o), err)
	}
	for _, want := range []string{"\nMimeType=x-scheme-handler/forgesync;\n", "\nExec=" + desktopQuote(exe) + " open-link %u\n", "\nNoDisplay=true\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q:\n%s", desktopFile(o), want, data)
		}
	}
	if got := runSetup(t, o); strings.Contains(got, desktopName) {
		t.Errorf("setup again printed\n%s\nwant the handler left as it is", got)
	}
	var out strings.Builder
	if err := SetupUndo(t.Context(), SetupOptions{Env: o.Env}, &out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(desktopFile(o)); err == nil || !strings.Contains(out.String(), "removed "+desktopFile(o)+"\n") {
		t.Errorf("undo printed\n%s\nand left %s", out.String(), desktopFile(o))
	}

	theirs := fakeGame(t)
	other := []byte("[Desktop Entry]\nName=another program\n")
	os.WriteFile(desktopFile(theirs), other, 0o644)
	if got := runSetup(t, theirs); !strings.Contains(got, "kept "+desktopFile(theirs)+": it is there already") {
		t.Errorf("setup over another program's %s printed\n%s", desktopName, got)
	}
	out.Reset()
	SetupUndo(t.Context(), SetupOptions{Env: theirs.Env}, &out)
	if data, _ := os.ReadFile(desktopFile(theirs)); string(data) != string(other) {
		t.Errorf("another program's %s became %q; want it untouched", desktopName, data)
	}
}

func TestDesktopQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/opt/forgesync/forgesync": `/opt/forgesync/forgesync`,
		"/opt/my games/forgesync":  `"/opt/my games/forgesync"`,
		`/home/o"neil/$x/a\b`:      `"/home/o\\"neil/\\$x/a\\\\b"`,
	} {
		if got := desktopQuote(in); got != want {
			t.Errorf("desktopQuote(%q) = %s; want %s", in, got, want)
		}
	}
}

// fakeRegistry is HKEY_CURRENT_USER in memory: key path to its values.
type fakeRegistry map[string]map[string]string

func (f fakeRegistry) Exists(path string) (bool, error) { _, ok := f[path]; return ok, nil }

func (f fakeRegistry) SetString(path, name, value string) error {
	for p := path; p != "."; p = filepath.Dir(strings.ReplaceAll(p, `\`, "/")) {
		key := strings.ReplaceAll(p, "/", `\`)
		if f[key] == nil {
			f[key] = map[string]string{}
		}
	}
	f[path][name] = value
	return nil
}

func (f fakeRegistry) Delete(path string) error {
	for k := range f {
		if strings.HasPrefix(k, path+`\`) {
			return os.ErrExist // a key with sub-keys cannot be deleted
		}
	}
	delete(f, path)
	return nil
}

// TestSetupRegistersLinksInTheRegistry: on Windows setup writes the URL
// protocol under HKCU\Software\Classes\forgesync, and undo removes the
// keys it made and no other.
func TestSetupRegistersLinksInTheRegistry(t *testing.T) {
	reg := fakeRegistry{`Software\Classes\other`: {"": "kept"}}
	defer func(os string, k registryKeys) { urlHandlerOS, hkcu = os, k }(urlHandlerOS, hkcu)
	urlHandlerOS, hkcu = "windows", reg
	var out strings.Builder
	h, err := registerURLHandler(fakeGame(t).Env, `C:\Games\forgesync\forgesync.exe`, &out)
	if err != nil || h == nil || h.Registry != classesKey {
		t.Fatalf("registerURLHandler = %+v, %v", h, err)
	}
	want := map[string]map[string]string{
		`Software\Classes\forgesync`:                    {"": "URL:forgesync pack set link", "URL Protocol": ""},
		`Software\Classes\forgesync\shell\open\command`: {"": `"C:\Games\forgesync\forgesync.exe" open-link "%1"`},
	}
	for k, vals := range want {
		for name, v := range vals {
			if got, ok := reg[k][name]; !ok || got != v {
				t.Errorf(`HKCU\%s [%q] = %q, %v; want %q`, k, name, got, ok, v)
			}
		}
	}
	unregisterURLHandler(h, &out)
	keys := make([]string, 0, len(reg))
	for k := range reg {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{`Software`, `Software\Classes`, `Software\Classes\other`}) {
		t.Errorf("after unregister the keys are %q; want forgesync's gone and the rest kept\n%s", keys, out.String())
	}
	reg[classesKey] = map[string]string{"": "another program's"}
	if h, err := registerURLHandler(fakeGame(t).Env, `C:\x.exe`, &out); h != nil || err != nil || len(reg[classesKey]) != 1 || reg[classesKey][""] != "another program's" {
		t.Errorf("registerURLHandler over another program's key = %+v, %v, and the key holds %q; want it kept untouched", h, err, reg[classesKey])
	}
}
