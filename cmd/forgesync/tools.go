package main

import (
	"context"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/installer/iostore"
)

func utocCommand() *cli.Command {
	return &cli.Command{
		Name: "utoc", Args: "FILE.utoc", NoConfig: true, Nargs: cli.One("one FILE.utoc"),
		Summary: "list the chunks of an IoStore table of contents: id, index, type\n" +
			"For authors chasing a missing surface package: compare with `forgesync package-id`.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			toc, err := iostore.ReadFile(args[0])
			if err != nil {
				return e.Fail(err)
			}
			return cli.Show(e, toc, iostore.WriteTOC)
		},
	}
}

func packageIDCommand() *cli.Command {
	return &cli.Command{
		Name: "package-id", Args: "NAME...", NoConfig: true, Nargs: cli.Args{Min: 1, Max: -1, Want: "one or more package NAMEs"},
		Summary: "print the Unreal package id of each long package name\n" +
			"e.g. forgesync package-id /Game/MJOLNIR/Forge/my-pack/Surfaces/MI_GlassCyan",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			return cli.Show(e, iostore.PackageIDs(args), iostore.WritePackageIDs)
		},
	}
}
