package fetch

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/export"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// keptFile writes data as the kept archive of id version.
func keptFile(t *testing.T, dir, id, version string, data []byte) export.Kept {
	t.Helper()
	sum := sha256.Sum256(data)
	path := filepath.Join(dir, id+"-"+version+".zip")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return export.Kept{ID: id, Version: version, SHA256: hex.EncodeToString(sum[:]), Path: path, Ext: ".zip"}
}

var _ = http.StatusOK

// deltaSite is an exported folder holding v1 and v2 of one pack, served
// by a mirror, and a seed: v1 as the machine keeps it.
type deltaSite struct {
	m        *mirror
	l        *lock.Lock // the lock of v2
	v1, v2   []byte
	seed     string // v1's kept archive
	seedIdx  string // where v1's index is kept
	base     Source
	indexDir string
}

func newDeltaSite(t *testing.T) *deltaSite {
	t.Helper()
	src, out := t.TempDir(), t.TempDir()
	s := &deltaSite{v1: settest.RandomBytes(7, 2<<20)}
	s.v2 = settest.Edited(s.v1, 40<<10, 60<<10, 20<<10)
	k1 := keptFile(t, src, "alpha-pack", "1.0.0", s.v1)
	if _, err := export.ExportWith(t.Context(), out, []export.Kept{k1}, export.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	k2 := keptFile(t, src, "alpha-pack", "2.0.0", s.v2)
	l, err := export.ExportWith(t.Context(), out, []export.Kept{k2}, export.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.l, s.seed = l, k1.Path
	s.indexDir = t.TempDir()
	s.seedIdx = filepath.Join(s.indexDir, k1.SHA256+casync.IndexExt)
	s.m = newMirror(t)
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(out, p)
			data, _ := os.ReadFile(p)
			s.m.files["/"+filepath.ToSlash(rel)] = data
		}
		return nil
	})
	s.base = Source{URL: s.m.url("/" + lock.LockName)}
	return s
}

func (s *deltaSite) fetcher(t *testing.T) (*Fetcher, *sleeps) {
	f, sl := newFetcher(t)
	f.AllowPrivate = true
	f.Delta = &Delta{Chunks: s.l.Chunks,
		Seeds:     func(p lock.Pack) []Seed { return []Seed{{Path: s.seed, Index: s.seedIdx}} },
		IndexPath: func(sha string) string { return filepath.Join(s.indexDir, sha+casync.IndexExt) }}
	return f, sl
}

// fetchDelta fetches v2 with f and checks that it was rebuilt from
// chunks and landed with the pinned bytes.
func (s *deltaSite) fetchDelta(t *testing.T, f *Fetcher) Result {
	t.Helper()
	res, err := f.Fetch(t.Context(), s.base, s.l.Packs)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Delta == nil || r.Fallback != "" {
		t.Fatalf("Fetch = %+v; want a delta update", r)
	}
	checkLanded(t, f.Dir, map[string][]byte{s.l.Packs[0].SHA256: s.v2})
	return r
}

// chunkPath returns the URL path of the store's chunk n of v2 that v1 does
// not have, and the chunk.
func (s *deltaSite) newChunk(t *testing.T) (string, casync.Chunk) {
	t.Helper()
	ix1, _ := casync.Make(t.Context(), bytes.NewReader(s.v1), nil)
	ix2, _ := casync.Make(t.Context(), bytes.NewReader(s.v2), nil)
	old := map[casync.ChunkID]bool{}
	for _, c := range ix1.Chunks {
		old[c.ID] = true
	}
	for _, c := range ix2.Chunks {
		if !old[c.ID] {
			id := c.ID.String()
			return "/chunks/" + id[:4] + "/" + id + ".cacnk", c
		}
	}
	t.Fatal("v2 has no new chunk")
	return "", casync.Chunk{}
}

