// Package verdict owns the verdict on one pack: the file rules of SPEC §2,
// the manifest rules of SPEC §3 and the surface-asset check of SPEC §5,
// applied together and in the same way whether `forgesync scan` reads a
// folder or an archive, `forgesync pack` builds one, or the daemon installs
// one. It decides validity; it installs nothing.
package verdict

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// Rules this package adds to those of intake and inventory.
const (
	RuleMissingPackage = "missing-package" // a surface profile's cooked package is absent
	RuleBadTOC         = "bad-toc"         // a .utoc under content/ cannot be read
)

// PackRef names a pack by id and version, as far as they could be read.
type PackRef struct {
	ID      string `json:"id"`
	Version string `json:"version"`
}

// Report is the verdict on one pack.
type Report struct {
	Source   string              `json:"source"` // the folder or archive checked
	Valid    bool                `json:"valid"`
	Pack     PackRef             `json:"pack"`
	Manifest *inventory.Manifest `json:"-"` // set when the manifest is valid
	Problems []rejection.Reason  `json:"errors"`
	// Notes say what was left out without judging it: the files a Mac or
	// Windows adds to an archive (see intake.OSAdded).
	Notes []string `json:"notes,omitempty"`
	// Files are the pack's files relative to its root, as they would be
	// installed or packed; set when the file rules pass.
	Files []intake.File `json:"-"`
	// Root is the pack root on disk (the folder holding forgepack.json).
	Root string `json:"-"`
	// Archive is the zip [Pack] wrote.
	Archive string `json:"-"`
}

