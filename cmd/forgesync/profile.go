package main

import (
	"context"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
	"github.com/mjolnir-forge/forgesync/daemon"
)

// profileCommand is `forgesync profile` (SPEC §12): through the daemon
// when one runs, locally otherwise.
func profileCommand() *cli.Command {
	return &cli.Command{
		Name: "profile", Args: "list | save NAME | switch NAME | remove NAME", Nargs: cli.Args{Min: 1, Max: 2, Want: "list, or save, switch or remove and a name"},
		Summary: "the named pack sets kept here: own (your packs) and one per server's set, with the disk each holds\n" +
			"save records the installed set as NAME; switch makes it NAME's in one transaction from kept archives\n" +
			"(no network); remove forgets NAME (not own or the current one). Exit status: 0 done, 1 refused, 2 failure.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			verb, name := args[0], ""
			if len(args) == 2 {
				name = args[1]
			}
			if (verb == "list") != (name == "") {
				return e.Failf("%s: want `profile list`, or `profile save|switch|remove NAME`", verb)
			}
			m := openMachine(e)
			defer m.Close()
			switch verb {
			case "list":
				pl, err := m.Profiles(ctx)
				return cli.Result(e, pl, err, view.WriteProfiles)
			case "save", "remove":
				edit := map[string]func(context.Context, string) (*api.Profiles, error){"save": m.SaveProfile, "remove": m.RemoveProfile}[verb]
				pl, err := edit(ctx, name)
				return cli.Result(e, pl, err, view.WriteProfiles)
			case "switch":
				return runSummary(ctx, e, view.WriteSwitch, func(m *daemon.Machine, ctx context.Context) (*api.Summary, error) { return m.SwitchProfile(ctx, name) })
			}
			return e.Failf("%q is not list, save, switch or remove", verb)
		},
	}
}
