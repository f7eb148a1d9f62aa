package native

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/semver"
	"github.com/mjolnir-forge/forgesync/internal/text"
)

// The MJOLNIR mods whose versions gate the door module and pack lifts.
const (
	ModForge       = "MJOLNIRForge"
	ModLobby       = "MJOLNIRLobby"
	ModLevelLoader = "MJOLNIRLevelLoader"
)

// Minimum versions that work together (SPEC §7).
const (
	MinForge       = "0.4.0"
	MinLobby       = "0.19.2"
	MinLevelLoader = "0.9.8"
)

// ModVersionFile is the version file of a mod, relative to its folder.
const ModVersionFile = "version.txt"

// maxVersionFile bounds how much of a version.txt is read.
const maxVersionFile = 4096

// ModState says what was found for one mod.
type ModState string

// The states of a mod's version.
const (
	ModOK         ModState = "ok"         // at least the minimum version
	ModOld        ModState = "old"        // older than the minimum
	ModMissing    ModState = "missing"    // no version.txt
	modUnreadable ModState = "unreadable" // version.txt could not be read
	modInvalid    ModState = "invalid"    // version.txt is not one SemVer line
)

// ModVersion is the gate's finding for one mod: its version (empty when
// none could be read; for ModInvalid the line as written, escaped), the
// minimum it needs, the state found and, unless the state is ModOK, why in
// words.
type ModVersion struct {
	Mod     string
	Version string
	Minimum string
	State   ModState
	Reason  string
}

// Gates is the SPEC §7 version gate.
type Gates struct {
	Mods []ModVersion
	// DoorAutomation reports whether the mods' versions let the native
	// door module animate doors: MJOLNIRForge, MJOLNIRLobby and
	// MJOLNIRLevelLoader at their minimum versions or newer, together.
	DoorAutomation bool
	// PackLifts reports whether pack lifts can work (MJOLNIRLevelLoader).
	PackLifts bool
	// Reasons says in words why something cannot work, and what to do.
	Reasons []string
}

// CheckGatesDir computes the gates for the UE4SS Mods folder at dir.
func CheckGatesDir(dir string) Gates { return CheckGates(os.DirFS(dir)) }

// CheckGates computes the gates from mods, a file system rooted at the
// UE4SS Mods folder, by reading <Mod>/version.txt of each gating mod.
func CheckGates(mods fs.FS) Gates {
	forge := readMod(mods, ModForge, MinForge)
	lobby := readMod(mods, ModLobby, MinLobby)
	loader := readMod(mods, ModLevelLoader, MinLevelLoader)
	g := Gates{Mods: []ModVersion{forge, lobby, loader}}

	g.PackLifts = loader.State == ModOK
	g.DoorAutomation = forge.State == ModOK && lobby.State == ModOK && loader.State == ModOK

	switch forge.State {
	case ModOK:
	case ModOld:
		g.Reasons = append(g.Reasons, fmt.Sprintf(
			"door automation disabled: %s %s is older than %s, and its save path would serialize the animated door position; update %s (the door inventory is still published)",
			ModForge, forge.Version, MinForge, ModForge))
	default:
		g.Reasons = append(g.Reasons, "door automation disabled: "+forge.Reason)
	}
	switch lobby.State {
	case ModOK:
	case ModOld:
		g.Reasons = append(g.Reasons, fmt.Sprintf(
			"door automation disabled: %s %s is older than %s, which carries the native door module; update %s",
			ModLobby, lobby.Version, MinLobby, ModLobby))
	default:
		g.Reasons = append(g.Reasons, "door automation disabled: "+lobby.Reason)
	}
	if loader.State != ModOK {
		why := loader.Reason
		if loader.State == ModOld {
			why = fmt.Sprintf("%s %s is older than %s; update %s", ModLevelLoader, loader.Version, MinLevelLoader, ModLevelLoader)
		}
		g.Reasons = append(g.Reasons,
			"pack lifts disabled: "+why,
			fmt.Sprintf("door automation disabled: %s %s, %s %s and %s %s or newer work only together",
				ModForge, MinForge, ModLobby, MinLobby, ModLevelLoader, MinLevelLoader))
	}
	return g
}

// readMod reads and judges one mod's version.txt.
func readMod(mods fs.FS, mod, minimum string) ModVersion {
	mv := ModVersion{Mod: mod, Minimum: minimum}
	name := path.Join(mod, ModVersionFile)
	b, err := readBounded(mods, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		mv.State = ModMissing
		mv.Reason = fmt.Sprintf("%s is not installed (no %s); install %s %s or newer", mod, name, mod, minimum)
		return mv
	case err != nil:
		mv.State = modUnreadable
		mv.Reason = fmt.Sprintf("cannot read %s: %v", name, err)
		return mv
	}
	v, written, err := parseVersionLine(b)
	if err != nil {
		mv.State = modInvalid
		mv.Version = text.Escape(written)
		mv.Reason = fmt.Sprintf("%s: %q: %v; it should hold one version line such as %s", name, written, err, minimum)
		return mv
	}
	mv.Version = v.String()
	floor, err := semver.Parse(minimum)
	if err != nil {
		panic(err) // the minimums are constants
	}
	if semver.Compare(v, floor) < 0 {
		mv.State = ModOld
		mv.Reason = fmt.Sprintf("%s %s is older than %s", mod, mv.Version, minimum)
		return mv
	}
	mv.State = ModOK
	return mv
}

// readBounded reads name from fsys, of at most maxVersionFile bytes; what
// is there and not a regular file (a FIFO, whose open would wait for a
// writer) is refused before it is opened.
func readBounded(fsys fs.FS, name string) ([]byte, error) {
	if info, err := fs.Stat(fsys, name); err == nil && !info.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", info.Mode().Type())
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxVersionFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxVersionFile {
		return nil, fmt.Errorf("larger than %d bytes", maxVersionFile)
	}
	return b, nil
}

// parseVersionLine reads a version.txt: one SemVer line, with an optional
// UTF-8 byte order mark, surrounding spaces, a final LF or CRLF (editors
// on Windows add them; they carry no meaning) and a leading "v" or "V", as
// mods tag their releases (v0.19.2). It returns the line as written
// (without those) as well, for an error to show.
func parseVersionLine(b []byte) (v semver.Version, written string, err error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	s := strings.TrimRight(string(b), "\r\n")
	if strings.ContainsAny(s, "\r\n") {
		return semver.Version{}, s, errors.New("more than one line")
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return semver.Version{}, s, errors.New("empty")
	}
	bare := s
	if s[0] == 'v' || s[0] == 'V' {
		bare = s[1:]
	}
	v, err = semver.Parse(bare)
	return v, s, err
}

// supportedBuilds is the release module's build allowlist, comma
// separated. The Makefile sets it (-X) from the one variable it also
// compiles the module with (FD_SUPPORTED_BUILDS); the default is the
// build the seed names, which the header's own default matches.
var supportedBuilds = "CU4"

// SupportedBuilds returns the game builds the native door module accepts:
// its build allowlist, as status shows it.
func SupportedBuilds() []string { return strings.Split(supportedBuilds, ",") }
