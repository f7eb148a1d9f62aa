package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/examples"
	"github.com/mjolnir-forge/forgesync/schema"
	"github.com/mjolnir-forge/forgesync/verdict"
)

func scanCommand() *command {
	var format string
	return &command{
		name: "scan", args: "ARCHIVE|DIR…", noConfig: true, nargs: argSpec{1, -1, "one or more ARCHIVE or DIR"},
		summary: "check pack archives or folders with the rules the daemon applies\n" +
			"--format github prints GitHub Actions annotations, --format sarif a SARIF 2.1.0 log.\n" +
			"Exit status: 0 all valid, 1 something invalid, 2 could not read.",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&format, "format", "", "output `FORMAT`: "+strings.Join(verdict.Formats, ", ")+" (default text; --json means json)")
		},
		run: func(ctx context.Context, e *env, args []string) int { return runScan(ctx, e, args, format) },
	}
}

func runScan(ctx context.Context, e *env, args []string, format string) int {
	switch {
	case format == "" && e.json:
		format = verdict.FormatJSON
	case format == "":
		format = verdict.FormatText
	case !slices.Contains(verdict.Formats, format):
		fmt.Fprintf(e.stderr, "forgesync scan: --format %q: want one of %s\n", format, strings.Join(verdict.Formats, ", "))
		return exitFailure
	}
	var reports []*verdict.Report
	code := exitOK
	for _, target := range args {
		rep, err := check(ctx, e, target)
		if err != nil {
			return e.fail(err)
		}
		if !rep.Valid {
			code = exitInvalid
		}
		reports = append(reports, rep)
	}
	if err := verdict.Write(e.stdout, format, reports, version); err != nil {
		return e.fail(err)
	}
	return code
}

// check gives the verdict on a pack folder or archive.
func check(ctx context.Context, e *env, target string) (*verdict.Report, error) {
	lim, err := e.cfg.ArchiveLimits()
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(target)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return verdict.Dir(target, lim)
	}
	staging, err := os.MkdirTemp("", "forgesync-scan-")
	if err != nil {
		return nil, fmt.Errorf("staging: %w", err)
	}
	defer os.RemoveAll(staging)
	rep, staged, err := verdict.Archive(ctx, target, staging, lim, nil)
	if staged != nil {
		staged.Remove()
	}
	return rep, err
}

// printReport prints one verdict, as text or JSON.
func printReport(e *env, rep *verdict.Report) {
	format := verdict.FormatText
	if e.json {
		format = verdict.FormatJSON
	}
	verdict.Write(e.stdout, format, []*verdict.Report{rep}, version)
}

func packCommand() *command {
	var out string
	return &command{
		name: "pack", args: "DIR -o ARCHIVE.zip", noConfig: true, nargs: argSpec{1, 1, "one DIR"},
		summary: "validate a pack folder, then write it as a reproducible zip\n" +
			"Sorted entries, fixed timestamps, no OS attributes: the same folder gives the same bytes.\n" +
			"An invalid pack writes nothing. Exit status: 0 written, 1 invalid, 2 failure.",
		flags: func(fs *flag.FlagSet) { fs.StringVar(&out, "o", "", "the zip `FILE` to write (required)") },
		run: func(ctx context.Context, e *env, args []string) int {
			if out == "" {
				fmt.Fprintf(e.stderr, "forgesync pack: -o ARCHIVE.zip is required\n")
				return exitFailure
			}
			return runPack(e, args[0], out)
		},
	}
}

func runPack(e *env, dir, out string) int {
	lim, err := e.cfg.ArchiveLimits()
	if err != nil {
		return e.fail(err)
	}
	rep, err := verdict.Pack(dir, out, lim)
	if err != nil {
		return e.fail(err)
	}
	if !rep.Valid {
		printReport(e, rep)
		fmt.Fprintf(e.stderr, "forgesync pack: nothing written: fix the problems above\n")
		return exitInvalid
	}
	if e.json {
		writeJSON(e.stdout, map[string]any{"archive": out, "pack": rep.Pack, "files": len(rep.Files)})
	} else {
		fmt.Fprintf(e.stdout, "%s %s: wrote %s (%d files)\n", rep.Pack.ID, rep.Pack.Version, out, len(rep.Files))
	}
	return exitOK
}

func initCommand() *command {
	var id string
	return &command{
		name: "init", args: "DIR [--id ID]", noConfig: true, nargs: argSpec{1, 1, "one DIR"},
		summary: "start a new pack in DIR (made if missing; refused unless empty)\n" +
			"It writes a forgepack.json that names its JSON Schema and passes scan, a README, and content/.\n" +
			"The pack id is --id, else DIR's name. Exit status: 0 written, 2 failure.",
		flags: func(fs *flag.FlagSet) { fs.StringVar(&id, "id", "", "the pack `ID` (default: the folder's name)") },
		run: func(ctx context.Context, e *env, args []string) int {
			if err := examples.Init(args[0], id, schema.ManifestURL); err != nil {
				return e.fail(err)
			}
			fmt.Fprintf(e.stdout, "%s: new pack (forgepack.json, README.md, content/)\nnext: forgesync scan %s, then forgesync pack %s -o PACK.zip\n", args[0], args[0], args[0])
			return exitOK
		},
	}
}
