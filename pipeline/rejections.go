package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// rejectionsFile holds, under the state folder, the reasons of every
// archive in drop/rejected/ as data: the socket and the events serve them
// from here, and the note beside each archive is rendered from them, never
// read back.
const rejectionsFile = "rejections.json"

// maxRejectionsBytes bounds rejectionsFile: a record of a few kilobytes
// for each archive in drop/rejected/.
const maxRejectionsBytes = 64 << 20

// rejectionsFormat names the format of rejectionsFile.
const rejectionsFormat = "forgesync-rejections"

type rejectionsDoc struct {
	Format     string            `json:"format"`
	Version    int               `json:"version"`
	Rejections []storedRejection `json:"rejections"`
}

// storedRejection is a record in rejectionsFile. A JSON string would
// replace the bytes of an archive name that is not UTF-8 (a Latin-1
// name), and the record would no longer match its archive: such a name is
// stored as bytes too (base64), and read back from them.
type storedRejection struct {
	rejection.Record
	ArchiveBytes []byte `json:"archive_bytes,omitempty"`
}

func storeRejections(recs []rejection.Record) []storedRejection {
	out := make([]storedRejection, len(recs))
	for i, r := range recs {
		out[i].Record = r
		if !utf8.ValidString(r.Archive) {
			out[i].ArchiveBytes = []byte(r.Archive)
		}
	}
	return out
}

func loadedRejections(stored []storedRejection) []rejection.Record {
	out := make([]rejection.Record, len(stored))
	for i, s := range stored {
		out[i] = s.Record
		if s.ArchiveBytes != nil {
			out[i].Archive = string(s.ArchiveBytes)
		}
	}
	return out
}

// loadRejections reads the records of rejected archives; none when the
// file was never written.
func loadRejections(state string) ([]rejection.Record, error) {
	path := filepath.Join(state, rejectionsFile)
	data, err := atomicfile.ReadFile(path, maxRejectionsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read rejections: %w", err)
	}
	var doc rejectionsDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil || doc.Format != rejectionsFormat || doc.Version != 1 {
		return nil, fmt.Errorf("%s is damaged (%v): the reasons of archives rejected so far are not shown, the notes beside them in drop/rejected/ still say them, and the next rejection starts a new file", path, err)
	}
	return loadedRejections(doc.Rejections), nil
}

// recordRejections adds recs to the records in one write, each replacing
// one of the same archive name, and drops the records of archives no
// longer in drop/rejected/ (a user deleted or moved them; the archives
// of recs are not there yet).
func (p *Pipeline) recordRejections(recs []rejection.Record) error {
	old, err := loadRejections(p.store.Dir)
	if err != nil {
		p.log.Warn("starting a new list of rejections", "err", err)
	}
	added := make(map[string]bool, len(recs))
	for _, r := range recs {
		added[r.Archive] = true
	}
	dir := filepath.Join(p.opts.Drop, rejectedDir)
	old = slices.DeleteFunc(old, func(r rejection.Record) bool {
		if added[r.Archive] {
			return true
		}
		_, err := os.Lstat(filepath.Join(dir, r.Archive))
		return errors.Is(err, fs.ErrNotExist)
	})
	return p.writeRejections(append(old, recs...))
}

// writeRejections replaces the records of rejected archives with recs.
func (p *Pipeline) writeRejections(recs []rejection.Record) error {
	slices.SortFunc(recs, func(a, b rejection.Record) int { return strings.Compare(a.Archive, b.Archive) })
	data, err := json.MarshalIndent(rejectionsDoc{Format: rejectionsFormat, Version: 1, Rejections: storeRejections(recs)}, "", "  ")
	if err != nil {
		return err
	}
	return p.writeState(rejectionsFile, append(data, '\n'), atomicfile.FlushAll)
}

