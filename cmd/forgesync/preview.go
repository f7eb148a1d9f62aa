package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/installer/verdict"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/lua/preview"
)

func liftPreviewCommand() *cli.Command {
	var svg string
	return &cli.Command{
		Name: "lift-preview", Args: "PACK_OR_DIR PIECE", NoConfig: true, Nargs: cli.Args{Min: 2, Max: 2, Want: "PACK_OR_DIR and PIECE"},
		Summary: "ride a pack's lift with the real Lua scripts: column exit time and height, and the apex\n" +
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
			rep, err := verdict.Check(ctx, newExtractor(e.Config), args[0], lim)
			if err != nil {
				return e.Fail(err)
			}
			if !rep.Valid {
				printReport(e, rep)
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
