package lock

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// Limits and fixed values of the lock file (SPEC §10.1).
const (
	// LockName is the file name of a lock.
	LockName = "forgepacks.lock"
	// SignatureName is the file name of a lock's minisign signature.
	SignatureName = LockName + ".minisig"
	// LockFormat is the value of the lock's format key.
	LockFormat = "forgepacks-lock"
	// lockVersion is the only lock version this program reads.
	lockVersion = 1
	// maxPacks is the most packs one lock may pin.
	maxPacks = 1024
	// MaxLockBytes is the largest lock file read (1,024 packs with a few
	// mirrors each fit many times over).
	MaxLockBytes = 4 << 20
	// MaxSignatureBytes is the largest signature file (.minisig) read.
	MaxSignatureBytes = 4 << 10
	// DefaultMaxArchiveBytes is the largest archive a lock may name unless
	// the caller lowers it: the 4 GiB that SPEC §2 lets one pack unpack
	// to, plus 16 MiB for the container's own headers.
	DefaultMaxArchiveBytes = 4<<30 + 16<<20
	// maxVersionBytes is the longest pack version (SPEC §3).
	maxVersionBytes = 64
	// maxNameChars is the longest free-text set name.
	maxNameChars = 200
	// maxURLBytes is the longest URL accepted.
	maxURLBytes = 2048
	// maxURLsPerPack is the most mirrors one pack may list.
	maxURLsPerPack = 16
	// maxChunkStores is the most chunk store mirrors a lock may list.
	maxChunkStores = 16
)

// errInvalidLock is matched (with errors.Is) by every *LockError.
var errInvalidLock = errors.New("invalid lock file")

// Lock is a decoded, valid pack set.
type Lock struct {
	// Name is the optional free text naming the set.
	Name string
	// Serial is the lock's serial (SPEC §10.2c), which only grows from
	// one export of a set to the next; 0 when the lock has none.
	Serial int64
	// Expires is when the lock stops being valid (SPEC §10.2c), in UTC;
	// zero when it never does.
	Expires time.Time
	// Chunks are the base URLs of the set's chunk store (SPEC §10.2a),
	// mirrors tried in order; a relative one resolves against the lock's
	// location. Empty for a lock without delta updates.
	Chunks []string
	// Packs are the pinned packs in the order the file lists them.
	Packs []Pack
}

// Pack is one pinned pack of a lock.
type Pack struct {
	ID      string   `json:"id"`
	Version string   `json:"version"`
	SHA256  string   `json:"sha256"` // 64 lowercase hex digits
	Size    int64    `json:"size"`   // bytes of the archive
	URLs    []string `json:"urls,omitempty"`
	// Index, when set, names the archive's chunk index (SPEC §10.2a).
	Index *IndexRef `json:"index,omitempty"`
	// Line is where the pack's table starts in the file (0 for a lock
	// built in memory).
	Line int `json:"-"`
}

// IndexRef names a pack archive's chunk index (casync's .caibx format):
// where it is, and the SHA-256 of its bytes.
type IndexRef struct {
	// URL is resolved like the pack's urls: relative to the lock.
	URL    string `json:"url"`
	SHA256 string `json:"sha256"` // 64 lowercase hex digits
}

// Entry returns the pack's identity: what enters the fingerprint.
func (p Pack) Entry() Entry { return Entry{ID: p.ID, Version: p.Version, SHA256: p.SHA256} }

// Entries returns the identity of every pack in the lock.
func (l *Lock) Entries() []Entry {
	es := make([]Entry, len(l.Packs))
	for i, p := range l.Packs {
		es[i] = p.Entry()
	}
	return es
}

// Fingerprint returns the fingerprint of the lock's packs.
func (l *Lock) Fingerprint() string { return Fingerprint(l.Entries()) }

// DecodeOptions say what a decoding caller needs of a lock.
type DecodeOptions struct {
	// MaxArchiveBytes bounds each pack's size; 0 means
	// DefaultMaxArchiveBytes.
	MaxArchiveBytes int64
	// Have reports whether the machine already holds the archive with this
	// SHA-256 (in its store or its cache), so that the pack needs no
	// download and may list no URL. Nil means the machine holds none: every
	// pack must list at least one URL. A caller that only reads a lock (a
	// diff) and downloads nothing passes [HaveAll].
	Have func(sha256 string) bool
	// Given is set for a lock given as text (a request's body) rather
	// than read from a location: it may name no local file, since a file:
	// URL would make the daemon read its own disk for a caller who may
	// not read it, and a relative URL has no location to resolve against,
	// so a pack that must be downloaded needs an absolute http(s) URL.
	Given bool
}

// HaveAll is a DecodeOptions.Have for callers that download nothing: no
// pack needs a URL.
func HaveAll(string) bool { return true }

// problem is one fault of a lock file: where, and what.
type problem struct {
	// Line is 1-based; 0 when the fault has no place (an empty file).
	Line int `json:"line"`
	// Key is the key's path, e.g. pack[3].sha256; empty for the file as a
	// whole.
	Key string `json:"key,omitempty"`
	// Message says what is wrong, with the value found.
	Message string `json:"message"`
}

// lockError lists every fault of a lock file, each with its line.
type lockError struct {
	File     string    `json:"file"`
	Problems []problem `json:"problems"`
}

// Error returns one "FILE:LINE: KEY: MESSAGE" line per problem, each part
// escaped (rejection.Escape): a lock's text cannot drive a terminal.
func (e *lockError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(rejection.Escape(e.File))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(p.Line))
		b.WriteString(": ")
		if p.Key != "" {
			b.WriteString(rejection.Escape(p.Key))
			b.WriteString(": ")
		}
		b.WriteString(rejection.Escape(p.Message))
	}
	return b.String()
}

// Is reports whether target is ErrInvalidLock.
func (e *lockError) Is(target error) bool { return target == errInvalidLock }

// IsSHA256 reports whether s is a SHA-256 as a lock writes it: 64
// lowercase hex digits.
func IsSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
