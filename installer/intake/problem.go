package intake

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	// errRejected is matched (errors.Is) by every *RejectError: the archive
	// breaks a rule of SPEC §2 and is not a pack this program installs.
	errRejected = errors.New("intake: pack rejected")

	// errNotArchive is matched by a *RejectError whose file is not an
	// archive in one of the supported formats (zip, 7z, tar, tar.gz,
	// tar.xz, tar.zst, rar), judged by content, never by extension.
	errNotArchive = errors.New("intake: not an archive")

	// ErrLimitRaised is returned by Limits.Validate for a limit that is not
	// positive or lies above its default: configuration may only lower them.
	ErrLimitRaised = errors.New("intake: limit above the default")
)

// Rules a Problem can name: the file rules of SPEC §2, each a stable id
// (lowercase words joined by '-', like the manifest rules of inventory)
// that programs and tools match on, in rejection.Reason.Rule, `scan` and
// the status socket. RuleText gives the words a user reads for each.
const (
	RuleNotArchive       = "not-an-archive"
	RuleCorrupt          = "corrupt"
	RuleEncrypted        = "encrypted"
	RuleDecoderMemory    = "decoder-memory"
	RuleMethod           = "compression-method"
	RuleSparse           = "sparse-file"
	RuleUnpackerCrashed  = "unpacker-crashed"
	RuleUnpackMemory     = "unpack-memory"
	RuleUnpackTime       = "unpack-time"
	RuleUnpackerOutput   = "unpacker-output"
	RuleEmptyName        = "empty-name"
	RuleInvalidUTF8      = "invalid-utf8"
	RulePathTooLong      = "path-too-long"
	RuleTooDeep          = "path-too-deep"
	RuleBackslash        = "backslash"
	RuleControlChar      = "control-character"
	RuleAbsolute         = "absolute-path"
	RuleDriveLetter      = "drive-letter"
	RuleWindowsChar      = "windows-character"
	RuleEmptyComponent   = "empty-folder-name"
	RuleDotComponent     = "dot-in-path"
	RuleDotDot           = "dot-dot-in-path"
	RuleReserved         = "reserved-windows-name"
	RuleTrailingDotSpace = "trailing-dot-or-space"
	RuleShortName        = "short-name"
	RuleDuplicate        = "same-name"
	RuleFileDirClash     = "file-folder-clash"
	RuleSymlink          = "symlink"
	RuleHardLink         = "hard-link"
	RuleDevice           = "device-file"
	RuleFIFO             = "fifo"
	RuleSocket           = "socket"
	RuleEntryType        = "entry-type"
	RuleNotAllowed       = "not-allowed-in-a-pack"
	RuleMissingManifest  = "missing-manifest"
	RuleTopFolders       = "more-than-one-top-level-folder"
	RuleMissingUcas      = "missing-ucas"
	RuleMissingUtoc      = "missing-utoc"
	RuleTooManyEntries   = "too-many-entries"
	RuleTotalTooLarge    = "pack-too-large"
	RuleEntryTooLarge    = "entry-too-large"
	RuleRatio            = "compression-ratio"
)

