package cli

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/term"
)

// AskPassword asks for a password on the terminal without echoing it; ok
// is false when standard input is not a terminal.
func AskPassword(prompt string) (password string, ok bool, err error) {
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return "", false, nil
	}
	fmt.Fprint(os.Stderr, prompt)
	b, err := term.ReadPassword(fd)
	fmt.Fprintln(os.Stderr)
	return string(b), true, err
}

// NewPassword returns the password for a new secret (what names it, as
// "the secret key"): env when it is not empty, else one asked twice with
// ask (an empty answer means no password); ok is false when there is
// neither.
func NewPassword(env, what string, ask func(prompt string) (string, bool, error)) (password string, ok bool, err error) {
	if env != "" {
		return env, true, nil
	}
	p, ok, err := ask("Password for " + what + " (empty: none): ")
	if err != nil || !ok {
		return "", ok, err
	}
	if p == "" {
		return "", true, nil
	}
	again, _, err := ask("The same password again: ")
	if err != nil {
		return "", true, err
	}
	if again != p {
		return "", true, errors.New("the two passwords differ: nothing was written")
	}
	return p, true, nil
}
