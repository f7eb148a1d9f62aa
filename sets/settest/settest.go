// Package settest holds what the tests of the pack set packages (sets/lock,
// sets/fetch, sets/export) share: a good lock's text with its hashes and
// fingerprint, deterministic archive bytes, and a folder's listing. It
// imports none of those packages, so that each may use it in its own tests.
package settest

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// HashA, HashB and HashC are SHA-256 values of the form a lock pins.
var (
	HashA = strings.Repeat("a", 64)
	HashB = strings.Repeat("b", 64)
	HashC = strings.Repeat("c", 64)
)

// FpAB is the fingerprint of alpha-pack 1.0.0 (HashA) and zeta-pack
// 2.0.0-rc.1 (HashB), computed independently with
// printf 'alpha-pack 1.0.0 aaa…\nzeta-pack 2.0.0-rc.1 bbb…\n' | sha256sum.
const FpAB = "sha256:edcdc09e42a17d3c8c0f1111271090cc0ac4a75b2b5b781aa0f9c9720df7d2ea"

// GoodLock is a valid lock of those two packs, with a comment, a relative,
// an https and a file: URL; the tests know the line of each key.
const GoodLock = `format = "forgepacks-lock"
version = 1
name = "Foundry League, season 3"   # a comment
fingerprint = "` + FpAB + `"

[[pack]]
id = "zeta-pack"
version = "2.0.0-rc.1"
sha256 = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
size = 1788
urls = [
  "packs/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.zip",
  "https://mirror.example.org/forge/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.zip",
]

[[pack]]
id = "alpha-pack"
version = "1.0.0"
sha256 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
size = 42
urls = ["file:///srv/forge/a.zip"]
`

// Edit returns GoodLock with its first old replaced by new, and fails the
// test when GoodLock does not hold old.
func Edit(t testing.TB, old, new string) string {
	t.Helper()
	if !strings.Contains(GoodLock, old) {
		t.Fatalf("edit: %q not in the good lock", old)
	}
	return strings.Replace(GoodLock, old, new, 1)
}

// ArchiveBytes returns n deterministic bytes for the archive of the pack
// id.
func ArchiveBytes(id string, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + len(id))
	}
	return b
}

// RandomBytes returns n bytes of a seeded generator.
func RandomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// Edited returns v1 with insert bytes inserted at 1/4, over bytes
// overwritten at 1/2 and tail bytes appended: the edit, smaller.
func Edited(v1 []byte, insert, over, tail int) []byte {
	q, h := len(v1)/4, len(v1)/2
	v2 := slices.Concat(v1[:q], RandomBytes(101, insert), v1[q:])
	copy(v2[h:], RandomBytes(102, over))
	return append(v2, RandomBytes(103, tail)...)
}

// DirNames lists a folder.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
