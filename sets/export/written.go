package export

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Written is a lock just written by `forgesync lock -o` or `export`: where,
// its fingerprint, how many packs it pins, and the id of the key that
// signed it ("": unsigned).
type Written struct {
	Fingerprint string `json:"fingerprint"`
	Lock        string `json:"lock"`
	Packs       int    `json:"packs"`
	SignedBy    string `json:"signed_by"`
	// Serial and Expires are the lock's (SPEC §10.2c): 0 and nil when it
	// has none. The text says Expires only.
	Serial  int64      `json:"serial,omitempty"`
	Expires *time.Time `json:"expires,omitempty"`
	// Removed are the archives `export --prune` removed from the folder's
	// packs/: the set no longer pins them.
	Removed []string `json:"removed,omitempty"`
	// RemovedIndexes are the chunk indexes (<sha256>.caibx) `export
	// --prune` removed from packs/ with those archives.
	RemovedIndexes []string `json:"removed_indexes,omitempty"`
	// Indexed, ChunksWritten and ChunksPruned count the chunk indexes
	// `export` made, the chunks it added to the store, and those
	// `export --prune` removed from it: in JSON only, the text stays as it
	// was before chunk stores.
	Indexed       int `json:"indexed,omitempty"`
	ChunksWritten int `json:"chunks_written,omitempty"`
	ChunksPruned  int `json:"chunks_pruned,omitempty"`
	// Repaired counts the files in the folder (archives, indexes,
	// chunks) that `export` found damaged and wrote again.
	Repaired int `json:"repaired,omitempty"`
}

// WriteWritten writes what was written as text: the lock, when it
// expires, and its signature file when it was signed.
func WriteWritten(w io.Writer, x Written) error {
	_, err := fmt.Fprintf(w, "wrote %s: %d packs, %s\n", x.Lock, x.Packs, x.Fingerprint)
	if x.Expires != nil && err == nil {
		_, err = fmt.Fprintln(w, expiresLine(*x.Expires))
	}
	if x.SignedBy != "" && err == nil {
		_, err = fmt.Fprintf(w, "signed by key %s (%s)\n", x.SignedBy, x.Lock+".minisig")
	}
	if len(x.Removed) > 0 && err == nil {
		noun := "archives"
		if len(x.Removed) == 1 {
			noun = "archive"
		}
		_, err = fmt.Fprintf(w, "removed %d %s the set no longer pins: %s\n", len(x.Removed), noun, strings.Join(x.Removed, ", "))
	}
	if len(x.RemovedIndexes) > 0 && err == nil {
		noun := "chunk indexes"
		if len(x.RemovedIndexes) == 1 {
			noun = "chunk index"
		}
		_, err = fmt.Fprintf(w, "removed %d %s the set no longer pins: %s\n", len(x.RemovedIndexes), noun, strings.Join(x.RemovedIndexes, ", "))
	}
	if x.Repaired > 0 && err == nil {
		noun := "files"
		if x.Repaired == 1 {
			noun = "file"
		}
		_, err = fmt.Fprintf(w, "repaired %d damaged %s in the folder (archives, chunk indexes or chunks that had lost their bytes)\n", x.Repaired, noun)
	}
	return err
}

// expiresLine is what lock, export and a push say of a lock that
// expires (its serial is in their JSON only, so that their text stays as
// it was before serials).
func expiresLine(t time.Time) string {
	return "expires " + t.UTC().Format(time.RFC3339) + ": export the set again before then, or machines refuse it"
}