// TestFetchDelta rebuilds v2 from v1 and the store: far fewer bytes than
// the archive, the pinned bytes, and the index kept for the next update.
func TestFetchDelta(t *testing.T) {
	s := newDeltaSite(t)
	f, _ := s.fetcher(t)
	var last Progress
	f.Progress = func(p Progress) { last = p }
	r := s.fetchDelta(t, f)
	// 120 KiB changed in 3 places and a tail, with chunks of 64 KiB on
	// average: a few chunks each.
	if served := s.m.servedBytes(); served > int64(len(s.v2))/4 || r.Delta.WireBytes != served {
		t.Errorf("served %d bytes (the result says %d) of a %d-byte archive; want under 1/4", served, r.Delta.WireBytes, len(s.v2))
	}
	if r.Delta.SeedBytes+r.Delta.FetchedBytes != int64(len(s.v2)) || r.Delta.FetchedChunks == 0 || r.Delta.SeedChunks == 0 {
		t.Errorf("Delta = %+v", r.Delta)
	}
	if int64(len(s.m.requests())) != r.Delta.Requests {
		t.Errorf("requests: the server saw %d, the result says %d", len(s.m.requests()), r.Delta.Requests)
	}
	if last.Delta == nil || last.Done != last.Total {
		t.Errorf("last progress = %+v; want the delta's figures", last)
	}
	for _, q := range s.m.requests() {
		if strings.HasSuffix(q.Path, ".zip") {
			t.Errorf("the archive was fetched: %s", q.Path)
		}
	}
	if _, err := os.Stat(filepath.Join(s.indexDir, s.l.Packs[0].SHA256+casync.IndexExt)); err != nil {
		t.Errorf("the new archive's index was not kept: %v", err)
	}
	if _, err := os.Stat(s.seedIdx); err != nil {
		t.Errorf("the seed's index was not kept: %v", err)
	}
}

// TestFetchDeltaFaults: each fault ends with the pinned archive, fetched
// whole from its mirror, and the cause in the result.
func TestFetchDeltaFaults(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, s *deltaSite, f *Fetcher)
		want  string // in Result.Fallback
	}{
		{"no seed", func(t *testing.T, s *deltaSite, f *Fetcher) {
			f.Delta.Seeds = func(lock.Pack) []Seed { return nil }
		}, ""}, // not a fault: the first download of a pack
		{"seed gone", func(t *testing.T, s *deltaSite, f *Fetcher) {
			os.Remove(s.seed)
		}, ""},
		{"chunk with wrong bytes", func(t *testing.T, s *deltaSite, f *Fetcher) {
			p, c := s.newChunk(t)
			s.m.files[p] = casync.EncodeChunk(settest.RandomBytes(9, int(c.Size)))
		}, "wrong bytes"},
		{"chunk 404", func(t *testing.T, s *deltaSite, f *Fetcher) {
			p, _ := s.newChunk(t)
			delete(s.m.files, p)
		}, "404"},
		{"store 500", func(t *testing.T, s *deltaSite, f *Fetcher) {
			s.m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
				if strings.HasPrefix(r.URL.Path, "/chunks/") {
					http.Error(w, "down", http.StatusInternalServerError)
					return true
				}
				return false
			}
		}, "HTTP 500"},
		{"store gone", func(t *testing.T, s *deltaSite, f *Fetcher) {
			gone := newMirror(t)
			gone.srv.Close()
			f.Delta.Chunks = []string{gone.url("/chunks/")}
		}, "connect"},
		{"zstd bomb", func(t *testing.T, s *deltaSite, f *Fetcher) {
			p, _ := s.newChunk(t)
			s.m.files[p] = casync.EncodeChunk(make([]byte, 64<<20))
		}, "decompresses to more than"},
		{"chunk over the compressed bound", func(t *testing.T, s *deltaSite, f *Fetcher) {
			p, c := s.newChunk(t)
			s.m.files[p] = make([]byte, maxCompressedChunk(c.Size)+1)
		}, "over the limit"},
		{"index of other bytes", func(t *testing.T, s *deltaSite, f *Fetcher) {
			p := "/" + s.l.Packs[0].Index.URL
			s.m.files[p] = append(bytes.Clone(s.m.files[p]), 0)
		}, "the lock pins " + "x"[:0]},
		{"index that does not add up", func(t *testing.T, s *deltaSite, f *Fetcher) {
			// v1's index, pinned by the lock as v2's.
			k := sha256.Sum256(s.v1)
			raw := s.m.files["/packs/"+hex.EncodeToString(k[:])+casync.IndexExt]
			sum := sha256.Sum256(raw)
			s.l.Packs[0].Index = &lock.IndexRef{URL: "packs/v1.caibx", SHA256: hex.EncodeToString(sum[:])}
			s.m.files["/packs/v1.caibx"] = raw
		}, "add up to"},
		{"index too large", func(t *testing.T, s *deltaSite, f *Fetcher) {
			// An index of a trillion chunks: its size alone refuses it.
			raw := bytes.Repeat([]byte{0xff}, 8<<20)
			sum := sha256.Sum256(raw)
			s.l.Packs[0].Index = &lock.IndexRef{URL: "packs/huge.caibx", SHA256: hex.EncodeToString(sum[:])}
			s.m.files["/packs/huge.caibx"] = raw
		}, "over the limit"},
		{"index missing", func(t *testing.T, s *deltaSite, f *Fetcher) {
			delete(s.m.files, "/"+s.l.Packs[0].Index.URL)
		}, "404"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newDeltaSite(t)
			f, _ := s.fetcher(t)
			tc.setup(t, s, f)
			res, err := f.Fetch(t.Context(), s.base, s.l.Packs)
			if err != nil {
				t.Fatalf("Fetch = %v; want the whole archive", err)
			}
			r := res[0]
			if tc.want == "" && r.Fallback != "" || r.Delta != nil || !strings.Contains(r.Fallback, tc.want) || !strings.HasSuffix(r.From, ".zip") {
				t.Errorf("Fetch = %+v; want a fallback naming %q", r, tc.want)
			}
			checkLanded(t, f.Dir, map[string][]byte{s.l.Packs[0].SHA256: s.v2})
		})
	}
}

