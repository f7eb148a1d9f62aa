package daemon

import (
	"net"
	"testing"

	"github.com/mjolnir-forge/forgesync/config"
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
