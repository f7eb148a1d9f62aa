package lan

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/hashicorp/mdns"
)

// service is the DNS-SD service type a machine that shares announces and
// browses for (SPEC §13).
const service = "_forgesync._tcp"

// Defaults of a Discovery.
const (
	defaultBrowseEvery = time.Minute
	browseFor          = 2 * time.Second
	idField            = "id="
)

// Discovery announces this machine's server on the LAN by mDNS/DNS-SD and
// browses for others, adding each one found to Peers. Its own
// announcement is known by its instance id and never added.
type Discovery struct {
	Peers *Peers
	// Port is the server's port to announce; 0: browse only.
	Port int
	// Addr is the address to announce, that of a server listening on
	// one address; nil: those of every interface that is up.
	Addr net.IP
	// Every is how often to browse; 0: once a minute.
	Every time.Duration
	// Iface is the interface to announce and browse on; nil: the
	// system's choice.
	Iface *net.Interface
	// Log hears why announcing or browsing failed; nil: discarded.
	Log *slog.Logger

	id string
	// wait is how long one browse listens for answers; 0: browseFor.
	wait time.Duration
}

// Run announces and browses until ctx ends. It fails at once when the
// machine has no multicast (no listener could be started), naming the
// cause; a browse that fails later is logged and tried again.
func (d *Discovery) Run(ctx context.Context) error {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.id == "" {
		var b [8]byte
		rand.Read(b[:])
		d.id = hex.EncodeToString(b[:])
	}
	quiet := log.New(io.Discard, "", 0)
	if d.Port > 0 {
		ips := announceIPs(d.Iface)
		if d.Addr != nil {
			ips = []net.IP{d.Addr}
		}
		svc, err := mdns.NewMDNSService(d.id, service, "", "", d.Port, ips, []string{idField + d.id})
		if err != nil {
			return fmt.Errorf("lan: announce %s on port %d: %w", service, d.Port, err)
		}
		srv, err := mdns.NewServer(&mdns.Config{Zone: svc, Iface: d.Iface, Logger: quiet})
		if err != nil {
			return fmt.Errorf("lan: announce %s: %w (multicast does not work here: name peers in [lan] peers instead)", service, err)
		}
		defer srv.Shutdown()
	}
	every := d.Every
	if every <= 0 {
		every = defaultBrowseEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := d.browse(ctx, quiet); err != nil && ctx.Err() == nil {
			d.Log.Warn("could not browse the LAN for peers", "service", service, "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// browse asks the LAN once for the service and adds what answers.
func (d *Discovery) browse(ctx context.Context, quiet *log.Logger) error {
	entries := make(chan *mdns.ServiceEntry, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range entries {
			d.add(e)
		}
	}()
	wait := d.wait
	if wait <= 0 {
		wait = browseFor
	}
	err := mdns.QueryContext(ctx, &mdns.QueryParam{Service: service, Domain: "local", Timeout: wait,
		Interface: d.Iface, Entries: entries, DisableIPv6: true, Logger: quiet})
	close(entries)
	<-done
	return err
}

// add adds the peer an answer names, unless it is this machine's own or
// not on a private, link-local or loopback address.
func (d *Discovery) add(e *mdns.ServiceEntry) {
	for _, f := range e.InfoFields {
		if f == idField+d.id {
			return
		}
	}
	// A peer found on the LAN is on the LAN: an answer naming a public
	// address would have this machine send requests off it.
	if e.AddrV4 == nil || e.Port <= 0 || !(e.AddrV4.IsPrivate() || e.AddrV4.IsLinkLocalUnicast() || e.AddrV4.IsLoopback()) {
		return
	}
	d.Peers.Add("http://" + net.JoinHostPort(e.AddrV4.String(), strconv.Itoa(e.Port)))
}

// announceIPs returns the IPv4 addresses to announce: those of iface, or
// of every interface that is up and not loopback; nil when there are none
// (the library then looks the host name up).
func announceIPs(iface *net.Interface) []net.IP {
	var ifs []net.Interface
	if iface != nil {
		ifs = []net.Interface{*iface}
	} else if all, err := net.Interfaces(); err == nil {
		ifs = all
	}
	var out []net.IP
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 || (iface == nil && i.Flags&net.FlagLoopback != 0) {
			continue
		}
		addrs, err := i.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
				out = append(out, n.IP.To4())
			}
		}
	}
	return out
}
