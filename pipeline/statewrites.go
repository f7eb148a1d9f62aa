package pipeline

import (
	"maps"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// stateWrites counts the files of the state folder that the pipeline
// replaces itself (rejectionsFile, attemptsFile), the tries it appends to
// attemptsFile and the bytes it writes into them: figures of each transaction's debug line, and what the tests
// hold a pass to (a bounded number of writes, not one per archive).
type stateWrites struct {
	files   map[string]int // replacements, by file name
	appends int            // tries appended to attemptsFile
	bytes   int64
}

// total returns the replacements counted, of every file.
func (w stateWrites) total() int {
	n := 0
	for _, c := range w.files {
		n += c
	}
	return n
}

// since returns what was counted after before.
func (w stateWrites) since(before stateWrites) stateWrites {
	out := stateWrites{files: maps.Clone(w.files), appends: w.appends - before.appends, bytes: w.bytes - before.bytes}
	for name, c := range before.files {
		out.files[name] -= c
	}
	return out
}

// snapshot returns a copy of the counts, for a later since.
func (w stateWrites) snapshot() stateWrites {
	return stateWrites{files: maps.Clone(w.files), appends: w.appends, bytes: w.bytes}
}

// writeState replaces the state file name with data, flushing what flush
// says, and counts it.
func (p *Pipeline) writeState(name string, data []byte, flush atomicfile.Flush) error {
	if err := atomicfile.WriteFlushed(p.store.Path(name), data, 0o600, flush); err != nil {
		return err
	}
	if p.writes.files == nil {
		p.writes.files = map[string]int{}
	}
	p.writes.files[name]++
	p.writes.bytes += int64(len(data))
	return nil
}
