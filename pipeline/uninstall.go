package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/installer/place"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/render"
)

// Uninstalled is what [Uninstall] did in the game's folders: what it
// removed, and what it kept and why. It removes no folder forgesync may
// not have made (see [GameFolders]): the caller does.
type Uninstalled struct {
	Removed []string
	Kept    []string // "PATH: why"
}

// Dropped lists the archives the player dropped that are still in drop:
// waiting to be installed, or rejected (under drop/rejected/). They are
// the player's files: [Uninstall] keeps them unless told otherwise.
func Dropped(drop string) ([]string, error) {
	var out []string
	for _, dir := range []string{drop, filepath.Join(drop, rejectedDir)} {
		names, err := readyArchives(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if dir != drop && strings.HasSuffix(n, ".txt") && exists(filepath.Join(dir, strings.TrimSuffix(n, ".txt"))) {
				continue // forgesync's note on a rejected archive
			}
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out, nil
}

// Uninstall removes, under the state's lock, what forgesync put into the
// game's folders: every installed pack's content (a file the player put
// into a pack's folder stays, named), the deployed Lua scripts and native
// module with its version file (as deployed.json records them, each only
// while it holds the bytes forgesync wrote), the four inventory files
// (while they hold what forgesync published), and in drop forgesync's
// notes beside rejected archives and its copies under drop/.install/.
// The archives the player dropped (see [Dropped]) are kept unless
// deleteDropped. The state folder itself is the caller's to remove. It
// refuses a state it cannot read, changing nothing.
func Uninstall(ctx context.Context, opts Options, deleteDropped bool) (*Uninstalled, error) {
	if _, err := os.Stat(opts.State); errors.Is(err, fs.ErrNotExist) {
		u := &Uninstalled{} // nothing was ever installed; make no state to find that out
		return u, u.drop(opts.Drop, deleteDropped)
	}
	wctx, cancel := context.WithTimeout(ctx, opts.LockWait)
	s, err := store.Open(wctx, opts.State)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("uninstall: %w", err)
	}
	defer s.Close()
	st, err := s.Load()
	if err != nil {
		return nil, fmt.Errorf("uninstall: %w", err)
	}
	packs, err := decodePacks(s, st)
	if err != nil {
		return nil, fmt.Errorf("uninstall: %w", err)
	}
	u := &Uninstalled{}
	if err := u.content(opts.Paks, st); err != nil {
		return u, err
	}
	dep, err := deploy.Undeploy(opts.State)
	u.Removed, u.Kept = append(u.Removed, dep.Removed...), append(u.Kept, dep.Kept...)
	if err != nil {
		return u, fmt.Errorf("uninstall: %w", err)
	}
	if err := u.inventory(InventoryDir(opts.Mods), st, packs); err != nil {
		return u, err
	}
	if err := u.drop(opts.Drop, deleteDropped); err != nil {
		return u, err
	}
	return u, nil
}

// content removes every pack's content files and its folder when nothing
// else is left in it; what is left is named as kept.
func (u *Uninstalled) content(paks string, st *store.State) error {
	var paths []string
	ids := map[string]bool{}
	for _, r := range st.Packs {
		paths = append(paths, r.Content...)
		ids[r.ID] = true
	}
	paths = append(paths, st.PendingRemovals...)
	for _, p := range st.PendingRemovals {
		ids[contentID(p)] = true
	}
	var there []string
	for _, p := range paths {
		if exists(filepath.Join(paks, filepath.FromSlash(p))) {
			there = append(there, filepath.Join(paks, filepath.FromSlash(p)))
		}
	}
	left, err := place.RemoveContentLeftover(atomicfile.Renamer{}, paks, paths, nil)
	if err != nil {
		return fmt.Errorf("uninstall: %w (still there: %s; close the game and run uninstall again)", err, strings.Join(left, ", "))
	}
	for _, p := range there {
		if !exists(p) {
			u.Removed = append(u.Removed, p)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		if id == "." || id == "" || !filepath.IsLocal(id) {
			continue
		}
		dir := filepath.Join(paks, place.ContentRoot, id)
		u.keepLeft(dir, "not placed by forgesync")
		if os.Remove(dir) == nil { // only when empty
			u.Removed = append(u.Removed, dir)
		}
	}
	return nil
}

// keepLeft names every file left under dir as kept, for why.
func (u *Uninstalled) keepLeft(dir, why string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			u.Kept = append(u.Kept, p+": "+why)
		}
		return nil
	})
}

