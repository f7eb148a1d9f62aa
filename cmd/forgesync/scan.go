package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mjolnir-forge/forgesync/installer"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/rejection"
	"github.com/mjolnir-forge/forgesync/verdict"
)

func scanCommand() *command {
	return &command{
		name: "scan", args: "ARCHIVE|DIR", noConfig: true,
		summary: "check a pack archive or folder with the rules the daemon applies\n" +
			"Exit status: 0 valid, 1 invalid, 2 could not read.",
		run: runScan,
	}
}

func runScan(ctx context.Context, e *env, args []string) int {
	if !needArgs(e, "scan", args, 1, 1, "one ARCHIVE or DIR") {
		return exitFailure
	}
	rep, err := check(ctx, e, args[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "forgesync scan: %v\n", err)
		return exitFailure
	}
	printReport(e, rep)
	if !rep.Valid {
		return exitInvalid
	}
	return exitOK
}

// check gives the verdict on a pack folder or archive.
func check(ctx context.Context, e *env, target string) (*verdict.Report, error) {
	lim, err := archiveLimits(e.cfg)
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

func printReport(e *env, rep *verdict.Report) {
	if e.json {
		writeJSON(e.stdout, rep)
		return
	}
	base := rep.Source
	for _, p := range rep.Problems {
		if p.File == "" {
			fmt.Fprintf(e.stdout, "%s: %s\n", base, p.String())
		} else {
			fmt.Fprintf(e.stdout, "%s\n", prefixed(rep.Source, p))
		}
	}
	name := rep.Pack.ID
	if rep.Pack.Version != "" {
		name += " " + rep.Pack.Version
	}
	if name == "" {
		name = base
	}
	if rep.Valid {
		m := rep.Manifest
		fmt.Fprintf(e.stdout, "%s: valid (%d pieces, %d lifts, %d doors, %d surface packages)\n",
			name, len(m.Pieces), lifts(rep), m.Doors(), len(m.RequiredPackages()))
	} else {
		fmt.Fprintf(e.stdout, "%s: invalid, %d problem(s)\n", name, len(rep.Problems))
	}
}

// prefixed names a problem's file the way the user can open it: beside the
// folder they named, or inside the archive they named.
func prefixed(source string, p rejection.Reason) string {
	if p.Path == p.File {
		p.Path = ""
	}
	info, err := os.Stat(source)
	if err == nil && info.IsDir() {
		p.File = filepath.Join(source, filepath.FromSlash(p.File))
		return p.String()
	}
	return source + ": " + p.String()
}

func lifts(rep *verdict.Report) int {
	n := 0
	for _, p := range rep.Manifest.Pieces {
		if p.Lift != nil {
			n++
		}
	}
	return n
}

func packCommand() *command {
	var out string
	return &command{
		name: "pack", args: "DIR -o ARCHIVE.zip", noConfig: true,
		summary: "validate a pack folder, then write it as a reproducible zip\n" +
			"Sorted entries, fixed timestamps, no OS attributes: the same folder gives the same bytes.\n" +
			"An invalid pack writes nothing. Exit status: 0 written, 1 invalid, 2 failure.",
		flags: func(fs *flag.FlagSet) { fs.StringVar(&out, "o", "", "the zip `FILE` to write (required)") },
		run: func(ctx context.Context, e *env, args []string) int {
			if !needArgs(e, "pack", args, 1, 1, "one DIR") {
				return exitFailure
			}
			if out == "" {
				fmt.Fprintf(e.stderr, "forgesync pack: -o ARCHIVE.zip is required\n")
				return exitFailure
			}
			return runPack(e, args[0], out)
		},
	}
}

func runPack(e *env, dir, out string) int {
	lim, err := archiveLimits(e.cfg)
	if err != nil {
		fmt.Fprintf(e.stderr, "forgesync pack: %v\n", err)
		return exitFailure
	}
	info, err := os.Stat(dir)
	if err == nil && !info.IsDir() {
		err = errors.New("not a folder (pack takes the pack's folder)")
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "forgesync pack: %s: %v\n", dir, err)
		return exitFailure
	}
	rep, err := verdict.Dir(dir, lim)
	if err != nil {
		fmt.Fprintf(e.stderr, "forgesync pack: %v\n", err)
		return exitFailure
	}
	if !rep.Valid {
		printReport(e, rep)
		fmt.Fprintf(e.stderr, "forgesync pack: nothing written: fix the problems above\n")
		return exitInvalid
	}
	if err := atomicfile.WriteWith(out, 0o644, func(f *os.File) error {
		return installer.WritePackZip(f, os.DirFS(rep.Root), rep.Files)
	}); err != nil {
		fmt.Fprintf(e.stderr, "forgesync pack: %v\n", err)
		return exitFailure
	}
	if e.json {
		writeJSON(e.stdout, map[string]any{"archive": out, "pack": rep.Pack, "files": len(rep.Files)})
	} else {
		fmt.Fprintf(e.stdout, "%s %s: wrote %s (%d files)\n", rep.Pack.ID, rep.Pack.Version, out, len(rep.Files))
	}
	return exitOK
}