// TestFetchDeltaMends: faults that pass (a cut transfer, a 503 once) and
// a seed edited after it was indexed still end as a delta update.
func TestFetchDeltaMends(t *testing.T) {
	t.Run("cut then whole", func(t *testing.T) {
		s := newDeltaSite(t)
		f, sl := s.fetcher(t)
		p, _ := s.newChunk(t)
		s.m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
			if r.URL.Path == p && n == 1 {
				w.Header().Set("Content-Length", strconv.Itoa(len(s.m.files[p])))
				w.Write([]byte("partial"))
				return true
			}
			if strings.HasPrefix(r.URL.Path, "/chunks/") && n == 1 && len(r.URL.Path)%2 == 0 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return true
			}
			return false
		}
		res, err := f.Fetch(t.Context(), s.base, s.l.Packs)
		if err != nil || res[0].Delta == nil || sl.count() == 0 {
			t.Fatalf("Fetch = %+v, %v (%d back-offs); want a delta update after retries", res, err, sl.count())
		}
		checkLanded(t, f.Dir, map[string][]byte{s.l.Packs[0].SHA256: s.v2})
	})
	t.Run("seed edited after it was indexed", func(t *testing.T) {
		s := newDeltaSite(t)
		f, _ := s.fetcher(t)
		if _, err := seedIndex(t.Context(), Seed{Path: s.seed, Index: s.seedIdx}, &casync.Index{Min: casync.DefaultMin, Avg: casync.DefaultAvg, Max: casync.DefaultMax}); err != nil {
			t.Fatal(err)
		}
		data := bytes.Clone(s.v1)
		copy(data[len(data)/8:], settest.RandomBytes(11, 100<<10)) // same size: the kept index is used
		os.Chmod(s.seed, 0o644)
		os.WriteFile(s.seed, data, 0o644)
		var logged bytes.Buffer
		f.Delta.Log = slog.New(slog.NewTextHandler(&logged, nil))
		res, err := f.Fetch(t.Context(), s.base, s.l.Packs)
		if err != nil {
			t.Fatal(err)
		}
		// The first assembly's digest is wrong; the second checks each
		// seed chunk and takes the edited ones from the store, which has
		// every chunk of both versions.
		if r := res[0]; r.Delta == nil || r.Fallback != "" {
			t.Fatalf("Fetch = %+v; want a delta update", r)
		}
		if !strings.Contains(logged.String(), "rebuilt checking each chunk") || !strings.Contains(logged.String(), "seed_mismatches=") {
			t.Errorf("log = %q; want the second, checked assembly reported", logged.String())
		}
		checkLanded(t, f.Dir, map[string][]byte{s.l.Packs[0].SHA256: s.v2})
	})
}

// TestDiffEstimatesTransfer: diff fetches the new index, compares it with
// the installed archive's kept index, and fetches no chunk.
func TestDiffEstimatesTransfer(t *testing.T) {
	s := newDeltaSite(t)
	if _, err := seedIndex(t.Context(), Seed{Path: s.seed, Index: s.seedIdx}, &casync.Index{Min: casync.DefaultMin, Avg: casync.DefaultAvg, Max: casync.DefaultMax}); err != nil {
		t.Fatal(err)
	}
	v1sum := sha256.Sum256(s.v1)
	installed := func(context.Context) ([]lock.Installed, error) {
		return []lock.Installed{{ID: "alpha-pack", Version: "1.0.0", SHA256: hex.EncodeToString(v1sum[:]), Enabled: true}}, nil
	}
	rep, err := DiffLock(t.Context(), nil, s.m.url("/"+lock.LockName), nil, installed)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := s.fetcher(t)
	if err := rep.EstimateTransfers(t.Context(), f, func(sha string) string { return filepath.Join(s.indexDir, sha+casync.IndexExt) }); err != nil {
		t.Fatal(err)
	}
	if len(rep.Transfers) != 1 {
		t.Fatalf("Transfers = %+v; want one", rep.Transfers)
	}
	tr := rep.Transfers[0]
	if tr.ID != "alpha-pack" || tr.Size != int64(len(s.v2)) || tr.Fetch <= 0 || tr.Fetch > tr.Size/4 || tr.FetchChunks == 0 || tr.FetchChunks >= tr.Chunks {
		t.Errorf("Transfer = %+v", tr)
	}
	for _, q := range s.m.requests() {
		if strings.HasPrefix(q.Path, "/chunks/") || strings.HasSuffix(q.Path, ".zip") {
			t.Errorf("diff fetched %s", q.Path)
		}
	}
	var b strings.Builder
	WriteDiff(&b, rep)
	if !strings.Contains(b.String(), "alpha-pack: ~0.") || !strings.Contains(b.String(), "MiB to fetch via chunks") {
		t.Errorf("WriteDiff =\n%s", b.String())
	}
	// Without a kept index of the installed archive: no estimate.
	rep, _ = DiffLock(t.Context(), nil, s.m.url("/"+lock.LockName), nil, installed)
	if err := rep.EstimateTransfers(t.Context(), f, func(sha string) string { return filepath.Join(t.TempDir(), sha+casync.IndexExt) }); err != nil || len(rep.Transfers) != 0 {
		t.Errorf("EstimateTransfers(no kept index) = %v, %+v", err, rep.Transfers)
	}
}

