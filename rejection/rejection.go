// Package rejection owns the shape of a refusal: Reason, one reason a pack
// is refused, as data that the verdict, the install rules, the pipeline,
// the events and the status socket pass on unchanged; Record, a rejected
// archive with its reasons; and Note, the plain-words file written beside a
// rejected archive, rendered from the reasons. It imports nothing of the
// project, so every layer can use it.
package rejection

import (
	"strconv"
	"strings"
	"time"
)

// Reason is one reason a pack is refused: a broken file rule of SPEC §2, a
// manifest rule of SPEC §3, a missing surface package of SPEC §5, or an
// install rule of SPEC §4.
type Reason struct {
	// File is the file the reason is about, relative to the pack: an
	// archive entry, "forgepack.json", or a container under content/;
	// empty for the pack as a whole.
	File string `json:"file"`
	// Path is the JSON path inside forgepack.json for manifest rules, else
	// the entry or package concerned.
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Rule names the rule broken, for programs to decide on.
	Rule string `json:"rule"`
	// Value is the value found, when there is one to quote.
	Value string `json:"value"`
	// Message says what is wrong in plain words.
	Message string `json:"message"`
}

// String reads compiler style: `forgepack.json:12:7: pieces[1].door.travel_m:
// must be > 0 and ≤ 16, got 17`, or `content/x.dll: not allowed in a pack`.
func (r Reason) String() string {
	var b strings.Builder
	b.WriteString(r.File)
	if r.Line > 0 {
		b.WriteString(":" + strconv.Itoa(r.Line) + ":" + strconv.Itoa(r.Column))
	}
	if r.File != "" {
		b.WriteString(": ")
	}
	if r.Path != "" && r.Path != r.File {
		b.WriteString(r.Path + ": ")
	}
	b.WriteString(r.Message)
	if r.Value != "" {
		b.WriteString(", got " + r.Value)
	}
	return b.String()
}

// Record is one rejected archive, kept in drop/rejected/ beside its note.
type Record struct {
	// Archive is the file name under drop/rejected/ (the dropped name, with
	// -2, -3… added when an earlier rejection had it).
	Archive string    `json:"archive"`
	Time    time.Time `json:"time"`
	// Pack and Version are the pack's id and version as far as they could
	// be read.
	Pack    string   `json:"pack,omitempty"`
	Version string   `json:"version,omitempty"`
	Reasons []Reason `json:"reasons"`
}

// Note renders the text file written beside a rejected archive: which
// archive, when, every reason on a line of its own, and what to do.
func Note(archive string, at time.Time, reasons []Reason) []byte {
	var b strings.Builder
	b.WriteString("forgesync rejected " + archive + " on " + at.UTC().Format(time.RFC3339) + ":\n")
	for _, r := range reasons {
		b.WriteString("- " + r.String() + "\n")
	}
	b.WriteString("\nFix the pack and drop it again; `forgesync scan FILE` shows the same verdict.\n")
	return []byte(b.String())
}
