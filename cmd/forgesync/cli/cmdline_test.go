package cli

import (
	"slices"
	"strings"
	"testing"
)

// TestSplitWindows: the command line is split as Go's os package splits it
// on Windows (CommandLineToArgvW's rules), and with trailingBackslash a
// quoted argument ending in backslashes keeps them and ends there.
func TestSplitWindows(t *testing.T) {
	tests := []struct {
		line       string
		go_, fixed []string
	}{
		{`a.exe b "c d" e`, []string{"a.exe", "b", "c d", "e"}, nil},
		{`a.exe "C:\x\\" y`, []string{"a.exe", `C:\x\`, "y"}, nil},
		{`a.exe C:\x\ y\\z`, []string{"a.exe", `C:\x\`, `y\\z`}, nil},
		{`a.exe "say \"hi\"" x`, []string{"a.exe", `say "hi"`, "x"}, nil},
		{`a.exe "a""b" c`, []string{"a.exe", `a"b c`}, nil},
		{`a.exe --mods "C:\x y\Mods\" --paks D:\p`, []string{"a.exe", "--mods", `C:\x y\Mods" --paks D:\p`},
			[]string{"a.exe", "--mods", `C:\x y\Mods\`, "--paks", `D:\p`}},
		{`a.exe --mods "C:\x y\Mods\" --paks "D:\p q\Paks\"`, []string{"a.exe", "--mods", `C:\x y\Mods" --paks D:\p`, `q\Paks"`},
			[]string{"a.exe", "--mods", `C:\x y\Mods\`, "--paks", `D:\p q\Paks\`}},
		{`a.exe --mods "C:\x y\Mods\"`, []string{"a.exe", "--mods", `C:\x y\Mods"`}, []string{"a.exe", "--mods", `C:\x y\Mods\`}},
	}
	for _, tt := range tests {
		if got := splitWindows(tt.line, false); !slices.Equal(got, tt.go_) {
			t.Errorf("splitWindows(%s, false) = %q; want %q", tt.line, got, tt.go_)
		}
		want := tt.fixed
		if want == nil {
			want = tt.go_
		}
		if got := splitWindows(tt.line, true); !slices.Equal(got, want) {
			t.Errorf("splitWindows(%s, true) = %q; want %q", tt.line, got, want)
		}
	}
}

// TestRepairWindowsArgs: a line whose quoted folder ends in a backslash
// (PowerShell 5.1 passes a tab-completed folder so) is read as meant;
// every other line, and one whose repair would still hold a quote, is
// read as Go split it.
func TestRepairWindowsArgs(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`forgesync.exe setup --mods "C:\Steam Library\Mods\" --paks "C:\Steam Library\Paks\" --state D:\s`,
			[]string{"setup", "--mods", `C:\Steam Library\Mods\`, "--paks", `C:\Steam Library\Paks\`, "--state", `D:\s`}},
		{`forgesync.exe setup --mods "C:\Steam Library\Mods" --paks D:\p`,
			[]string{"setup", "--mods", `C:\Steam Library\Mods`, "--paks", `D:\p`}},
		{`forgesync.exe lock --name "the \"best\" set" -o x`, []string{"lock", "--name", `the "best" set`, "-o", "x"}},
	}
	for _, tt := range tests {
		if got := repairWindowsArgs(tt.line, splitWindows(tt.line, false)); !slices.Equal(got, tt.want) {
			t.Errorf("repairWindowsArgs(%s) = %q; want %q", tt.line, got, tt.want)
		}
	}
}

// TestRunRefusesAStrayQuote: an argument that a quoted folder ending in a
// backslash made (the rest of the line swallowed, or a path ending in a
// quote) is refused naming the flag, the stray quote and the fix, before
// the configuration is read; a quote elsewhere is an argument like any.
func TestRunRefusesAStrayQuote(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"version", "--config", `C:\x y\f.toml" --json`},
			`forgesync version: --config C:\x y\f.toml" --json: a stray quote ("): Windows reads the \" that ends "C:\x y\f.toml\" as a quote inside the value, so the rest of the line became part of it; drop the trailing backslash (--config "C:\x y\f.toml") or double it (--config "C:\x y\f.toml\\")` + "\n"},
		{[]string{"version", `--config=C:\x y\dir"`},
			`forgesync version: --config C:\x y\dir": a stray quote ("): Windows reads the \" that ends "C:\x y\dir\" as a quote inside the value, so the rest of the line became part of it; drop the trailing backslash (--config "C:\x y\dir") or double it (--config "C:\x y\dir\\")` + "\n"},
		{[]string{"fail", `C:\x y\a" -x`},
			`forgesync fail: C:\x y\a" -x: a stray quote ("): Windows reads the \" that ends "C:\x y\a\" as a quote inside the value, so the rest of the line became part of it; drop the trailing backslash ("C:\x y\a") or double it ("C:\x y\a\\")` + "\n"},
	}
	for _, tt := range tests {
		code, out, errs := runProgram(t, tt.args...)
		if code != ExitFailure || out != "" || errs != tt.want {
			t.Errorf("Run(%q) = %d %q\n%s\nwant %d\n%s", tt.args, code, out, errs, ExitFailure, tt.want)
		}
	}
	if code, _, errs := runProgram(t, "fail", `say "hi"`); code != ExitFailure || !strings.Contains(errs, "broken") {
		t.Errorf("Run(fail, say \"hi\") = %d %s; want the command to run", code, errs)
	}
}
