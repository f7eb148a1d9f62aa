// Package cli owns the forgesync command's sub-command machinery: a
// command's flags and the bounds of its arguments, flags that may come
// before the command's name or after its arguments (and Windows command
// lines read as meant), the flags every command takes (the configuration,
// --json, the log's format and level) and the configuration and logger
// they choose, the usage text, the exit statuses (from an error's kind, in
// one table), and printing a value as JSON or as text. Around the commands
// it owns the process's own: the build a binary reports (version, commit,
// date), the CPU profile the benchmarks ask for, and the terminal (whether
// standard input is one, asking a password). What each command does is its
// own.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/internal/text"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// Exit statuses shared by the commands.
const (
	ExitOK      = 0 // all good
	ExitInvalid = 1 // something was rejected or is invalid
	ExitFailure = 2 // could not do the job (unreadable input, bad usage, I/O)
)

// exitStatuses is the one table from the kind of a command's failure to its
// exit status: a request refused by a rule, naming what is not there, or
// at odds with the state is the request's fault (1); a request the daemon
// calls invalid, one to try again later, and the machine's own failures
// are 2, as they were before kinds.
var exitStatuses = map[errkind.Kind]int{
	errkind.Refused:     ExitInvalid,
	errkind.NotFound:    ExitInvalid,
	errkind.Conflict:    ExitInvalid,
	errkind.Invalid:     ExitFailure,
	errkind.Busy:        ExitFailure,
	errkind.Unavailable: ExitFailure,
	errkind.Internal:    ExitFailure,
}

// exitStatus returns the exit status of a command that failed with err,
// by err's kind ([errkind.Of]).
func exitStatus(err error) int {
	if code, ok := exitStatuses[errkind.Of(err)]; ok {
		return code
	}
	return ExitFailure
}

// Env is what every command gets: its output streams, the parsed common
// flags, the configuration and the logger.
type Env struct {
	Name           string // the command's
	Stdout, Stderr io.Writer
	JSON           bool
	configPath     string
	Machine        bool   // --machine: run as the machine service
	Owner          string // --owner: the installing user, admitted to the socket's folder
	logFormat      string
	logLevel       string
	serves         bool // a long-running command: it logs at the configured level
	Config         *config.Config
	Log            *slog.Logger
}

// Command is one sub-command.
type Command struct {
	Name    string
	Args    string // positional arguments, for usage
	Summary string
	Flags   func(fs *flag.FlagSet) // extra flags, may be nil
	Run     func(ctx context.Context, e *Env, args []string) int
	// NoConfig marks commands that never read the configuration.
	NoConfig bool
	// Nargs bounds the positional arguments; the zero value takes any.
	Nargs Args
	// Serves marks the long-running commands (daemon, demo), which log at
	// the configured level; the others print their own output and log
	// only warnings and errors unless --log-level says otherwise.
	Serves bool
}

// Program is the command and its sub-commands.
type Program struct {
	Version  string
	Commands []*Command
	// ShortLived, when set, is called before a command that runs once and
	// exits (not Serves): the program tunes its runtime for a short life.
	ShortLived func()
}

// Run runs the sub-command args name with the rest of args and returns
// its exit status.
func (p *Program) Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		p.usage(stderr)
		return ExitFailure
	}
	args = commandFirst(args)
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		p.usage(stdout)
		return ExitOK
	}
	i := slices.IndexFunc(p.Commands, func(c *Command) bool { return c.Name == args[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "forgesync: unknown command %q (run `forgesync help` for the list)\n", args[0])
		return ExitFailure
	}
	c := p.Commands[i]
	if p.ShortLived != nil && !c.Serves {
		p.ShortLived()
	}
	if err := strayQuote(args[1:]); err != nil {
		fmt.Fprintf(stderr, "forgesync %s: %v\n", c.Name, err)
		return ExitFailure
	}
	e := &Env{Name: c.Name, Stdout: stdout, Stderr: stderr, serves: c.Serves}
	fs := flag.NewFlagSet("forgesync "+c.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	globals(fs, e)
	if c.Flags != nil {
		c.Flags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: forgesync %s [flags] %s\n\n%s\n\nflags:\n", c.Name, c.Args, c.Summary)
		printDefaults(fs, stderr)
	}
	pos, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		return ExitFailure
	}
	if err := e.configure(c.NoConfig); err != nil {
		fmt.Fprintf(stderr, "forgesync: %v\n", err)
		return ExitFailure
	}
	if !c.Nargs.check(stderr, c.Name, len(pos)) {
		return ExitFailure
	}
	return c.Run(ctx, e, pos)
}

// configure loads the configuration the common flags name (a command that
// reads none gets the defaults unless --config names a file) and makes the
// logger.
func (e *Env) configure(noConfig bool) error {
	if !noConfig || e.configPath != "" {
		cenv := config.Process(e.Machine)
		path := e.configPath
		var err error
		if !noConfig {
			path, _, err = cenv.Discover(e.configPath)
		}
		cfg, lerr := config.LoadEnv(path, cenv)
		if err = errors.Join(err, lerr); err != nil {
			return err
		}
		e.Config = cfg
	} else {
		e.Config = config.Default()
	}
	var err error
	e.Log, err = e.NewLogger()
	return err
}

// parseInterspersed parses flags that may come before or after positional
// arguments (`pack DIR -o FILE` and `pack -o FILE DIR`); "--" ends flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, rest = args[:i], args[i+1:]
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	return append(pos, rest...), nil
}

// printDefaults prints the flags of fs as fs.PrintDefaults does, leaving
// out those of another OS ([windowsOnly]).
func printDefaults(fs *flag.FlagSet, w io.Writer) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		if !windowsOnly[f.Name] {
			shown.Var(f.Value, f.Name, f.Usage)
			shown.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	shown.PrintDefaults()
}

