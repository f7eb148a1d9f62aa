package setup

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// The forgesync:// scheme (SPEC §14): its .desktop file on Linux and its
// key under HKEY_CURRENT_USER on Windows.
const (
	desktopName = "forgesync.desktop"
	classesKey  = `Software\Classes\forgesync`
	maxDesktop  = 64 << 10
)

// urlHandlerRecord is the forgesync:// handler setup registered, in its
// record: the .desktop file with the SHA-256 of the bytes it wrote, or the
// registry key it made.
type urlHandlerRecord struct {
	Desktop  string `json:"desktop,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
	Registry string `json:"registry,omitempty"`
	// Made are the folders made for the .desktop file, outermost first.
	Made []string `json:"made,omitempty"`
}

// registryKeys is the part of HKEY_CURRENT_USER that setup writes: a seam,
// so the key layout is tested on every system.
type registryKeys interface {
	// Exists reports whether the key path exists.
	Exists(path string) (bool, error)
	// SetString makes the key path when missing and sets its value name
	// ("" is the key's default value).
	SetString(path, name, value string) error
	// Delete removes the key path, which has no sub-keys.
	Delete(path string) error
}

// urlHandlerOS is the system whose way of registering a scheme setup
// uses, and hkcu its registry on Windows (nil elsewhere); tests change
// them.
var urlHandlerOS = runtime.GOOS

// registerURLHandler registers exe as the handler of forgesync:// links
// for this user and returns what it wrote; nil, with a line on out, when
// another program's file or key is already there (it is kept).
func registerURLHandler(env config.Env, exe string, out io.Writer) (*urlHandlerRecord, error) {
	if urlHandlerOS == "windows" {
		return registerWindows(exe, out)
	}
	if urlHandlerOS == "darwin" {
		return nil, nil // a scheme needs an app bundle there
	}
	dir := applicationsDir(env)
	if dir == "" {
		return nil, nil
	}
	file := filepath.Join(dir, desktopName)
	if _, err := os.Lstat(file); err == nil {
		_, err = fmt.Fprintf(out, "kept %s: it is there already, so forgesync:// links are not registered\n", file)
		return nil, err
	}
	data := desktopEntry(exe)
	made, err := mkdirAllMade(dir, 0o755)
	if err == nil {
		err = atomicfile.WriteFile(file, data, 0o644)
	}
	if err != nil {
		for i := len(made) - 1; i >= 0; i-- {
			removeDir(made[i])
		}
		return nil, fmt.Errorf("setup: register forgesync:// links: %w", err)
	}
	_, err = fmt.Fprintf(out, "wrote %s (forgesync:// links open the status page)\n", file)
	return &urlHandlerRecord{Desktop: file, SHA256: hash(data), Made: made}, err
}

// applicationsDir is where a user's .desktop files go: $XDG_DATA_HOME/
// applications, by default ~/.local/share/applications.
func applicationsDir(env config.Env) string {
	if d := env.Var("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "applications")
	}
	if h := env.HomeDir(); h != "" {
		return filepath.Join(h, ".local", "share", "applications")
	}
	return ""
}

// desktopEntry is the .desktop file of forgesync:// links: exe open-link
// with the link, hidden from menus.
func desktopEntry(exe string) []byte {
	return []byte("[Desktop Entry]\nType=Application\nName=forgesync\n" +
		"Comment=Opens forgesync:// pack set links in forgesync's status page\n" +
		"Exec=" + desktopQuote(exe) + " open-link %u\nNoDisplay=true\nTerminal=false\n" +
		"MimeType=x-scheme-handler/forgesync;\n")
}

// desktopQuote quotes an argument of a .desktop Exec line when it holds
// a reserved character: in double quotes with ", `, $ and \ escaped, then
// every \ doubled, as a string value of the Desktop Entry Specification.
// One without stays bare: xdg-open's generic launcher (xdg-utils 1.1)
// reads no quotes.
func desktopQuote(s string) string {
	if !strings.ContainsAny(s, " \t\n\"'\\><~|&;$*?#()`=%") {
		return s
	}
	q := strings.NewReplacer(`"`, `\"`, "`", "\\`", `$`, `\$`, `\`, `\\`).Replace(s)
	return strings.ReplaceAll(`"`+q+`"`, `\`, `\\`)
}

// registerWindows writes HKCU\Software\Classes\forgesync: a URL protocol
// whose shell\open\command runs exe open-link with the link.
func registerWindows(exe string, out io.Writer) (*urlHandlerRecord, error) {
	if hkcu == nil {
		return nil, errors.New("setup: register forgesync:// links: this build has no registry")
	}
	if ok, err := hkcu.Exists(classesKey); err != nil || ok {
		if err == nil {
			_, err = fmt.Fprintf(out, `kept HKEY_CURRENT_USER\%s: it is there already, so forgesync:// links are not registered`+"\n", classesKey)
		}
		return nil, err
	}
	for _, v := range [][3]string{
		{classesKey, "", "URL:forgesync pack set link"},
		{classesKey, "URL Protocol", ""},
		{classesKey + `\shell\open\command`, "", `"` + exe + `" open-link "%1"`},
	} {
		if err := hkcu.SetString(v[0], v[1], v[2]); err != nil {
			return nil, fmt.Errorf(`setup: register forgesync:// links: HKEY_CURRENT_USER\%s: %w`, v[0], err)
		}
	}
	_, err := fmt.Fprintf(out, `wrote HKEY_CURRENT_USER\%s (forgesync:// links open the status page)`+"\n", classesKey)
	return &urlHandlerRecord{Registry: classesKey}, err
}

// unregisterURLHandler removes what registerURLHandler wrote: the
// .desktop file while it holds the bytes setup wrote, or the key and the
// sub-keys setup made, naming on out what it removed or kept.
func unregisterURLHandler(h *urlHandlerRecord, out io.Writer) {
	if h == nil {
		return
	}
	if h.Registry != "" {
		if hkcu == nil {
			return
		}
		for _, k := range []string{h.Registry + `\shell\open\command`, h.Registry + `\shell\open`, h.Registry + `\shell`, h.Registry} {
			if err := hkcu.Delete(k); err != nil {
				fmt.Fprintf(out, "kept HKEY_CURRENT_USER\\%s: %v\n", k, err)
				return
			}
		}
		fmt.Fprintf(out, "removed HKEY_CURRENT_USER\\%s\n", h.Registry)
		return
	}
	data, err := atomicfile.ReadFile(h.Desktop, maxDesktop)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		fmt.Fprintf(out, "kept %s: %v\n", h.Desktop, err)
	case hash(data) != h.SHA256:
		fmt.Fprintf(out, "kept %s: it was changed after setup wrote it\n", h.Desktop)
	default:
		if err := os.Remove(h.Desktop); err != nil {
			fmt.Fprintf(out, "kept %s: %v\n", h.Desktop, err)
			return
		}
		fmt.Fprintf(out, "removed %s\n", h.Desktop)
	}
	for i := len(h.Made) - 1; i >= 0; i-- {
		undoFolder(h.Made[i], out)
	}
}
