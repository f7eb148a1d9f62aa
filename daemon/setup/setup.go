// Package setup owns the player's one command after unzipping: it checks
// the game's folders, writes the config where every command finds it, makes
// the drop and state folders and, asked to, installs and starts the
// service, recording all it made in <state>/setup.json; and the undo that
// removes exactly that (folders it made that are empty, files whose
// SHA-256 it recorded, the service it installed), naming what it keeps;
// and uninstall, which also removes what forgesync installed and deployed
// since, leaving the game's folders as setup found them. Two setups take
// turns on <state>/setup.lock.
package setup

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/filelock"
	"github.com/mjolnir-forge/forgesync/internal/samepath"
	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// setupRecordName is the file in the state folder where `forgesync setup`
// records what it made, for `setup --undo`.
const setupRecordName = "setup.json"

// setupLockName is the file in the state folder that two setups (or a
// setup and an undo) of one state folder take turns on.
const setupLockName = "setup.lock"

// setupLockWait bounds the wait for another setup of the same state folder.
const setupLockWait = time.Minute

// SetupOptions are a player's answers to `forgesync setup`.
type SetupOptions struct {
	// Mods, Paks and State are the game's UE4SS Mods folder, its Paks
	// folder and forgesync's state folder. Mods and Paks must exist; State
	// is made when missing.
	Mods, Paks, State string
	// Env says where the config goes: the user's file, or the machine's
	// when Env.Machine is set (SPEC §1 discovery finds either).
	Env config.Env
	// Service, when set, makes setup also install and start the service
	// (`setup --service`) with these options, and record it, so that
	// `setup --undo` stops and removes it; undo controls it with them.
	Service *daemon.ServiceOptions
	// Log receives the service install's warnings; nil discards them.
	Log *slog.Logger
	// step, when set, is told what setup reaches: "waiting" for another
	// setup's lock, "made" once its folders are made. Tests order two
	// setups with it.
	step func(string)
}

// tell passes step to o.step when it is set.
func (o *SetupOptions) tell(step string) {
	if o.step != nil {
		o.step(step)
	}
}

// setupRecord is what setup made, in <state>/setup.json: the config file
// with the SHA-256 of the bytes it wrote, the folders it created, in the
// order it created them, and the service it installed.
type setupRecord struct {
	Config  string         `json:"config"`
	SHA256  string         `json:"sha256"`
	Made    []string       `json:"made"`
	Service *serviceRecord `json:"service,omitempty"`
	// Absent are the folders forgesync may make in the game's folders
	// later (pipeline.GameFolders) that were missing at setup: uninstall
	// removes them when empty, and keeps every other.
	Absent []string `json:"absent,omitempty"`
	// StateBefore names what the state folder held at setup when setup
	// did not make it: uninstall keeps those.
	StateBefore []string `json:"state_before,omitempty"`
	// URLHandler is the forgesync:// handler setup registered; nil when
	// it registered none.
	URLHandler *urlHandlerRecord `json:"url_handler,omitempty"`
}

// serviceRecord is the service setup installed: its name, and whether it
// is the user's (else the machine's).
type serviceRecord struct {
	Name string `json:"name"`
	User bool   `json:"user"`
}

// configFile returns the file setup writes for env: the machine's file
// when env.Machine is set, else the user's.
func configFile(env config.Env) string {
	if env.Machine {
		return env.MachineFile()
	}
	return env.UserFile()
}

// setupRun is one run of [Setup]: its answers, the config it writes and
// what it made so far.
type setupRun struct {
	o                SetupOptions
	file, recordPath string
	text             []byte
	cfg              *config.Config
	made             []string // the folders this run made, outermost first
	out              io.Writer
	absent           []string // pipeline.GameFolders missing before this run
	stateBefore      []string // what State held before this run; nil when missing
}

// beforeSetup returns the game folders forgesync may make later that are
// missing now, and the names the state folder holds now (nil when it is
// missing): what uninstall must leave as it found it.
func beforeSetup(o SetupOptions) (absent, stateBefore []string) {
	for _, d := range pipeline.GameFolders(pipeline.Options{Mods: o.Mods, Paks: o.Paks, State: o.State}) {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			absent = append(absent, d)
		}
	}
	if entries, err := os.ReadDir(o.State); err == nil {
		stateBefore = []string{}
		for _, e := range entries {
			stateBefore = append(stateBefore, e.Name())
		}
	}
	return absent, stateBefore
}

