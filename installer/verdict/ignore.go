package verdict

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// ignoreName is the file in a pack folder that lists, in gitignore
// syntax, more files for `forgesync scan DIR` and `forgesync pack` to
// leave out.
const ignoreName = ".forgeignore"

// ignored are the version-control, editor and OS files a pack folder may
// hold that are never part of the pack: scan and pack leave them out as
// if absent. They are gitignore patterns, matched before the folder's
// .forgeignore, which may therefore re-include one with "!".
// The files a Mac or Windows adds are the names an archive's unpacking
// ignores too (intake.OSAdded).
var ignored = append([]string{
	".git", // a folder, or the file naming one in a worktree or submodule
	".github/",
	".gitignore",
	".gitattributes",
	".vscode/",
	".idea/",
	ignoreName,
}, intake.OSAdded...)

// ignorer matches the entries of one pack folder that scan and pack leave
// out: [ignored], the folder's .forgeignore, and the files named in also
// (paths on disk, such as the archive pack is writing).
type ignorer struct {
	m    gitignore.Matcher
	also map[string]bool // absolute, cleaned
	dir  string
}

// maxIgnoreBytes bounds a .forgeignore: a list of patterns a person wrote.
const maxIgnoreBytes = 1 << 20

// newIgnorer reads dir's .forgeignore, if there is one.
func newIgnorer(dir string, also ...string) (*ignorer, error) {
	var ps []gitignore.Pattern
	for _, p := range ignored {
		ps = append(ps, gitignore.ParsePattern(p, nil))
	}
	// A regular file of a bounded size: a FIFO or a device in its place is
	// refused at once, never waited on or read without end.
	data, err := atomicfile.ReadFile(filepath.Join(dir, ignoreName), maxIgnoreBytes)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, ignoreName), err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, nil))
	}
	ig := &ignorer{m: gitignore.NewMatcher(ps), also: map[string]bool{}, dir: dir}
	for _, a := range also {
		if abs, err := filepath.Abs(a); err == nil {
			ig.also[abs] = true
		}
	}
	return ig, nil
}

// skip reports whether the entry name (slash-separated, relative to the
// folder) is left out.
func (ig *ignorer) skip(name string, isDir bool) bool {
	if ig.m.Match(strings.Split(name, "/"), isDir) {
		return true
	}
	if len(ig.also) > 0 && !isDir {
		if abs, err := filepath.Abs(filepath.Join(ig.dir, filepath.FromSlash(name))); err == nil && ig.also[abs] {
			return true
		}
	}
	return false
}
