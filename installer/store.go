package installer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
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

// StateFormat names the pack store's file format.
const StateFormat = "forgesync-state"

// ErrLocked is returned (wrapped, with the holder's pid) when another
// forgesync process holds the state folder.
var ErrLocked = errors.New("state folder is in use by another forgesync process")

// Store is the pack store in the state folder: which packs are installed,
// their versions, archives, content and enabled flags, written atomically,
// and the cross-process lock that lets one writer (daemon or CLI) change it
// at a time. It keeps manifests as opaque JSON: validating them is the
// catalog's job.
type Store struct {
	Dir  string
	lock *os.File
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
	// Inventory holds the SHA-256 of each inventory file as last published
	// from exactly this state; empty when the state changed since. When the
	// files on disk still match, nothing needs rendering.
	Inventory map[string]string `json:"inventory_sha256,omitempty"`
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

// OpenStore creates the store's folders under dir if needed and takes the
// cross-process lock, waiting up to wait for another holder to let go. It
// fails with ErrLocked naming the holder's pid when the wait runs out.
func OpenStore(dir string, wait time.Duration) (*Store, error) {
	if !filepath.IsAbs(dir) {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		dir = abs
	}
	for _, d := range []string{dir, filepath.Join(dir, ProcessingDir), filepath.Join(dir, ArchivesDir), filepath.Join(dir, StagingDir), filepath.Join(dir, ManifestsDir)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFileName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open store lock: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		err = lockFile(f)
		if err == nil {
			break
		}
		if !errors.Is(err, errWouldBlock) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if time.Now().After(deadline) {
			holder := readHolder(filepath.Join(dir, lockFileName))
			f.Close()
			return nil, fmt.Errorf("%s (%s, held by pid %s); wait for it to finish, or use the daemon's socket: %w",
				dir, lockFileName, holder, ErrLocked)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Record who holds the lock, for the message another process shows.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Store{Dir: dir, lock: f}, nil
}

func readHolder(path string) string {
	data, err := os.ReadFile(path)
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
	unlockFile(s.lock)
	err := s.lock.Close()
	s.lock = nil
	return err
}

// Path returns a path inside the store.
func (s *Store) Path(elem ...string) string {
	return filepath.Join(append([]string{s.Dir}, elem...)...)
}

// Load reads the state; a store never written holds no packs.
func (s *Store) Load() (*State, error) {
	data, err := os.ReadFile(s.Path(stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return &State{Format: StateFormat, Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load state: %w", err)
	}
	var st State
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("load state %s: %w (the file is damaged; restore it from a backup, or move it away to start over)", s.Path(stateFile), err)
	}
	if st.Format != StateFormat || st.Version != 1 {
		return nil, fmt.Errorf("load state %s: format %q version %d is not %s 1", s.Path(stateFile), st.Format, st.Version, StateFormat)
	}
	return &st, nil
}

// Save replaces the state atomically.
func (s *Store) Save(st *State) error {
	st.Format, st.Version = StateFormat, 1
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	if err := atomicfile.WriteFile(s.Path(stateFile), append(data, '\n'), 0o600); err != nil {
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
	data, err := os.ReadFile(s.Path(ManifestsDir, name))
	if err != nil {
		return nil, fmt.Errorf("read stored manifest: %w", err)
	}
	return data, nil
}

// CleanManifests removes stored manifests no record names, as a crash
// between storing one and committing the state leaves.
func (s *Store) CleanManifests(st *State) error {
	keep := map[string]bool{}
	for _, r := range st.Packs {
		keep[r.Manifest] = true
	}
	entries, err := os.ReadDir(s.Path(ManifestsDir))
	if err != nil {
		return fmt.Errorf("clean manifests: %w", err)
	}
	for _, e := range entries {
		if !keep[e.Name()] {
			if err := os.Remove(s.Path(ManifestsDir, e.Name())); err != nil {
				return fmt.Errorf("clean manifests: %w", err)
			}
		}
	}
	return nil
}
