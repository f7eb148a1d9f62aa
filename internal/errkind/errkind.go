// Package errkind owns the kinds of failure forgesync's callers decide on:
// a small closed set (refused by a rule, not found, conflict, busy, bad
// request, unavailable, internal) that the code deciding a failure attaches
// to its error, so that the status socket's answer and the command's exit
// status are each read from the kind in one table (daemon and cmd/forgesync/cli
// hold them) instead of from lists of sentinels kept beside every mapping.
//
// A [Kind] is itself an error, the sentinel of its kind: errors.Is(err,
// errkind.NotFound) tells whether a kind is anywhere in err's tree, and
// [Of] gives the kind that counts. Attaching a kind never changes an
// error's words: [Wrap] says exactly what its error says, and a Kind
// wrapped with %w says the words the sentinels it replaced said.
package errkind

import (
	"errors"
	"fmt"
)

// Kind is the kind of a failure. The zero value is [Internal]: an error
// nobody gave a kind is the machine's failure, not the request's.
type Kind uint8

// The kinds.
const (
	// Internal: the machine failed (I/O, a bug, a download); the request
	// may succeed as sent once the trouble is gone.
	Internal Kind = iota
	// Refused: a rule refuses the request (an enable or a set over the
	// global limits, a set the install rules refuse).
	Refused
	// NotFound: the request names something that is not there (a pack not
	// installed, a generation not kept, an archive not rejected, an
	// endpoint the daemon does not serve).
	NotFound
	// Conflict: the request cannot be done against the state as it stands
	// (an archive a generation needs is not kept, or its bytes do not match).
	Conflict
	// Busy: the writer cannot take the request now (a set sync running,
	// the state folder held by another process, a request cancelled); try
	// again later.
	Busy
	// Invalid: the request can never succeed as sent (a malformed body, a
	// lock refused, an argument out of range).
	Invalid
	// Unavailable: the one who would do it is stopping; try again when it
	// is back.
	Unavailable
)

// Kinds lists every kind, for the tables that must cover them all.
var Kinds = []Kind{Internal, Refused, NotFound, Conflict, Busy, Invalid, Unavailable}

// words are what a Kind says as an error: for Refused, NotFound, Conflict,
// Busy and Invalid the words of the sentinels they replaced, which users
// see at the end of messages that wrap them with %w.
var words = [...]string{
	Internal:    "internal error",
	Refused:     "refused",
	NotFound:    "not found",
	Conflict:    "conflict",
	Busy:        "busy",
	Invalid:     "invalid request",
	Unavailable: "unavailable",
}

// Error says the kind in a few words.
func (k Kind) Error() string {
	if int(k) < len(words) {
		return words[k]
	}
	return fmt.Sprintf("kind %d", uint8(k))
}

// String is the kind's words, as Error.
func (k Kind) String() string { return k.Error() }

// kinded is an error with a kind attached; see [Wrap].
type kinded struct {
	kind Kind
	err  error
}

func (e *kinded) Error() string { return e.err.Error() }

// Unwrap gives the kind first, so that [Of] finds the kind attached last.
func (e *kinded) Unwrap() []error { return []error{e.kind, e.err} }

// Wrap attaches kind to err: the result says what err says and matches
// what err matches, and kind besides. Wrap(kind, nil) is nil.
func Wrap(kind Kind, err error) error {
	if err == nil {
		return nil
	}
	return &kinded{kind: kind, err: err}
}

// New returns an error of kind that says text, for a package's sentinel
// whose kind is part of what it means.
func New(kind Kind, text string) error {
	return &kinded{kind: kind, err: errors.New(text)}
}

// Errorf formats an error like fmt.Errorf and attaches kind to it.
func Errorf(kind Kind, format string, args ...any) error {
	return &kinded{kind: kind, err: fmt.Errorf(format, args...)}
}

// Of returns err's kind: the one attached last (the outermost in err's
// tree, found as errors.As finds it), or Internal when none is attached.
func Of(err error) Kind {
	var k Kind
	if errors.As(err, &k) {
		return k
	}
	return Internal
}
