package fetch

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/sets/casync"
)

// manualClock is a clock that moves only when a test moves it.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func newManualClock() *manualClock {
	return &manualClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *manualClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// secondPerByte answers a request with data, one byte at a time, each
// flushed and each a second later on clock: a store sending a byte a
// second, which no stall watchdog ever catches, in no real time.
func secondPerByte(clock *manualClock, w http.ResponseWriter, r *http.Request, data []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	for i := range data {
		if r.Context().Err() != nil {
			return
		}
		if _, err := w.Write(data[i : i+1]); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		clock.advance(time.Second)
	}
}

// TestFetchDeltaSlowStore is issue 35's item 5: a chunk store or an index
// that sends a byte a second, and a rebuild that runs past its deadline,
// end the delta update; the archive is downloaded whole, and the result
// says the delta was given up and why.
func TestFetchDeltaSlowStore(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, s *deltaSite, f *Fetcher, clock *manualClock)
		want  string // in Result.Fallback
	}{
		{"chunks at a byte a second", func(t *testing.T, s *deltaSite, f *Fetcher, clock *manualClock) {
			s.m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
				if !strings.HasPrefix(r.URL.Path, "/chunks/") {
					return false
				}
				secondPerByte(clock, w, r, s.m.files[r.URL.Path])
				return true
			}
		}, "too slow"},
		{"index at a byte a second", func(t *testing.T, s *deltaSite, f *Fetcher, clock *manualClock) {
			ipath := "/" + s.l.Packs[0].Index.URL
			s.m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
				if r.URL.Path != ipath {
					return false
				}
				secondPerByte(clock, w, r, s.m.files[ipath])
				return true
			}
		}, "chunk index "},
		{"rebuild past its deadline", func(t *testing.T, s *deltaSite, f *Fetcher, clock *manualClock) {
			// Each chunk comes at once, but the rebuild as a whole is late:
			// a day passes once it has its index and seeds.
			f.Progress = func(p Progress) {
				if p.Done == 0 && p.Delta == nil && p.Fallback == "" && strings.Contains(p.URL, "/chunks/") {
					clock.advance(24 * time.Hour)
				}
			}
		}, "the rebuild ran past its deadline"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newDeltaSite(t)
			f, _ := s.fetcher(t)
			clock := newManualClock()
			f.Now = clock.now
			tc.setup(t, s, f, clock)
			res, err := f.Fetch(t.Context(), s.base, s.l.Packs)
			if err != nil {
				t.Fatalf("Fetch = %v; want the whole archive", err)
			}
			r := res[0]
			if r.Delta != nil || !strings.HasSuffix(r.From, ".zip") || !strings.Contains(r.Fallback, "too slow") || !strings.Contains(r.Fallback, tc.want) {
				t.Errorf("Fetch = %+v; want the whole archive, and a fallback saying the delta was too slow (%q)", r, tc.want)
			}
			checkLanded(t, f.Dir, map[string][]byte{s.l.Packs[0].SHA256: s.v2})
		})
	}
}

// TestChunkStoreGivesUpSlowMirror: a chunk store mirror too slow for one
// chunk is asked for no other; the next mirror gives them.
func TestChunkStoreGivesUpSlowMirror(t *testing.T) {
	s := newDeltaSite(t)
	f, sl := s.fetcher(t)
	clock := newManualClock()
	f.Now = clock.now
	slow := newMirror(t)
	slow.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		secondPerByte(clock, w, r, s.m.files[r.URL.Path])
		return true
	}
	store, err := f.NewChunkStore(s.base, []string{slow.url("/chunks/"), s.m.url("/chunks/")})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := casync.Make(t.Context(), strings.NewReader(string(s.v2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for n, c := range ix.Chunks[:3] {
		data, err := store.GetChunk(t.Context(), c.ID, c.Size)
		if err != nil || casync.Sum(data) != c.ID {
			t.Fatalf("GetChunk(chunk %d) = %d bytes, %v; want the chunk from the second mirror", n, len(data), err)
		}
	}
	if got := len(slow.requests()); got != 1 || sl.count() != 0 {
		t.Errorf("the slow mirror got %d requests after %d back-offs; want one, and no other once it was too slow", got, sl.count())
	}
}
