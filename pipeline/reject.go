package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// rejected is an archive from drop that a transaction rejected, on its way
// to drop/rejected/.
type rejected struct {
	name   string  // in processing
	out    Outcome // its outcome, with the reasons
	target string  // its name in drop/rejected/, once drawn
	noted  bool    // its note is written
}

// disposeRejected moves the archives a transaction rejected from
// processing to drop/rejected/, each beside its note, with writes to the
// state folder that do not grow with their number: the reasons of all of
// them are recorded as data in one write of rejectionsFile; then every
// note is written, and the notes are flushed together; only then does
// each archive move beside its note. A crash at any point leaves each
// archive in processing, or moved with its reasons and note on disk; the
// next pass rejects again those still in processing, under the same names,
// replacing their records. A failure is a warning, as in done, the
// archives staying in processing; but drop/rejected/ made a link fails the
// transaction.
func (t *txn) disposeRejected() error {
	if len(t.rejects) == 0 {
		return nil
	}
	p := t.p
	dir := filepath.Join(p.opts.Drop, rejectedDir)
	// drop/rejected made a link would receive files named by whoever can
	// drop them, wherever it points.
	if err := atomicfile.MkdirNoLinks(p.opts.Drop, rejectedDir, 0o755); err != nil {
		err = fmt.Errorf("reject %s: %w", t.rejectedNames(), err)
		if errors.Is(err, atomicfile.ErrLink) {
			return err
		}
		t.disposeFailed(err)
		return nil
	}
	now := p.opts.Now().UTC()
	taken := map[string]bool{}
	recs := make([]rejection.Record, len(t.rejects))
	for i := range t.rejects {
		r := &t.rejects[i]
		r.target = uniqueName(dir, r.name, taken)
		recs[i] = rejection.Record{Archive: r.target, Time: now, Pack: r.out.Pack, Version: r.out.Version, Reasons: r.out.Reasons}
	}
	// The reasons are recorded as data before the notes and the moves.
	if err := p.recordRejections(recs); err != nil {
		t.disposeFailed(fmt.Errorf("reject %s: record the reasons: %w", t.rejectedNames(), err))
		return nil
	}
	p.step("rejections")
	if err := t.writeNotes(dir, now); err != nil {
		t.disposeFailed(err)
		return nil
	}
	for _, r := range t.rejects {
		if !r.noted {
			continue
		}
		p.step("reject:" + r.name)
		src := p.store.Path(store.ProcessingDir, r.name)
		if err := atomicfile.Move(p.opts.Renamer, src, filepath.Join(dir, r.target), 0o644); err != nil {
			t.disposeFailed(fmt.Errorf("reject %s: %w", r.name, err))
			continue
		}
		p.step("done:" + r.name)
	}
	return nil
}

// writeNotes writes the note of each rejected archive in dir, unflushed,
// then flushes them all at once (one flush of their file system where the
// system has it, see atomicfile.FlushFiles) and the folder: the notes are
// on disk before any archive moves beside its own. A note that cannot be
// written is a warning, and its archive stays in processing; a flush that
// fails keeps them all there.
func (t *txn) writeNotes(dir string, now time.Time) error {
	var notes []string
	for i := range t.rejects {
		r := &t.rejects[i]
		note := filepath.Join(dir, r.target+".txt")
		if err := atomicfile.WriteFlushed(note, rejection.Note(r.name, r.target, now, r.out.Reasons), 0o644, atomicfile.FlushNone); err != nil {
			t.disposeFailed(fmt.Errorf("reject %s: %w", r.name, err))
			continue
		}
		r.noted = true
		notes = append(notes, note)
	}
	if err := atomicfile.FlushFiles(t.r, notes); err != nil {
		return fmt.Errorf("reject %s: flush the notes: %w", t.rejectedNames(), err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("reject %s: flush %s: %w", t.rejectedNames(), dir, err)
	}
	return nil
}

// rejectedNames names the archives rejected, for an error about all of
// them: the first one, and how many others.
func (t *txn) rejectedNames() string {
	if n := len(t.rejects); n > 1 {
		return fmt.Sprintf("%s and %d other archives", t.rejects[0].name, n-1)
	}
	return t.rejects[0].name
}

// disposeFailed reports a disposal that failed: a warning in the log and
// the summary, the archive staying in processing (see done).
func (t *txn) disposeFailed(err error) {
	t.p.log.Warn("could not move a processed archive", "err", err)
	t.sum.Warnings = append(t.sum.Warnings, err.Error())
}

// freeName reports whether dir may receive an archive named cand and its
// note, cand.txt: neither was drawn before in the batch (taken), no file
// cand is in dir, and a file cand.txt there is a note of ours an
// interrupted rejection left without its archive (it is rewritten; see
// orphanNote), not an archive of that name rejected before nor a file of
// the player's.
func freeName(dir, cand string, taken map[string]bool) bool {
	if taken[foldName(cand)] || taken[foldName(cand+".txt")] {
		return false
	}
	if _, err := os.Lstat(filepath.Join(dir, cand)); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	_, err := os.Lstat(filepath.Join(dir, cand+".txt"))
	return errors.Is(err, fs.ErrNotExist) || orphanNote(dir, cand+".txt")
}

// foldName is the key of a file name drawn in a batch: its case folded,
// as Windows and macOS compare names, on every system, so that two names
// of one batch never meet on any file system.
func foldName(name string) string { return strings.ToLower(strings.ToUpper(name)) }
