package store

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
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/internal/filelock"
	"github.com/mjolnir-forge/forgesync/internal/spec"
)

// The pack store's folders and files under the state folder.
const (
	stateFile     = "packs.json"
	lockFileName  = "lock"
	ProcessingDir = "processing" // archives claimed from drop, being processed
	ArchivesDir   = "archives"   // archives of installed packs, kept
	StagingDir    = "staging"    // private extraction folders
	ManifestsDir  = "manifests"  // normalized manifests of installed packs
)

// Bounds of the files of the state folder read whole (a larger one is
// refused as damaged, never read into memory).
const (
	// MaxStateBytes bounds packs.json: a record and its generations take
	// a few kilobytes a pack, generous for 10,000 packs.
	MaxStateBytes = 256 << 20
	// maxStoredManifestBytes bounds a stored manifest: the normalized
	// form of a forgepack.json of at most spec.MaxManifestBytes.
	maxStoredManifestBytes = 4 * spec.MaxManifestBytes
	// maxHolderBytes bounds what the lock file says of its holder (a pid).
	maxHolderBytes = 4 << 10
)

// stateFormat names the pack store's file format.
const stateFormat = "forgesync-state"

// stateVersion is the version of packs.json this store reads and writes.
// An older version is read through [upgradeState]; a newer one is refused
// by name, leaving the file as it is.
const stateVersion = 1

// ErrLocked is returned (wrapped, with the holder's pid) when another
// forgesync process holds the state folder; its kind is [errkind.Busy].
var ErrLocked = errkind.New(errkind.Busy, "state folder is in use by another forgesync process")

// Store is the pack store in the state folder: which packs are installed,
// their versions, archives, content and enabled flags, written atomically,
// and the cross-process lock that lets one writer (daemon or CLI) change it
// at a time. It keeps manifests as opaque JSON: validating them is the
// catalog's job.
type Store struct {
	Dir  string
	lock *filelock.Lock
}

// State is the content of the store's packs.json.
type State struct {
	Format  string       `json:"format"`
	Version int          `json:"version"`
	Packs   []PackRecord `json:"packs"`
	// PendingRemovals are content files (slash paths relative to the paks
	// folder) of removed or replaced packs, deleted once the inventory that
	// no longer names them is published.
	PendingRemovals []string `json:"pending_removals,omitempty"`
	// PendingArchives are kept archives (names under archives/) of
	// replaced or removed packs, deleted at the same time.
	PendingArchives []string `json:"pending_archives,omitempty"`
	// PendingManifests are stored manifests (names under manifests/) of
	// replaced or removed packs, deleted at the same time.
	PendingManifests []string `json:"pending_manifests,omitempty"`
	// Inventory holds the SHA-256 of each inventory file as last published
	// from exactly this state; empty when the state changed since. When the
	// files on disk still match, nothing needs rendering.
	Inventory map[string]string `json:"inventory_sha256,omitempty"`
	// Generations are the kept generations (SPEC §11), oldest first.
	Generations Generations `json:"generations,omitempty"`
	// PendingSet is a set apply or rollback whose archives are all in the
	// store and whose checks passed, but whose records are not yet
	// committed: the next start rolls it forward.
	PendingSet *PendingSet `json:"pending_set,omitempty"`
	// Profiles are the named sets kept on the machine (SPEC §12), own
	// among them once it was ever recorded; each keeps its archives.
	Profiles []Profile `json:"profiles,omitempty"`
	// Profile is the name of the current profile; "" is [OwnProfile].
	Profile string `json:"profile,omitempty"`
}

// PackRecord is one installed pack.
type PackRecord struct {
	ID            string    `json:"id"`
	Version       string    `json:"version"`
	Enabled       bool      `json:"enabled"`
	ArchiveSHA256 string    `json:"archive_sha256"`
	Archive       string    `json:"archive"` // file name under archives/
	InstalledAt   time.Time `json:"installed_at"`
	// Content lists the files placed in the paks folder, slash paths
	// relative to it (MJOLNIRForge/<id>/…).
	Content []string `json:"content,omitempty"`
	// Manifest is the file under manifests/ holding the normalized
	// manifest; named by content, so it is never rewritten.
	Manifest string `json:"manifest"`
}

