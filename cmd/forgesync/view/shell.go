package view

import (
	"fmt"
	"strings"
)

// shellCommand is a command line to paste into a shell of the OS
// forgesync runs on: Windows has two shells that quote differently (cmd
// and PowerShell 5.1), so a command there is one line for both when it
// can be, else one for each.
type shellCommand struct {
	both, powershell, cmd string
}

// windowsProgram is forgesync as a player runs it on Windows, in the
// unzipped release folder (README "Getting started"): it works so in cmd
// and in PowerShell, which runs nothing from the current folder by its
// bare name.
const windowsProgram = `.\forgesync.exe`

// commandLine returns the command forgesync ARGS… for goos's shells:
// args are quoted where a shell would split or expand them.
func commandLine(goos string, args ...string) shellCommand {
	if goos != "windows" {
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = posixQuote(a)
		}
		return shellCommand{both: strings.Join(append([]string{"forgesync"}, q...), " ")}
	}
	both, ps, cmd := []string{windowsProgram}, []string{windowsProgram}, []string{windowsProgram}
	split := false
	for _, a := range args {
		b, ok := bothQuote(a)
		split = split || !ok
		both = append(both, b)
		ps = append(ps, powershellQuote(a))
		cmd = append(cmd, cmdQuote(a))
	}
	if split {
		return shellCommand{powershell: strings.Join(ps, " "), cmd: strings.Join(cmd, " ")}
	}
	return shellCommand{both: strings.Join(both, " ")}
}

// text writes c after intro ("Sign a set with"): one line when one
// command serves every shell, else a line for each shell.
func (c shellCommand) text(intro string) string {
	if c.both != "" {
		return fmt.Sprintf("%s: %s\n", intro, c.both)
	}
	return fmt.Sprintf("%s, in PowerShell: %s\n%s, in cmd: %s\n", intro, c.powershell, intro, c.cmd)
}

// EnvVar names the environment variable name as goos's shells set it.
func EnvVar(goos, name string) string {
	if goos != "windows" {
		return "$" + name
	}
	return fmt.Sprintf("the environment variable %s (PowerShell: $env:%s = '…'; cmd: set %s=…)", name, name, name)
}

// posixQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and the few marks no shell reads.
func posixQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// windowsPlain reports whether s needs no quotes in cmd nor PowerShell.
func windowsPlain(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\"'`$%&|<>^();,@{}#=+!~[]")
}

// bothQuote returns s as cmd and PowerShell both read it: as it is, or in
// double quotes, which neither treats specially inside but for ", $ and `
// (PowerShell) and % (cmd); ok is false when s holds one of those.
func bothQuote(s string) (string, bool) {
	if windowsPlain(s) {
		return s, true
	}
	if strings.ContainsAny(s, "\"$`%") {
		return "", false
	}
	return `"` + s + `"`, true
}

// powershellQuote quotes s for PowerShell: a single-quoted string reads
// everything literally but ', written twice.
func powershellQuote(s string) string {
	if windowsPlain(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// cmdQuote quotes s for cmd: inside double quotes it reads & | < > ^ ( )
// literally. A Windows path holds no ".
func cmdQuote(s string) string {
	if windowsPlain(s) {
		return s
	}
	return `"` + s + `"`
}
