package lan

import (
	"context"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/mdns"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// TestDiscovery: one machine announces _forgesync._tcp, another browsing
// finds it; the announcer never finds itself. Other forgesync daemons on
// the LAN may answer too: the test looks for its own announcement, by a
// port no other one announces. Where this machine has no multicast the
// test stops by the tool rule, with the reason.
func TestDiscovery(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	self, _ := NewPeers(nil, "", nil)
	other, _ := NewPeers(nil, "", nil)
	found := make(chan string, 64)
	other.added = func(p string) {
		select {
		case found <- p:
		default: // a busy LAN: the test's own is among the first
		}
	}
	selfFound := make(chan string, 64)
	self.added = func(p string) {
		select {
		case selfFound <- p:
		default:
		}
	}
	port := 20000 + int(time.Now().UnixNano()%20000)
	suffix := ":" + strconv.Itoa(port)
	// Announced on loopback: this machine's own address may be outside
	// the private ranges (CI's is in a documentation range), which
	// browsing ignores.
	announcer := &Discovery{Peers: self, Port: port, Addr: net.IPv4(127, 0, 0, 1), Every: 100 * time.Millisecond, wait: 200 * time.Millisecond}
	browser := &Discovery{Peers: other, Every: 100 * time.Millisecond, wait: 200 * time.Millisecond}
	errs := make(chan error, 2)
	go func() { errs <- announcer.Run(ctx) }()
	go func() { errs <- browser.Run(ctx) }()
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
wait:
	for {
		select {
		case p := <-found:
			if strings.HasSuffix(p, suffix) {
				break wait
			}
		case err := <-errs:
			toolcheck.Missing(t, "multicast (mDNS) on this machine: %v", err)
		case <-deadline.C:
			toolcheck.Missing(t, "multicast (mDNS) on this machine: no answer to a browse within 15s")
		}
	}
	cancel()
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
	close(selfFound)
	for p := range selfFound {
		if strings.HasSuffix(p, suffix) {
			t.Errorf("the announcer found itself: %s", p)
		}
	}
}

// TestDiscoveryAddsOnlyLANAddresses: an answer naming a public address, or
// this machine's own announcement, adds no peer.
func TestDiscoveryAddsOnlyLANAddresses(t *testing.T) {
	p, _ := NewPeers(nil, "", nil)
	d := &Discovery{Peers: p, id: "self"}
	for _, e := range []*mdns.ServiceEntry{
		{AddrV4: net.ParseIP("8.8.8.8"), Port: 47380},
		{AddrV4: net.ParseIP("192.168.1.20"), Port: 47380, InfoFields: []string{"id=self"}},
		{AddrV4: net.ParseIP("192.168.1.21"), Port: 0},
		{AddrV4: net.ParseIP("192.168.1.22"), Port: 47380, InfoFields: []string{"id=other"}},
		{AddrV4: net.ParseIP("169.254.3.4"), Port: 47380},
	} {
		d.add(e)
	}
	if got := p.List(); !slices.Equal(got, []string{"http://192.168.1.22:47380", "http://169.254.3.4:47380"}) {
		t.Errorf("List() = %v; want the two LAN peers that are not this machine", got)
	}
}
