package cli

import (
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