// Setup checks the game folders of o, writes the config where discovery
// finds it and makes the folders the daemon needs, naming on out every
// file it wrote and every folder it made; with o.Service it also installs
// and starts the service. Run again with the same answers it changes
// nothing and says so. It refuses, before it writes anything, a config
// file it did not write (or that was changed since), a config another one
// would shadow (SPEC §1's discovery order) or that would take a game from
// the machine's service, a service it cannot install, and bad folders,
// with the reason and the fix. Two setups of one state folder take turns,
// and the record keeps what either made.
func Setup(ctx context.Context, o SetupOptions, out io.Writer) (err error) {
	r, err := planSetup(o, out)
	if err != nil {
		return err
	}
	r.absent, r.stateBefore = beforeSetup(r.o)
	defer func() {
		if err != nil {
			r.unmake() // nothing recorded them
		}
	}()
	if r.made, err = mkdirAllMade(r.o.State, 0o700); err != nil { // the daemon keeps its key and socket there
		return fmt.Errorf("setup: make folder %s: %w", r.o.State, err)
	}
	lock, err := lockSetup(ctx, &r.o, out)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	return r.run()
}

// planSetup checks the answers of o and what is on disk, and returns the
// run that carries them out; nothing is written yet.
func planSetup(o SetupOptions, out io.Writer) (*setupRun, error) {
	if err := checkSetupFolders(&o); err != nil {
		return nil, err
	}
	file := configFile(o.Env)
	if file == "" {
		return nil, errors.New("setup: this account has no config folder (neither %APPDATA% nor a home folder is set): run setup with --machine, or set one")
	}
	listen, err := setupListen(file, o.Env)
	if err != nil {
		return nil, err
	}
	text := setupConfig(o.Mods, o.Paks, o.State, listen)
	cfg, err := config.ParseEnv(file, text, o.Env)
	if err != nil {
		return nil, fmt.Errorf("setup: the config it would write does not parse: %w", err)
	}
	r := &setupRun{o: o, file: file, recordPath: filepath.Join(o.State, setupRecordName), text: text, cfg: cfg, out: out}
	if err := checkShadow(o, file); err != nil {
		return nil, err
	}
	if _, _, err := r.previous(); err != nil {
		return nil, err
	}
	if err := r.checkService(); err != nil {
		return nil, err
	}
	if err := reportMods(o.Mods, out); err != nil {
		return nil, err
	}
	return r, nil
}

// lockSetup takes the lock of o's state folder, saying on out when it
// waits for another setup.
func lockSetup(ctx context.Context, o *SetupOptions, out io.Writer) (*filelock.Lock, error) {
	path := filepath.Join(o.State, setupLockName)
	ctx, cancel := context.WithTimeout(ctx, setupLockWait)
	defer cancel()
	lock, err := filelock.Acquire(ctx, path, func() {
		o.tell("waiting")
		fmt.Fprintf(out, "waiting for another forgesync setup of %s to finish\n", o.State)
	})
	if errors.Is(err, filelock.ErrHeld) {
		return nil, fmt.Errorf("setup: another forgesync setup holds %s for over %s: let it finish, or end it, and run setup again", path, setupLockWait)
	}
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	return lock, nil
}

// previous returns the config file setup would replace (nil when there
// is none) and the record the new one continues, and refuses a config
// setup did not write: setup rewrites a config only when the record in
// the state folder that config names says setup wrote exactly those
// bytes; the record then moves to the new state folder.
func (r *setupRun) previous() (old []byte, prev setupRecord, err error) {
	old, err = atomicfile.ReadFile(r.file, config.MaxConfigBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return nil, prev, fmt.Errorf("setup: read %s: %w", r.file, err)
	case !bytes.Equal(old, r.text):
		oldRecord := ""
		if oldCfg, perr := config.ParseEnv(r.file, old, r.o.Env); perr == nil {
			oldRecord = filepath.Join(oldCfg.Paths.State, setupRecordName)
		}
		prev, rerr := readSetupRecord(oldRecord)
		if oldRecord == "" || rerr != nil || prev.Config != r.file || prev.SHA256 != hash(old) {
			return nil, prev, fmt.Errorf("setup: %s already exists and says something else, and setup did not write it: edit it by hand, or move it away and run setup again", r.file)
		}
		return old, prev, nil
	}
	if rec, rerr := readSetupRecord(r.recordPath); rerr == nil && rec.Config == r.file {
		prev = rec
	}
	return old, prev, nil
}