// Find returns the record of pack id, or nil.
func (st *State) Find(id string) *PackRecord {
	for i := range st.Packs {
		if st.Packs[i].ID == id {
			return &st.Packs[i]
		}
	}
	return nil
}

// Pending reports whether a committed change still has files to delete.
func (st *State) Pending() bool {
	return len(st.PendingRemovals)+len(st.PendingArchives)+len(st.PendingManifests) > 0
}

// Open creates the store's folders under dir if needed and takes the
// cross-process lock, waiting for another holder to let go until ctx ends
// (give it the wait as a deadline). It fails with ErrLocked naming the
// holder's pid when ctx ends first.
func Open(ctx context.Context, dir string) (*Store, error) {
	if !filepath.IsAbs(dir) {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		dir = abs
	}
	for _, d := range []string{dir, filepath.Join(dir, ProcessingDir), filepath.Join(dir, ArchivesDir), filepath.Join(dir, StagingDir), filepath.Join(dir, ManifestsDir), filepath.Join(dir, IncomingDir)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
	}
	lock, err := filelock.Acquire(ctx, filepath.Join(dir, lockFileName), nil)
	if errors.Is(err, filelock.ErrHeld) {
		return nil, fmt.Errorf("%s (%s, held by pid %s); wait for it to finish, or use the daemon's socket: %w",
			dir, lockFileName, readHolder(filepath.Join(dir, lockFileName)), ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	// Record who holds the lock, for the message another process shows.
	if f := lock.File(); f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Store{Dir: dir, lock: lock}, nil
}

// OpenRead takes the state folder's lock shared, for a reader that
// changes nothing (`status` without a daemon): readers share it, and wait
// for a writer that holds it until ctx ends, failing with ErrLocked as
// Open does. It creates nothing: a state folder without its lock file has
// never been written, so there is nothing a writer could be changing, and
// it returns the store unlocked.
func OpenRead(ctx context.Context, dir string) (*Store, error) {
	path := filepath.Join(dir, lockFileName)
	lock, err := filelock.AcquireShared(ctx, path, nil)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Store{Dir: dir}, nil
	case errors.Is(err, filelock.ErrHeld):
		return nil, fmt.Errorf("%s (%s, held by pid %s); wait for it to finish, or use the daemon's socket: %w",
			dir, lockFileName, readHolder(path), ErrLocked)
	case err != nil:
		return nil, fmt.Errorf("open store: %w", err)
	}
	return &Store{Dir: dir, lock: lock}, nil
}

func readHolder(path string) string {
	data, err := atomicfile.ReadFile(path, maxHolderBytes)
	if err != nil || strings.TrimSpace(string(data)) == "" {
		return "unknown"
	}
	return strings.TrimSpace(string(data))
}

// Close releases the lock.
func (s *Store) Close() error {
	if s.lock == nil {
		return nil
	}
	err := s.lock.Unlock()
	s.lock = nil
	return err
}

// Path returns a path inside the store.
func (s *Store) Path(elem ...string) string {
	return filepath.Join(append([]string{s.Dir}, elem...)...)
}

// ErrStateRefused is matched (errors.Is) by every *StateError: the state
// file cannot be trusted, and nothing was changed.
var ErrStateRefused = errors.New("store: state refused")

// stateError is returned by Load for a state file it will not act on: the
// problem found, and the one step that recovers without losing a pack.
type stateError struct {
	Path    string // packs.json
	Problem string // what is wrong, in plain words
	Step    string // the safe recovery step
}

func (e *stateError) Error() string {
	return "load state " + e.Path + ": " + e.Problem + "; nothing was changed. " + e.Step
}

// Is reports whether target is ErrStateRefused.
func (e *stateError) Is(target error) bool { return target == ErrStateRefused }

// Load reads the state; a store never written holds no packs. It acts on
// nothing it reads: a file that is damaged, of another format or version,
// holds null packs or a pack twice, or names a stored manifest that is not
// there (an older copy put back) is refused with a *StateError, before
// anything is deleted or processed again.
func (s *Store) Load() (*State, error) {
	path := s.Path(stateFile)
	data, err := atomicfile.Renamer{}.ReadLimited(path, MaxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return &State{Format: stateFormat, Version: stateVersion, Packs: []PackRecord{}}, nil
	}
	var st *State
	var problem string
	switch {
	case errors.Is(err, atomicfile.ErrNotRegular) || errors.Is(err, atomicfile.ErrTooLarge):
		problem = err.Error()
	case err != nil:
		return nil, fmt.Errorf("load state: %w", err)
	default:
		st, problem = decodeState(data)
	}
	if problem == "" {
		if problem, err = s.checkFiles(st); err != nil {
			return nil, err
		}
	}
	if problem == "" {
		return st, nil
	}
	step := s.startAgainStep()
	if st != nil && st.Version > stateVersion && st.Format == stateFormat {
		step = "It was written by a newer forgesync: run that version again, and leave the file as it is"
	}
	return nil, &stateError{Path: path, Problem: problem, Step: step}
}

// upgradeState turns packs.json of an older version into the bytes of
// the next one, step by step, until it is [stateVersion], or says why it
// cannot. Version 1 is the first this format had: an upgrade from a
// version before it is refused, as no forgesync wrote one. A change to the
// file's shape raises StateVersion and adds its step here, so that a state
// folder written by any release keeps opening.
func upgradeState(version int, data []byte) ([]byte, string) {
	for version < stateVersion {
		switch version {
		default:
			return nil, fmt.Sprintf("version %d is not a version of %s", version, stateFormat)
		}
	}
	return data, ""
}

// startAgainStep is the safe step for a state that cannot be trusted:
// installing the last generation's packs again from the kept archives.
func (s *Store) startAgainStep() string {
	path := s.Path(stateFile)
	return fmt.Sprintf("To start again from the kept archives, rename %s to %s.damaged and start forgesync again: "+
		"it installs again the packs of the last generation from %s, each enabled or disabled as it was "+
		"(the copy of the generations, %s, says which; without it every kept archive, each one enabled). "+
		"Do not put back an older copy of %s: it names archives and manifests that later changes removed",
		path, stateFile, s.Path(ArchivesDir), GenerationsFile, stateFile)
}

// ManifestRefused returns the *StateError of the stored manifest name of
// pack id, which the state names but which cannot be read or decoded:
// problem says why. Its step is the one of a damaged state file: the
// manifests no state names are removed, and each pack installed again
// stores its own.
func (s *Store) ManifestRefused(name, id, problem string) error {
	return &stateError{Path: s.Path(ManifestsDir, name), Problem: "the stored manifest of " + id + " is damaged (" + problem + ")", Step: s.startAgainStep()}
}

// decodeState decodes packs.json strictly and says what is wrong with it,
// or "". A file of this format is read at its own version first: a newer
// one is refused by name before its fields are judged, an older one is
// upgraded to [stateVersion] before it is decoded.
func decodeState(data []byte) (*State, string) {
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if json.Unmarshal(data, &head) == nil && head.Format == stateFormat && head.Version != stateVersion {
		if head.Version > stateVersion {
			return &State{Format: head.Format, Version: head.Version},
				fmt.Sprintf("version %d is newer than this forgesync reads (%d)", head.Version, stateVersion)
		}
		up, problem := upgradeState(head.Version, data)
		if problem != "" {
			return &State{Format: head.Format, Version: head.Version}, problem
		}
		data = up
	}
	var st State
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Sprintf("the file is damaged (%v)", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, "the file is damaged (data after its end)"
	}
	if key := duplicateKey(data); key != "" {
		return nil, fmt.Sprintf("the file is damaged (key %q twice in one object)", key)
	}
	switch {
	case st.Format != stateFormat:
		return &st, fmt.Sprintf("format %q is not %q", st.Format, stateFormat)
	case st.Version > stateVersion:
		return &st, fmt.Sprintf("version %d is newer than this forgesync reads (%d)", st.Version, stateVersion)
	case st.Version != stateVersion:
		return &st, fmt.Sprintf("version %d is not a version of %s", st.Version, stateFormat)
	case st.Packs == nil:
		return &st, `"packs" is missing or null`
	}
	seen := map[string]int{}
	for i, r := range st.Packs {
		if r.ID == "" || r.Version == "" {
			return &st, fmt.Sprintf("record %d has no pack id or version", i)
		}
		if j, ok := seen[r.ID]; ok {
			return &st, fmt.Sprintf("pack %s is recorded twice (records %d and %d)", r.ID, j, i)
		}
		seen[r.ID] = i
		if !plainName(r.Archive) || !plainName(r.Manifest) {
			return &st, fmt.Sprintf("record %d (%s) names archive %q and manifest %q; each must be a plain file name", i, r.ID, r.Archive, r.Manifest)
		}
	}
	for _, names := range [][]string{st.PendingArchives, st.PendingManifests} {
		for _, n := range names {
			if !plainName(n) {
				return &st, fmt.Sprintf("pending file %q is not a plain file name", n)
			}
		}
	}
	if problem := checkProfiles(&st); problem != "" {
		return &st, problem
	}
	return &st, ""
}

// duplicateKey returns a key that appears twice in one object of the JSON
// document data (which decodes), or "": encoding/json keeps the last.
func duplicateKey(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys   map[string]bool
		object bool
		key    bool // the next token is a key
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		top := len(stack) - 1
		if top >= 0 && stack[top].object && stack[top].key {
			if k, ok := tok.(string); ok {
				if stack[top].keys[k] {
					return k
				}
				stack[top].keys[k] = true
				stack[top].key = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{keys: map[string]bool{}, object: true, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:top]
		}
		// A value ended: in an object, a key comes next.
		if n := len(stack) - 1; n >= 0 && stack[n].object {
			stack[n].key = true
		}
	}
}

// plainName reports whether name is one file name, with no folder.
func plainName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\:`) && filepath.Base(name) == name
}

// checkFiles says which stored manifest a record names is missing, or ""
// (the error is for one it cannot look at). A state written by this store
// never names a missing one: a manifest is written before the state that
// names it, and deleted only after a state that does not. So a missing one
// means an older copy of the file.
func (s *Store) checkFiles(st *State) (string, error) {
	for _, r := range st.Packs {
		_, err := os.Stat(s.Path(ManifestsDir, r.Manifest))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("it names the stored manifest %s of %s %s, which is not in %s: this copy of the file is older than the state folder (put back from a backup)",
				r.Manifest, r.ID, r.Version, s.Path(ManifestsDir)), nil
		}
		if err != nil {
			return "", fmt.Errorf("load state: stored manifest of %s %s: %w", r.ID, r.Version, err)
		}
	}
	return "", nil
}

// Save replaces the state atomically.
func (s *Store) Save(st *State) error { return s.save(st, atomicfile.FlushAll) }

// SaveLazily writes the state as Save does, flushing the file but not its
// folder: after a power loss the state may be the one saved before it,
// whole. It is for a state that only records what was done after the
// last Save (the inventory published, replaced files removed), which the
// state before it makes the next pass do again.
func (s *Store) SaveLazily(st *State) error { return s.save(st, atomicfile.FlushFile) }

func (s *Store) save(st *State, flush atomicfile.Flush) error {
	st.Format, st.Version = stateFormat, stateVersion
	if st.Packs == nil {
		st.Packs = []PackRecord{} // Load refuses null packs
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	if err := atomicfile.WriteFlushed(s.Path(stateFile), append(data, '\n'), 0o600, flush); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	return nil
}

// WriteManifest stores a normalized manifest under manifests/ and returns
// its file name, which is derived from the bytes: the same manifest is
// stored once, and a stored file never changes.
func (s *Store) WriteManifest(id string, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	name := id + "-" + hex.EncodeToString(sum[:8]) + ".json"
	path := s.Path(ManifestsDir, name)
	if _, err := os.Stat(path); err == nil {
		return name, nil
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("store manifest of %s: %w", id, err)
	}
	return name, nil
}

// ReadManifest reads a stored manifest.
func (s *Store) ReadManifest(name string) ([]byte, error) {
	data, err := atomicfile.Renamer{}.ReadLimited(s.Path(ManifestsDir, name), maxStoredManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("read stored manifest: %w", err)
	}
	return data, nil
}

// RemoveManifest deletes a stored manifest; the caller has written a state
// that names it no more.
func (s *Store) RemoveManifest(name string) error {
	if !plainName(name) {
		return fmt.Errorf("remove stored manifest %q: not a plain file name", name)
	}
	if err := os.Remove(s.Path(ManifestsDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stored manifest: %w", err)
	}
	return nil
}
