package iostore

import (
	"unicode/utf16"

	"github.com/go-faster/city"
)

// PackageID returns Unreal's package id (FPackageId::FromName) for a long
// package name such as "/Game/MJOLNIR/Forge/abc/Surfaces/MI_GlassCyan":
// Google CityHash64 v1.1 of the name with ASCII A–Z lowered (and nothing
// else: Unreal's TChar::ToLower), encoded as UTF-16LE with surrogate pairs
// and no terminator. Bytes that are not valid UTF-8 are hashed as U+FFFD.
//
// The name must be the long package name: leading "/", no extension, no
// ".Object" suffix. The engine treats 0 as invalid; no realistic name
// hashes to it.
func PackageID(name string) uint64 {
	// Most names are short; hash from the stack for them.
	var stack [256]byte
	b := stack[:0]
	for _, r := range name {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		if r < 0x10000 {
			b = append(b, byte(r), byte(r>>8))
			continue
		}
		hi, lo := utf16.EncodeRune(r)
		b = append(b, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
	}
	return city.Hash64(b)
}
