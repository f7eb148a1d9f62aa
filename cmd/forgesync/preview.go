package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/lua/preview"
)

func liftPreviewCommand() *command {
	var svg string
	return &command{
		name: "lift-preview", args: "PACK_OR_DIR PIECE", noConfig: true, nargs: argSpec{2, 2, "PACK_OR_DIR and PIECE"},
		summary: "ride a pack's lift with the real Lua scripts: column exit time and height, and the apex\n" +
			"A Spartan stands on the block; Halo gravity, the push rules, a fixed 30 Hz tick.\n" +
			"--svg FILE draws height over time with the column top and the apex marked.\n" +
			"This previews the physics; verify trajectory and landing in your own layout.",
		flags: func(fs *flag.FlagSet) { fs.StringVar(&svg, "svg", "", "also draw the ride as an SVG `FILE`") },
		run: func(ctx context.Context, e *env, args []string) int {
			rep, err := check(ctx, e, args[0])
			if err != nil {
				return e.fail(err)
			}
			if !rep.Valid {
				printReport(e, rep)
				return exitInvalid
			}
			lift, err := preview.LiftOf(rep.Manifest, args[1])
			if err != nil {
				fmt.Fprintf(e.stderr, "forgesync lift-preview: %v\n", err)
				return exitInvalid
			}
			res, err := preview.Run(lift, preview.Options{})
			if err != nil {
				return e.fail(err)
			}
			if svg != "" {
				if err := atomicfile.WriteWith(svg, 0o644, func(f *os.File) error { return preview.WriteSVG(f, res) }); err != nil {
					return e.fail(err)
				}
			}
			if e.json {
				out, _ := json.Marshal(res)
				e.stdout.Write(append(out, '\n'))
			} else {
				fmt.Fprintln(e.stdout, res.Summary())
				if svg != "" {
					fmt.Fprintf(e.stdout, "drew %s\n", svg)
				}
			}
			return exitOK
		},
	}
}
