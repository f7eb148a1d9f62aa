package daemon

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"runtime"

	"golang.org/x/sync/errgroup"
)

// endpoints are what a daemon serves on: the status socket and, when
// configured, the loopback TCP API with its key.
type endpoints struct {
	unix net.Listener // nil when only the TCP API serves
	tcp  net.Listener // nil without [api] listen
	key  string
}

// listenAll opens the status socket at socket and, when tcpAddr is set,
// the TCP API with the key kept in stateDir. A socket that cannot be
// opened (no AF_UNIX: old Windows, wine) is only a warning when the TCP
// API is there to answer; another daemon on the socket is always an error.
func listenAll(socket, tcpAddr, stateDir string, log *slog.Logger) (*endpoints, error) {
	ln, err := Listen(socket)
	if err != nil && (tcpAddr == "" || errors.Is(err, errAlreadyRunning)) {
		return nil, err
	}
	if err != nil {
		log.Warn("status socket unavailable; serving the TCP API only", "socket", socket, "err", err)
		ln = nil
	}
	e := &endpoints{unix: ln}
	if tcpAddr == "" {
		return e, nil
	}
	key, kerr := apiKey(stateDir)
	tln, lerr := listenTCP(tcpAddr)
	e.tcp, e.key = tln, key
	if err := errors.Join(kerr, lerr); err != nil {
		e.Close()
		return nil, err
	}
	log.Info("TCP API listening", "addr", tln.Addr().String())
	return e, nil
}

// Close closes the listeners; Serve closes them itself.
func (e *endpoints) Close() {
	for _, ln := range []net.Listener{e.unix, e.tcp} {
		if ln != nil {
			ln.Close()
		}
	}
}

// Serve answers on every endpoint (see [Serve]) until ctx ends; the TCP
// API asks for the key.
func (e *endpoints) Serve(ctx context.Context, b Backend, ev *Events, opts ServerOptions) error {
	g, ctx := errgroup.WithContext(ctx)
	opts = opts.withDefaults() // one set of page sessions for both
	if e.tcp != nil {
		opts.pages.setBase(e.tcp.Addr().String())
	}
	if e.unix != nil {
		g.Go(func() error { return Serve(ctx, e.unix, b, ev, opts) })
	}
	if e.tcp != nil {
		topts := opts
		topts.APIKey = e.key
		g.Go(func() error { return Serve(ctx, e.tcp, b, ev, topts) })
	}
	return g.Wait()
}

// minProcs is the fewest Ps ReserveProcs leaves the daemon.
const minProcs = 4

// reserveProcs gives the process at least four Ps, unless GOMAXPROCS is
// set. A transaction keeps two goroutines busy (decompressing, writing);
// with as many Ps as cores, a status request then waits for the
// scheduler's 10 ms preemption, while with spare Ps it runs at once and
// the OS shares the cores. Measured on 2 cores: GET /v1/status p99 15 ms
// during a 256 MiB install with 2 Ps, 3–5 ms with 4.
func reserveProcs() {
	if os.Getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) < minProcs {
		runtime.GOMAXPROCS(minProcs)
	}
}
