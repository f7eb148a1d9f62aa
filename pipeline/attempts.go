package pipeline

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/mjolnir-forge/forgesync/installer/store"
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
// in processing, the tries begun: the counts as a pass that ended wrote
// them (a JSON object), then one line per try begun since, appended
// before the try (the name's key as a JSON string), so that a crash
// counts too and the count survives restarts. A try costs one short
// append whatever the number of archives counted; the counts are written
// again, the lines folded in, once a transaction ends (see forget), or
// when a load finds lines a crash or a failed transaction left.
const attemptsFile = "attempts.json"

// badTimeFormat stamps the name a damaged attempts file is set aside
// under: attempts.json.bad-20261203T070000Z.
const badTimeFormat = "20060102T150405Z"

// attempt is the record of one archive's tries.
type attempt struct {
	Count int    `json:"count"`
	Last  string `json:"last_error,omitempty"` // the last failure seen, when known
}

// attempts maps a name in processing to its tries.
type attempts map[string]attempt

// attemptsKeyPrefix starts the key in attemptsFile of a name a JSON
// string cannot carry (not UTF-8, as a Latin-1 archive name) or that
// starts with the prefix itself: the rest is the name's bytes in base64.
// A JSON string would replace those bytes, and the count would never
// match its archive again.
const attemptsKeyPrefix = "base64:"

// attemptsKey returns the key of name in attemptsFile.
func attemptsKey(name string) string {
	if utf8.ValidString(name) && !strings.HasPrefix(name, attemptsKeyPrefix) {
		return name
	}
	return attemptsKeyPrefix + base64.StdEncoding.EncodeToString([]byte(name))
}

// attemptsName returns the name of key in attemptsFile.
func attemptsName(key string) (string, error) {
	enc, ok := strings.CutPrefix(key, attemptsKeyPrefix)
	if !ok {
		return key, nil
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", fmt.Errorf("key %q: %w", key, err)
	}
	return string(b), nil
}

// maxAttemptsBytes bounds attempts.json: a few hundred bytes per archive
// in processing, generous for 10,000 of them.
const maxAttemptsBytes = 16 << 20

// loadAttempts reads the counts, the tries appended folded in; a missing
// file counts nothing. The file is advisory (it only ever spares a try):
// one that cannot be read or decoded is set aside as
// attempts.json.bad-<time>, with a warning, and counting starts over.
// Tries appended after the counts (left by a crash or a failed
// transaction) are folded into them, and the file written again.
func (p *Pipeline) loadAttempts() attempts {
	path := p.store.Path(attemptsFile)
	data, err := atomicfile.ReadFile(path, maxAttemptsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return attempts{}
	}
	if err == nil {
		var a attempts
		var fold bool
		if fold, err = decodeAttempts(data, &a, p.log); err == nil {
			if fold {
				if err := p.saveAttempts(a); err != nil {
					p.log.Warn("could not fold the tries into the attempt counts; tried again at the next pass", "err", err)
				}
			}
			return a
		}
	}
	aside := path + ".bad-" + p.opts.Now().UTC().Format(badTimeFormat)
	if rerr := os.Rename(path, aside); rerr != nil {
		p.log.Warn("the attempt counts are damaged and could not be set aside; counting starts over", "file", path, "err", err, "rename_err", rerr)
		return attempts{}
	}
	p.log.Warn("the attempt counts are damaged: set aside, counting starts over", "file", path, "set_aside", aside, "err", err)
	return attempts{}
}

// decodeAttempts decodes attemptsFile into a: an object of objects, no
// unknown keys, no count below zero (none when the first try was appended
// to no file), then the tries appended, each a name's key adding one to
// its count. It reports whether tries followed the counts, to be folded
// in. Lines a power loss damaged at the end are left out, with a warning.
func decodeAttempts(data []byte, a *attempts, log *slog.Logger) (fold bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	out := attempts{}
	if first := bytes.TrimLeft(data, " \t\r\n"); len(first) == 0 || first[0] != '"' {
		var counts attempts
		if err := dec.Decode(&counts); err != nil {
			return false, err
		}
		if counts == nil {
			return false, errors.New("null instead of the counts")
		}
		for key, at := range counts {
			if at.Count < 0 {
				return false, fmt.Errorf("%q counts %d tries", key, at.Count)
			}
			name, err := attemptsName(key)
			if err != nil {
				return false, err
			}
			out[name] = at
		}
	}
	for {
		var key string
		err := dec.Decode(&key)
		if errors.Is(err, io.EOF) {
			break
		}
		fold = true
		name, kerr := attemptsName(key)
		if err != nil || kerr != nil {
			log.Warn("the tries at the end of the attempt counts are damaged (a power loss?); left out", "err", errors.Join(err, kerr))
			break
		}
		at := out[name]
		at.Count++
		out[name] = at
	}
	*a = out
	return fold, nil
}

// saveAttempts writes the counts atomically, the tries appended folded
// in; with none, the file goes.
func (p *Pipeline) saveAttempts(a attempts) error {
	if len(a) == 0 {
		if err := os.Remove(p.store.Path(attemptsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("save attempt counts: %w", err)
		}
		return nil
	}
	stored := make(attempts, len(a))
	for name, at := range a {
		stored[attemptsKey(name)] = at
	}
	data, err := json.MarshalIndent(stored, "", "  ")
	if err != nil {
		return fmt.Errorf("save attempt counts: %w", err)
	}
	// Not flushed: the counts are advisory, and they must survive this
	// process dying, which the page cache does. A power loss may lose a
	// count, or damage the file, which loadAttempts sets aside.
	if err := p.writeState(attemptsFile, append(data, '\n'), atomicfile.FlushNone); err != nil {
		return fmt.Errorf("save attempt counts: %w", err)
	}
	return nil
}

// appendTry appends to attemptsFile that a try of name begins: one short
// line, not flushed (as saveAttempts), whatever the number of archives
// counted.
func (p *Pipeline) appendTry(name string) error {
	line, err := json.Marshal(attemptsKey(name))
	if err != nil {
		return fmt.Errorf("count a try of %s: %w", name, err)
	}
	path := p.store.Path(attemptsFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("count a try of %s: %w", name, err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("count a try of %s in %s: %w", name, path, err)
	}
	p.writes.appends++
	p.writes.bytes += int64(len(line) + 1)
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
	t.attempts[name], t.attemptsDirty = a, true
	if err := t.p.appendTry(name); err != nil {
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

// forget drops the counts of archives no longer in processing, and writes
// the counts when they changed or dirty says they differ from the file's
// (tries appended, a fault's taken back): the file then holds the counts
// alone.
func (p *Pipeline) forget(a attempts, dirty bool) error {
	changed := dirty
	for name := range a {
		if _, err := os.Lstat(p.store.Path(store.ProcessingDir, name)); errors.Is(err, fs.ErrNotExist) {
			delete(a, name)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return p.saveAttempts(a)
}