// run is Setup under the state folder's lock: the config, the folders,
// the record, then the service.
func (r *setupRun) run() error {
	old, prev, err := r.previous() // again, under the lock: another setup may have written since
	if err != nil {
		return err
	}
	drop := r.cfg.Paths.Drop
	if old != nil && bytes.Equal(old, r.text) && len(r.made) == 0 {
		if _, err := os.Stat(drop); err == nil {
			if _, err := fmt.Fprintf(r.out, "nothing to change: %s already says this\n", r.file); err != nil {
				return err
			}
			if err := r.startService(&prev); err != nil {
				return err
			}
			return nextSteps(r.out, drop, r.o.Service != nil)
		}
	}
	for _, dir := range []string{filepath.Dir(r.file), filepath.Dir(drop), drop} {
		made, err := mkdirAllMade(dir, 0o755)
		r.made = append(r.made, made...)
		if err != nil {
			return fmt.Errorf("setup: make folder %s: %w", dir, err)
		}
	}
	r.o.tell("made")
	for _, m := range r.made {
		if _, err := fmt.Fprintf(r.out, "made folder %s\n", m); err != nil {
			return err
		}
	}
	rec := setupRecord{Config: r.file, SHA256: hash(r.text), Made: mergeMade(prev.Made, r.made), Service: prev.Service,
		Absent: mergeMade(prev.Absent, r.absent), StateBefore: prev.StateBefore, URLHandler: prev.URLHandler}
	if rec.URLHandler == nil && !r.o.Env.Machine {
		if rec.URLHandler, err = r.registerLinks(); err != nil {
			return err
		}
	}
	if prev.Config == "" && !slices.Contains(r.made, r.o.State) {
		rec.StateBefore = r.stateBefore
	}
	if err := r.write(old, prev, rec); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(r.out, "wrote %s (what setup made, for `forgesync setup --undo`)\n", r.recordPath); err != nil {
		return err
	}
	if err := r.startService(&rec); err != nil {
		return err
	}
	return nextSteps(r.out, drop, r.o.Service != nil)
}

// registerLinks registers this program as the handler of forgesync://
// links for the user (SPEC §14).
func (r *setupRun) registerLinks() (*urlHandlerRecord, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("setup: register forgesync:// links: %w", err)
	}
	return registerURLHandler(r.o.Env, exe, r.out)
}

// nextSteps ends a setup on out: where packs go, and what to run next
// (sync or the daemon, unless the service runs, then status).
func nextSteps(out io.Writer, drop string, service bool) error {
	install := "then run `forgesync sync` to install them (or leave `forgesync daemon` running: it installs what you drop)"
	if service {
		install = "the service installs what you drop"
	}
	_, err := fmt.Fprintf(out, "drop packs into %s\nnext: drop a pack archive (zip, 7z, tar.*) there; %s; `forgesync status` shows what is installed\n", drop, install)
	return err
}

// write writes the config when it changed and the record rec, and removes
// the record of the config it replaced when that lies in another state
// folder.
func (r *setupRun) write(old []byte, prev setupRecord, rec setupRecord) error {
	if !bytes.Equal(old, r.text) {
		if err := writeFileAtomic(r.file, r.text); err != nil {
			return fmt.Errorf("setup: write %s: %w", r.file, err)
		}
		if _, err := fmt.Fprintf(r.out, "wrote %s\n", r.file); err != nil {
			return err
		}
	}
	if err := writeSetupRecord(r.recordPath, rec); err != nil {
		return err
	}
	r.made = nil // recorded: undo removes them now
	if old == nil || bytes.Equal(old, r.text) || prev.Config == "" {
		return nil
	}
	oldCfg, err := config.ParseEnv(r.file, old, r.o.Env)
	if err != nil {
		return nil
	}
	stale := filepath.Join(oldCfg.Paths.State, setupRecordName)
	if stale == r.recordPath {
		return nil
	}
	if err := os.Remove(stale); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	removeLockFile(filepath.Join(oldCfg.Paths.State, setupLockName), r.out)
	_, err = fmt.Fprintf(r.out, "removed %s\n", stale)
	return err
}

