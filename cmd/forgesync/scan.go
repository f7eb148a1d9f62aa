package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/examples"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/installer/verdict"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/text"
	"github.com/mjolnir-forge/forgesync/inventory"
)

func scanCommand() *cli.Command {
	var format string
	return &cli.Command{
		Name: "scan", Args: "ARCHIVE|DIR…", NoConfig: true, Nargs: cli.Args{Min: 1, Max: -1, Want: "one or more ARCHIVE or DIR"},
		Summary: "check pack archives or folders with the rules the daemon applies\n" +
			"--format github prints GitHub Actions annotations, --format sarif a SARIF 2.1.0 log.\n" +
			"Exit status: 0 all valid, 1 something invalid, 2 could not read.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&format, "format", "", "output `FORMAT`: "+strings.Join(verdict.Formats, ", ")+" (default text; --json means json)")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int { return runScan(ctx, e, args, format) },
	}
}

func runScan(ctx context.Context, e *cli.Env, args []string, format string) int {
	format, err := verdict.FormatOf(format, e.JSON)
	if err != nil {
		return e.Fail(err)
	}
	lim, err := daemon.ArchiveLimits(e.Config)
	if err != nil {
		return e.Fail(err)
	}
	reports, valid, err := verdict.CheckAll(ctx, newExtractor(e.Config), args, lim)
	if err != nil {
		return e.Fail(err)
	}
	if err := verdict.Write(e.Stdout, format, reports, version); err != nil {
		return e.Fail(err)
	}
	if !valid {
		return cli.ExitInvalid
	}
	return cli.ExitOK
}

// printReport prints one verdict, as text or JSON.
func printReport(e *cli.Env, rep *verdict.Report) {
	format := verdict.FormatText
	if e.JSON {
		format = verdict.FormatJSON
	}
	verdict.Write(e.Stdout, format, []*verdict.Report{rep}, version)
}

func packCommand() *cli.Command {
	var out string
	return &cli.Command{
		Name: "pack", Args: "DIR [-o ARCHIVE.zip]", NoConfig: true, Nargs: cli.One("one DIR"),
		Summary: "validate a pack folder, then write it as a reproducible zip\n" +
			"Sorted entries, fixed timestamps, no OS attributes: the same folder gives the same bytes.\n" +
			"Files a scan leaves out (.git/, .forgeignore, …) and the zip itself are never packed.\n" +
			"An invalid pack writes nothing. Exit status: 0 written, 1 invalid, 2 failure.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&out, "o", "", "the zip `FILE` to write (default: <id>-<version>.zip beside DIR)")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if out != "" && !strings.EqualFold(filepath.Ext(out), ".zip") {
				fmt.Fprintf(e.Stderr, "forgesync pack: -o %s: pack writes a zip, so the name must end in .zip\n", out)
				return cli.ExitFailure
			}
			return runPack(e, args[0], out)
		},
	}
}

func runPack(e *cli.Env, dir, out string) int {
	lim, err := daemon.ArchiveLimits(e.Config)
	if err != nil {
		return e.Fail(err)
	}
	rep, err := verdict.Pack(dir, out, lim)
	if err != nil {
		return e.Fail(err)
	}
	if !rep.Valid {
		printReport(e, rep)
		fmt.Fprintf(e.Stderr, "forgesync pack: nothing written: fix the problems above\n")
		return cli.ExitInvalid
	}
	if e.JSON {
		cli.WriteJSON(e.Stdout, map[string]any{"archive": rep.Archive, "pack": rep.Pack, "files": len(rep.Files)})
	} else {
		fmt.Fprintf(e.Stdout, "%s %s: wrote %s (%s)\n", rep.Pack.ID, rep.Pack.Version, rep.Archive, text.Count(len(rep.Files), "file"))
	}
	return cli.ExitOK
}

func initCommand() *cli.Command {
	var id string
	return &cli.Command{
		Name: "init", Args: "DIR [--id ID]", NoConfig: true, Nargs: cli.One("one DIR"),
		Summary: "start a new pack in DIR (made if missing; refused unless empty)\n" +
			"It writes a forgepack.json that names its JSON Schema and passes scan, a README, and content/.\n" +
			"The pack id is --id, else DIR's name. Exit status: 0 written, 2 failure.",
		Flags: func(fs *flag.FlagSet) { fs.StringVar(&id, "id", "", "the pack `ID` (default: the folder's name)") },
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if err := examples.Init(args[0], id, inventory.JSONSchemaURL); err != nil {
				return e.Fail(err)
			}
			fmt.Fprintf(e.Stdout, "%s: new pack (forgepack.json, README.md, content/)\nnext: forgesync scan %s, then forgesync pack %s\n", args[0], args[0], args[0])
			return cli.ExitOK
		},
	}
}

func schemaCommand() *cli.Command {
	var out string
	return &cli.Command{
		Name: "schema", Args: "[-o FILE]", NoConfig: true, Nargs: cli.NoArgs,
		Summary: "print the JSON Schema of forgepack.json, for editors that work offline\n" +
			"Save it beside the pack (not in it) and name it in \"$schema\", e.g. \"../forgepack.schema.json\";\n" +
			"scan accepts any $schema. Exit status: 0 written, 2 failure.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&out, "o", "", "write the schema to `FILE` instead of standard output")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if out == "" {
				e.Stdout.Write(inventory.JSONSchema)
				return cli.ExitOK
			}
			if err := atomicfile.WriteFile(out, inventory.JSONSchema, 0o644); err != nil {
				return e.Fail(err)
			}
			fmt.Fprintf(e.Stdout, "wrote %s\n", out)
			return cli.ExitOK
		},
	}
}
