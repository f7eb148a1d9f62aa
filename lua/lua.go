// Package lua owns the Lua lift scripts that run inside the game under UE4SS
// (LUA.md): the Halo 2 maths, the shared LevelLoader script writer, the lift
// physics, the lifts.txt converter and the pack lift runtime, together with
// their test suites and simulated engine, and an embedded copy of all of
// them. Files holds every script; Deployed names the ones the daemon deploys
// into <mods>/MJOLNIRLevelLoader/Scripts/ (tests and the simulated engine are
// never deployed).
package lua

import (
	"embed"
	"path"
	"slices"
)

// Files holds every Lua file of this package: the deployable scripts at the
// root, the simulated engine under sim/ and the suites under tests/.
//
//go:embed *.lua sim/*.lua tests/*.lua
var Files embed.FS

// ScriptsDir is where the deployable scripts go, relative to the game's
// UE4SS Mods folder.
const ScriptsDir = "MJOLNIRLevelLoader/Scripts"

// deployed lists the scripts the game loads, in dependency order.
var deployed = []string{
	"halo2_math.lua",
	"script_writer.lua",
	"h2_lifts.lua",
	"pack_lifts.lua",
	"lifts.lua",
}

// Deployed returns the names, in Files, of the scripts to deploy into
// [ScriptsDir], in dependency order.
func Deployed() []string { return slices.Clone(deployed) }

// ModuleName returns the name a script is required by: its path without
// ".lua", with "/" as "." ("sim/engine.lua" is "sim.engine").
func ModuleName(file string) string {
	name := file[:len(file)-len(path.Ext(file))]
	b := []byte(name)
	for i, c := range b {
		if c == '/' {
			b[i] = '.'
		}
	}
	return string(b)
}
