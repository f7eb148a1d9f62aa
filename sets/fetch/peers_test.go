package fetch

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// peerList is a Peers that records the peers dropped and why.
type peerList struct {
	mu      sync.Mutex
	peers   []string
	dropped map[string]error
}

func newPeerList(peers ...string) *peerList {
	return &peerList{peers: peers, dropped: map[string]error{}}
}

func (p *peerList) List() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, u := range p.peers {
		if p.dropped[u] == nil {
			out = append(out, u)
		}
	}
	return out
}

func (p *peerList) Drop(peer string, why error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropped[peer] = why
}

func (p *peerList) droppedWhy(peer string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropped[peer]
}

// TestFetchFromPeer: a peer that has the archive serves it; the mirror
// serves nothing, and the result and progress say a peer gave it.
func TestFetchFromPeer(t *testing.T) {
	peer, m := newMirror(t), newMirror(t)
	data, p := archive("peer-pack", 200000)
	peer.files[peerArchives+p.SHA256] = data
	m.files["/p.zip"] = data
	p.URLs = []string{m.url("/p.zip")}
	f, _ := newFetcher(t)
	f.Peers = newPeerList(peer.srv.URL)
	var peerDone int64
	f.Progress = func(pr Progress) {
		if pr.Peer {
			peerDone = pr.Done
		}
	}
	res, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	if err != nil || len(res) != 1 || !res[0].Peer || res[0].From != peer.srv.URL+peerArchives+p.SHA256 {
		t.Fatalf("Fetch = %+v, %v; want the archive from the peer", res, err)
	}
	if n := len(m.requests()); n != 0 {
		t.Errorf("the mirror got %d requests; want none", n)
	}
	if peerDone != p.Size {
		t.Errorf("progress from the peer reached %d bytes; want %d", peerDone, p.Size)
	}
	checkLanded(t, f.Dir, map[string][]byte{p.SHA256: data})
}

// TestFetchPeerFaults: a peer that serves wrong bytes, stalls, trickles,
// fails or is not there: the archive lands with its pinned bytes from the
// mirror, and the peer is dropped with why. A peer without the archive
// (404) or busy (503) is no fault: it stays.
func TestFetchPeerFaults(t *testing.T) {
	var mirrorFast func() // called when the mirror is asked
	tests := []struct {
		name  string
		setup func(t *testing.T, peer *mirror, f *Fetcher, p lock.Pack, data []byte)
		want  string // in the drop's error; "" for no drop
	}{
		{"corrupt archive", func(t *testing.T, peer *mirror, f *Fetcher, p lock.Pack, data []byte) {
			bad := slices.Clone(data)
			bad[len(bad)/2] ^= 1
			peer.files[peerArchives+p.SHA256] = bad
		}, "wrong bytes"},
		{"short archive", func(t *testing.T, peer *mirror, f *Fetcher, p lock.Pack, data []byte) {
			peer.files[peerArchives+p.SHA256] = data[:len(data)-1]
		}, "wrong bytes"},
		{"slowloris", func(t *testing.T, peer *mirror, f *Fetcher, p lock.Pack, data []byte) {
			// Each reading of the clock is 40 s later: the first read
			// ends the rate window, far below the minimum rate.
			clock := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), step: 40 * time.Second}
			f.Now = clock.now
			peer.fault = trickle(data)
			mirrorFast = func() { clock.mu.Lock(); clock.step = time.Millisecond; clock.mu.Unlock() }
		}, "too slow"},
		{"stall", func(t *testing.T, peer *mirror, f *Fetcher, p lock.Pack, data []byte) {
			f.Stall = 50 * time.Millisecond
			peer.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
				w.Header().Set("Content-Length", "200000")
				w.Write(data[:10])
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				return true
			}
		}, "no data received"},
		{"HTTP 500", func(t *testing.T, peer *mirror, f *Fetcher, p lock.Pack, data []byte) {
			peer.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
				http.Error(w, "down", http.StatusInternalServerError)
				return true
			}
		}, "HTTP 500"},
		{"nothing at all", func(t *testing.T, peer *mirror, f *Fetcher, p lock.Pack, data []byte) {
			peer.srv.Close()
		}, "connect"},
		{"not there", func(t *testing.T, peer *mirror, f *Fetcher, p lock.Pack, data []byte) {}, ""},
		{"busy", func(t *testing.T, peer *mirror, f *Fetcher, p lock.Pack, data []byte) {
			peer.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return true
			}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mirrorFast = func() {}
			peer, m := newMirror(t), newMirror(t)
			m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool { mirrorFast(); return false }
			data, p := archive("peer-pack", 200000)
			m.files["/p.zip"] = data
			p.URLs = []string{m.url("/p.zip")}
			f, s := newFetcher(t)
			peers := newPeerList(peer.srv.URL)
			f.Peers = peers
			tt.setup(t, peer, f, p, data)
			res, err := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
			if err != nil || len(res) != 1 || res[0].Peer || res[0].From != m.url("/p.zip") {
				t.Fatalf("Fetch = %+v, %v; want the archive from the mirror", res, err)
			}
			checkLanded(t, f.Dir, map[string][]byte{p.SHA256: data})
			why := peers.droppedWhy(peer.srv.URL)
			switch {
			case tt.want == "" && why != nil:
				t.Errorf("the peer was dropped (%v); a peer without the archive stays", why)
			case tt.want != "" && (why == nil || !strings.Contains(why.Error(), tt.want)):
				t.Errorf("the peer was dropped with %v; want an error with %q", why, tt.want)
			}
			if s.count() != 0 {
				t.Errorf("%d back-offs; a peer is tried once", s.count())
			}
		})
	}
}