// mergeMade returns the folders of prev followed by those of made that
// prev does not name.
func mergeMade(prev, made []string) []string {
	all := slices.Clone(prev)
	for _, m := range made {
		if !slices.Contains(all, m) {
			all = append(all, m)
		}
	}
	return all
}

// unmake removes the folders this run made, innermost first, while they
// are empty: a setup that fails before its record names them leaves
// nothing behind.
func (r *setupRun) unmake() {
	for i := len(r.made) - 1; i >= 0; i-- {
		if r.made[i] == r.o.State {
			removeLockFile(filepath.Join(r.o.State, setupLockName), io.Discard)
		}
		removeDir(r.made[i])
	}
	r.made = nil
}

// checkShadow refuses a config that SPEC §1's discovery would not find
// first (--config aside), and a config of the user's that would take a
// game from the machine's service: either way the commands a player types
// and the service would keep two states over the same game folders.
func checkShadow(o SetupOptions, file string) error {
	found, how, err := o.Env.Discover("")
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	switch {
	case found == "" || samepath.Same(found, file):
		return nil
	case how == "$"+config.EnvVar:
		return fmt.Errorf("setup: $%s names %s, which every command reads before %s, the config setup writes: unset %s, or point it at %s, and run setup again", config.EnvVar, found, file, config.EnvVar, file)
	case o.Env.Machine:
		return fmt.Errorf("setup --machine: %s (%s) is found before the machine's config %s, so every command you type would read it, not the service's, and install into another state over the same game: remove it first (`forgesync setup --undo`, without --machine, removes it when setup wrote it) or move it away, then run setup --machine again", found, how, file)
	}
	mcfg, err := config.LoadEnv(found, o.Env)
	if err != nil {
		return nil // a machine config that does not load keeps no game
	}
	if samepath.Same(mcfg.Paths.Mods, o.Mods) || samepath.Same(mcfg.Paths.Paks, o.Paks) {
		return fmt.Errorf("setup: the machine's config %s already keeps this game (mods %s, paks %s) for the machine service, and every command finds it; a config of your own would be found first and install into another state over the same folders: use the machine's as it is, or remove it first (`forgesync setup --machine --undo`, as an administrator)", found, mcfg.Paths.Mods, mcfg.Paths.Paks)
	}
	return nil
}

// setupConfig returns the config setup writes for the three folders and
// the TCP API's loopback address, where the status page is served.
func setupConfig(mods, paks, state, listen string) []byte {
	var b strings.Builder
	b.WriteString("# Written by `forgesync setup`; `forgesync setup --undo` removes it.\n")
	b.WriteString("# Every key and its default: see \"Getting started\" in the README.\n")
	b.WriteString("[paths]\n")
	fmt.Fprintf(&b, "mods = %s\npaks = %s\nstate = %s\n", tomlString(mods), tomlString(paks), tomlString(state))
	b.WriteString("# The status page (forgesync open) and launchers' API, on this machine only.\n")
	fmt.Fprintf(&b, "[api]\nlisten = %s\n", tomlString(listen))
	return []byte(b.String())
}

