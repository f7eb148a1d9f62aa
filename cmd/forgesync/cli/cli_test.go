package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

var errNo = errkind.Wrap(errkind.Refused, errors.New("no"))

// program is a program of two commands: version prints its configuration
// file; fail fails with errNo (a refusal) or another error.
func program() *Program {
	return &Program{
		Version: "1.2.3",
		Commands: []*Command{
			{Name: "version", Summary: "print the version\nmore", NoConfig: true,
				Run: func(ctx context.Context, e *Env, args []string) int {
					return Show(e, map[string]string{"file": e.Config.File}, func(w io.Writer, v map[string]string) error {
						_, err := io.WriteString(w, "file "+v["file"]+"\n")
						return err
					})
				}},
			{Name: "fail", Args: "HOW", NoConfig: true, Nargs: Args{Min: 1, Max: 1, Want: "one HOW"},
				Run: func(ctx context.Context, e *Env, args []string) int {
					if args[0] == "refused" {
						return e.Fail(errNo)
					}
					return e.Fail(errors.New("broken"))
				}},
		},
	}
}

func runProgram(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := program().Run(t.Context(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRun(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "f.toml")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string // prefixes
	}{
		{"no arguments", nil, ExitFailure, "", "forgesync 1.2.3 keeps MJOLNIR Forge packs installed"},
		{"help", []string{"help"}, ExitOK, "forgesync 1.2.3 keeps", ""},
		{"unknown", []string{"nope"}, ExitFailure, "", "forgesync: unknown command \"nope\" (run `forgesync help` for the list)\n"},
		{"config before the command", []string{"--config", cfg, "version"}, ExitOK, "file " + cfg + "\n", ""},
		{"json after", []string{"version", "--json"}, ExitOK, "{\n  \"file\": \"\"\n}\n", ""},
		{"too few arguments", []string{"fail"}, ExitFailure, "", "forgesync fail: want one HOW, got 0 arguments\n"},
		{"refused", []string{"fail", "refused"}, ExitInvalid, "", "forgesync fail: no\n"},
		{"failed", []string{"fail", "x"}, ExitFailure, "", "forgesync fail: broken\n"},
		{"flags after arguments", []string{"fail", "refused", "--log-level", "debug"}, ExitInvalid, "", "forgesync fail: no\n"},
		{"bad log level", []string{"version", "--log-level", "loud"}, ExitFailure, "", "forgesync: --log-level \"loud\": want debug, info, warn or error\n"},
		{"bad log format", []string{"version", "--log-format", "xml"}, ExitFailure, "", "forgesync: --log-format \"xml\": want text or json\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runProgram(t, tt.args...)
			if code != tt.code || !strings.HasPrefix(out, tt.out) || !strings.HasPrefix(errs, tt.err) || (tt.out == "" && out != "") {
				t.Errorf("Run(%q) = %d, stdout %q, stderr %q; want %d, %q…, %q…", tt.args, code, out, errs, tt.code, tt.out, tt.err)
			}
		})
	}
}

// TestShortLived: the program's ShortLived runs before a command that
// runs once (also one that then fails), never before one that serves.
func TestShortLived(t *testing.T) {
	p := program()
	p.Commands = append(p.Commands, &Command{Name: "serve", NoConfig: true, Serves: true,
		Run: func(ctx context.Context, e *Env, args []string) int { return ExitOK }})
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"version"}, 1},
		{[]string{"fail", "x"}, 1},
		{[]string{"serve"}, 0},
		{[]string{"help"}, 0},
	} {
		calls := 0
		p.ShortLived = func() { calls++ }
		p.Run(t.Context(), tc.args, io.Discard, io.Discard)
		if calls != tc.want {
			t.Errorf("Run(%q) called ShortLived %d times; want %d", tc.args, calls, tc.want)
		}
	}
}

// TestUsageLines: a long name and its arguments get a line of their own;
// only a summary's first line is listed.
func TestUsageLines(t *testing.T) {
	p := program()
	p.Commands[1].Args = strings.Repeat("X", 40)
	var b bytes.Buffer
	p.usage(&b)
	if got := b.String(); !strings.Contains(got, "  version                            print the version\n") || strings.Contains(got, "more") ||
		!strings.Contains(got, "  fail "+strings.Repeat("X", 40)+"\n") {
		t.Errorf("usage =\n%s\nwant version's first summary line in the column, and fail's name on a line of its own", got)
	}
}

