package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/internal/cli"
)

func utocCommand() *cli.Command {
	return &cli.Command{
		Name: "utoc", Args: "FILE.utoc", NoConfig: true, Nargs: cli.Args{Min: 1, Max: 1, Want: "one FILE.utoc"},
		Summary: "list the chunks of an IoStore table of contents: id, index, type\n" +
			"For authors chasing a missing surface package: compare with `forgesync package-id`.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			toc, err := iostore.ReadFile(args[0])
			if err != nil {
				return e.Fail(err)
			}
			if e.JSON {
				cli.WriteJSON(e.Stdout, toc)
				return cli.ExitOK
			}
			fmt.Fprintf(e.Stdout, "%s: TOC version %d, container %016X, %d chunks, layout %v\n",
				args[0], toc.Version, uint64(toc.ContainerID), len(toc.Chunks), toc.Layout)
			tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tINDEX\tTYPE")
			for _, c := range toc.Chunks {
				fmt.Fprintf(tw, "%s\t%d\t%s\n", c.ID, c.Index, c.TypeName())
			}
			tw.Flush()
			return cli.ExitOK
		},
	}
}

func packageIDCommand() *cli.Command {
	return &cli.Command{
		Name: "package-id", Args: "NAME...", NoConfig: true, Nargs: cli.Args{Min: 1, Max: -1, Want: "one or more package NAMEs"},
		Summary: "print the Unreal package id of each long package name\n" +
			"e.g. forgesync package-id /Game/MJOLNIR/Forge/my-pack/Surfaces/MI_GlassCyan",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
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
			if e.JSON {
				cli.WriteJSON(e.Stdout, rows)
				return cli.ExitOK
			}
			for _, r := range rows {
				fmt.Fprintf(e.Stdout, "%s\t%s\n", r.Hex, r.Name)
			}
			return cli.ExitOK
		},
	}
}
