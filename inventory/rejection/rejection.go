// Package rejection owns the shape of a refusal: Reason, one reason a pack
// is refused, as data that the verdict, the install rules, the pipeline,
// the events and the status socket pass on unchanged; Record, a rejected
// archive with its reasons; and Note, the plain-words file written beside a
// rejected archive, rendered from the reasons; and Escape, the one function
// every text writer passes outside text through, so that names and
// messages from archives and servers cannot drive a terminal or forge a
// line. It imports nothing of the project but the internal/text leaf, so
// every layer can use it.
package rejection

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/text"
)

// Escape returns s with every character that could drive a terminal, start
// a line or reorder what a reader sees written as an escape (see
// text.Escape, which the CLI's text views use too).
func Escape(s string) string { return text.Escape(s) }

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
// Every part is passed through Escape. It is the one place a reason is
// said in words: the CLI says a reason from the wire through it too.
func (r Reason) String() string {
	file, path, value, message := Escape(r.File), Escape(r.Path), Escape(r.Value), Escape(r.Message)
	var b strings.Builder
	b.WriteString(file)
	if r.Line > 0 {
		b.WriteString(":" + strconv.Itoa(r.Line) + ":" + strconv.Itoa(r.Column))
	}
	if file != "" {
		b.WriteString(": ")
	}
	if path != "" && path != file {
		b.WriteString(path + ": ")
	}
	b.WriteString(message)
	if value != "" {
		b.WriteString(", got " + value)
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
// archive, when, every reason on a line of its own, and what to do; the
// archive's name and the reasons are escaped (see Escape). archive is the
// name it was dropped as, rejectedAs its name in drop/rejected/. What to
// do fits the reasons: a pack refused by the install rules alone (SPEC §4)
// is valid, and the note says how to change the installed packs or force
// it instead of sending the player to scan, which finds nothing wrong.
func Note(archive, rejectedAs string, at time.Time, reasons []Reason) []byte {
	var b strings.Builder
	b.WriteString("forgesync rejected " + Escape(archive) + " on " + at.UTC().Format(time.RFC3339) + ":\n")
	for _, r := range reasons {
		b.WriteString("- " + r.String() + "\n")
	}
	hints := installHints(reasons, Escape(rejectedAs))
	if len(hints) == 0 {
		b.WriteString("\nFix the pack and drop it again; `forgesync scan FILE` shows the same verdict.\n")
		return []byte(b.String())
	}
	b.WriteString("\nThe pack itself is valid (`forgesync scan` finds nothing wrong in it): the packs installed now refuse it.\n")
	for _, h := range hints {
		b.WriteString(h + "\n")
	}
	return []byte(b.String())
}

// The install rules of SPEC §4 (inventory names them; this package imports
// nothing of the project).
const (
	ruleSameVersion = "same-version-other-bytes"
	ruleDowngrade   = "downgrade"
	ruleTagClash    = "tag-owned"
	ruleClassClash  = "class-owned"
	ruleDoorLimit   = "door-limit"
)

// installHints says what to do about each install rule the reasons break,
// once per hint, in the reasons' order; none when a reason breaks another
// rule (the pack itself is at fault) or there are no reasons.
func installHints(reasons []Reason, name string) []string {
	var hints []string
	add := func(h string) {
		if !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	for _, r := range reasons {
		switch r.Rule {
		case ruleSameVersion:
			add("To replace the installed copy with this one: forgesync install --force " + name + " (in drop/rejected/)")
		case ruleDowngrade:
			add("To go back to this older version: forgesync install --force " + name + " (in drop/rejected/)")
		case ruleTagClash, ruleClassClash:
			add("Remove the pack that owns the tag or class (forgesync remove ID), then: forgesync retry " + name)
		case ruleDoorLimit:
			add("Disable a pack with doors (forgesync disable ID), then: forgesync retry " + name)
		default:
			return nil
		}
	}
	return hints
}
