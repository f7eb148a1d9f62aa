// Package wire owns the conversions from the domain's types to api's wire
// shapes for the types of the domain packages below the pipeline (packset's
// sets and differences, native's version gates, rejection's reasons and
// records): one small function per type, each the only place its wire
// shape is filled in. The domain packages know nothing of api; whoever
// answers the socket, emits an event or prints for the CLI calls these.
// The pipeline's own types are converted in the pipeline, which this
// package may not import (the pipeline calls it).
package wire

import (
	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/native"
)

// Gates is a version gate in its wire shape; Mods is never nil.
func Gates(g native.Gates) api.Gates {
	mods := make([]api.ModVersion, len(g.Mods))
	for i, m := range g.Mods {
		mods[i] = api.ModVersion{Mod: m.Mod, Version: m.Version, Minimum: m.Minimum, State: api.ModState(m.State), Reason: m.Reason}
	}
	return api.Gates{Mods: mods, DoorAutomation: g.DoorAutomation, PackLifts: g.PackLifts, Reasons: g.Reasons}
}
