// Package deploy owns keeping forgesync's own files deployed into the
// game's folders: the embedded Lua lift scripts and the native door
// module, each written atomically when missing or changed, staged beside a
// target the game holds locked, and recorded in the deploy ledger
// (deployed.json) so that a file forgesync did not write is never touched.
// It knows nothing of packs, archives or the pack store.
package deploy
