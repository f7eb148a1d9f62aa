package deploy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/samepath"
	"github.com/mjolnir-forge/forgesync/lua"
)

// DeployStatus says what a deploy did with one file.
type DeployStatus string

const (
	// Deployed: the file was missing or differed and now holds the new bytes.
	Deployed DeployStatus = "deployed"
	// Unchanged: the file already held the same bytes; nothing was written.
	Unchanged DeployStatus = "unchanged"
	// StagedLocked: the target is held by a running program (the game); the
	// new bytes wait beside it in Staged and are swapped in by a later
	// deploy once the lock is gone.
	StagedLocked DeployStatus = "staged-locked"
	// ForeignSkipped: a file forgesync did not write (or that changed since
	// it wrote it) is in the way; it is left alone.
	ForeignSkipped DeployStatus = "foreign-skipped"
	// DeployFailed: reading the source or writing the target failed; Reason
	// says why.
	DeployFailed DeployStatus = "failed"
	// removed: a file of the same component in the same target that the
	// deployment no longer names, still holding the bytes forgesync wrote,
	// was deleted (a script dropped by a newer version).
	removed DeployStatus = "removed"
)

// PendingSuffix ends the name of the file staged beside a locked target.
const PendingSuffix = ".forgesync-pending"

// ledgerName is the name of the deploy ledger in the state folder.
const ledgerName = "deployed.json"

const (
	ledgerFormat  = "forgesync-deployed"
	ledgerVersion = 1
)

var (
	// errDeployName is returned, wrapped with the name, when a deployment
	// names a file that is not a clean relative slash path.
	errDeployName = errors.New("deploy: deploy name is not a local slash path")
	// errLedger is returned, wrapped with the path, when the deploy ledger
	// cannot be read or decoded.
	errLedger = errors.New("deploy: deploy ledger unreadable")
)

// A Deployment is a set of named files to keep deployed in one folder.
type Deployment struct {
	// Component names the set in the ledger and reports ("lua", "native").
	Component string
	// Source holds the files: an embed.FS for the Lua scripts,
	// os.DirFS(modules) for the native module.
	Source fs.FS
	// Names are slash paths in Source; each is deployed to the same
	// relative path under Target.
	Names []string
	// Target is the folder the files go to.
	Target string
	// Base, when set, is the configured folder that Target lies in (the
	// game's Mods folder). No folder from Base down to a file may be a
	// link, junction or reparse point: forgesync would write, and prune,
	// through it. Base itself may be one.
	Base string
}

// FileReport is what a deploy did with one file, for status.
type FileReport struct {
	Component string       // "lua" or "native"
	Name      string       // the file's name in its deployment
	Path      string       // where it is deployed
	Status    DeployStatus // what the deploy did
	SHA256    string       // of the source bytes
	Staged    string       // the pending file beside a locked target
	Reason    string       // why a file was skipped, staged or failed
}

// ledgerEntry records a file forgesync wrote.
type ledgerEntry struct {
	Path      string    `json:"path"`      // the target, absolute
	Component string    `json:"component"` // the deployment it belongs to
	SHA256    string    `json:"sha256"`    // of the bytes forgesync last put at Path
	Time      time.Time `json:"time"`      // when it wrote them
	// StagedSHA256 is the hash of the bytes waiting in Path+PendingSuffix
	// while the target is locked; empty when nothing is staged.
	StagedSHA256 string `json:"staged_sha256,omitempty"`
}

type ledgerFile struct {
	Format  string              `json:"format"`
	Version int                 `json:"version"`
	Files   []storedLedgerEntry `json:"files"`
}

// storedLedgerEntry is a LedgerEntry in the ledger file. A JSON string
// would replace the bytes of a path that is not UTF-8 (a mods folder with
// a Latin-1 name), and the file would look foreign from then on: such a
// path is stored as bytes too (base64), and read back from them.
type storedLedgerEntry struct {
	ledgerEntry
	PathBytes []byte `json:"path_bytes,omitempty"`
}

