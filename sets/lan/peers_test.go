package lan

import (
	"bytes"
	"errors"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"
)

// TestParsePeer: [lan] peers takes http://HOST:PORT only.
func TestParsePeer(t *testing.T) {
	for in, want := range map[string]string{
		"http://192.168.1.7:47380": "http://192.168.1.7:47380",
		"http://host-b:47380/":     "http://host-b:47380",
		" http://[fd00::7]:47380 ": "http://[fd00::7]:47380",
	} {
		if got, err := parsePeer(in); got != want || err != nil {
			t.Errorf("parsePeer(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"https://h:1", "http://h", "h:1", "http://u:pw@h:1", "http://h:1/lan/v1/archives", "http://h:1?x=1", "ftp://h:1"} {
		if _, err := parsePeer(in); err == nil || !strings.Contains(err.Error(), "http://HOST:PORT") {
			t.Errorf("parsePeer(%q) = %v; want an error naming the form", in, err)
		}
	}
}

// TestPeersNeverSelf: the machine's own server, by any of its addresses or
// its name, is never its peer; another port on it is.
func TestPeersNeverSelf(t *testing.T) {
	var own []string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
			own = append(own, "http://"+n.IP.String()+":47380")
		}
	}
	own = append(own, "http://localhost:47380", "http://127.0.0.1:47380")
	p, err := NewPeers(append(slices.Clone(own), "http://127.0.0.1:47381", "http://192.0.2.250:47380"), "0.0.0.0:47380", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range own {
		p.Add(u) // as mDNS might find it
	}
	if got := p.List(); !slices.Equal(got, []string{"http://127.0.0.1:47381", "http://192.0.2.250:47380"}) {
		t.Errorf("List() = %v; want only the other port and the other machine", got)
	}
	if _, err := NewPeers([]string{"https://x:1"}, "", nil); err == nil {
		t.Error("NewPeers accepted an https peer")
	}
}

// TestPeersDropNamed: a dropped peer is named in the log with why, is no
// longer listed, and is not added again when found again.
func TestPeersDropNamed(t *testing.T) {
	var log bytes.Buffer
	p, _ := NewPeers([]string{"http://192.0.2.10:47380"}, "", slog.New(slog.NewTextHandler(&log, nil)))
	p.Add("http://192.0.2.11:47380")
	p.Drop("http://192.0.2.10:47380", errors.New("wrong bytes: SHA-256 00ff, the lock pins 1234"))
	p.Add("http://192.0.2.10:47380")
	if got := p.List(); !slices.Equal(got, []string{"http://192.0.2.11:47380"}) {
		t.Errorf("List() = %v; want the peer found, not the dropped one", got)
	}
	if s := log.String(); !strings.Contains(s, "peer=http://192.0.2.10:47380") || !strings.Contains(s, "wrong bytes") || !strings.Contains(s, "dropped") {
		t.Errorf("log = %q; want the dropped peer named with why", s)
	}
}