// ruleTexts holds what a user reads for each rule, after the entry name.
var ruleTexts = map[string]string{
	RuleNotArchive:       "not an archive",
	RuleCorrupt:          "archive is damaged, encrypted or unreadable",
	RuleEncrypted:        "encrypted archives are not supported",
	RuleDecoderMemory:    "archive needs too much memory to unpack",
	RuleMethod:           "compression method not supported",
	RuleSparse:           "sparse files are not allowed",
	RuleUnpackerCrashed:  "the archive made the unpacker crash",
	RuleUnpackMemory:     "the archive needed too much memory to unpack",
	RuleUnpackTime:       "the archive took too long to unpack",
	RuleUnpackerOutput:   "the unpacker's output failed the checks",
	RuleEmptyName:        "empty entry name",
	RuleInvalidUTF8:      "name is not valid UTF-8",
	RulePathTooLong:      "path too long",
	RuleTooDeep:          "path too deep",
	RuleBackslash:        "backslash in name (use / between folders)",
	RuleControlChar:      "control character in name",
	RuleAbsolute:         "absolute path",
	RuleDriveLetter:      "drive letter in name",
	RuleWindowsChar:      `character not allowed on Windows (< > : " | ? *)`,
	RuleEmptyComponent:   "empty folder name in path",
	RuleDotComponent:     `"." in path`,
	RuleDotDot:           `".." in path`,
	RuleReserved:         "reserved Windows name",
	RuleTrailingDotSpace: "name ends in a dot or a space",
	RuleShortName:        "Windows 8.3 short name (it can stand for another file; rename it)",
	RuleDuplicate:        "same name as another entry (after Unicode NFC and case folding)",
	RuleFileDirClash:     "a file and a folder share this name",
	RuleSymlink:          "symbolic links are not allowed",
	RuleHardLink:         "hard links are not allowed",
	RuleDevice:           "device files are not allowed",
	RuleFIFO:             "named pipes (FIFOs) are not allowed",
	RuleSocket:           "sockets are not allowed",
	RuleEntryType:        "unsupported entry type",
	RuleNotAllowed:       "not allowed in a pack",
	RuleMissingManifest:  "forgepack.json is missing",
	RuleTopFolders:       "more than one top-level folder",
	RuleMissingUcas:      "needs its .ucas beside it",
	RuleMissingUtoc:      "needs its .utoc beside it",
	RuleTooManyEntries:   "too many entries",
	RuleTotalTooLarge:    "pack too large uncompressed",
	RuleEntryTooLarge:    "entry too large",
	RuleRatio:            "compression ratio too high (zip bomb?)",
}

// RuleText returns the words a user reads for the file rule id, like
// "backslash in name (use / between folders)" for RuleBackslash; an id
// that is not a file rule's is returned as it is.
func RuleText(rule string) string {
	if text, ok := ruleTexts[rule]; ok {
		return text
	}
	return rule
}

// Problem is one broken rule: the entry it concerns (slash path as stored
// in the archive or below the pack folder; empty for the archive as a
// whole), the rule, and the value found.
type Problem struct {
	Entry string
	Rule  string // one of the Rule constants, an id; RuleText says it in words
	Value string
}

// String reads like `content/x.dll: not allowed in a pack (packs carry
// data, never code)`. Names with control characters or invalid UTF-8 are
// quoted so the text stays on one printable line.
func (p Problem) String() string {
	var b strings.Builder
	if p.Entry != "" {
		b.WriteString(printable(p.Entry))
		b.WriteString(": ")
	}
	b.WriteString(RuleText(p.Rule))
	if p.Value != "" {
		b.WriteString(" (")
		b.WriteString(p.Value)
		b.WriteString(")")
	}
	return b.String()
}

// printable returns s, or s quoted when it holds anything unprintable.
func printable(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) && r != ' ' {
			return strconv.Quote(s)
		}
	}
	return s
}

// RejectError is returned by Extract when the archive breaks rules of SPEC
// §2. Problems lists every broken rule found; extraction stops early only
// at a limit on size or count, so other problems after it may be missing.
type RejectError struct {
	Archive  string
	Problems []Problem
	// Manifest holds the bytes of forgepack.json (up to its limit and one
	// byte) when the archive was rejected for its files alone and has one,
	// so its faults can be reported too; read where the archive was
	// unpacked, never by the caller from the archive.
	Manifest []byte
	// Ignored are the files of OSAdded the archive holds, as in Staged.
	Ignored []string
}

func (e *RejectError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "reject %s: ", e.Archive)
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Is reports whether target is ErrRejected, or ErrNotArchive when the file
// was not recognised as an archive.
func (e *RejectError) Is(target error) bool {
	switch target {
	case errRejected:
		return true
	case errNotArchive:
		for _, p := range e.Problems {
			if p.Rule == RuleNotArchive {
				return true
			}
		}
	}
	return false
}