// checkNames refuses a name that is not a clean relative slash path.
func (dep Deployment) checkNames() error {
	for _, name := range dep.Names {
		if !fs.ValidPath(name) || name == "." || strings.ContainsRune(name, '\\') ||
			!filepath.IsLocal(filepath.FromSlash(name)) || path.Clean(name) != name {
			return fmt.Errorf("deploy %s: %q: %w", dep.Component, name, errDeployName)
		}
	}
	return nil
}

// A Deployer keeps sets of files deployed: it writes a file when it is
// missing or differs by SHA-256, atomically, records what it wrote in
// <StateDir>/deployed.json, never touches a file it did not write, and
// stages the new bytes beside a target that a running game holds locked.
// The Lua scripts and the native door module share it.
type Deployer struct {
	// StateDir is the daemon's state folder, which holds the ledger.
	StateDir string
	// Renamer replaces targets; tests inject a Rename that fails busy, and
	// a small MaxWait, to play a locked file.
	Renamer atomicfile.Renamer
	// Now returns the time recorded in the ledger; nil means time.Now.
	Now func() time.Time

	mu sync.Mutex // guards the ledger file between Deploy calls
}

// LuaScripts returns the deployment of the embedded Lua lift scripts into
// <mods>/MJOLNIRLevelLoader/Scripts/.
func LuaScripts(mods string) Deployment {
	return Deployment{
		Component: "lua",
		Source:    lua.Files,
		Names:     lua.Deployed(),
		Target:    filepath.Join(mods, filepath.FromSlash(lua.ScriptsDir)),
		Base:      mods,
	}
}

// DeployLua deploys the embedded Lua lift scripts into
// <mods>/MJOLNIRLevelLoader/Scripts/.
func (d *Deployer) DeployLua(ctx context.Context, mods string) ([]FileReport, error) {
	return d.Deploy(ctx, LuaScripts(mods))
}

// Deploy brings every file of dep up to date and returns one report per
// name, in order, followed by one per file of the same component under the
// same target that dep no longer names and forgesync removed (see
// [removed]). A file that cannot be deployed does not stop the others;
// their errors are joined in the returned error, and the ledger records
// every file that was written. A cancelled ctx stops before the next file.
func (d *Deployer) Deploy(ctx context.Context, dep Deployment) ([]FileReport, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if dep.Component == "" {
		return nil, errors.New("deploy: empty component name")
	}
	target, err := filepath.Abs(dep.Target)
	if err != nil {
		return nil, fmt.Errorf("deploy %s: target %s: %w", dep.Component, dep.Target, err)
	}
	if err := dep.checkNames(); err != nil {
		return nil, err
	}
	ledgerPath := filepath.Join(d.StateDir, ledgerName)
	led, err := readLedger(ledgerPath)
	if err != nil {
		return nil, err
	}
	if err := makeTarget(dep.Base, target); err != nil {
		return nil, fmt.Errorf("deploy %s: %w", dep.Component, err)
	}
	dirs := map[string]bool{}
	dirErr := map[string]error{}
	var reports []FileReport
	var errs []error
	changed := false
	for _, name := range dep.Names {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		dst := filepath.Join(target, filepath.FromSlash(name))
		dir := filepath.Dir(dst)
		if !dirs[dir] {
			dirs[dir] = true
			if err := atomicfile.MkdirNoLinks(target, filepath.Dir(filepath.FromSlash(name)), 0o755); err != nil {
				dirErr[dir] = fmt.Errorf("deploy %s %s: %w", dep.Component, name, err)
			} else if _, err := atomicfile.CleanTemps(dir); err != nil {
				errs = append(errs, err)
			}
		}
		if err := dirErr[dir]; err != nil {
			reports = append(reports, FileReport{Component: dep.Component, Name: name, Path: dst, Status: DeployFailed, Reason: err.Error()})
			errs = append(errs, err)
			continue
		}
		key := ledgerKey(led, dst)
		rep, entry, err := d.deployFile(dep, name, dst, led[key])
		reports = append(reports, rep)
		if err != nil {
			errs = append(errs, err)
		}
		if entry != led[key] || key != samepath.Key(dst) {
			changed = true
			delete(led, key)
			if entry != nil {
				led[samepath.Key(dst)] = entry
			}
		}
	}
	if ctx.Err() == nil {
		prunes, perrs, pchanged := d.prune(dep, target, led)
		reports = append(reports, prunes...)
		errs = append(errs, perrs...)
		changed = changed || pchanged
		for _, r := range prunes {
			dirs[filepath.Dir(r.Path)] = true
		}
	}
	errs = append(errs, syncDeployed(dirs, changed, ledgerPath, led)...)
	return reports, errors.Join(errs...)
}

