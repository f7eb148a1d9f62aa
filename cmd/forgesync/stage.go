package main

import (
	"context"
	"flag"
	"strings"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
)

// stageCommand is `forgesync stage LOCK|DIR|URL|oci://REF [--as NAME]
// [--key RW…]` (SPEC §12).
func stageCommand() *cli.Command {
	var as, key string
	return &cli.Command{
		Name: "stage", Args: "LOCK|DIR|URL|oci://REF [--as NAME] [--key PUBKEY]", Nargs: cli.Args{Min: 1, Max: 1, Want: "one lock file, folder, URL or oci:// reference"},
		Summary: "fetch and verify everything a pack set needs, without changing the installed set\n" +
			"The set becomes a profile (SPEC §12) that `profile switch` or POST /v1/set/apply {\"fingerprint\"}\n" +
			"applies with no network. The same checks as sync --set; a set signed by a key outside [sets]\n" +
			"trusted_keys needs --key; one needing more than [sets] max_stage_bytes is refused before\n" +
			"downloading. Exit status: 0 staged, 1 refused, 2 failure.",
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&as, "as", "", "the profile's `NAME` (default: the set's name)")
			fs.StringVar(&key, "key", "", "trust this minisign public `KEY` (\"RW…\") for this set only")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			e.Name = "stage"
			if strings.TrimSpace(args[0]) == "" {
				return e.Failf("want a lock file, folder, URL or oci:// reference, got an empty argument")
			}
			m := openMachine(e)
			defer m.Close()
			res, err := m.StageSet(ctx, args[0], as, key)
			if err != nil {
				return e.Fail(err)
			}
			cli.Show(e, res, view.WriteStaged)
			return cli.ExitOK
		},
	}
}