// TestFetchDeltaFromPeerChunks: a delta update asks the peer's chunk store
// first: the mirror serves the index and no chunk, and every chunk fetched
// lands in the machine's own store for its peers. A peer with a corrupt
// chunk is dropped, and the chunks come from the mirror.
func TestFetchDeltaFromPeerChunks(t *testing.T) {
	for _, corrupt := range []bool{false, true} {
		name := map[bool]string{false: "good chunks", true: "corrupt chunk"}[corrupt]
		t.Run(name, func(t *testing.T) {
			s := newDeltaSite(t)
			peer := newMirror(t)
			for path, data := range s.m.files {
				if rest, ok := strings.CutPrefix(path, "/chunks/"); ok {
					peer.files[peerChunks+rest] = data
				}
			}
			if corrupt {
				p, c := s.newChunk(t)
				peer.files[peerChunks+strings.TrimPrefix(p, "/chunks/")] = casync.EncodeChunk(settest.RandomBytes(9, int(c.Size)))
			}
			f, _ := s.fetcher(t)
			peers := newPeerList(peer.srv.URL)
			f.Peers = peers
			f.Delta.Keep = t.TempDir()
			r := s.fetchDelta(t, f)
			var chunkReqs int
			for _, q := range s.m.requests() {
				if strings.HasPrefix(q.Path, "/chunks/") {
					chunkReqs++
				}
			}
			why := peers.droppedWhy(peer.srv.URL)
			if !corrupt {
				if chunkReqs != 0 || why != nil || r.Delta.PeerBytes != r.Delta.FetchedBytes {
					t.Errorf("mirror chunk requests %d, peer dropped %v, Delta %+v; want every chunk from the peer", chunkReqs, why, r.Delta)
				}
			} else {
				if why == nil || !strings.Contains(why.Error(), "wrong bytes") || chunkReqs == 0 {
					t.Errorf("peer dropped with %v, mirror chunk requests %d; want the peer dropped for wrong bytes and the mirror's chunks", why, chunkReqs)
				}
			}
			kept := 0
			filepath.WalkDir(f.Delta.Keep, func(p string, d os.DirEntry, err error) error {
				if err == nil && strings.HasSuffix(p, ".cacnk") {
					kept++
				}
				return nil
			})
			if kept != r.Delta.FetchedChunks {
				t.Errorf("the machine's chunk store holds %d chunks; want the %d fetched", kept, r.Delta.FetchedChunks)
			}
		})
	}
}
