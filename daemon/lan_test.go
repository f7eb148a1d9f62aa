package daemon

import (
	"encoding/json"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/follow"
)

// TestLANShareOff: with [lan] share off (the default) the daemon listens
// on no peer port and keeps no chunk store; with it on, it listens on
// [lan] listen.
func TestLANShareOff(t *testing.T) {
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	cfg := config.Default()
	cfg.Paths.State = t.TempDir()
	cfg.LAN.Listen = addr
	ln, err := listenLAN(cfg, nil)
	if err != nil || ln != nil || chunkStore(cfg) != "" {
		t.Fatalf("share off: listenLAN = %v, %v, chunk store %q; want nothing", ln, err, chunkStore(cfg))
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("share off: %s answers", addr)
	}
	m := New(Options{Config: cfg})
	if p, err := m.LANPeers(); p != nil || err != nil {
		t.Errorf("share off, no peers: LANPeers = %v, %v; want none", p, err)
	}
	cfg.LAN.Share = true
	ln, err = listenLAN(cfg, nil)
	if err != nil || ln == nil {
		t.Fatalf("share on: listenLAN = %v, %v", ln, err)
	}
	defer ln.Close()
	if ln.Addr().String() != addr || chunkStore(cfg) == "" {
		t.Errorf("share on: listening on %s, chunk store %q; want %s and one", ln.Addr(), chunkStore(cfg), addr)
	}
}

// TestDownloadEventCountsPeerBytes: the download event and the check say
// which bytes came from LAN peers and which from mirrors (SPEC §13).
func TestDownloadEventCountsPeerBytes(t *testing.T) {
	for _, tt := range []struct {
		name         string
		pr           fetch.Progress
		peer, mirror int64
	}{
		{"from a peer", fetch.Progress{Pack: "p", Done: 700, Total: 900, Peer: true}, 700, 0},
		{"from a mirror", fetch.Progress{Pack: "p", Done: 700, Total: 900}, 0, 700},
		{"rebuilt", fetch.Progress{Pack: "p", Done: 900, Total: 900, Delta: &fetch.DeltaStats{SeedBytes: 500, FetchedBytes: 400, PeerBytes: 300}}, 300, 100},
	} {
		got := wireDownload(tt.pr)
		if got.PeerBytes != tt.peer || got.MirrorBytes != tt.mirror {
			t.Errorf("%s: wireDownload = peer %d, mirror %d; want %d, %d", tt.name, got.PeerBytes, got.MirrorBytes, tt.peer, tt.mirror)
		}
	}
	b, err := json.Marshal(wireDownload(fetch.Progress{Pack: "p", Done: 1, Total: 2}))
	if err != nil || !strings.Contains(string(b), `"peer_bytes":0`) || !strings.Contains(string(b), `"mirror_bytes":1`) {
		t.Errorf("the download event = %s, %v; want peer_bytes and mirror_bytes", b, err)
	}
	c := wireCheck(follow.Check{PeerBytes: 5, MirrorBytes: 7})
	if c.PeerBytes != 5 || c.MirrorBytes != 7 {
		t.Errorf("wireCheck = %+v; want peer_bytes 5, mirror_bytes 7", c)
	}
}

// TestLANAnnounced: a peer server on loopback is not announced on the LAN;
// one on every interface is announced with their addresses; one on an
// address, with that address.
func TestLANAnnounced(t *testing.T) {
	for _, tt := range []struct {
		listen string
		port   int
		ip     string
	}{{"127.0.0.1:47380", 0, "<nil>"}, {"0.0.0.0:47380", 47380, "<nil>"}, {"192.168.1.5:47380", 47380, "192.168.1.5"}} {
		a, _ := net.ResolveTCPAddr("tcp", tt.listen)
		port, ip := announced(a)
		if port != tt.port || ip.String() != tt.ip {
			t.Errorf("announced(%s) = %d, %v; want %d, %s", tt.listen, port, ip, tt.port, tt.ip)
		}
	}
}

// TestLANWaitsForRestart: a reload that changes [lan] says it needs a
// restart, and the machine it makes keeps the peers and chunk store the
// daemon started with.
func TestLANWaitsForRestart(t *testing.T) {
	cur := config.Default()
	cur.Paths.State = t.TempDir()
	next := *cur
	next.LAN.Share, next.LAN.Peers = true, []string{"http://192.0.2.9:47380"}
	if got := needsRestart(cur, &next); !slices.Equal(got, []string{"lan.peers", "lan.share"}) {
		t.Errorf("needsRestart = %v; want lan.peers and lan.share", got)
	}
	m := New(Options{Config: cur})
	if p, _ := m.LANPeers(); p != nil {
		t.Fatalf("LANPeers = %v; want none", p)
	}
	nm := &Machine{opts: m.opts, lan: m.lan} // as a reload makes it
	nm.opts.Config = &next
	if p, _ := nm.LANPeers(); p != nil || nm.lanState().chunks != "" {
		t.Errorf("after a reload: peers %v, chunk store %q; want the start's: none", p, nm.lanState().chunks)
	}
	opts, err := nm.setOptions()
	if err != nil || opts.Fetcher.Peers != nil || opts.Chunks != "" {
		t.Errorf("setOptions after a reload = peers %v, chunks %q, %v; want none", opts.Fetcher.Peers, opts.Chunks, err)
	}
}
