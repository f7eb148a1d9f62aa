package errkind

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestOf(t *testing.T) {
	base := errors.New("enable doors: 300 doors > 256")
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"nil", nil, Internal},
		{"no kind", base, Internal},
		{"wrapped", Wrap(Refused, base), Refused},
		{"wrapped again with %w", fmt.Errorf("apply set: %w", Wrap(NotFound, base)), NotFound},
		{"a kind with %w", fmt.Errorf("enable doors: too many: %w", Refused), Refused},
		{"the last kind attached counts", Wrap(Busy, fmt.Errorf("send: %w", Wrap(Invalid, base))), Busy},
		{"a sentinel with a kind", fmt.Errorf("pack x: %w", New(Conflict, "archive not available")), Conflict},
		{"beside another error", fmt.Errorf("%w: %w", New(Invalid, "pack set refused"), fs.ErrNotExist), Invalid},
		{"formatted", Errorf(Unavailable, "stopping: %w", base), Unavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(tt.err); got != tt.want {
				t.Errorf("Of(%v) = %v; want %v", tt.err, got, tt.want)
			}
		})
	}
}

// TestWrapKeepsWords: a kind never changes what an error says, and the
// error still matches what it matched.
func TestWrapKeepsWords(t *testing.T) {
	base := fmt.Errorf("nope: %w", fs.ErrNotExist)
	for _, k := range Kinds {
		err := Wrap(k, base)
		if err.Error() != base.Error() {
			t.Errorf("Wrap(%v, %q) says %q; want its error's words", k, base, err)
		}
		if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, k) {
			t.Errorf("Wrap(%v, %q) matches fs.ErrNotExist %v, %v %v; want both", k, base,
				errors.Is(err, fs.ErrNotExist), k, errors.Is(err, k))
		}
		for _, other := range Kinds {
			if other != k && errors.Is(err, other) {
				t.Errorf("Wrap(%v, %q) matches %v too", k, base, other)
			}
		}
	}
	if err := Wrap(Refused, nil); err != nil {
		t.Errorf("Wrap(Refused, nil) = %v; want nil", err)
	}
	if got := Errorf(Invalid, "generation %d: %s", -1, "send N").Error(); got != "generation -1: send N" {
		t.Errorf("Errorf says %q; want the format's words", got)
	}
	if got := New(Busy, "state folder is in use").Error(); got != "state folder is in use" {
		t.Errorf("New says %q; want its text", got)
	}
}

// TestKindWords: the kinds that replaced sentinels say those sentinels'
// words, which users see at the end of messages that wrap them.
func TestKindWords(t *testing.T) {
	want := map[Kind]string{Refused: "refused", NotFound: "not found", Conflict: "conflict", Busy: "busy", Invalid: "invalid request"}
	for k, w := range want {
		if got := fmt.Errorf("x: %w", k).Error(); got != "x: "+w {
			t.Errorf("fmt.Errorf(\"x: %%w\", %d) = %q; want %q", uint8(k), got, "x: "+w)
		}
	}
	seen := map[string]Kind{}
	for _, k := range Kinds {
		if prev, ok := seen[k.Error()]; ok {
			t.Errorf("kinds %d and %d both say %q", uint8(prev), uint8(k), k)
		}
		seen[k.Error()] = k
	}
	if len(Kinds) != len(words) {
		t.Errorf("Kinds lists %d kinds; words has %d", len(Kinds), len(words))
	}
}
