package daemon

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// errSharedFolder is matched (errors.Is) by the error [Listen] and
// [secureFolder] return for a socket or state folder that other programs
// or accounts share (a drive root, /, /run, /tmp, %ProgramData%, a
// profile, a sticky or world-writable folder, one owned by another user):
// forgesync makes its own folders private, and must never do that to one
// of these.
var errSharedFolder = errors.New("a folder forgesync does not own")

// folderFacts is what decides whether forgesync may make a folder private
// (Unix mode 0700; on Windows a protected ACL of SYSTEM, Administrators and
// one user, inherited by everything below it).
type folderFacts struct {
	Path    string // absolute and clean
	GOOS    string // whose path rules and examples apply
	Created bool   // forgesync made it just now
	Empty   bool   // it holds nothing
	Private bool   // it already has forgesync's protection, so tightening changes nothing
	// Unix only: a sticky or world-writable folder is shared by design;
	// OtherOwner names the owner when it is not the daemon's user.
	Sticky, WorldWritable bool
	OtherOwner            string
	// Shared are the folders that every account or every program of one
	// account uses ([sharedFolders]); neither one of them nor a folder
	// above one may be made private.
	Shared []string
}

// decideFolder says what forgesync does to the folder f describes, which
// holds its what ("status socket" or "state"): an error wrapping
// [errSharedFolder], with the reason and the fix, for a shared folder;
// else tighten reports whether to make it private, which is only for a
// folder forgesync created, an empty one, or one already private. A
// folder that holds other files is left as it is: on Unix the socket's
// own mode 0600 guards it. It is a pure function of f, so the rules of
// both OSes are tested anywhere.
func decideFolder(what string, f folderFacts) (tighten bool, err error) {
	reason := ""
	switch {
	case isRootPath(f.GOOS, f.Path):
		reason = "is the root of a drive"
	case f.Sticky:
		reason = "is shared by every user (sticky)"
	case f.WorldWritable:
		reason = "is writable by every user"
	case f.OtherOwner != "":
		reason = "belongs to another user (" + f.OtherOwner + ")"
	default:
		for _, s := range f.Shared {
			if s == "" {
				continue
			}
			if samePathOn(f.GOOS, f.Path, s) {
				reason = "is a system or profile folder that other programs share"
				break
			}
			if withinOn(f.GOOS, s, f.Path) {
				reason = "holds " + s + ", a folder that other programs share"
				break
			}
		}
	}
	if reason != "" {
		return false, fmt.Errorf("%s folder %s: %w: it %s, and forgesync makes its %s folder private (mode 0700, or an ACL of its own on Windows); put the %s in a folder of its own, e.g. %s",
			what, f.Path, errSharedFolder, reason, what, what, ownFolderExample(what, f))
	}
	return f.Created || f.Empty || f.Private, nil
}

// ownFolderExample is the fix decideFolder suggests: a forgesync folder
// inside the refused one, or the usual place on a drive root.
func ownFolderExample(what string, f folderFacts) string {
	sep := "/"
	if f.GOOS == "windows" {
		sep = `\`
	}
	dir := strings.TrimRight(f.Path, `\/`)
	if f.GOOS != "windows" && dir == "" {
		dir = "/run"
	}
	dir += sep + "forgesync"
	if what == "status socket" {
		return "[paths] socket = '" + dir + sep + "forgesync.sock'"
	}
	return "[paths] state = '" + dir + "'"
}

// normOn returns p as the path rules of goos compare it: without trailing
// separators, and on Windows with backslashes, without the \\?\ prefix
// and in upper case.
func normOn(goos, p string) string {
	if goos == "windows" {
		p = strings.ReplaceAll(p, "/", `\`)
		p = strings.TrimPrefix(p, `\\?\`)
		p = strings.ToUpper(p)
		if t := strings.TrimRight(p, `\`); t != "" {
			p = t
		}
		return p
	}
	if t := strings.TrimRight(p, "/"); t != "" {
		p = t
	}
	return p
}

// samePathOn reports whether a and b spell the same path under goos.
func samePathOn(goos, a, b string) bool { return normOn(goos, a) == normOn(goos, b) }

// withinOn reports whether p lies strictly below dir under goos.
func withinOn(goos, p, dir string) bool {
	sep := "/"
	if goos == "windows" {
		sep = `\`
	}
	p, dir = normOn(goos, p), normOn(goos, dir)
	if !strings.HasSuffix(dir, sep) {
		dir += sep
	}
	return strings.HasPrefix(p, dir) && len(p) > len(dir)
}

// isRootPath reports whether p is the root of a file system under goos:
// "/", or on Windows a drive ("C:\", "C:") or a share ("\\server\share").
func isRootPath(goos, p string) bool {
	if goos != "windows" {
		return normOn(goos, p) == "/"
	}
	n := normOn(goos, p)
	if len(n) == 2 && n[1] == ':' || len(n) == 3 && n[1] == ':' && n[2] == '\\' {
		return true
	}
	if rest, ok := strings.CutPrefix(n, `\\`); ok {
		rest = strings.TrimPrefix(rest, `UNC\`)
		return strings.Count(rest, `\`) <= 1 // \\server or \\server\share
	}
	return false
}

// sharedFolders lists the folders that decideFolder refuses, and the
// folders above them, for goos: on Windows the ones its environment
// variables name (every account's and the current one's: ProgramData,
// Program Files, Windows, the profile and the folder of profiles,
// AppData, the temp folders), on Unix the system's shared folders and the
// home folder.
func sharedFolders(goos string, getenv func(string) string, home string) []string {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if goos == "windows" {
		out := []string{`C:\ProgramData`, `C:\Program Files`, `C:\Program Files (x86)`, `C:\Windows`, `C:\Users`}
		for _, k := range []string{"ProgramData", "ALLUSERSPROFILE", "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432",
			"SystemRoot", "windir", "USERPROFILE", "PUBLIC", "APPDATA", "LOCALAPPDATA", "TEMP", "TMP"} {
			if v := getenv(k); v != "" {
				out = append(out, v)
			}
		}
		if p := getenv("USERPROFILE"); p != "" {
			if i := strings.LastIndexAny(strings.TrimRight(p, `\/`), `\/`); i > 0 {
				out = append(out, p[:i]) // C:\Users
			}
		}
		return out
	}
	out := []string{"/run", "/run/user", "/var/run", "/tmp", "/var/tmp", "/dev/shm", "/home", "/root",
		"/etc", "/usr", "/var/lib", "/opt", "/srv", "/mnt", "/media"}
	if home != "" {
		out = append(out, home)
	}
	return out
}

// sharedHere returns [sharedFolders] for this machine; tests add their own.
var sharedHere = func() []string {
	home, _ := os.UserHomeDir()
	return sharedFolders(runtime.GOOS, os.Getenv, home)
}