// syncDeployed syncs the folders written to, then writes the ledger when
// it changed: the ledger never names a file that is not durable yet.
func syncDeployed(dirs map[string]bool, changed bool, ledgerPath string, led map[string]*ledgerEntry) []error {
	var errs []error
	for dir := range dirs {
		if err := atomicfile.SyncDir(dir); err != nil {
			errs = append(errs, err)
		}
	}
	if changed {
		if err := writeLedger(ledgerPath, led); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// prune removes the files of dep's component under target that the ledger
// records but dep no longer names, when they still hold the bytes
// forgesync wrote; a file changed since is left alone and forgotten. The
// reports come sorted by path.
func (d *Deployer) prune(dep Deployment, target string, led map[string]*ledgerEntry) ([]FileReport, []error, bool) {
	named := map[string]bool{}
	var namedPaths []string
	for _, name := range dep.Names {
		p := filepath.Join(target, filepath.FromSlash(name))
		named[samepath.Key(p)] = true
		namedPaths = append(namedPaths, p)
	}
	// isNamed reports whether the ledger's path is one the deployment names,
	// in any spelling: the ledger may hold C:\Games\… while the config now
	// says c:\games\… (issue 12: a spelling must never prune a file).
	isNamed := func(p string) bool {
		if named[samepath.Key(p)] {
			return true
		}
		return slices.ContainsFunc(namedPaths, func(n string) bool { return samepath.Same(n, p) })
	}
	var reports []FileReport
	var errs []error
	changed := false
	for _, e := range sortedEntries(led) {
		if e.Component != dep.Component || isNamed(e.Path) {
			continue
		}
		rel, ok := samepath.Within(target, e.Path)
		if !ok || rel == "." {
			continue
		}
		rep := FileReport{Component: dep.Component, Name: filepath.ToSlash(rel), Path: e.Path, SHA256: e.SHA256}
		cur, err := fileSum(e.Path)
		switch {
		case err != nil:
			err = fmt.Errorf("deploy %s: remove %s: %w", dep.Component, e.Path, err)
			rep.Status, rep.Reason = DeployFailed, err.Error()
			errs = append(errs, err)
			reports = append(reports, rep)
			continue
		case cur == e.SHA256:
			if err := d.Renamer.Remove(e.Path); err != nil {
				err = fmt.Errorf("deploy %s: remove %s: %w", dep.Component, e.Path, err)
				rep.Status, rep.Reason = DeployFailed, err.Error()
				errs = append(errs, err)
				reports = append(reports, rep)
				continue
			}
			rep.Status = removed
			rep.Reason = fmt.Sprintf("%s is no longer part of %s", rel, dep.Component)
		case cur == "":
			rep.Status = removed
			rep.Reason = fmt.Sprintf("%s is no longer part of %s and was already gone", rel, dep.Component)
		default:
			rep.Status = ForeignSkipped
			rep.Reason = fmt.Sprintf("%s is no longer part of %s but changed since forgesync wrote it (sha256 %s, now %s); it is left alone", e.Path, dep.Component, e.SHA256, cur)
		}
		if e.StagedSHA256 != "" {
			if err := removeOurStaged(e.Path+PendingSuffix, e.StagedSHA256); err != nil {
				errs = append(errs, err)
			}
		}
		delete(led, samepath.Key(e.Path))
		changed = true
		reports = append(reports, rep)
	}
	return reports, errs, changed
}

func (d *Deployer) now() time.Time {
	if d.Now != nil {
		return d.Now().UTC()
	}
	return time.Now().UTC()
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// fileSum returns the SHA-256 of the file at p, or "" when it is missing.
func fileSum(p string) (string, error) { return fileSumOpen(p, atomicfile.Renamer{}.Open) }

// fileSum returns the SHA-256 of the file at p, or "" when it is missing; a
// file held without read sharing is retried by d's policy, then reported
// wrapping [atomicfile.ErrBusy].
func (d *Deployer) fileSum(p string) (string, error) { return fileSumOpen(p, d.Renamer.Open) }

func fileSumOpen(p string, open func(string) (*os.File, error)) (string, error) {
	f, err := open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// deployFile deploys one file and returns its report, its new ledger entry
// (old when nothing changed, nil when forgesync no longer owns it) and an
// error for failures.
func (d *Deployer) deployFile(dep Deployment, name, dst string, old *ledgerEntry) (FileReport, *ledgerEntry, error) {
	rep := FileReport{Component: dep.Component, Name: name, Path: dst}
	fail := func(err error) (FileReport, *ledgerEntry, error) {
		err = fmt.Errorf("deploy %s %s to %s: %w", dep.Component, name, dst, err)
		rep.Status, rep.Reason = DeployFailed, err.Error()
		return rep, old, err
	}
	data, err := fs.ReadFile(dep.Source, name)
	if err != nil {
		return fail(err)
	}
	want := sum(data)
	rep.SHA256 = want
	staged := dst + PendingSuffix
	cur, err := d.fileSum(dst)
	if errors.Is(err, atomicfile.ErrBusy) {
		// Held without even read sharing (share mode 0): whatever it
		// holds, the new bytes wait beside it.
		return d.stage(dep, name, dst, data, want, old, "", rep)
	}
	if err != nil {
		return fail(err)
	}
	ours := old != nil && (cur == "" || cur == old.SHA256)

	switch {
	case cur == want:
		// Already in place: forgesync owns it from now on (adopting an
		// identical file overwrites nothing), and a staged copy is obsolete.
		e := &ledgerEntry{Path: dst, Component: dep.Component, SHA256: want, Time: d.now()}
		if old != nil && old.SHA256 == want {
			e.Time = old.Time
		}
		if old != nil && old.StagedSHA256 != "" {
			if err := removeOurStaged(staged, old.StagedSHA256); err != nil {
				return fail(err)
			}
		}
		if old != nil && *old == *e {
			e = old
		}
		rep.Status = Unchanged
		return rep, e, nil
	case cur != "" && !ours:
		rep.Status = ForeignSkipped
		if old == nil {
			rep.Reason = fmt.Sprintf("%s was not written by forgesync (sha256 %s); it is left alone: move it away to let forgesync deploy %s", dst, cur, name)
		} else {
			rep.Reason = fmt.Sprintf("%s changed since forgesync wrote it (sha256 %s, now %s); it is left alone: delete it to let forgesync deploy %s again", dst, old.SHA256, cur, name)
		}
		if old != nil && old.StagedSHA256 != "" {
			if err := removeOurStaged(staged, old.StagedSHA256); err != nil {
				return fail(err)
			}
		}
		return rep, nil, nil
	}

	// The target is missing or holds bytes forgesync wrote: replace it.
	return d.replace(dep, name, dst, data, cur, old, rep, fail)
}

// replace writes data over dst, which is missing or holds bytes forgesync
// wrote: from the staged copy when it waits beside a target once locked,
// else atomically; a target still locked gets the new bytes staged.
func (d *Deployer) replace(dep Deployment, name, dst string, data []byte, cur string, old *ledgerEntry, rep FileReport,
	fail func(error) (FileReport, *ledgerEntry, error)) (FileReport, *ledgerEntry, error) {
	want, staged := rep.SHA256, dst+PendingSuffix
	written := &ledgerEntry{Path: dst, Component: dep.Component, SHA256: want, Time: d.now()}
	if old != nil && old.StagedSHA256 == want {
		// Swap in the bytes staged while the target was locked.
		if s, err := d.fileSum(staged); err == nil && s == want {
			err := d.Renamer.Replace(staged, dst)
			if err == nil {
				rep.Status = Deployed
				return rep, written, nil
			}
			if errors.Is(err, atomicfile.ErrBusy) {
				rep.Status, rep.Staged = StagedLocked, staged
				rep.Reason = fmt.Sprintf("%s is still held open (the game is running?); the new version waits in %s", dst, staged)
				return rep, old, nil
			}
			return fail(err)
		}
	}
	p, err := atomicfile.Create(dst, 0o644)
	if err != nil {
		return fail(err)
	}
	defer p.Cleanup()
	if _, err := io.Copy(p, bytes.NewReader(data)); err != nil {
		return fail(err)
	}
	err = p.Commit(d.Renamer)
	if err == nil {
		if old != nil && old.StagedSHA256 != "" {
			if err := removeOurStaged(staged, old.StagedSHA256); err != nil {
				return fail(err)
			}
		}
		rep.Status = Deployed
		return rep, written, nil
	}
	if !errors.Is(err, atomicfile.ErrBusy) {
		return fail(err)
	}
	return d.stage(dep, name, dst, data, want, old, cur, rep)
}

// stage writes the new bytes of a locked target beside it, in
// dst+PendingSuffix, unless something forgesync did not put there holds
// that name; cur is the target's hash when it could be read.
func (d *Deployer) stage(dep Deployment, name, dst string, data []byte, want string, old *ledgerEntry, cur string, rep FileReport) (FileReport, *ledgerEntry, error) {
	fail := func(err error) (FileReport, *ledgerEntry, error) {
		err = fmt.Errorf("deploy %s %s to %s: %w", dep.Component, name, dst, err)
		rep.Status, rep.Reason = DeployFailed, err.Error()
		return rep, old, err
	}
	staged := dst + PendingSuffix
	if s, serr := d.fileSum(staged); serr != nil {
		return fail(serr)
	} else if s != "" && (old == nil || s != old.StagedSHA256) {
		return fail(fmt.Errorf("target is locked and %s, which forgesync did not write, is in the way of staging", staged))
	}
	if old == nil || old.StagedSHA256 != want {
		p, err := atomicfile.Create(staged, 0o644)
		if err != nil {
			return fail(err)
		}
		defer p.Cleanup()
		if _, err := p.Write(data); err != nil {
			return fail(err)
		}
		if err := p.Commit(d.Renamer); err != nil {
			return fail(err)
		}
	}
	e := &ledgerEntry{Path: dst, Component: dep.Component, StagedSHA256: want}
	if old != nil {
		e.SHA256, e.Time = old.SHA256, old.Time
	} else {
		// Locked but not ours can only be a file that vanished and came
		// back; record nothing as written, only the staging.
		e.SHA256, e.Time = cur, d.now()
	}
	rep.Status, rep.Staged = StagedLocked, staged
	rep.Reason = fmt.Sprintf("%s is held open (the game is running?); the new version waits in %s and is swapped in by the next deploy after the game closes it", dst, staged)
	return rep, e, nil
}

// removeOurStaged removes the staged file if it still holds the bytes
// forgesync staged.
func removeOurStaged(staged, want string) error {
	s, err := fileSum(staged)
	if err != nil || s == "" || s != want {
		return err
	}
	if err := os.Remove(staged); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove staged %s: %w", staged, err)
	}
	return nil
}

// makeTarget creates target, refusing a link between base and it.
func makeTarget(base, target string) error {
	if base == "" {
		return os.MkdirAll(target, 0o755)
	}
	rel, ok := samepath.Within(base, target)
	if !ok {
		return fmt.Errorf("target %s is not inside %s", target, base)
	}
	return atomicfile.MkdirNoLinks(base, rel, 0o755)
}

// ledgerKey returns the key under which led records dst: its own key, or
// the key of an entry that names the same file in another spelling (a
// linked parent, a case-folding volume); dst's key when none does.
func ledgerKey(led map[string]*ledgerEntry, dst string) string {
	key := samepath.Key(dst)
	if _, ok := led[key]; ok {
		return key
	}
	for k, e := range led {
		if samepath.Same(e.Path, dst) {
			return k
		}
	}
	return key
}

// ledgerStep is the safe step for a deploy ledger that cannot be read.
const ledgerStep = "move the file aside; forgesync then treats deployed files it finds as foreign"

// maxLedgerBytes bounds deployed.json: a record of a few hundred bytes for
// each deployed file.
const maxLedgerBytes = 64 << 20

func readLedger(p string) (map[string]*ledgerEntry, error) {
	m := map[string]*ledgerEntry{}
	data, err := atomicfile.Renamer{}.ReadLimited(p, maxLedgerBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if errors.Is(err, atomicfile.ErrNotRegular) || errors.Is(err, atomicfile.ErrTooLarge) {
		return nil, fmt.Errorf("read %s: %w: %w (%s)", p, errLedger, err, ledgerStep)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w: %w", p, errLedger, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var lf ledgerFile
	if err := dec.Decode(&lf); err != nil {
		return nil, fmt.Errorf("decode %s: %w: %w (%s)", p, errLedger, err, ledgerStep)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("decode %s: %w: data after the ledger", p, errLedger)
	}
	if lf.Format != ledgerFormat {
		return nil, fmt.Errorf("decode %s: %w: format %q, want %q (%s)", p, errLedger, lf.Format, ledgerFormat, ledgerStep)
	}
	if lf.Version != ledgerVersion {
		return nil, fmt.Errorf("decode %s: %w: format %q version %d, want %q version %d", p, errLedger, lf.Format, lf.Version, ledgerFormat, ledgerVersion)
	}
	for i := range lf.Files {
		e := lf.Files[i].ledgerEntry
		if b := lf.Files[i].PathBytes; b != nil {
			e.Path = string(b)
		}
		if e.Path == "" || !filepath.IsAbs(e.Path) {
			return nil, fmt.Errorf("decode %s: %w: files[%d].path %q is not absolute", p, errLedger, i, e.Path)
		}
		key := samepath.Key(e.Path)
		if prev, dup := m[key]; dup {
			if prev.Path == e.Path {
				return nil, fmt.Errorf("decode %s: %w: files[%d].path %q listed twice", p, errLedger, i, e.Path)
			}
			// Two spellings of one file, as a version that keyed the
			// ledger by spelling wrote: keep the newer record.
			if !e.Time.After(prev.Time) {
				continue
			}
		}
		m[key] = &e
	}
	return m, nil
}

func sortedEntries(m map[string]*ledgerEntry) []ledgerEntry {
	out := make([]ledgerEntry, 0, len(m))
	for _, e := range m {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b ledgerEntry) int {
		switch {
		case a.Path < b.Path:
			return -1
		case a.Path > b.Path:
			return 1
		}
		return 0
	})
	return out
}

func writeLedger(p string, m map[string]*ledgerEntry) error {
	entries := sortedEntries(m)
	files := make([]storedLedgerEntry, len(entries))
	for i, e := range entries {
		files[i].ledgerEntry = e
		if !utf8.ValidString(e.Path) {
			files[i].PathBytes = []byte(e.Path)
		}
	}
	data, err := json.MarshalIndent(ledgerFile{Format: ledgerFormat, Version: ledgerVersion, Files: files}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", p, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return atomicfile.WriteFile(p, append(data, '\n'), 0o600)
}
