package cli

import "testing"

// TestNewPassword: the environment's password wins; else the terminal is
// asked twice, and answers that differ are an error; an empty answer is
// no password; no terminal is no password to be had.
func TestNewPassword(t *testing.T) {
	tests := []struct {
		name, env string
		answers   []string // nil: no terminal
		want      string
		ok, err   bool
	}{
		{"env", "e", nil, "e", true, false},
		{"asked", "", []string{"p", "p"}, "p", true, false},
		{"differ", "", []string{"p", "q"}, "", true, true},
		{"empty", "", []string{""}, "", true, false},
		{"no terminal", "", nil, "", false, false},
	}
	for _, tt := range tests {
		answers := tt.answers
		ask := func(string) (string, bool, error) {
			if answers == nil {
				return "", false, nil
			}
			a := answers[0]
			answers = answers[1:]
			return a, true, nil
		}
		got, ok, err := NewPassword(tt.env, "the key", ask)
		if got != tt.want || ok != tt.ok || (err != nil) != tt.err {
			t.Errorf("%s: NewPassword = %q, %v, %v; want %q, %v, error %v", tt.name, got, ok, err, tt.want, tt.ok, tt.err)
		}
	}
}
