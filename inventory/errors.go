package inventory

import (
	"errors"
	"strconv"
	"strings"
)

// Rules name the checks a manifest can fail, as they appear in FieldError.Rule
// and in `forgesync scan --json`. They are stable: tools may match on them.
const (
	RuleSyntax       = "syntax"        // not valid JSON
	RuleEncoding     = "encoding"      // not UTF-8, or starts with a BOM
	RuleTooLarge     = "too-large"     // file over MaxManifestBytes
	RuleDepth        = "depth"         // nesting over MaxDepth
	RuleTrailingData = "trailing-data" // bytes after the JSON value
	RuleOverflow     = "overflow"      // number outside float64
	RuleDuplicateKey = "duplicate-key" // a key twice in one object
	RuleUnknownKey   = "unknown-key"   // a key the schema does not have
	RuleRequired     = "required"      // a required key is missing
	RuleType         = "type"          // wrong JSON type
	RuleInteger      = "integer"       // a number that must be written as an integer
	RuleRange        = "range"         // a number outside its range
	RuleLength       = "length"        // a string or list of the wrong length
	RuleFormat       = "format"        // a string that does not match its pattern
	RuleNamespace    = "namespace"     // a tag or class outside the pack's namespace
	RuleUnique       = "unique"        // a value that must be unique is repeated
	RuleKind         = "kind"          // a utility on the wrong kind of piece
	RuleUnitVector   = "unit-vector"   // a direction that is not of length 1
	RuleSchema       = "schema"        // an unsupported schema version
	RuleProfile      = "profile"       // an unknown surface profile
)

// ErrInvalid is matched (with errors.Is) by every *ManifestError.
var ErrInvalid = errors.New("invalid manifest")

// FieldError is one fault in a manifest: where (JSON path, line, column),
// which rule, and the value found.
type FieldError struct {
	// Path is the JSON path of the value, e.g. pieces[3].lift.size_m[2];
	// empty for the document as a whole.
	Path string `json:"path"`
	// Line and Column are 1-based; Column counts characters.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Rule is one of the Rule constants.
	Rule string `json:"rule"`
	// Value is the offending value as written (JSON text, possibly
	// shortened); empty when the value is missing.
	Value string `json:"value"`
	// Message is the rule in words, e.g. "must be > 0 and ≤ 16".
	Message string `json:"message"`
}

// Error returns "LINE:COL: PATH: MESSAGE, got VALUE".
func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(e.Line))
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(e.Column))
	b.WriteString(": ")
	e.describe(&b)
	return b.String()
}

func (e *FieldError) describe(b *strings.Builder) {
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	if e.Value != "" {
		b.WriteString(", got ")
		b.WriteString(e.Value)
	}
}

// ManifestError is every fault found in one manifest file.
type ManifestError struct {
	File   string // the manifest's name as the user knows it
	Errors []*FieldError
}

// Error lists every fault, one per line, compiler style:
// forgepack.json:12:7: pieces[1].door.travel_m: must be > 0 and ≤ 16, got 17
func (e *ManifestError) Error() string {
	var b strings.Builder
	for i, fe := range e.Errors {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.File)
		b.WriteByte(':')
		b.WriteString(fe.Error())
	}
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (e *ManifestError) Is(target error) bool { return target == ErrInvalid }
