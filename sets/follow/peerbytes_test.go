package follow

import (
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// TestCheckCountsPeerBytes: a check sums the bytes its downloads took from
// LAN peers and from mirrors (SPEC §13), and the record keeps them.
func TestCheckCountsPeerBytes(t *testing.T) {
	var c Check
	for _, r := range []fetch.Result{
		{Pack: lock.Pack{ID: "a", Size: 100}, From: "http://peer:47380/lan/v1/archives/x", Peer: true},
		{Pack: lock.Pack{ID: "b", Size: 200}, From: "https://mirror/b.zip"},
		{Pack: lock.Pack{ID: "c", Size: 900}, From: "https://mirror/chunks/", Delta: &fetch.DeltaStats{SeedBytes: 500, FetchedBytes: 400, PeerBytes: 300}},
		{Pack: lock.Pack{ID: "d", Size: 50}}, // in the cache already
	} {
		addDelta(&c, r)
	}
	if c.PeerBytes != 400 || c.MirrorBytes != 300 || c.Delta.PeerBytes != 300 {
		t.Errorf("check = peer %d, mirror %d, delta %+v; want 400, 300 and the delta's 300", c.PeerBytes, c.MirrorBytes, c.Delta)
	}
	back := storedCheck(c).check()
	if back.PeerBytes != 400 || back.MirrorBytes != 300 || back.Delta.PeerBytes != 300 {
		t.Errorf("kept and read back = %+v; want the same figures", back)
	}
}
