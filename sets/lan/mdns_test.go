package lan

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

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
	announcer := &Discovery{Peers: self, Port: port, Every: 100 * time.Millisecond, wait: 200 * time.Millisecond}
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
