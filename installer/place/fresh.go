package place

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/samepath"
)

// folderMove is a new pack's content/ folder moved whole to its pack
// folder: from, the staged folder it was; to, the pack folder; files and
// folders, what it holds (to among the folders, as "."), slash paths
// relative to to.
type folderMove struct {
	from, to       string
	files, folders map[string]bool
}

// moveFresh places a new pack's content with one rename of the staged
// content/ folder to <paks>/MJOLNIRForge/<packID>, when it can, and
// reports whether it did. It can when nothing stands at the pack folder
// (under any spelling: Lstat on a case-insensitive volume finds another),
// the staged folder holds exactly the listed content files and the
// folders on their way (a staged folder may hold an empty folder the
// archive listed, which the per-file path would not place), and the
// rename succeeds: it refuses to replace a folder made meanwhile, and
// fails across volumes or when a staged file is held (Windows). Otherwise
// nothing has moved and the caller places file by file, which copies
// across volumes and waits for a held file. The staged folders are made
// 0755 first, the mode the per-file path makes a pack's folders with; the
// files keep their mode, as a file moved does ([intake.Staged] files are
// 0644). Once moved, the folders are flushed as the per-file path
// flushes them; an error then is for Place to undo.
func (pl *Placement) moveFresh(stagedRoot string, files []intake.File, packID string) (bool, error) {
	want, folders := freshLayout(files)
	if len(want) == 0 {
		return false, nil
	}
	root := path.Join(ContentRoot, packID)
	src, dst := filepath.Join(stagedRoot, "content"), filepath.Join(pl.paks, filepath.FromSlash(root))
	if atomicfile.MkdirNoLinks(pl.paks, ContentRoot, 0o755) != nil {
		return false, nil // the per-file path says what is wrong
	}
	if _, err := os.Lstat(dst); !errors.Is(err, fs.ErrNotExist) || samepath.Overlap(src, dst) {
		return false, nil
	}
	if !stagedExactly(src, want, folders) || readableFolders(src, folders) != nil {
		return false, nil
	}
	if pl.r.MoveFolder(src, dst) != nil {
		return false, nil // nothing moved: a folder made meanwhile, another volume, a held file
	}
	pl.moved = &folderMove{from: src, to: dst, files: want, folders: folders}
	for f := range folders {
		pl.dirs = append(pl.dirs, filepath.Join(dst, filepath.FromSlash(f)))
	}
	pl.dirs = append(pl.dirs, filepath.Dir(dst))
	// In the listing's order, which is sorted (the sort is then one pass).
	pl.Paths = make([]string, 0, len(want))
	for _, f := range files {
		if rel, ok := strings.CutPrefix(f.Path, "content/"); ok {
			pl.Paths = append(pl.Paths, root+"/"+rel)
		}
	}
	slices.Sort(pl.Paths)
	return true, pl.sync()
}

// freshLayout returns the content files of a listing (slash paths
// relative to content/) and the folders on their way ("." for content/
// itself).
func freshLayout(files []intake.File) (want, folders map[string]bool) {
	want, folders = make(map[string]bool, len(files)), map[string]bool{}
	for _, f := range files {
		rel, ok := strings.CutPrefix(f.Path, "content/")
		if !ok {
			continue
		}
		want[rel] = true
		for d := path.Dir(rel); !folders[d]; d = path.Dir(d) {
			folders[d] = true
			if d == "." {
				break
			}
		}
	}
	return want, folders
}

// stagedExactly reports whether the folder src holds exactly the files
// want and the folders on their way, each a regular file or a real folder
// (no link), and nothing else.
func stagedExactly(src string, want, folders map[string]bool) bool {
	found := 0
	var walk func(dir, rel string) bool
	walk = func(dir, rel string) bool {
		if !folders[rel] {
			return false // a folder no listed file is in
		}
		f, err := os.Open(dir)
		if err != nil {
			return false
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return false
		}
		for _, e := range entries {
			r := e.Name()
			if rel != "." {
				r = rel + "/" + r
			}
			switch {
			case e.Type().IsDir():
				if !walk(filepath.Join(dir, e.Name()), r) {
					return false
				}
			case e.Type().IsRegular() && want[r]:
				found++
			default:
				return false
			}
		}
		return true
	}
	return walk(src, ".") && found == len(want)
}

// readableFolders makes the staged folders (private, 0700, in staging)
// 0755, as the per-file path makes a pack's folders: a game running as
// another user must list them.
func readableFolders(src string, folders map[string]bool) error {
	for f := range folders {
		if err := os.Chmod(filepath.Join(src, filepath.FromSlash(f)), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// undoMove moves the pack folder back to where it was staged, waiting out
// a file held for a moment with r's retry, when it holds exactly what was
// moved. When it cannot (a set apply removed its staging once placed) or
// should not (something else was put in it meanwhile, which a move would
// take to staging and its removal), it removes exactly the files it
// placed and then the folders it brought that are empty: one that holds
// anything else stays.
func (pl *Placement) undoMove(r atomicfile.Renamer) error {
	m := pl.moved
	pl.moved = nil
	pl.dirs = []string{filepath.Dir(m.to)}
	if stagedExactly(m.to, m.files, m.folders) &&
		r.Retry("move back", m.to, func() error { return r.MoveFolder(m.to, m.from) }) == nil {
		return nil
	}
	var errs []error
	for _, p := range pl.Paths {
		full := filepath.Join(pl.paks, filepath.FromSlash(p))
		if err := r.Remove(full); err != nil {
			errs = append(errs, fmt.Errorf("remove %s: %w", full, err))
		}
	}
	// Deepest first, the pack folder last.
	folders := slices.Collect(maps.Keys(m.folders))
	slices.SortFunc(folders, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	if i := slices.Index(folders, "."); i >= 0 {
		folders = append(slices.Delete(folders, i, i+1), ".")
	}
	for _, f := range folders {
		os.Remove(filepath.Join(m.to, filepath.FromSlash(f)))
	}
	return errors.Join(errs...)
}
