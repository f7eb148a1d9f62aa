package cli

import (
	"fmt"
	"slices"
	"strings"
)

// Windows hands a program one command line, which Go splits into os.Args
// as CommandLineToArgvW does: there, backslashes before a quote escape it.
// PowerShell 5.1 passes a folder a player tab-completed, `C:\…\Mods\`, as
// "C:\…\Mods\" when it holds a space, and cmd passes what was typed, so
// the closing quote reads as a quote inside the value and the rest of the
// line joins it: `--mods "C:\x y\Mods\" --paks D:\p` arrives as the one
// argument `C:\x y\Mods" --paks D:\p`. No Windows path holds a quote, so
// repairWindowsArgs reads such a line as meant, and [Program.Run]
// refuses what is still left of one, naming the stray quote and the fix.

// splitWindows splits a Windows command line into arguments as Go's os
// package does (CommandLineToArgvW's rules, and "" inside quotes for a
// quote). With trailingBackslash, backslashes right before a quote that
// ends a quoted argument (a space, a tab or the line's end follows it) are
// kept as they are and the quote closes the argument: "C:\x y\Mods\"
// reads as C:\x y\Mods\.
func splitWindows(line string, trailingBackslash bool) []string {
	var args []string
	for len(line) > 0 {
		if line[0] == ' ' || line[0] == '\t' {
			line = line[1:]
			continue
		}
		var arg []byte
		arg, line = nextWindowsArg(line, trailingBackslash)
		args = append(args, string(arg))
	}
	return args
}

// nextWindowsArg splits the next argument off line; see [splitWindows].
func nextWindowsArg(line string, trailingBackslash bool) (arg []byte, rest string) {
	var inquote bool
	var nslash int
	for ; len(line) > 0; line = line[1:] {
		c := line[0]
		switch c {
		case ' ', '\t':
			if !inquote {
				return append(arg, strings.Repeat(`\`, nslash)...), line[1:]
			}
		case '"':
			ends := len(line) == 1 || line[1] == ' ' || line[1] == '\t'
			switch {
			case trailingBackslash && inquote && nslash%2 == 1 && ends:
				arg = append(arg, strings.Repeat(`\`, nslash)...)
				inquote = false
			case nslash%2 == 0:
				arg = append(arg, strings.Repeat(`\`, nslash/2)...)
				if inquote && len(line) > 1 && line[1] == '"' {
					arg = append(arg, c)
					line = line[1:]
				}
				inquote = !inquote
			default:
				arg = append(arg, strings.Repeat(`\`, nslash/2)...)
				arg = append(arg, c)
			}
			nslash = 0
			continue
		case '\\':
			nslash++
			continue
		}
		arg = append(arg, strings.Repeat(`\`, nslash)...)
		nslash = 0
		arg = append(arg, c)
	}
	return append(arg, strings.Repeat(`\`, nslash)...), ""
}

// repairWindowsArgs returns the arguments after the program's name of the
// Windows command line line, which Go split into args (os.Args): args as
// they are, unless one holds a quote and line read with quoted folders
// ending in a backslash (see [splitWindows]) leaves none; then that.
func repairWindowsArgs(line string, args []string) []string {
	if len(args) == 0 {
		return nil
	}
	hasQuote := func(a string) bool { return strings.Contains(a, `"`) }
	if !slices.ContainsFunc(args[1:], hasQuote) {
		return args[1:]
	}
	fixed := splitWindows(line, true)
	if len(fixed) == 0 || slices.ContainsFunc(fixed[1:], hasQuote) {
		return args[1:]
	}
	return fixed[1:]
}

// strayQuote returns the error for the first argument of args that a
// quote ending in a backslash on Windows made (see [splitWindows]): one
// holding a quote followed by white space and a flag (the rest of the
// line swallowed), or a Windows path ending in a quote.
func strayQuote(args []string) error {
	for i, a := range args {
		q := strings.IndexByte(a, '"')
		if q < 0 {
			continue
		}
		after := strings.TrimLeft(a[q+1:], " \t")
		swallowed := len(after) < len(a[q+1:]) && strings.HasPrefix(after, "-")
		if !swallowed && !(q == len(a)-1 && strings.Contains(a, `\`)) {
			continue
		}
		flag, value := "", a
		if name, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") && !strings.Contains(name, `"`) {
			flag, value = name, v
		} else if i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") {
			flag = args[i-1]
		}
		folder := value[:strings.IndexByte(value, '"')]
		as := func(v string) string { return strings.TrimSpace(flag + ` "` + v + `"`) }
		return fmt.Errorf("%s: a stray quote (\"): Windows reads the \\\" that ends %s as a quote inside the value, so the rest of the line became part of it; drop the trailing backslash (%s) or double it (%s)",
			strings.TrimSpace(flag+" "+value), `"`+folder+`\"`, as(folder), as(folder+`\\`))
	}
	return nil
}