// TestFetchDeltaOtherChunkSizes: an index cut with other chunk sizes than
// the defaults (desync make -m 8:32:128) is still rebuilt from the seed,
// which is cut again with those sizes, though an index of it with the
// defaults is kept.
func TestFetchDeltaOtherChunkSizes(t *testing.T) {
	s := newDeltaSite(t)
	s.sizedIndex(t, 8<<10, 32<<10, 128<<10)
	// The seed's index as an update with the default sizes kept it.
	def, err := casync.Make(t.Context(), bytes.NewReader(s.v1), nil)
	if err != nil {
		t.Fatal(err)
	}
	var kept bytes.Buffer
	def.WriteTo(&kept)
	if err := os.WriteFile(s.seedIdx, kept.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	f, _ := s.fetcher(t)
	r := s.fetchDelta(t, f)
	if r.Delta.SeedChunks == 0 || s.m.servedBytes() > int64(len(s.v2))/4 {
		t.Errorf("Delta = %+v, %d bytes served of %d: the seed gave nothing", r.Delta, s.m.servedBytes(), len(s.v2))
	}
	b, err := os.ReadFile(s.seedIdx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := casync.ReadIndex(bytes.NewReader(b), casync.Limits{}); err != nil || got.Avg != 32<<10 {
		t.Errorf("the seed's kept index: %v; want it cut at 32 KiB on average", cmp.Or(err, fmt.Errorf("cut at %d:%d:%d", got.Min, got.Avg, got.Max)))
	}
}

// sizedIndex has the site serve an index of v2 cut with the chunk sizes
// min, avg and max, and its chunks, and the lock name it.
func (s *deltaSite) sizedIndex(t *testing.T, min, avg, max uint64) {
	t.Helper()
	store := casync.LocalStore{Dir: t.TempDir()}
	ix, err := casync.MakeSized(t.Context(), bytes.NewReader(s.v2), store, min, avg, max)
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	if _, err := ix.WriteTo(&raw); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw.Bytes())
	s.m.files["/packs/other.caibx"] = raw.Bytes()
	s.l.Packs[0].Index = &lock.IndexRef{URL: "packs/other.caibx", SHA256: hex.EncodeToString(sum[:])}
	for _, c := range ix.Chunks {
		data, err := os.ReadFile(store.Path(c.ID))
		if err != nil {
			t.Fatal(err)
		}
		id := c.ID.String()
		s.m.files["/chunks/"+id[:4]+"/"+id+".cacnk"] = data
	}
}

// TestFetchDeltaTinyChunks: an index whose chunks may be under 4 KiB is
// not seeded (a seed cut that small takes more memory than the seed): the
// archive comes whole, as when there is no seed (the publisher's choice,
// not a fault), and the log says why.
func TestFetchDeltaTinyChunks(t *testing.T) {
	s := newDeltaSite(t)
	s.sizedIndex(t, 1<<10, 8<<10, 64<<10)
	f, _ := s.fetcher(t)
	var log bytes.Buffer
	f.Delta.Log = slog.New(slog.NewTextHandler(&log, nil))
	res, err := f.Fetch(t.Context(), s.base, s.l.Packs)
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.Delta != nil || !strings.Contains(log.String(), "as small as 1024 bytes") {
		t.Errorf("Fetch = %+v, log %q; want a whole download, the chunk size logged", r, log.String())
	}
	checkLanded(t, f.Dir, map[string][]byte{s.l.Packs[0].SHA256: s.v2})
}
