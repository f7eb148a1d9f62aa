package main

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
	"github.com/mjolnir-forge/forgesync/machine"
)

// version is the program's version, set at link time by `make dist`.
var version = "0.1.0-dev"

// Exit codes shared by the commands.
const (
	exitOK      = 0 // all good
	exitInvalid = 1 // something was rejected or is invalid
	exitFailure = 2 // could not do the job (unreadable input, bad usage, I/O)
)

// env is what every command gets: its output streams, the parsed common
// flags, and the configuration.
type env struct {
	name           string // the command's
	stdout, stderr io.Writer
	json           bool
	configPath     string
	machine        bool   // --machine: run as the machine service
	owner          string // --owner: the installing user, admitted to the socket's folder
	serviceLog     string // the log file of a running service
	logFormat      string
	logLevel       string
	serves         bool // a long-running command: it logs at the configured level
	cfg            *config.Config
	log            *slog.Logger
}

// command is one sub-command.
type command struct {
	name    string
	args    string // positional arguments, for usage
	summary string
	flags   func(fs *flag.FlagSet) // extra flags, may be nil
	run     func(ctx context.Context, e *env, args []string) int
	// noConfig marks commands that never read the configuration.
	noConfig bool
	// nargs bounds the positional arguments; the zero value takes any.
	nargs argSpec
	// serves marks the long-running commands (daemon, demo), which log at
	// the configured level; the others print their own output and log
	// only warnings and errors unless --log-level says otherwise.
	serves bool
}

func commands() []*command {
	return []*command{
		daemonCommand(),
		demoCommand(),
		statusCommand(),
		syncCommand(),
		installCommand(),
		packsCommand(),
		lockCommand(),
		exportCommand(),
		diffCommand(),
		enableCommand(),
		disableCommand(),
		removeCommand(),
		historyCommand(),
		rollbackCommand(),
		scanCommand(),
		packCommand(),
		initCommand(),
		liftPreviewCommand(),
		utocCommand(),
		packageIDCommand(),
		serviceCommand(),
		versionCommand(),
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 {
		usage(stderr, cmds)
		return exitFailure
	}
	args = commandFirst(args)
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout, cmds)
		return exitOK
	}
	i := slices.IndexFunc(cmds, func(c *command) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "forgesync: unknown command %q (run `forgesync help` for the list)\n", args[0])
		return exitFailure
	}
	c := cmds[i]
	e := &env{name: c.name, stdout: stdout, stderr: stderr, serves: c.serves}
	fs := flag.NewFlagSet("forgesync "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	globals(fs, e)
	if c.flags != nil {
		c.flags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: forgesync %s [flags] %s\n\n%s\n\nflags:\n", c.name, c.args, c.summary)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitFailure
	}
	if !c.noConfig || e.configPath != "" {
		cenv := config.Process(e.machine)
		path := e.configPath
		if !c.noConfig {
			path, _, err = cenv.Discover(e.configPath)
		}
		cfg, lerr := config.LoadEnv(path, cenv)
		if err = errors.Join(err, lerr); err != nil {
			fmt.Fprintf(stderr, "forgesync: %v\n", err)
			return exitFailure
		}
		e.cfg = cfg
	} else {
		e.cfg = config.Default()
	}
	if e.log, err = newLogger(stderr, e); err != nil {
		fmt.Fprintf(stderr, "forgesync: %v\n", err)
		return exitFailure
	}
	if !c.nargs.check(stderr, c.name, len(pos)) {
		return exitFailure
	}
	return c.run(ctx, e, pos)
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

// globals registers the flags every command takes.
func globals(fs *flag.FlagSet, e *env) {
	fs.StringVar(&e.configPath, "config", "", "configuration `FILE` (TOML); default: $FORGESYNC_CONFIG, then the user's, then the machine's forgesync.toml")
	fs.BoolVar(&e.machine, "machine", false, "resolve the config as the machine service does (service install sets it)")
	fs.StringVar(&e.owner, "owner", "", "the `SID` of the user the socket's folder admits besides SYSTEM and Administrators (service install sets it)")
	fs.BoolVar(&e.json, "json", false, "print JSON for machines")
	fs.StringVar(&e.logFormat, "log-format", "", "log format: text or json (default from config, else text)")
	fs.StringVar(&e.logLevel, "log-level", "", "log level: debug, info, warn, error")
}

// commandFirst moves the command name before the flags that precede it,
// so `forgesync --config FILE scan x` reads as `forgesync scan --config
// FILE x`. Without a command name, args are returned as they are.
func commandFirst(args []string) []string {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	globals(fs, &env{})
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

func newLogger(w io.Writer, e *env) (*slog.Logger, error) {
	level, format := e.cfg.Log.Level, e.cfg.Log.Format
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
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

func usage(w io.Writer, cmds []*command) {
	fmt.Fprintf(w, "forgesync %s keeps MJOLNIR Forge packs installed, validated and in sync.\n\nusage: forgesync COMMAND [flags] [args]\n\ncommands:\n", version)
	for _, c := range cmds {
		name := strings.TrimSpace(c.name + " " + c.args)
		if len(name) > 34 {
			fmt.Fprintf(w, "  %s\n  %-34s %s\n", name, "", firstLine(c.summary))
			continue
		}
		fmt.Fprintf(w, "  %-34s %s\n", name, firstLine(c.summary))
	}
	fmt.Fprintf(w, "\nEvery command takes --config FILE, --json, --log-format and --log-level;\nflags may come before or after arguments. `forgesync COMMAND -h` for details.\n")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// fail reports err as the command's failure and returns its exit status:
// 1 when the machine refused the request, else 2.
func (e *env) fail(err error) int {
	fmt.Fprintf(e.stderr, "forgesync %s: %v\n", e.name, err)
	if errors.Is(err, machine.ErrRefused) {
		return exitInvalid
	}
	return exitFailure
}

// argSpec bounds a command's positional arguments: at least min, at most
// max (max < 0: no upper bound); want says what is wanted, for the error.
type argSpec struct {
	min, max int
	want     string
}

// check reports a usage error unless n arguments fit the bounds.
func (a argSpec) check(stderr io.Writer, name string, n int) bool {
	if a.want == "" || (n >= a.min && (a.max < 0 || n <= a.max)) {
		return true
	}
	fmt.Fprintf(stderr, "forgesync %s: want %s, got %d argument(s)\n", name, a.want, n)
	return false
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func versionCommand() *command {
	return &command{
		name: "version", summary: "print the version", noConfig: true,
		run: func(ctx context.Context, e *env, args []string) int {
			if e.json {
				writeJSON(e.stdout, map[string]string{"version": version})
			} else {
				fmt.Fprintf(e.stdout, "forgesync %s\n", version)
			}
			return exitOK
		},
	}
}