// TestGlobalsBeforeTheCommand: every global flag that takes a value is
// skipped with its value when it comes before the command's name.
func TestGlobalsBeforeTheCommand(t *testing.T) {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	globals(fs, &Env{})
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		args := []string{"--" + f.Name, "V", "version", "a"}
		want := []string{"version", "--" + f.Name, "V", "a"}
		if isBoolFlag(f) {
			want = []string{"V", "--" + f.Name, "version", "a"}
		} else {
			n++
		}
		if got := commandFirst(args); !slices.Equal(got, want) {
			t.Errorf("commandFirst(%q) = %q; want %q", args, got, want)
		}
	})
	if n < 4 {
		t.Errorf("%d global flags take a value; want at least 4", n)
	}
	if got := commandFirst([]string{"--json"}); !slices.Equal(got, []string{"--json"}) {
		t.Errorf("commandFirst([--json]) = %q; want it as it is", got)
	}
	if got := commandFirst([]string{"--config=f", "scan"}); !slices.Equal(got, []string{"scan", "--config=f"}) {
		t.Errorf("commandFirst([--config=f scan]) = %q", got)
	}
}

func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		args []string
		pos  []string
		o    string
	}{
		{[]string{"dir", "-o", "f"}, []string{"dir"}, "f"},
		{[]string{"-o", "f", "dir"}, []string{"dir"}, "f"},
		{[]string{"a", "-o", "f", "b"}, []string{"a", "b"}, "f"},
		{[]string{"a", "--", "-o", "f"}, []string{"a", "-o", "f"}, ""},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("", flag.ContinueOnError)
		o := fs.String("o", "", "")
		pos, err := parseInterspersed(fs, tt.args)
		if err != nil || !slices.Equal(pos, tt.pos) || *o != tt.o {
			t.Errorf("parseInterspersed(%q) = %q, -o %q, %v; want %q, -o %q", tt.args, pos, *o, err, tt.pos, tt.o)
		}
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		a  Args
		n  int
		ok bool
	}{
		{Args{}, 5, true},
		{Args{Min: 1, Max: 1, Want: "one"}, 1, true},
		{Args{Min: 1, Max: 1, Want: "one"}, 2, false},
		{Args{Min: 1, Max: -1, Want: "some"}, 9, true},
		{Args{Min: 1, Max: -1, Want: "some"}, 0, false},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if ok := tt.a.check(&b, "c", tt.n); ok != tt.ok || (b.Len() == 0) != ok {
			t.Errorf("%+v.check(%d) = %v, %q; want %v", tt.a, tt.n, ok, b.String(), tt.ok)
		}
	}
}

func TestFailEscapesControls(t *testing.T) {
	var b bytes.Buffer
	e := &Env{Name: "sync", Stderr: &b}
	e.Fail(errors.New("entry a\x1b]0;owned\x07b: bad\n  next\u202e line"))
	if want := "forgesync sync: entry a\\x1b]0;owned\\x07b: bad\n  next\\u202e line\n"; b.String() != want {
		t.Errorf("Fail wrote %q; want %q", b.String(), want)
	}
}

func TestHelpShowsOnlyThisOSFlags(t *testing.T) {
	p := &Program{Commands: []*Command{{Name: "x", NoConfig: true, Run: func(context.Context, *Env, []string) int { return ExitOK }}}}
	var out, errb bytes.Buffer
	if code := p.Run(context.Background(), []string{"x", "-h"}, &out, &errb); code != ExitOK {
		t.Fatalf("x -h = %d", code)
	}
	if got := strings.Contains(errb.String(), "-owner"); got != (runtime.GOOS == "windows") {
		t.Errorf("help on %s shows -owner: %v\n%s", runtime.GOOS, got, errb.String())
	}
	if !strings.Contains(errb.String(), "-config FILE") {
		t.Errorf("help lost the other flags:\n%s", errb.String())
	}
	// An older service's --owner is still accepted.
	if code := p.Run(context.Background(), []string{"x", "--owner", "0"}, &out, &errb); code != ExitOK {
		t.Errorf("x --owner 0 = %d\n%s", code, errb.String())
	}
}

// TestExitStatusOfEveryKind: every kind has its exit status in the one
// table; the request's faults are 1, the rest 2, as before kinds.
func TestExitStatusOfEveryKind(t *testing.T) {
	want := map[errkind.Kind]int{errkind.Refused: ExitInvalid, errkind.NotFound: ExitInvalid, errkind.Conflict: ExitInvalid}
	for _, k := range errkind.Kinds {
		if _, ok := exitStatuses[k]; !ok {
			t.Errorf("kind %v has no exit status", k)
		}
		w, ok := want[k]
		if !ok {
			w = ExitFailure
		}
		err := fmt.Errorf("enable x: %w", errkind.Wrap(k, errors.New("no")))
		if got := exitStatus(err); got != w {
			t.Errorf("exitStatus(%v of kind %v) = %d; want %d", err, k, got, w)
		}
	}
	if got := exitStatus(errors.New("disk on fire")); got != ExitFailure {
		t.Errorf("exitStatus(an error of no kind) = %d; want %d", got, ExitFailure)
	}
	if len(exitStatuses) != len(errkind.Kinds) {
		t.Errorf("the exit table has %d rows; want one per kind (%d)", len(exitStatuses), len(errkind.Kinds))
	}
}
