// Package stage owns `forgesync stage` (SPEC §12): a pack set fetched,
// verified and kept on the machine as a profile without changing the
// installed set, through the daemon when one runs, so that a switch to it
// (`profile switch`, POST /v1/set/apply {"fingerprint"}) needs no network.
// The work is the daemon's and sets/follow's; this is the flags and the
// call, kept out of package main, which stays under DESIGN.md's 1,000
// lines.
package stage

import (
	"context"
	"flag"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
	"github.com/mjolnir-forge/forgesync/daemon"
)

// Command is the `stage` command; open returns the command's machine (its
// running daemon, or its state opened under the lock at first use).
func Command(open func(*cli.Env) *daemon.Machine) *cli.Command {
	var as, key string
	return &cli.Command{
		Name: "stage", Args: "LOCK|DIR|URL|oci://REF [--as NAME] [--key PUBKEY]", Nargs: cli.One("one lock file, folder, URL or oci:// reference"),
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
			m := open(e)
			defer m.Close()
			res, err := m.StageSet(ctx, args[0], as, key)
			return cli.Result(e, res, err, view.WriteStaged)
		},
	}
}
