// Package place owns putting a valid staged pack's content into the game's
// paks folder and taking it out again: all or nothing per pack, replaced
// files kept aside until the caller commits or undoes, only ever below
// MJOLNIRForge/<pack id>/ and never over a file forgesync did not place. It
// is apart from the store because it writes the game's folder, not the
// state folder; it knows nothing of packs.json, of archives beyond the
// listing intake hands it, or of what a manifest says.
package place