// setupListen returns the TCP API's address for the config at file: the
// one it names already, so that setup run again changes nothing, or else
// a loopback port free now.
func setupListen(file string, env config.Env) (string, error) {
	if old, err := atomicfile.ReadFile(file, config.MaxConfigBytes); err == nil {
		if cfg, err := config.ParseEnv(file, old, env); err == nil && cfg.API.Listen != "" {
			return cfg.API.Listen, nil
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("setup: find a free loopback port for the status page: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// tomlString quotes s for TOML: a literal string when it can be one, so a
// Windows path keeps its backslashes as they are.
func tomlString(s string) string {
	if !strings.ContainsAny(s, "'\n\r") {
		return "'" + s + "'"
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`)
	return `"` + r.Replace(s) + `"`
}

// checkSetupFolders makes the folders of o absolute and checks them: Mods
// and Paks exist, are folders and writable, State is a folder or missing,
// and none is inside another.
func checkSetupFolders(o *SetupOptions) error {
	ex := folderExamples(o.Env)
	example := map[string]string{
		"mods":  "the game's UE4SS Mods folder, e.g. " + ex.mods,
		"paks":  "the game's Paks folder, e.g. " + ex.paks,
		"state": `a folder of forgesync's own, e.g. ` + o.Env.UserStateDir(),
	}
	dirs := []struct {
		flag string
		path *string
	}{{"mods", &o.Mods}, {"paks", &o.Paks}, {"state", &o.State}}
	for _, d := range dirs {
		if *d.path == "" {
			return fmt.Errorf("--%s: no folder given; give %s", d.flag, example[d.flag])
		}
		abs, err := filepath.Abs(*d.path)
		if err != nil {
			return fmt.Errorf("--%s %s: %w", d.flag, *d.path, err)
		}
		*d.path = abs
		fi, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist) && d.flag == "state":
			continue
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("--%s %s: no such folder; give %s", d.flag, abs, example[d.flag])
		case err != nil:
			return fmt.Errorf("--%s %s: %w", d.flag, abs, err)
		case !fi.IsDir():
			return fmt.Errorf("--%s %s: a file, not a folder; give %s", d.flag, abs, example[d.flag])
		}
		if err := checkWritable(abs); err != nil {
			return fmt.Errorf("--%s %s: not writable (%v); give a folder you can write to, or run setup as its owner", d.flag, abs, err)
		}
	}
	for i, a := range dirs {
		for j, b := range dirs {
			if i != j && inside(*a.path, *b.path) {
				return fmt.Errorf("--%s %s is inside --%s %s; give folders that are not inside each other", a.flag, *a.path, b.flag, *b.path)
			}
		}
	}
	return nil
}

// inside reports whether path is dir or a folder below it.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// checkWritable creates and removes a file in dir.
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".forgesync-setup-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// reportMods names the MJOLNIR mods found under mods with their versions,
// as <mods>/<Mod>/version.txt says.
func reportMods(mods string, out io.Writer) error {
	for _, m := range native.CheckGatesDir(mods).Mods {
		var err error
		switch m.State {
		case native.ModOK:
			_, err = fmt.Fprintf(out, "found %s %s\n", m.Mod, m.Version)
		case native.ModMissing:
			_, err = fmt.Fprintf(out, "not found: %s (no %s); packs install, but it is needed in game\n", m.Mod, filepath.Join(mods, m.Mod, "version.txt"))
		default:
			_, err = fmt.Fprintf(out, "found %s %s: %s (%s)\n", m.Mod, m.Version, m.State, m.Reason)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mkdirAllMade makes dir and its missing parents and returns the folders
// it made, outermost first, also when it fails part-way. A folder another
// process makes meanwhile is not among them: each is made with one
// os.Mkdir, which only one maker wins.
func mkdirAllMade(dir string, perm os.FileMode) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		d := missing[i]
		err := os.Mkdir(d, perm)
		if err == nil {
			made = append(made, d)
			continue
		}
		if fi, serr := os.Stat(d); !errors.Is(err, fs.ErrExist) || serr != nil || !fi.IsDir() {
			return made, err
		}
	}
	return made, nil
}

func readSetupRecord(path string) (setupRecord, error) {
	var rec setupRecord
	data, err := atomicfile.ReadFile(path, config.MaxConfigBytes)
	if err != nil {
		return rec, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return rec, fmt.Errorf("read %s: %w", path, err)
	}
	return rec, nil
}

// writeSetupRecord writes rec to path.
func writeSetupRecord(path string, rec setupRecord) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("setup: write %s: %w", path, err)
	}
	return nil
}

// writeFileAtomic writes data to path through a temp file in its folder.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".forgesync-setup-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

func hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// examples are the game's folders as a player of env's OS finds them.
type examples struct{ mods, paks string }

// folderExamples returns the example Mods and Paks folders of env's OS:
// Windows paths on Windows, a Steam library's (Proton's too) elsewhere.
func folderExamples(env config.Env) examples {
	if env.OS() == "windows" {
		return examples{mods: `...\Binaries\Win64\Mods (or ...\Binaries\Win64\ue4ss\Mods)`, paks: `...\Content\Paks`}
	}
	return examples{mods: "~/.local/share/Steam/steamapps/common/GAME/PROJECT/Binaries/Win64/Mods (or .../Win64/ue4ss/Mods)",
		paks: "~/.local/share/Steam/steamapps/common/GAME/PROJECT/Content/Paks"}
}

// setupDefaults returns the folder each question offers: those of the
// config setup would rewrite, when there is one; else the state folder's
// default and the game Steam's libraries hold (the first of several, on
// a terminal; without one only when there is exactly one), which it
// names on out.
func setupDefaults(o *SetupOptions, out io.Writer, terminal bool) (mods, paks, state string) {
	file := configFile(o.Env)
	if data, err := atomicfile.ReadFile(file, config.MaxConfigBytes); err == nil {
		if cfg, err := config.ParseEnv(file, data, o.Env); err == nil {
			return cfg.Paths.Mods, cfg.Paths.Paks, cfg.Paths.State
		}
	}
	state = o.Env.UserStateDir()
	if o.Env.Machine {
		state = o.Env.MachineStateDir()
	}
	if o.Mods != "" && o.Paks != "" {
		return "", "", state
	}
	games := findSteamGames(o.Env)
	for _, g := range games {
		fmt.Fprintf(out, "found through Steam: mods %s, paks %s\n", g.Mods, g.Paks)
	}
	if len(games) == 1 || len(games) > 1 && terminal {
		return games[0].Mods, games[0].Paks, state
	}
	return "", "", state
}

// SetupAsk fills in the folders o lacks. Each has a default: the folder
// the config setup would rewrite says, else the state folder's default
// and the game found in Steam's libraries. On a terminal it asks for each
// on out, showing the default, and reads the answer from in (an empty
// answer takes the default); without a terminal it takes the defaults
// and names the first flag that has none.
func SetupAsk(o *SetupOptions, in io.Reader, out io.Writer, terminal bool) error {
	ex := folderExamples(o.Env)
	mods, paks, state := setupDefaults(o, out, terminal)
	questions := []struct {
		flag, question, def string
		path                *string
	}{
		{"mods", "the game's UE4SS Mods folder (e.g. " + ex.mods + ")", mods, &o.Mods},
		{"paks", "the game's Paks folder (e.g. " + ex.paks + ")", paks, &o.Paks},
		{"state", "forgesync's own folder, for its state and logs", state, &o.State},
	}
	var lines *bufio.Scanner
	for _, q := range questions {
		if *q.path != "" {
			continue
		}
		if !terminal {
			if q.def == "" {
				return fmt.Errorf("--%s: not given, and there is no terminal to ask on; pass --%s DIR (%s)", q.flag, q.flag, q.question)
			}
			*q.path = q.def
			continue
		}
		if lines == nil {
			lines = bufio.NewScanner(in)
		}
		if err := ask(lines, out, q.flag, q.question, q.def, q.path); err != nil {
			return err
		}
	}
	return nil
}

// ask asks question on out until lines gives an answer, or an empty one
// where there is a default, and sets *path to it.
func ask(lines *bufio.Scanner, out io.Writer, flag, question, def string, path *string) error {
	for *path == "" {
		if def != "" {
			fmt.Fprintf(out, "%s [%s]: ", question, def)
		} else {
			fmt.Fprintf(out, "%s: ", question)
		}
		if !lines.Scan() {
			if err := lines.Err(); err != nil {
				return fmt.Errorf("setup: read the answer for --%s: %w", flag, err)
			}
			return fmt.Errorf("--%s: no answer (the input ended); pass --%s DIR", flag, flag)
		}
		*path = strings.Trim(strings.TrimSpace(lines.Text()), `"`)
		if *path == "" {
			*path = def
		}
	}
	return nil
}
