package daemon

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

// TestEveryKindAnswered walks every kind through the socket: a failure of
// each kind is answered with its row of the one table, and the client reads
// back a kind answered the same way, with the failure's words.
func TestEveryKindAnswered(t *testing.T) {
	b := newFakeBackend()
	s := startServer(t, b, nil, ServerOptions{})
	codes := map[string]bool{}
	for _, k := range errkind.Kinds {
		want := Answer(k)
		if want.Kind != k {
			t.Errorf("Answer(%v) = %+v; want a row of its own", k, want)
		}
		codes[want.Code] = true
		b.setErr(errkind.Wrap(k, errors.New("no: the rule says so")))
		_, err := s.client.Enable(waitCtx(t), "foundry-wide")
		var ae *APIError
		if !errors.As(err, &ae) || ae.Status != want.Status || ae.Code != want.Code {
			t.Errorf("a failure of kind %v answered %v; want %d %s", k, err, want.Status, want.Code)
			continue
		}
		back := errkind.Of(err)
		if got := Answer(back); got.Status != want.Status || got.Code != want.Code {
			t.Errorf("kind %v read back as %v, answered %d %s; want %d %s", k, back, got.Status, got.Code, want.Status, want.Code)
		}
		if back != ae.Kind() || !errors.Is(err, back) {
			t.Errorf("kind %v: errkind.Of = %v, APIError.Kind = %v, errors.Is %v; want one kind", k, back, ae.Kind(), errors.Is(err, back))
		}
		if want := fmt.Sprintf("enable foundry-wide: %s", "no: the rule says so"); ae.Message != want {
			t.Errorf("kind %v: message %q; want %q", k, ae.Message, want)
		}
	}
	// Every code of the table reads back as a kind of its own row.
	for code := range codes {
		k := (&APIError{Code: code}).Kind()
		if Answer(k).Code != code {
			t.Errorf("code %s reads back as %v, answered %s", code, k, Answer(k).Code)
		}
	}
	if k := (&APIError{Status: 405, Code: codeMethodNotAllowed}).Kind(); k != errkind.Internal {
		t.Errorf("code %s reads back as %v; want internal (no kind)", codeMethodNotAllowed, k)
	}
}
