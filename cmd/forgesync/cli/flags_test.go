package cli

import (
	"flag"
	"io"
	"slices"
	"testing"
)

// TestOptionalValue: `--set` alone, `--set=URL` and `--set URL` (the
// value a positional argument) all give the flag; With puts its value
// first.
func TestOptionalValue(t *testing.T) {
	tests := []struct {
		args  []string
		given bool
		with  []string
	}{
		{nil, false, nil},
		{[]string{"--set"}, true, nil},
		{[]string{"--set=u"}, true, []string{"u"}},
		{[]string{"--set", "u"}, true, []string{"u"}},
		{[]string{"--set=u", "v"}, true, []string{"u", "v"}},
	}
	for _, tt := range tests {
		var v OptionalValue
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(&v, "set", "")
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("Parse(%q) = %v", tt.args, err)
		}
		if got := v.With(fs.Args()); v.Given != tt.given || !slices.Equal(got, tt.with) {
			t.Errorf("Parse(%q): Given = %v, With = %q; want %v, %q", tt.args, v.Given, got, tt.given, tt.with)
		}
	}
}
