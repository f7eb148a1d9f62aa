package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
)

func utocCommand() *command {
	return &command{
		name: "utoc", args: "FILE.utoc", noConfig: true, nargs: argSpec{1, 1, "one FILE.utoc"},
		summary: "list the chunks of an IoStore table of contents: id, index, type\n" +
			"For authors chasing a missing surface package: compare with `forgesync package-id`.",
		run: func(ctx context.Context, e *env, args []string) int {
			toc, err := iostore.ReadFile(args[0])
			if err != nil {
				return e.fail(err)
			}
			if e.json {
				writeJSON(e.stdout, toc)
				return exitOK
			}
			fmt.Fprintf(e.stdout, "%s: TOC version %d, container %016X, %d chunks, layout %v\n",
				args[0], toc.Version, uint64(toc.ContainerID), len(toc.Chunks), toc.Layout)
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tINDEX\tTYPE")
			for _, c := range toc.Chunks {
				fmt.Fprintf(tw, "%s\t%d\t%s\n", c.ID, c.Index, c.TypeName())
			}
			tw.Flush()
			return exitOK
		},
	}
}

func packageIDCommand() *command {
	return &command{
		name: "package-id", args: "NAME...", noConfig: true, nargs: argSpec{1, -1, "one or more package NAMEs"},
		summary: "print the Unreal package id of each long package name\n" +
			"e.g. forgesync package-id /Game/MJOLNIR/Forge/my-pack/Surfaces/MI_GlassCyan",
		run: func(ctx context.Context, e *env, args []string) int {
			type row struct {
				Name    string `json:"name"`
				Hex     string `json:"id"`
				Decimal uint64 `json:"decimal"`
			}
			var rows []row
			for _, n := range args {
				id := iostore.PackageID(n)
				rows = append(rows, row{n, fmt.Sprintf("0x%016X", id), id})
			}
			if e.json {
				writeJSON(e.stdout, rows)
				return exitOK
			}
			for _, r := range rows {
				fmt.Fprintf(e.stdout, "%s\t%s\n", r.Hex, r.Name)
			}
			return exitOK
		},
	}
}