// globals registers the flags every command takes.
func globals(fs *flag.FlagSet, e *Env) {
	fs.StringVar(&e.configPath, "config", "", "configuration `FILE` (TOML); default: $FORGESYNC_CONFIG, then the user's, then the machine's forgesync.toml")
	fs.BoolVar(&e.Machine, "machine", false, "resolve the config as the machine service does (service install sets it)")
	fs.StringVar(&e.Owner, "owner", "", "the `SID` of the user the socket's folder admits besides SYSTEM and Administrators (service install sets it)")
	fs.BoolVar(&e.JSON, "json", false, "print JSON for machines")
	fs.StringVar(&e.logFormat, "log-format", "", "log format: text or json (default from config, else text)")
	fs.StringVar(&e.logLevel, "log-level", "", "log level: debug, info, warn, error")
}

// commandFirst moves the command name before the flags that precede it,
// so `forgesync --config FILE scan x` reads as `forgesync scan --config
// FILE x`. Without a command name, args are returned as they are.
func commandFirst(args []string) []string {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	globals(fs, &Env{})
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" || a == "--help" || !strings.HasPrefix(a, "-") {
			return slices.Concat(args[i:i+1], args[:i], args[i+1:])
		}
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := fs.Lookup(name); f != nil && !inline && !isBoolFlag(f) {
			i++ // its value
		}
	}
	return args
}

// isBoolFlag reports whether f takes no value.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// NewLogger returns the logger of the configuration and the flags, writing
// to Stderr: a command that does not serve logs only warnings and errors
// unless --log-level says otherwise.
func (e *Env) NewLogger() (*slog.Logger, error) {
	level, format := e.Config.Log.Level, e.Config.Log.Format
	if !e.serves {
		level = slog.LevelWarn
	}
	if e.logLevel != "" {
		if err := level.UnmarshalText([]byte(e.logLevel)); err != nil {
			return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", e.logLevel)
		}
	}
	if e.logFormat != "" {
		format = e.logFormat
	}
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(e.Stderr, opts)), nil
	case "text", "":
		return slog.New(slog.NewTextHandler(e.Stderr, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

func (p *Program) usage(w io.Writer) {
	fmt.Fprintf(w, "forgesync %s keeps MJOLNIR Forge packs installed, validated and in sync.\n\nusage: forgesync COMMAND [flags] [args]\n\ncommands:\n", p.Version)
	for _, c := range p.Commands {
		name := strings.TrimSpace(c.Name + " " + c.Args)
		if len(name) > 34 {
			fmt.Fprintf(w, "  %s\n  %-34s %s\n", name, "", firstLine(c.Summary))
			continue
		}
		fmt.Fprintf(w, "  %-34s %s\n", name, firstLine(c.Summary))
	}
	fmt.Fprintf(w, "\nEvery command takes --config FILE, --json, --log-format and --log-level;\nflags may come before or after arguments. `forgesync COMMAND -h` for details.\n")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Fail reports err as the command's failure and returns its exit status,
// by its kind (exitStatus): 1 when the request was refused, else 2. Each
// line of the error is escaped (rejection.Escape): names from archives and
// answers from servers cannot drive the terminal.
func (e *Env) Fail(err error) int {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = rejection.Escape(l)
	}
	fmt.Fprintf(e.Stderr, "forgesync %s: %s\n", e.Name, strings.Join(lines, "\n"))
	return exitStatus(err)
}

// Exit returns the exit status of a command that ends with err: ExitOK
// when err is nil, else what [Env.Fail] reports.
func (e *Env) Exit(err error) int {
	if err != nil {
		return e.Fail(err)
	}
	return ExitOK
}

// Failf reports a failure the command decided itself, before or instead
// of its work (flags that contradict each other, a file in the way): the
// text of format and args after "forgesync NAME: ", as it is (the words
// are the command's and the user's own), and returns ExitFailure.
func (e *Env) Failf(format string, args ...any) int {
	fmt.Fprintf(e.Stderr, "forgesync %s: %s\n", e.Name, fmt.Sprintf(format, args...))
	return ExitFailure
}

// Args bounds a command's positional arguments: at least Min, at most
// Max (Max < 0: no upper bound); Want says what is wanted, for the error.
type Args struct {
	Min, Max int
	Want     string
}

// NoArgs bounds a command that takes no positional arguments.
var NoArgs = Args{Min: 0, Max: 0, Want: "no arguments"}

// One bounds a command that takes exactly one positional argument, want
// saying what it is.
func One(want string) Args { return Args{Min: 1, Max: 1, Want: want} }

// check reports a usage error unless n arguments fit the bounds.
func (a Args) check(stderr io.Writer, name string, n int) bool {
	if a.Want == "" || (n >= a.Min && (a.Max < 0 || n <= a.Max)) {
		return true
	}
	fmt.Fprintf(stderr, "forgesync %s: want %s, got %s\n", name, a.Want, text.Count(n, "argument"))
	return false
}

// WriteJSON prints v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Show prints v as JSON with --json, else as text, and returns ExitOK.
func Show[T any](e *Env, v T, text func(io.Writer, T) error) int {
	if e.JSON {
		WriteJSON(e.Stdout, v)
	} else {
		text(e.Stdout, v)
	}
	return ExitOK
}

// Result prints v as [Show] does when err is nil, else reports err as
// [Env.Fail] does, and returns the exit status.
func Result[T any](e *Env, v T, err error, text func(io.Writer, T) error) int {
	if err != nil {
		return e.Fail(err)
	}
	return Show(e, v, text)
}
