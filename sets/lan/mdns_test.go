package lan

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// TestDiscovery: one machine announces _forgesync._tcp, another browsing
// finds it; the announcer never finds itself. Where this machine has no
// multicast the test stops by the tool rule, with the reason.
func TestDiscovery(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	self, _ := NewPeers(nil, "", nil)
	other, _ := NewPeers(nil, "", nil)
	found := make(chan string, 16)
	other.added = func(p string) { found <- p }
	selfFound := make(chan string, 16)
	self.added = func(p string) { selfFound <- p }
	announcer := &Discovery{Peers: self, Port: 47999, Every: 100 * time.Millisecond, wait: 200 * time.Millisecond}
	browser := &Discovery{Peers: other, Every: 100 * time.Millisecond, wait: 200 * time.Millisecond}
	errs := make(chan error, 2)
	go func() { errs <- announcer.Run(ctx) }()
	go func() { errs <- browser.Run(ctx) }()
	start := time.Now()
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	select {
	case p := <-found:
		t.Logf("found after %v", time.Since(start))
		if !strings.HasSuffix(p, ":47999") {
			t.Errorf("found %s; want the announcer's port 47999", p)
		}
	case err := <-errs:
		toolcheck.Missing(t, "multicast (mDNS) on this machine: %v", err)
	case <-deadline.C:
		toolcheck.Missing(t, "multicast (mDNS) on this machine: no answer to a browse within 15s")
	}
	select {
	case p := <-selfFound:
		t.Errorf("the announcer found itself: %s", p)
	default:
	}
	cancel()
	defer func() { t.Logf("stopped after %v", time.Since(start)) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
}
