package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"syscall"
)

// ErrPrivateAddress is wrapped when a mirror of a lock served from a
// public address resolves to a loopback, private, link-local or other
// non-public address: a server on the internet must not make the machine
// reach into its own network (a blind SSRF). [sets] allow_private_mirrors
// lifts the rule, for LAN hosts.
var ErrPrivateAddress = errors.New("not a public address")

// addressKind names why ip is not a public address, or returns "" for a
// public one.
func addressKind(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	case sharedSpace.Contains(ip), thisNetwork.Contains(ip), ip == broadcast:
		return "reserved"
	}
	return ""
}

var (
	sharedSpace = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	broadcast   = netip.MustParseAddr("255.255.255.255")
)

// refusePrivate is a net.Dialer's Control hook: it runs on the address
// actually dialled, after name resolution, so a name that resolves to a
// public address when checked and to a private one when used (DNS
// rebinding) is refused all the same.
var refusePrivate = refuseSaying("a lock served from a public address may name only public mirrors, and a registry on the internet may send forgesync only to public addresses ([sets] allow_private_mirrors = true allows LAN hosts)")

// refuseSaying returns refusePrivate's hook with advice, what the error
// tells the user, in place of the sets' own.
func refuseSaying(advice string) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return fmt.Errorf("dial %s: %w", address, err)
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return fmt.Errorf("dial %s: %w: not an IP address", address, ErrPrivateAddress)
		}
		if kind := addressKind(ip); kind != "" {
			return fmt.Errorf("refused to connect to %s, a %s address: %w; %s", ip.Unmap(), kind, ErrPrivateAddress, advice)
		}
		return nil
	}
}

// guardedDefault is defaultClient with refusePrivate on every dial.
var guardedDefault = guardClient(defaultClient)

// GuardClient is guardClient for the clients of OCI registries
// (oci.Options.Guard).
func GuardClient(c *http.Client) *http.Client { return guardClient(c) }

// GuardClientSaying is GuardClient for another caller than the sets (the
// update of forgesync itself): a refusal says advice.
func GuardClientSaying(c *http.Client, advice string) *http.Client {
	return guardClientWith(c, refuseSaying(advice))
}

// guardClient returns a client like c whose connections to a non-public
// address are refused at dial time. Through a proxy the dial is the
// proxy's, so the target's name is resolved and checked before the
// request instead. A client whose transport is not an *http.Transport is
// checked that way too.
func guardClient(c *http.Client) *http.Client { return guardClientWith(c, refusePrivate) }

// guardClientWith is guardClient refusing with refuse.
func guardClientWith(c *http.Client, refuse func(network, address string, _ syscall.RawConn) error) *http.Client {
	out := *c
	var t *http.Transport
	switch rt := c.Transport.(type) {
	case nil:
		t = http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		t = rt.Clone()
	default:
		out.Transport = resolvingGuard{rt, refuse}
		return &out
	}
	var proxies sync.Map // host:port of the proxies used → true
	if proxy := t.Proxy; proxy != nil {
		t.Proxy = func(req *http.Request) (*url.URL, error) {
			u, err := proxy(req)
			if u != nil && err == nil {
				if err := checkResolved(req.Context(), req.URL.Hostname(), refuse); err != nil {
					return nil, err
				}
				port := u.Port()
				if port == "" {
					port = map[string]string{"https": "443", "socks5": "1080"}[u.Scheme]
					if port == "" {
						port = "80"
					}
				}
				proxies.Store(net.JoinHostPort(u.Hostname(), port), true)
			}
			return u, err
		}
	}
	plain := &net.Dialer{Timeout: dialTimeout, KeepAlive: dialKeepAlive}
	checked := &net.Dialer{Timeout: dialTimeout, KeepAlive: dialKeepAlive, Control: refuse}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if _, ok := proxies.Load(addr); ok {
			return plain.DialContext(ctx, network, addr)
		}
		return checked.DialContext(ctx, network, addr)
	}
	out.Transport = t
	return &out
}

// resolvingGuard checks a request's host by name before sending it.
type resolvingGuard struct {
	rt     http.RoundTripper
	refuse func(network, address string, _ syscall.RawConn) error
}

func (g resolvingGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := checkResolved(req.Context(), req.URL.Hostname(), g.refuse); err != nil {
		return nil, err
	}
	return g.rt.RoundTrip(req)
}

// checkResolved refuses a host any of whose addresses is not public.
func checkResolved(ctx context.Context, host string, refuse func(network, address string, _ syscall.RawConn) error) error {
	if ip, err := netip.ParseAddr(host); err == nil {
		return refuse("tcp", net.JoinHostPort(ip.String(), "0"), nil)
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return err
	}
	for _, ip := range addrs {
		if err := refuse("tcp", net.JoinHostPort(ip.String(), "0"), nil); err != nil {
			return fmt.Errorf("%s: %w", host, err)
		}
	}
	return nil
}
