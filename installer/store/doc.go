// Package store owns the pack store in the state folder: its lock, the
// state file packs.json (its format, version and upgrade), the kept
// archives, the stored manifests, the generations on disk and the pending
// sets of files to delete once an inventory is published. It stores its
// own types; it knows nothing of archives (intake), of what a manifest
// says (inventory), of the game's folders (place, deploy) or of the wire
// (api).
package store