// inventory removes the inventory files that hold what forgesync
// published: the bytes the state recorded, or those it renders now.
func (u *Uninstalled) inventory(dir string, st *store.State, packs []inventory.InstalledPack) error {
	want := map[string][]string{}
	for name, sum := range st.Inventory {
		want[name] = append(want[name], sum)
	}
	if r, err := renderInventory(packs); err == nil {
		for name, sum := range r.hashes {
			want[name] = append(want[name], sum)
		}
	}
	for _, name := range render.Names() {
		p := filepath.Join(dir, name)
		data, err := atomicfile.ReadFile(p, store.MaxStateBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			u.Kept = append(u.Kept, p+": "+err.Error())
			continue
		}
		s := sha256.Sum256(data)
		if !slices.Contains(want[name], hex.EncodeToString(s[:])) {
			u.Kept = append(u.Kept, p+": changed since forgesync published it")
			continue
		}
		if err := (atomicfile.Renamer{}).Remove(p); err != nil {
			return fmt.Errorf("uninstall: %w (close the game and run uninstall again)", err)
		}
		u.Removed = append(u.Removed, p)
	}
	return nil
}

// drop removes forgesync's files in the drop folder (the notes beside
// rejected archives, the copies under .install/) and, with
// deleteDropped, the player's archives; it keeps and names the rest.
func (u *Uninstalled) drop(drop string, deleteDropped bool) error {
	dropped, err := Dropped(drop)
	if err != nil {
		return fmt.Errorf("uninstall: %w", err)
	}
	rejected := filepath.Join(drop, rejectedDir)
	var remove []string
	for _, a := range dropped {
		if filepath.Dir(a) == rejected {
			remove = append(remove, a+".txt") // forgesync's note
		}
		if deleteDropped {
			remove = append(remove, a)
		} else {
			u.Kept = append(u.Kept, a+": an archive you dropped (uninstall --delete-dropped deletes it)")
		}
	}
	entries, _ := os.ReadDir(filepath.Join(drop, InstallDir))
	for _, e := range entries {
		if e.Type().IsRegular() {
			remove = append(remove, filepath.Join(drop, InstallDir, e.Name()))
		}
	}
	for _, p := range remove {
		if !exists(p) {
			continue
		}
		if err := (atomicfile.Renamer{}).Remove(p); err != nil {
			return fmt.Errorf("uninstall: %w", err)
		}
		u.Removed = append(u.Removed, p)
	}
	for _, d := range []string{filepath.Join(drop, InstallDir), rejected} {
		if err := os.Remove(d); err == nil {
			u.Removed = append(u.Removed, d)
		} else if exists(d) {
			u.keepLeft(d, "not forgesync's")
		}
	}
	return nil
}

// exists reports whether something is at p.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// contentID returns the pack id of a content path MJOLNIRForge/<id>/….
func contentID(p string) string {
	rest, _ := strings.CutPrefix(p, place.ContentRoot+"/")
	id, _, _ := strings.Cut(rest, "/")
	return path.Clean(id)
}

// GameFolders returns the folders forgesync may make in the game's
// folders as it installs and deploys, outermost first: the content root
// under paks, the inventory folder, and every folder it deploys into
// with the parents it would make, up to the mods folder. Setup records
// which of them are missing, so that uninstall removes exactly those.
func GameFolders(opts Options) []string {
	out := []string{filepath.Join(opts.Paks, place.ContentRoot), InventoryDir(opts.Mods)}
	for _, d := range deploy.Folders(opts.State, deploy.LuaScripts(opts.Mods), nativeDeploymentOf(opts.Mods)) {
		var chain []string
		for ; d != opts.Mods && filepath.Dir(d) != d && strings.HasPrefix(d, opts.Mods+string(filepath.Separator)); d = filepath.Dir(d) {
			chain = append([]string{d}, chain...)
		}
		for _, c := range chain {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}
