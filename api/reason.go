package api

import "time"

// Reason is one reason an archive was refused or waits, as the wire
// carries it: in an outcome, a pack-rejected event and a rejected archive.
type Reason struct {
	// File is the file the reason is about, relative to the pack; empty
	// for the pack as a whole.
	File string `json:"file"`
	// Path is the JSON path inside forgepack.json for manifest rules, else
	// the entry or package concerned; empty (absent) when unknown or when
	// it would only repeat File.
	Path string `json:"path,omitempty"`
	// Line and Column place the reason in File, from 1; 0 (absent) when
	// unknown.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Rule is the rule's stable slug, for programs to decide on.
	Rule string `json:"rule"`
	// Value is the value found, when there is one to quote.
	Value string `json:"value"`
	// Message says what is wrong in plain words.
	Message string `json:"message"`
}

// Rejection is one rejected archive in drop/rejected/, as GET
// /v1/rejections and status show it.
type Rejection struct {
	// Archive is the file name under drop/rejected/.
	Archive string    `json:"archive"`
	Time    time.Time `json:"time"`
	// Pack and Version are the pack's id and version as far as they could
	// be read.
	Pack    string   `json:"pack,omitempty"`
	Version string   `json:"version,omitempty"`
	Reasons []Reason `json:"reasons"`
}