// Rejections lists the archives in drop/rejected/ that have their note
// beside them, newest first, with the reasons recorded when they were
// rejected. An archive rejected before reasons were recorded as data is
// listed without reasons (its note still says them).
func Rejections(drop, state string) ([]rejection.Record, error) {
	recs, err := loadRejections(state)
	byName := map[string]rejection.Record{}
	for _, r := range recs {
		byName[r.Archive] = r
	}
	dir := filepath.Join(drop, rejectedDir)
	entries, _ := os.ReadDir(dir)
	out := []rejection.Record{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".txt")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			continue // a note without its archive
		}
		rec, ok := byName[name]
		if !ok {
			rec = rejection.Record{Archive: name}
			if info, err := e.Info(); err == nil {
				rec.Time = info.ModTime().UTC()
			}
		}
		if rec.Reasons == nil {
			rec.Reasons = []rejection.Reason{}
		}
		out = append(out, rec)
	}
	slices.SortStableFunc(out, func(a, b rejection.Record) int { return b.Time.Compare(a.Time) })
	return out, err
}

// countRejected counts what [Rejections] lists, the archives in
// drop/rejected/ with their note beside them, from one listing of the
// folder: status shows only the number, and must not read every record
// (50,000 rejected files: a second a status) to say it.
func countRejected(drop string) (int, error) {
	entries, err := os.ReadDir(filepath.Join(drop, rejectedDir))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	present := make(map[string]bool, len(entries))
	for _, e := range entries {
		present[e.Name()] = true
	}
	n := 0
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".txt"); ok && e.Type().IsRegular() && present[name] {
			n++
		}
	}
	return n, nil
}

// tidyRejected removes, with their records, the notes in drop/rejected/
// whose archive is gone (the player deleted or moved it) or is installed
// now from the same bytes (forced, or retried under another name): status
// then lists only what is still refused. Only an archive whose pack and
// version are installed is hashed. A failure is logged: the next pass
// tries again.
func (p *Pipeline) tidyRejected() {
	dir := filepath.Join(p.opts.Drop, rejectedDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // no drop/rejected/ yet
	}
	recs, _ := loadRejections(p.store.Dir)
	byName := map[string]rejection.Record{}
	for _, r := range recs {
		byName[r.Archive] = r
	}
	st, err := p.state()
	if err != nil {
		return
	}
	var stale []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".txt")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		archive := filepath.Join(dir, name)
		if _, err := os.Lstat(archive); errors.Is(err, fs.ErrNotExist) {
			// A note of ours, not an archive rejected under a name that
			// ends in .txt (whose own note is beside it).
			if orphanNote(dir, e.Name()) {
				stale = append(stale, name)
			}
			continue
		}
		rec, ok := byName[name]
		if inst := st.Find(rec.Pack); ok && inst != nil && inst.Version == rec.Version && fileSHA256(archive) == inst.ArchiveSHA256 {
			stale = append(stale, name)
		}
	}
	if len(stale) == 0 {
		return
	}
	for _, name := range stale {
		if err := removeIfExists(filepath.Join(dir, name+".txt")); err != nil {
			p.log.Warn("could not remove the note of a rejected archive that is gone or installed", "archive", name, "err", err)
		}
	}
	if err := p.forgetRejections(stale); err != nil {
		p.log.Warn("could not update the list of rejected archives", "err", err)
	}
}

// noteStart is how every note rendered by rejection.Note begins.
const noteStart = "forgesync rejected "

// orphanNote reports whether the file name in dir is a note of ours left
// without its archive (the player deleted or moved it, or a rejection was
// interrupted between the note and the move): it starts as a note does,
// and is no rejected archive itself, whose own note would be beside it. A
// file a player named so is neither.
func orphanNote(dir, name string) bool {
	if _, err := os.Lstat(filepath.Join(dir, name+".txt")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	f, err := atomicfile.OpenRegular(filepath.Join(dir, name))
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(noteStart))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == noteStart
}

// fileSHA256 returns the lower-case hex SHA-256 of the file at path, or ""
// when it cannot be read.
func fileSHA256(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
