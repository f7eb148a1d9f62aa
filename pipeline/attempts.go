package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/mjolnir-forge/forgesync/installer"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// MaxAttempts is how many times an archive is processed before it is
// rejected without another try: a process that died while processing it,
// or a transaction that failed, counts as one; a fault of the machine
// (a held file, a full disk) does not. It is also how many times the
// isolated unpacker may die on an archive in one try before the archive
// is rejected as poison.
const MaxAttempts = 3

// attemptsFile is the file in the state folder that counts, per archive
// in processing, the tries begun. It is written before each try, so a
// crash counts too and the count survives restarts.
const attemptsFile = "attempts.json"

// attempt is the record of one archive's tries.
type attempt struct {
	Count int    `json:"count"`
	Last  string `json:"last_error,omitempty"` // the last failure seen, when known
}

// attempts maps a name in processing to its tries.
type attempts map[string]attempt

// loadAttempts reads the counts; a missing or unreadable file counts
// nothing (it only ever makes us try once more).
func (p *Pipeline) loadAttempts() attempts {
	a := attempts{}
	data, err := os.ReadFile(p.store.Path(attemptsFile))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			p.log.Warn("cannot read the attempt counts", "err", err)
		}
		return a
	}
	if err := json.Unmarshal(data, &a); err != nil {
		p.log.Warn("cannot read the attempt counts", "err", err)
		return attempts{}
	}
	return a
}

// saveAttempts writes the counts atomically; with none, the file goes.
func (p *Pipeline) saveAttempts(a attempts) error {
	if len(a) == 0 {
		if err := os.Remove(p.store.Path(attemptsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("save attempt counts: %w", err)
		}
		return nil
	}
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("save attempt counts: %w", err)
	}
	if err := atomicfile.WriteFile(p.store.Path(attemptsFile), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save attempt counts: %w", err)
	}
	return nil
}

// begin counts a try of name and reports whether it may be processed: an
// archive tried MaxAttempts times already gets no other.
func (t *txn) begin(name string) (bool, error) {
	a := t.attempts[name]
	if a.Count >= MaxAttempts {
		return false, nil
	}
	a.Count++
	t.attempts[name] = a
	if err := t.p.saveAttempts(t.attempts); err != nil {
		return false, err
	}
	t.p.step("attempt:" + name)
	return true, nil
}

// failedRepeatedly is the reason of an archive given no more tries.
func failedRepeatedly(a attempt) string {
	s := fmt.Sprintf("the archive failed to process %d times (the program stopped or failed while working on it); it is not tried again", a.Count)
	if a.Last != "" {
		s += ": " + strings.TrimSpace(a.Last)
	}
	return s
}

// forget drops the counts of archives no longer in processing.
func (p *Pipeline) forget(a attempts) error {
	changed := false
	for name := range a {
		if _, err := os.Lstat(p.store.Path(installer.ProcessingDir, name)); errors.Is(err, fs.ErrNotExist) {
			delete(a, name)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return p.saveAttempts(a)
}
