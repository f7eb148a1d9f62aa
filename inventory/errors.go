package inventory

import (
	"errors"
	"strconv"
	"strings"

	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// Rules name the checks a manifest can fail, as they appear in the Rule of
// a ManifestError's reasons and in `forgesync scan --json`. They are
// stable: tools may match on them.
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

// errInvalid is matched (with errors.Is) by every *ManifestError.
var errInvalid = errors.New("invalid manifest")

// ManifestError is every fault found in one manifest file. Each is a
// rejection.Reason, the one shape of a refusal: File is the manifest's
// name, Path the JSON path of the value (e.g. pieces[3].lift.size_m[2];
// empty for the document as a whole), Line and Column 1-based (Column
// counts characters), Rule one of the Rule constants, Value the offending
// value as written (JSON text, possibly shortened; empty when it is
// missing) and Message the rule in words, e.g. "must be > 0 and ≤ 16".
type ManifestError struct {
	File   string // the manifest's name as the user knows it
	Errors []rejection.Reason
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
		b.WriteString(strconv.Itoa(fe.Line))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(fe.Column))
		b.WriteString(": ")
		if fe.Path != "" {
			b.WriteString(fe.Path)
			b.WriteString(": ")
		}
		b.WriteString(fe.Message)
		if fe.Value != "" {
			b.WriteString(", got ")
			b.WriteString(fe.Value)
		}
	}
	return b.String()
}

// Is reports whether target is ErrInvalid.
func (e *ManifestError) Is(target error) bool { return target == errInvalid }
