package lan

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
)

// Peers are the machines a download asks first (SPEC §13): those the
// configuration names ([lan] peers) and those found on the LAN, in memory
// only. A peer that errs, stalls or serves wrong bytes is dropped until
// the daemon restarts, and named in the log. The machine's own address is
// never its own peer. Peers is safe for concurrent use.
type Peers struct {
	log *slog.Logger
	// self reports whether a peer's host and port are this machine's own
	// server.
	self func(hostport string) bool

	mu      sync.Mutex        // guards the fields below
	static  []string          // from the configuration, in order
	found   []string          // found on the LAN, in the order found
	dropped map[string]string // peer → why it was dropped
	// added, when set, hears each peer found; for tests.
	added func(peer string)
}

// parsePeer returns the base URL of a peer as [lan] peers writes it,
// "http://HOST:PORT", without a final slash, or an error that says what is
// wrong with it.
func parsePeer(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return "", fmt.Errorf("lan: a peer is not a URL: want http://HOST:PORT")
	}
	if u.User != nil {
		s = u.Redacted() // never shown with its password
	}
	switch {
	case u.Scheme != "http":
		return "", fmt.Errorf("lan: peer %q: want http://HOST:PORT (peers speak plain HTTP: every byte is checked against its digest)", s)
	case u.Host == "" || u.Port() == "":
		return "", fmt.Errorf("lan: peer %q: want http://HOST:PORT, with the port", s)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.Trim(u.Path, "/") != "":
		return "", fmt.Errorf("lan: peer %q: want only http://HOST:PORT, without user, path, query or fragment", s)
	}
	return "http://" + u.Host, nil
}

// NewPeers returns the peers named by configured (each as ParsePeer
// accepts it), without any on this machine's own server, which listens on
// listen (ADDR:PORT; empty when it serves nothing).
func NewPeers(configured []string, listen string, log *slog.Logger) (*Peers, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Peers{log: log, self: selfMatcher(listen), dropped: map[string]string{}}
	for _, c := range configured {
		u, err := parsePeer(c)
		if err != nil {
			return nil, err
		}
		if !p.isSelf(u) && !slices.Contains(p.static, u) {
			p.static = append(p.static, u)
		}
	}
	return p, nil
}

// List returns the peers to ask, those configured first, without the
// dropped ones.
func (p *Peers) List() []string {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, u := range slices.Concat(p.static, p.found) {
		if _, gone := p.dropped[u]; !gone {
			out = append(out, u)
		}
	}
	return out
}

// Add adds a peer found on the LAN (http://HOST:PORT); a peer already
// known, a dropped one, or this machine's own server is not added.
func (p *Peers) Add(peer string) {
	u, err := parsePeer(peer)
	if err != nil || p.isSelf(u) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, gone := p.dropped[u]; gone || slices.Contains(p.static, u) || slices.Contains(p.found, u) {
		return
	}
	p.found = append(p.found, u)
	p.log.Info("found a LAN peer", "peer", u)
	if p.added != nil {
		p.added(u)
	}
}

// Drop drops peer until the daemon restarts, and logs it with why.
func (p *Peers) Drop(peer string, why error) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, gone := p.dropped[peer]; gone {
		return
	}
	reason := "dropped"
	if why != nil {
		reason = why.Error()
	}
	p.dropped[peer] = reason
	p.log.Warn("LAN peer dropped until the daemon restarts", "peer", peer, "err", reason)
}

// Dropped returns the dropped peers, each with why.
func (p *Peers) Dropped() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]string, len(p.dropped))
	for k, v := range p.dropped {
		out[k] = v
	}
	return out
}

func (p *Peers) isSelf(base string) bool {
	return p.self != nil && p.self(strings.TrimPrefix(base, "http://"))
}

// selfMatcher returns whether a host:port is the server listening on
// listen: the same port, and a host that is one of this machine's
// addresses (any of them when listen's host is unspecified) or its name.
func selfMatcher(listen string) func(string) bool {
	lhost, lport, err := net.SplitHostPort(listen)
	if err != nil || lport == "" || lport == "0" {
		return nil
	}
	return func(hostport string) bool {
		host, port, err := net.SplitHostPort(hostport)
		if err != nil || port != lport {
			return false
		}
		if strings.EqualFold(host, lhost) || strings.EqualFold(host, "localhost") {
			return true
		}
		if name, err := os.Hostname(); err == nil && strings.EqualFold(strings.TrimSuffix(host, "."), name) {
			return true
		}
		ip := net.ParseIP(host)
		if ip == nil {
			return false
		}
		if ip.IsLoopback() {
			return true
		}
		if l := net.ParseIP(lhost); l != nil && !l.IsUnspecified() {
			return l.Equal(ip)
		}
		return localAddr(ip)
	}
}

// localAddr reports whether ip is an address of one of this machine's
// interfaces.
func localAddr(ip net.IP) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