// finish sets the verdict and puts the problems in file, then line and
// column order, whatever order the checks found them in.
func (r *Report) finish() *Report {
	r.Valid = len(r.Problems) == 0 && r.Manifest != nil
	slices.SortStableFunc(r.Problems, func(a, b rejection.Reason) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	if r.Problems == nil {
		r.Problems = []rejection.Reason{}
	}
	return r
}

// checkDir checks the pack folder dir, leaving out the files [ignored] and
// those dir's .forgeignore names. The error is only for a folder that
// cannot be read; an invalid pack is a Report with Valid false.
func checkDir(dir string, lim intake.Limits) (*Report, error) {
	return dirSkipping(dir, lim)
}

// dirSkipping is [dir] leaving out the files named in also too (paths
// on disk).
func dirSkipping(dir string, lim intake.Limits, also ...string) (*Report, error) {
	ig, err := newIgnorer(dir, also...)
	if err != nil {
		return nil, err
	}
	listing, err := intake.ListPack(dir, lim, ig.skip)
	if err != nil {
		return nil, err
	}
	r := &Report{Source: dir, Root: listing.Root}
	for _, p := range listing.Problems {
		r.Problems = append(r.Problems, fromInstaller(p))
	}
	if len(listing.Problems) == 0 {
		r.Files = listing.Files
	}
	prefix := ""
	if rel, err := filepath.Rel(dir, listing.Root); err == nil && rel != "." {
		prefix = filepath.ToSlash(rel) + "/"
	}
	if err := r.checkRoot(prefix); err != nil {
		return nil, err
	}
	return r.finish(), nil
}

// Archive checks a pack archive by extracting it with x, with every limit,
// into a private folder under stagingParent. When the pack is valid it returns the
// staged pack too, for the caller to install and then Remove; otherwise the
// staging folder is already gone. The error is only for an archive that
// cannot be read (missing, unreadable, cancelled); a rejected archive is a
// Report with Valid false.
func Archive(ctx context.Context, x *intake.Extractor, archivePath, stagingParent string, lim intake.Limits, progress func(done, total int64)) (*Report, *intake.Staged, error) {
	r := &Report{Source: archivePath}
	staged, err := x.Extract(ctx, archivePath, stagingParent, lim, progress)
	if err != nil {
		var re *intake.RejectError
		if !errors.As(err, &re) {
			return nil, nil, err
		}
		r.note(intake.IgnoredNote(re.Ignored))
		bomb := false
		for _, p := range re.Problems {
			r.Problems = append(r.Problems, fromInstaller(p))
			bomb = bomb || intake.SizeProblem(p)
		}
		if !bomb {
			// Rejected for its files alone: the manifest's faults are
			// reported too, as a scan of the same folder would.
			if re.Manifest != nil {
				r.checkManifest(re.Manifest, "")
			}
		}
		return r.finish(), nil, nil
	}
	r.Root, r.Files = staged.Root, staged.Files
	r.note(intake.IgnoredNote(staged.Ignored))
	if err := r.checkRoot(""); err != nil {
		staged.Remove()
		return nil, nil, err
	}
	r.finish()
	if !r.Valid {
		staged.Remove()
		return r, nil, nil
	}
	return r, staged, nil
}

// NotArchive returns the report of the file at path when it is in no
// pack format at all (see [intake.NotArchive]): the one [Archive] gives
// such a file, judged from its first bytes in this process, with no
// unpacker started and no staging made. It returns nil when the file
// starts like an archive, or is no regular file or cannot be read: then
// [Archive] judges it.
func NotArchive(path string) *Report {
	f, err := atomicfile.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	why, err := intake.NotArchive(f)
	if err != nil || why == "" {
		return nil
	}
	r := &Report{Source: path, Problems: []rejection.Reason{fromInstaller(intake.Problem{Rule: intake.RuleNotArchive, Value: why})}}
	return r.finish()
}

// note adds a note, unless it is empty.
func (r *Report) note(text string) {
	if text != "" {
		r.Notes = append(r.Notes, text)
	}
}

// checkRoot validates the manifest under r.Root and, when it is valid, the
// surface assets. prefix is the root's path relative to what the user
// named, for file names in problems.
func (r *Report) checkRoot(prefix string) error {
	manifestPath := filepath.Join(r.Root, inventory.ManifestName)
	f, err := atomicfile.OpenRegular(manifestPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil // the file rules already report a missing manifest
	}
	if err != nil {
		return fmt.Errorf("read manifest: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, inventory.MaxManifestBytes+1))
	f.Close() // read only: what was read is whole, a close error loses nothing
	if err != nil {
		return fmt.Errorf("read manifest %s: %w", manifestPath, err)
	}
	m := r.checkManifest(data, prefix)
	if m == nil {
		return nil
	}
	r.Manifest = m
	missing, err := iostore.Require(os.DirFS(r.Root), "content", m.RequiredPackages())
	if err != nil {
		var te *iostore.TOCError
		if !errors.As(err, &te) {
			return fmt.Errorf("check surface assets in %s: %w", r.Root, err)
		}
		r.Problems = append(r.Problems, rejection.Reason{File: prefix + te.Path, Path: prefix + te.Path, Rule: RuleBadTOC,
			Value: te.Value, Message: "cannot read the container's table of contents: " + strings.TrimPrefix(te.Error(), te.Path+": ")})
		return nil
	}
	if len(missing) == 0 {
		return nil
	}
	held, err := iostore.Holds(os.DirFS(r.Root), "content")
	if err != nil {
		return fmt.Errorf("list surface assets in %s: %w", r.Root, err) // Require read the same TOCs
	}
	for _, ms := range missing {
		r.Problems = append(r.Problems, rejection.Reason{File: prefix + "content/", Path: prefix + "content/", Rule: RuleMissingPackage,
			Message: "looked for package id 0x" + ms.ID.String() + " for " + ms.Name +
				" (a surface profile needs it as an export bundle: ExportBundleData, index 0, in a .utoc/.ucas pair under content/); content/ holds: " + held.String()})
	}
	return nil
}

// checkManifest validates manifest bytes, adding their faults to the
// report; it returns the manifest when it is valid.
func (r *Report) checkManifest(data []byte, prefix string) *inventory.Manifest {
	r.Pack = peek(data)
	name := prefix + inventory.ManifestName
	m, err := inventory.Decode(name, data)
	if err != nil {
		var me *inventory.ManifestError
		if errors.As(err, &me) {
			r.Problems = append(r.Problems, me.Errors...) // each names the file it was decoded as
		}
		return nil
	}
	return m
}

// peek reads id and version leniently from a manifest that may be invalid,
// so a report can name the pack it rejects.
func peek(data []byte) PackRef {
	var ref PackRef
	var raw struct {
		ID      any `json:"id"`
		Version any `json:"version"`
	}
	if json.Unmarshal(data, &raw) == nil {
		ref.ID, _ = raw.ID.(string)
		ref.Version, _ = raw.Version.(string)
	}
	return ref
}

// fromInstaller converts a file-rule problem: the rule's id is the
// reason's rule, its words the message. Its Value explains the rule rather
// than quoting a value found, so it joins the message.
func fromInstaller(p intake.Problem) rejection.Reason {
	msg := intake.RuleText(p.Rule)
	switch {
	case p.Rule == intake.RuleTopFolders:
		msg = p.Value // the sentence names the folders
	case p.Value != "":
		msg += " (" + p.Value + ")"
	}
	return rejection.Reason{File: p.Entry, Path: p.Entry, Rule: p.Rule, Message: msg}
}
