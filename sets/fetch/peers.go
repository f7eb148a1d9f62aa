package fetch

import (
	"context"
	"errors"
	"net/http"

	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// The paths of a LAN peer's archives and chunk store (SPEC §13).
const (
	peerArchives = "/lan/v1/archives/"
	peerChunks   = "/lan/v1/chunks/"
)

// fetchFromPeers asks each peer in turn for p's archive (SPEC §13): one try
// each, held to a mirror's stall, minimum-rate and deadline rules, the
// bytes checked against the pin before they land. A peer without the
// archive (404) or busy (503) is passed over; one that errs, stalls or sends wrong bytes
// is dropped. It returns nil when no peer gave the archive.
func (f *Fetcher) fetchFromPeers(ctx context.Context, p lock.Pack, dst, fallback string) *Result {
	if f.Peers == nil {
		return nil
	}
	once := f.peerFetcher()
	for _, peer := range f.Peers.List() {
		if ctx.Err() != nil {
			return nil
		}
		src := Source{URL: peer + peerArchives + p.SHA256}
		_, err := once.fetchFrom(ctx, f.client(), p, src, dst, fallback, nil, true)
		if err == nil {
			return &Result{Pack: p, Path: dst, From: src.URL, Fallback: fallback, Peer: true}
		}
		if ctx.Err() != nil {
			return nil
		}
		if !passOver(err) {
			f.Peers.Drop(peer, err)
		}
	}
	return nil
}

// peerFetcher returns f for a peer: one try, no back-off. A peer on the
// LAN that fails once is not worth a wait: the mirrors are next.
func (f *Fetcher) peerFetcher() *Fetcher {
	once := *f
	once.Tries = 1
	return &once
}

// passOver reports whether err is a 404 or a 503: a peer that does not
// have what was asked for, or is busy serving others, which is no fault.
func passOver(err error) bool {
	var se *httpStatusError
	return errors.As(err, &se) && (se.Code == http.StatusNotFound || se.Code == http.StatusServiceUnavailable)
}
