package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/sets/follow"
	"github.com/mjolnir-forge/forgesync/sets/lan"
)

// chunksDir is the machine's own chunk store under the state folder, kept
// while [lan] share is on: the chunks its delta updates fetched, served to
// its peers (SPEC §13).
const chunksDir = "chunks"

// lanPeers is a machine's LAN peers and chunk store, decided once from
// the [lan] of the config the process started with and kept, with the
// peers dropped, until it ends (SPEC §13: in memory only); a reload
// changes neither (it says [lan] needs a restart).
type lanPeers struct {
	once   sync.Once
	peers  *lan.Peers
	chunks string
	err    error
}

// lanState returns the machine's LAN peers and chunk store, made at the
// first call.
func (m *Machine) lanState() *lanPeers {
	if m.lan == nil {
		m.lan = &lanPeers{}
	}
	m.lan.once.Do(func() {
		cfg := m.opts.Config
		m.lan.chunks = chunkStore(cfg)
		if !cfg.LAN.Share && len(cfg.LAN.Peers) == 0 {
			return
		}
		listen := ""
		if cfg.LAN.Share {
			listen = cfg.LAN.Listen
		}
		m.lan.peers, m.lan.err = lan.NewPeers(cfg.LAN.Peers, listen, m.opts.Log)
	})
	return m.lan
}

// LANPeers returns the machine's LAN peers ([lan] peers, and those found
// by mDNS while it shares), or nil when it asks none.
func (m *Machine) LANPeers() (*lan.Peers, error) {
	st := m.lanState()
	return st.peers, st.err
}

// chunkStore returns the machine's own chunk store, kept only while it
// shares.
func chunkStore(cfg *config.Config) string {
	if !cfg.LAN.Share {
		return ""
	}
	return filepath.Join(cfg.Paths.State, chunksDir)
}

// serveLAN serves the machine's archives and chunks to its LAN peers and
// announces it by mDNS, until ctx ends; with [lan] share off it does
// nothing. A LAN without multicast is logged, not a failure: peers named
// in [lan] peers still work.
func (m *Machine) serveLAN(ctx context.Context, follower *atomic.Pointer[follow.Syncer]) error {
	cfg, log := m.opts.Config, m.opts.Log
	ln, err := listenLAN(cfg, log)
	if ln == nil || err != nil {
		return err
	}
	peers, err := m.LANPeers()
	if err != nil {
		ln.Close()
		return err
	}
	srv := &lan.Server{Chunks: m.lanState().chunks, MaxUpload: cfg.LAN.MaxUpload, Log: log,
		Archive: func(sha string) string { return follower.Load().ArchivePath(sha) }}
	d := &lan.Discovery{Peers: peers, Log: log}
	d.Port, d.Addr = announced(ln.Addr().(*net.TCPAddr))
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := d.Run(gctx); err != nil {
			log.Warn("LAN peers are not announced or found by mDNS; those in [lan] peers are still asked", "err", err)
		}
		return nil
	})
	log.Info("sharing archives and chunks with LAN peers", "listen", ln.Addr().String(), "max_upload", cfg.LAN.MaxUpload)
	g.Go(func() error { return srv.Run(gctx, ln) })
	return g.Wait()
}

// listenLAN listens on [lan] listen when the machine shares; nil when it
// does not.
func listenLAN(cfg *config.Config, log *slog.Logger) (net.Listener, error) {
	if !cfg.LAN.Share {
		return nil, nil
	}
	ln, err := net.Listen("tcp", cfg.LAN.Listen)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			return nil, fmt.Errorf("daemon: [lan] listen %s: %w (another program holds the port: choose another, or set share = false)", cfg.LAN.Listen, err)
		}
		return nil, fmt.Errorf("daemon: [lan] listen %s: %w", cfg.LAN.Listen, err)
	}
	return ln, nil
}

// announced returns the port and address to announce of a server
// listening on a: none (browse only) on loopback, which no peer can
// reach; every interface's addresses (nil) when a is unspecified; else
// a's own.
func announced(a *net.TCPAddr) (int, net.IP) {
	switch {
	case a.IP.IsLoopback():
		return 0, nil
	case a.IP.IsUnspecified():
		return a.Port, nil
	}
	return a.Port, a.IP
}
