// Package author holds forgesync's commands for pack authors: scan, pack,
// init, schema, lift-preview, utoc and package-id. They need no
// configuration and touch no machine's state; the forgesync command lists
// them among its own.
package author

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/examples"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/installer/verdict"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/semver"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/lua/preview"
)

// Scan is the `scan` command.
func Scan(version string) *cli.Command {
	var format string
	return &cli.Command{
		Name: "scan", Args: "ARCHIVE|DIR…", NoConfig: true, Nargs: cli.Args{Min: 1, Max: -1, Want: "one or more ARCHIVE or DIR"},
		Summary: "check pack archives or folders with the rules the daemon applies\n" +
			"--format github prints GitHub Actions annotations, --format sarif a SARIF 2.1.0 log.\n" +
			"Exit status: 0 all valid, 1 something invalid, 2 could not read.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&format, "format", "", "output `FORMAT`: "+strings.Join(verdict.Formats, ", ")+" (default text; --json means json)")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			format, err := verdict.FormatOf(format, e.JSON)
			if err != nil {
				return e.Fail(err)
			}
			lim, err := daemon.ArchiveLimits(e.Config)
			if err != nil {
				return e.Fail(err)
			}
			valid, err := verdict.Scan(ctx, e.Stdout, daemon.SelfExtractor(e.Config), args, lim, format, version)
			if err != nil {
				return e.Fail(err)
			}
			if !valid {
				return cli.ExitInvalid
			}
			return cli.ExitOK
		},
	}
}

// Pack is the `pack` command.
func Pack() *cli.Command {
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
				return e.Failf("-o %s: pack writes a zip, so the name must end in .zip", out)
			}
			lim, err := daemon.ArchiveLimits(e.Config)
			if err != nil {
				return e.Fail(err)
			}
			rep, err := verdict.Pack(args[0], out, lim)
			if err != nil {
				return e.Fail(err)
			}
			if !rep.Valid {
				cli.Show(e, rep, verdict.WriteText)
				fmt.Fprintln(e.Stderr, "forgesync pack: nothing written: fix the problems above")
				return cli.ExitInvalid
			}
			return cli.Show(e, rep.Packed(), verdict.WritePacked)
		},
	}
}

// Init is the `init` command.
func Init(version string) *cli.Command {
	var id string
	return &cli.Command{
		Name: "init", Args: "DIR [--id ID]", NoConfig: true, Nargs: cli.One("one DIR"),
		Summary: "start a new pack in DIR (made if missing; refused unless empty or holding only dot-files, like a fresh git repository)\n" +
			"It writes a forgepack.json that names its JSON Schema and passes scan, a README, content/, a .gitignore,\n" +
			"a .forgeignore and a GitHub Actions workflow that scans the pack with a forgesync release; a file that\n" +
			"exists is kept, never overwritten. The pack id is --id, else DIR's name made an id (\"Neon Halls\" is neon-halls).\n" +
			"Exit status: 0 written, 2 failure.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&id, "id", "", "the pack `ID` (default: the folder's name, made an id)")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			st, err := examples.Init(args[0], id, inventory.JSONSchemaURL, workflowRelease(version))
			if err != nil {
				return e.Fail(err)
			}
			fmt.Fprintf(e.Stdout, "%s: new pack %s (%s)\n", args[0], st.ID, strings.Join(st.Written, ", "))
			if len(st.Kept) > 0 {
				fmt.Fprintf(e.Stdout, "%s: kept %s as %s (init never overwrites a file)\n", args[0], strings.Join(st.Kept, ", "),
					map[bool]string{true: "it was", false: "they were"}[len(st.Kept) == 1])
			}
			fmt.Fprintf(e.Stdout, "next: forgesync scan %s, then forgesync pack %s\n", args[0], args[0])
			return cli.ExitOK
		},
	}
}

// workflowRelease is the forgesync release the workflow init writes
// installs: this binary's version when it is a release (MAJOR.MINOR.PATCH),
// else "latest", the newest release.
func workflowRelease(v string) string {
	if semver.Valid(v) && !strings.ContainsAny(v, "-+") {
		return v
	}
	return "latest"
}

// Schema is the `schema` command.
func Schema() *cli.Command {
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

// LiftPreview is the `lift-preview` command.
func LiftPreview() *cli.Command {
	var svg string
	return &cli.Command{
		Name: "lift-preview", Args: "PACK_OR_DIR PIECE", NoConfig: true, Nargs: cli.Args{Min: 2, Max: 2, Want: "PACK_OR_DIR and PIECE"},
		Summary: "ride a pack's lift with the real Lua scripts: when, how high and through which face it leaves the column, and the apex\n" +
			"A Spartan stands on the block; Halo gravity, the push rules, a fixed 30 Hz tick.\n" +
			"--svg FILE draws height over time with the column top and the apex marked, and a side view\n" +
			"(height against the distance along the lift's direction, the trigger box drawn).\n" +
			"This previews the physics; verify trajectory and landing in your own layout.",
		Flags: func(fs *flag.FlagSet) { fs.StringVar(&svg, "svg", "", "also draw the ride as an SVG `FILE`") },
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			lim, err := daemon.ArchiveLimits(e.Config)
			if err != nil {
				return e.Fail(err)
			}
			rep, err := verdict.Check(ctx, daemon.SelfExtractor(e.Config), args[0], lim)
			if err != nil {
				return e.Fail(err)
			}
			if !rep.Valid {
				cli.Show(e, rep, verdict.WriteText)
				return cli.ExitInvalid
			}
			lift, err := preview.LiftOf(rep.Manifest, args[1])
			if err != nil {
				fmt.Fprintf(e.Stderr, "forgesync lift-preview: %v\n", err)
				return cli.ExitInvalid
			}
			res, err := preview.Run(lift, preview.Options{})
			if err != nil {
				return e.Fail(err)
			}
			if svg != "" {
				if err := atomicfile.WriteWith(svg, 0o644, func(f *os.File) error { return preview.WriteSVG(f, res) }); err != nil {
					return e.Fail(err)
				}
			}
			if e.JSON {
				out, _ := json.Marshal(res)
				e.Stdout.Write(append(out, '\n'))
			} else {
				fmt.Fprintln(e.Stdout, res.Summary())
				if svg != "" {
					fmt.Fprintf(e.Stdout, "drew %s\n", svg)
				}
			}
			return cli.ExitOK
		},
	}
}

// Utoc is the `utoc` command.
func Utoc() *cli.Command {
	return &cli.Command{
		Name: "utoc", Args: "FILE.utoc", NoConfig: true, Nargs: cli.One("one FILE.utoc"),
		Summary: "list the chunks of an IoStore table of contents: id, index, type\n" +
			"For authors chasing a missing surface package: compare with `forgesync package-id`.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			toc, err := iostore.ReadFile(args[0])
			return cli.Result(e, toc, err, iostore.WriteTOC)
		},
	}
}

// PackageID is the `package-id` command.
func PackageID() *cli.Command {
	return &cli.Command{
		Name: "package-id", Args: "NAME...", NoConfig: true, Nargs: cli.Args{Min: 1, Max: -1, Want: "one or more package NAMEs"},
		Summary: "print the Unreal package id of each long package name\n" +
			"e.g. forgesync package-id /Game/MJOLNIR/Forge/my-pack/Surfaces/MI_GlassCyan",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			return cli.Show(e, iostore.PackageIDs(args), iostore.WritePackageIDs)
		},
	}
}
