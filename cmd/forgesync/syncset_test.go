package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// doorPack writes a pack with n door panels and packs it into drop.
func doorPack(t *testing.T, drop, id, version string, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	os.MkdirAll(dir, 0o755)
	var pieces []string
	for i := range n {
		pieces = append(pieces, fmt.Sprintf(`{"id":"gate_%d","kind":"panel","tag":"mjolnir\\forge\\%s\\gate_%d","class":"/Game/MJOLNIR/Forge/%s/Panels/BP_Gate%d.BP_Gate%d_C","dimensions_m":[4,0.5,4],"door":{"travel_m":4,"speed_m_s":4,"trigger_size_m":[8,16,6],"hold_open_s":2}}`, i, id, i, id, i, i))
	}
	m := fmt.Sprintf(`{"schema":1,"id":%q,"version":%q,"name":"Gates %s","authors":["Test"],"pieces":[%s]}`, id, version, id, strings.Join(pieces, ","))
	if err := os.WriteFile(filepath.Join(dir, "forgepack.json"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(drop, id+"-"+version+".zip")
	os.MkdirAll(drop, 0o755)
	if code, o, e := runCLI(t, "pack", dir, "-o", out); code != cli.ExitOK {
		t.Fatalf("pack %s = %d\n%s%s", id, code, o, e)
	}
	return out
}

// counter is an HTTP server's log of requests.
type counter struct {
	mu   sync.Mutex
	reqs []string // "METHOD PATH STATUS [Range]"
}

func (c *counter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &statusWriter{ResponseWriter: w, code: 200}
		defer func() { // also when the handler cuts the transfer
			c.mu.Lock()
			c.reqs = append(c.reqs, strings.TrimSpace(fmt.Sprintf("%s %s %d %s", r.Method, r.URL.Path, rw.code, r.Header.Get("Range"))))
			c.mu.Unlock()
		}()
		h.ServeHTTP(rw, r)
	})
}

func (c *counter) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.reqs
	c.reqs = nil
	return out
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) { w.code = code; w.ResponseWriter.WriteHeader(code) }

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// hostWith makes a host with the given packs (id: doors, version 1.0.0)
// installed and returns its config.
func hostWith(t *testing.T, packs map[string]int) string {
	t.Helper()
	config, drop, _ := gameEnv(t)
	for id, doors := range packs {
		doorPack(t, drop, id, "1.0.0", doors)
	}
	if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	return config
}

// publishedSet makes a host with the given packs installed and exports
// them; it returns the export folder and the set's fingerprint.
func publishedSet(t *testing.T, packs map[string]int) (string, string) {
	t.Helper()
	config := hostWith(t, packs)
	dir := filepath.Join(t.TempDir(), "published")
	if code, out, errs := runCLI(t, "export", dir, "--config", config); code != cli.ExitOK {
		t.Fatalf("export = %d\n%s%s", code, out, errs)
	}
	data, _ := os.ReadFile(filepath.Join(dir, lock.LockName))
	l, err := lock.Decode("lock", data, lock.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return dir, l.Fingerprint()
}

// machineFingerprint is the fingerprint of a machine's enabled packs, as
// `forgesync lock` writes them.
func machineFingerprint(t *testing.T, config string) string {
	t.Helper()
	code, out, errs := runCLI(t, "lock", "--config", config)
	if code != cli.ExitOK {
		t.Fatalf("lock = %d %s", code, errs)
	}
	l, err := lock.Decode("lock", []byte(out), lock.DecodeOptions{Have: lock.HaveAll})
	if err != nil {
		t.Fatal(err)
	}
	return l.Fingerprint()
}

// fastFetch makes the CLI's retries quick for the test.
func fastFetch(t *testing.T) {
	old := setFetcher
	setFetcher = fetch.Fetcher{InitialDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, Tries: 2}
	t.Cleanup(func() { setFetcher = old })
}

// TestSyncSetFromServer: a fresh machine reaches the exact fingerprint of
// an exported set served over HTTP, and the second run makes one
// conditional request (304) and publishes nothing.
func TestSyncSetFromServer(t *testing.T) {
	fastFetch(t)
	dir, want := publishedSet(t, map[string]int{"alpha-gates": 2, "beta-gates": 1})
	var c counter
	srv := httptest.NewServer(c.wrap(http.FileServer(http.Dir(dir))))
	defer srv.Close()

	config, _, inv := gameEnv(t)
	code, out, errs := runCLI(t, "sync", "--set", srv.URL+"/", "--config", config)
	if code != cli.ExitOK || !strings.Contains(out, "installed alpha-gates 1.0.0") || !strings.Contains(out, "the machine now equals the set "+want) ||
		!strings.Contains(errs, "fetching alpha-gates (") {
		t.Fatalf("sync --set = %d\n%s%s", code, out, errs)
	}
	if got := machineFingerprint(t, config); got != want {
		t.Fatalf("machine fingerprint %s; want %s", got, want)
	}
	first := c.take()
	archives := 0
	for _, r := range first {
		if strings.HasPrefix(r, "GET /packs/") {
			archives++
		}
	}
	if archives != 2 || len(first) != 4 { // lock, signature (404), two archives
		t.Errorf("first sync made %d requests (%d archives): %q; want 4 (2 archives)", len(first), archives, first)
	}
	before, _ := os.Stat(filepath.Join(inv, "installed.txt"))
	// Each download waits in state/cache/ by content, and the store's
	// copy shares its blocks.
	state := filepath.Join(filepath.Dir(config), "state")
	kept, _ := os.ReadDir(filepath.Join(state, "archives"))
	shared := 0
	for _, k := range kept {
		ki, _ := os.Stat(filepath.Join(state, "archives", k.Name()))
		cached, _ := os.ReadDir(filepath.Join(state, "cache"))
		for _, c := range cached {
			if ci, err := os.Stat(filepath.Join(state, "cache", c.Name())); err == nil && os.SameFile(ki, ci) {
				shared++
			}
		}
	}
	if len(kept) != 2 || shared != 2 {
		t.Errorf("%d kept archives, %d of them shared with the cache; want 2 and 2", len(kept), shared)
	}

	code, out, errs = runCLI(t, "sync", "--set", srv.URL+"/", "--config", config, "--json")
	var res api.SetSyncResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != cli.ExitOK {
		t.Fatalf("second sync --set = %d %v\n%s%s", code, err, out, errs)
	}
	second := c.take()
	if len(second) != 1 || second[0] != "GET /forgepacks.lock 304" {
		t.Errorf("second sync made requests %q; want one conditional GET answered 304", second)
	}
	if !res.Check.NotModified || res.Check.Result != api.CheckEqual || len(res.Downloaded) != 0 || res.Summary == nil || len(res.Summary.Published) != 0 {
		t.Errorf("second sync = %+v; want not modified, equal, nothing downloaded or published", res)
	}
	after, _ := os.Stat(filepath.Join(inv, "installed.txt"))
	if !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("installed.txt was rewritten by a sync with nothing to do")
	}

	// The set changes on the server: beta goes, gamma comes, alpha is
	// disabled by hand on the machine. One run makes it exact again.
	if code, _, errs := runCLI(t, "disable", "alpha-gates", "--config", config); code != cli.ExitOK {
		t.Fatalf("disable = %d %s", code, errs)
	}
	dir2, want2 := publishedSet(t, map[string]int{"alpha-gates": 2, "gamma-gates": 3})
	os.RemoveAll(dir)
	os.Rename(dir2, dir)
	// Last-Modified has whole seconds: date the new lock after the old.
	later := time.Now().Add(5 * time.Second)
	os.Chtimes(filepath.Join(dir, lock.LockName), later, later)
	code, out, errs = runCLI(t, "sync", "--set", srv.URL+"/", "--config", config, "--prune")
	if code != cli.ExitOK || !strings.Contains(out, "installed gamma-gates 1.0.0") || !strings.Contains(out, "removed beta-gates") || !strings.Contains(out, "enabled alpha-gates") {
		t.Fatalf("sync --set (changed set) = %d\n%s%s", code, out, errs)
	}
	if got := machineFingerprint(t, config); got != want2 {
		t.Fatalf("machine fingerprint %s; want %s", got, want2)
	}
	for _, r := range c.take() {
		if strings.Contains(r, "alpha") {
			t.Errorf("alpha-gates was downloaded again: %s", r)
		}
	}
}

// faultServer serves an exported set with mirrors that misbehave, by the
// first part of the path: good/ serves, flaky/ answers 500 to the first
// request of each file, bad/ serves other bytes of the same size, cut/
// breaks the first transfer of each file at 50% (then honours Range),
// down/ answers 503.
type faultServer struct {
	counter
	dir  string
	lock []byte
	mu   sync.Mutex
	seen map[string]int
}

func (f *faultServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/" + lock.LockName:
		w.Write(f.lock)
		return
	case "/" + lock.SignatureName:
		http.NotFound(w, r)
		return
	}
	mirror, name, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	file := filepath.Join(f.dir, "packs", filepath.Base(name))
	f.mu.Lock()
	f.seen[r.URL.Path]++
	n := f.seen[r.URL.Path]
	f.mu.Unlock()
	switch {
	case mirror == "flaky" && n == 1, mirror == "down":
		code := http.StatusServiceUnavailable
		if mirror == "flaky" {
			code = http.StatusInternalServerError
		}
		http.Error(w, "try later", code)
	case mirror == "bad":
		data, _ := os.ReadFile(file)
		for i := range data {
			data[i] ^= 0x5a
		}
		w.Write(data)
	case mirror == "cut" && n == 1:
		data, _ := os.ReadFile(file)
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Header().Set("Last-Modified", time.Unix(1e9, 0).UTC().Format(http.TimeFormat))
		w.Write(data[:len(data)/2])
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	default:
		http.ServeFile(w, r, file)
	}
}

// lockWith rewrites an exported lock: every pack's URLs become the
// mirrors given, each followed by the archive's file name.
func lockWith(t *testing.T, dir string, mirrors ...string) []byte {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(dir, lock.LockName))
	l, err := lock.Decode("lock", data, lock.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range l.Packs {
		name := filepath.Base(p.URLs[0])
		l.Packs[i].URLs = nil
		for _, m := range mirrors {
			l.Packs[i].URLs = append(l.Packs[i].URLs, m+"/"+name)
		}
	}
	out, err := lock.Encode(l)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSyncSetFaults: each fault ends with nothing changed or the whole
// set, and the exit status says which.
func TestSyncSetFaults(t *testing.T) {
	fastFetch(t)
	dir, want := publishedSet(t, map[string]int{"alpha-gates": 2, "beta-gates": 1})
	// No machine can hold both: the host exports each alone, and the
	// two locks are merged.
	bigDir, _ := publishedSet(t, map[string]int{"many-gates": 130})
	more, _ := publishedSet(t, map[string]int{"more-gates": 130})
	mergeSets(t, bigDir, more)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	empty := lock.Fingerprint(nil)

	for _, c := range []struct {
		name    string
		dir     string
		lock    func(srv string) []byte
		code    int
		want    string   // the machine's fingerprint afterwards
		errs    []string // in stderr
		ranged  bool     // the server must have seen a Range request
		prepare func(t *testing.T, config, drop string)
		out     string
	}{
		{name: "500 then 200", dir: dir, lock: func(s string) []byte { return lockWith(t, dir, s+"/flaky") }, want: want},
		{name: "wrong bytes, next mirror", dir: dir, lock: func(s string) []byte { return lockWith(t, dir, s+"/bad", s+"/good") }, want: want},
		{name: "cut at 50%, resumed", dir: dir, lock: func(s string) []byte { return lockWith(t, dir, s+"/cut") }, want: want, ranged: true},
		{name: "every mirror down", dir: dir, lock: func(s string) []byte { return lockWith(t, dir, closedURL+"/x", s+"/down") }, code: cli.ExitFailure, want: empty,
			errs: []string{"every mirror failed", closedURL + "/x/", "/down/", "connection refused", "503"}},
		{name: "wrong fingerprint line", dir: dir, lock: func(s string) []byte {
			return []byte(strings.Replace(string(lockWith(t, dir, s+"/good")), want, lock.Fingerprint(nil), 1))
		}, code: cli.ExitFailure, want: empty, errs: []string{"fingerprint"}},
		{name: "over 256 doors", dir: bigDir, lock: func(s string) []byte { return lockWith(t, bigDir, s+"/good") }, code: cli.ExitInvalid, want: empty,
			errs: []string{"many-gates", "more-gates", "256"}},
		{name: "pin older than installed", dir: dir, lock: func(s string) []byte { return lockWith(t, dir, s+"/good") }, want: want,
			prepare: func(t *testing.T, config, drop string) {
				doorPack(t, drop, "alpha-gates", "2.0.0", 2)
				if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
					t.Fatalf("sync = %d\n%s%s", code, out, errs)
				}
			}, out: "downgraded alpha-gates 2.0.0 → 1.0.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := &faultServer{dir: c.dir, seen: map[string]int{}}
			srv := httptest.NewServer(fs.wrap(fs))
			defer srv.Close()
			fs.lock = c.lock(srv.URL)
			config, drop, _ := gameEnv(t)
			if c.prepare != nil {
				c.prepare(t, config, drop)
			}
			before := machineFingerprint(t, config)
			if c.want == empty {
				c.want = before // nothing changed
			}
			code, out, errs := runCLI(t, "sync", "--set", srv.URL+"/", "--config", config)
			if code != c.code || !strings.Contains(out, c.out) {
				t.Fatalf("sync --set = %d; want %d\n%s%s", code, c.code, out, errs)
			}
			for _, s := range c.errs {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errs)
				}
			}
			if got := machineFingerprint(t, config); got != c.want {
				t.Errorf("machine fingerprint %s; want %s", got, c.want)
			}
			reqs := fs.take()
			if c.ranged && !strings.Contains(strings.Join(reqs, "\n"), "bytes=") {
				t.Errorf("no request resumed with Range: %q", reqs)
			}
			// Only checked archives are ever in the cache.
			cache := filepath.Join(filepath.Dir(config), "state", "cache")
			entries, _ := os.ReadDir(cache)
			for _, e := range entries {
				if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
					if sum := sha256File(t, filepath.Join(cache, e.Name())); sum != e.Name() {
						t.Errorf("cache holds %s with sha256 %s", e.Name(), sum)
					}
				}
			}
		})
	}
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))
}

// mergeSets adds the packs of the set in src to the set in dst.
func mergeSets(t *testing.T, dst, src string) {
	t.Helper()
	read := func(dir string) *lock.Lock {
		data, _ := os.ReadFile(filepath.Join(dir, lock.LockName))
		l, err := lock.Decode("lock", data, lock.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	a, b := read(dst), read(src)
	a.Packs = append(a.Packs, b.Packs...)
	entries, _ := os.ReadDir(filepath.Join(src, "packs"))
	for _, e := range entries {
		os.Rename(filepath.Join(src, "packs", e.Name()), filepath.Join(dst, "packs", e.Name()))
	}
	data, err := lock.Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dst, lock.LockName), data, 0o644)
}

// TestSyncSetPythonServer: the export folder served by another
// implementation (python3 -m http.server) brings a fresh machine to the
// set's fingerprint, and the second run is answered 304.
func TestSyncSetPythonServer(t *testing.T) {
	py := toolcheck.Need(t, "python3")[0]
	dir, want := publishedSet(t, map[string]int{"alpha-gates": 2, "beta-gates": 1})
	cmd := exec.CommandContext(t.Context(), py, "-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", dir, "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			// "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
			if _, rest, ok := strings.Cut(sc.Text(), "(http://"); ok {
				addr <- "http://" + strings.TrimSuffix(strings.Fields(rest)[0], ")")
				return
			}
		}
	}()
	var base string
	select {
	case base = <-addr:
	case <-time.After(30 * time.Second):
		t.Fatal("python3 http.server did not say where it listens")
	}
	config, _, _ := gameEnv(t)
	if code, out, errs := runCLI(t, "sync", "--set", base, "--config", config); code != cli.ExitOK {
		t.Fatalf("sync --set = %d\n%s%s", code, out, errs)
	}
	if got := machineFingerprint(t, config); got != want {
		t.Fatalf("machine fingerprint %s; want %s", got, want)
	}
	code, o, errs := runCLI(t, "sync", "--set", base, "--config", config)
	if code != cli.ExitOK || !strings.Contains(o, "unchanged since the last check") {
		t.Fatalf("second sync --set = %d\n%s%s", code, o, errs)
	}
}

// TestSyncSetSignature: with [sets] trusted_keys, a lock signed by the
// trusted key applies; one signed by another key, unsigned, or edited
// after signing is refused with nothing changed (exit 2).
func TestSyncSetSignature(t *testing.T) {
	fastFetch(t)
	config, drop, _ := gameEnv(t)
	doorPack(t, drop, "alpha-gates", "1.0.0", 2)
	if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	keyFile := func(k minisign.PrivateKey) string {
		text, _ := k.MarshalText()
		p := filepath.Join(t.TempDir(), "k.key")
		os.WriteFile(p, text, 0o600)
		return p
	}
	pub, priv, _ := minisign.GenerateKey(nil)
	_, other, _ := minisign.GenerateKey(nil)
	good, bad := filepath.Join(t.TempDir(), "good"), filepath.Join(t.TempDir(), "bad")
	for dir, k := range map[string]minisign.PrivateKey{good: priv, bad: other} {
		if code, out, errs := runCLI(t, "export", dir, "--sign", keyFile(k), "--config", config); code != cli.ExitOK {
			t.Fatalf("export = %d\n%s%s", code, out, errs)
		}
	}
	edited := filepath.Join(t.TempDir(), "edited")
	os.CopyFS(edited, os.DirFS(good))
	text, _ := os.ReadFile(filepath.Join(edited, lock.LockName))
	os.WriteFile(filepath.Join(edited, lock.LockName), append(text, []byte("# edited\n")...), 0o644)
	unsigned := filepath.Join(t.TempDir(), "unsigned")
	os.CopyFS(unsigned, os.DirFS(good))
	os.Remove(filepath.Join(unsigned, lock.SignatureName))

	for _, c := range []struct {
		name, dir string
		code      int
		errs      string
	}{
		{"another key", bad, cli.ExitFailure, "not one of the trusted keys"},
		{"edited after signing", edited, cli.ExitFailure, "does not match the lock"},
		{"unsigned", unsigned, cli.ExitFailure, "not signed"},
		{"the trusted key", good, cli.ExitOK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			machine, _, _ := gameEnv(t)
			text, _ := os.ReadFile(machine)
			os.WriteFile(machine, append(text, []byte("[sets]\ntrusted_keys = [\""+pub.String()+"\"]\n")...), 0o644)
			srv := httptest.NewServer(http.FileServer(http.Dir(c.dir)))
			defer srv.Close()
			before := machineFingerprint(t, machine)
			code, out, errs := runCLI(t, "sync", "--set", srv.URL+"/", "--config", machine)
			if code != c.code || !strings.Contains(errs, c.errs) {
				t.Fatalf("sync --set = %d; want %d with %q\n%s%s", code, c.code, c.errs, out, errs)
			}
			after := machineFingerprint(t, machine)
			if c.code != cli.ExitOK && after != before {
				t.Errorf("a refused lock changed the machine: %s → %s", before, after)
			}
			if c.code == cli.ExitOK && (after == before || !strings.Contains(out, "signed by trusted key "+lock.KeyID(pub.ID()))) {
				t.Errorf("the trusted lock: fingerprint %s, output\n%s", after, out)
			}
		})
	}
}

// TestSyncSetCache: the cache is bounded by cache_max, and a set applied
// before applies again without the network, from the archives the state
// keeps (the installed packs' and the kept generations').
func TestSyncSetCache(t *testing.T) {
	fastFetch(t)
	dir1, want1 := publishedSet(t, map[string]int{"alpha-gates": 2, "beta-gates": 1})
	dir2, want2 := publishedSet(t, map[string]int{"gamma-gates": 1})
	srv1 := httptest.NewServer(http.FileServer(http.Dir(dir1)))
	srv2 := httptest.NewServer(http.FileServer(http.Dir(dir2)))
	defer srv2.Close()
	config, _, _ := gameEnv(t)
	text, _ := os.ReadFile(config)
	os.WriteFile(config, append(text, []byte("[sets]\ncache_max = \"1B\"\n")...), 0o644)
	for _, s := range []struct{ url, want string }{{srv1.URL + "/", want1}, {srv2.URL + "/", want2}} {
		if code, out, errs := runCLI(t, "sync", "--set", s.url, "--config", config, "--prune"); code != cli.ExitOK {
			t.Fatalf("sync --set %s = %d\n%s%s", s.url, code, out, errs)
		}
		if got := machineFingerprint(t, config); got != s.want {
			t.Fatalf("fingerprint %s; want %s", got, s.want)
		}
	}
	cache, _ := os.ReadDir(filepath.Join(filepath.Dir(config), "state", "cache"))
	if len(cache) != 0 {
		t.Errorf("the cache holds %d files over cache_max = 1B; want it evicted", len(cache))
	}
	// The first set again, with its server gone: the kept generation's
	// archives bring it back, nothing is fetched.
	lockText, _ := os.ReadFile(filepath.Join(dir1, lock.LockName))
	srv1.Close()
	local := filepath.Join(t.TempDir(), lock.LockName)
	os.WriteFile(local, []byte(strings.ReplaceAll(string(lockText), "packs/", srv1.URL+"/packs/")), 0o644)
	code, out, errs := runCLI(t, "sync", "--set", local, "--config", config, "--prune")
	if code != cli.ExitOK || strings.Contains(out, "downloaded") {
		t.Fatalf("sync --set (set 1 again, offline) = %d\n%s%s", code, out, errs)
	}
	if got := machineFingerprint(t, config); got != want1 {
		t.Fatalf("fingerprint %s; want %s", got, want1)
	}
}

// TestSyncSetDamagedKeptArchive: the cache's copy of an archive and the
// store's kept one are one file; when its bytes change on disk, sync --set
// of a set that needs it fetches it again and keeps the right bytes (on the
// old code it failed with exit 1, "archive does not match its sha256", on
// every run although the mirror had the right bytes), and a rollback to a
// generation that needs it, with no network, waits as a fault (exit 2),
// saying so, and changes nothing.
func TestSyncSetDamagedKeptArchive(t *testing.T) {
	fastFetch(t)
	dirA, wantA := publishedSet(t, map[string]int{"alpha-gates": 1})
	dirB, wantB := publishedSet(t, map[string]int{"beta-gates": 1})
	srvA := httptest.NewServer(http.FileServer(http.Dir(dirA)))
	defer srvA.Close()
	srvB := httptest.NewServer(http.FileServer(http.Dir(dirB)))
	defer srvB.Close()
	config, _, _ := gameEnv(t)
	for _, url := range []string{srvA.URL + "/", srvB.URL + "/"} {
		if code, out, errs := runCLI(t, "sync", "--set", url, "--config", config, "--prune"); code != cli.ExitOK {
			t.Fatalf("sync --set %s = %d\n%s%s", url, code, out, errs)
		}
	}
	archives := filepath.Join(filepath.Dir(config), "state", "archives")
	damage := func() string {
		t.Helper()
		kept, _ := filepath.Glob(filepath.Join(archives, "alpha-gates-*"))
		if len(kept) != 1 {
			t.Fatalf("kept archives of alpha-gates: %v; want one", kept)
		}
		f, err := os.OpenFile(kept[0], os.O_WRONLY, 0)
		if err != nil {
			os.Chmod(kept[0], 0o644) // the cache's name made it read-only
			if f, err = os.OpenFile(kept[0], os.O_WRONLY, 0); err != nil {
				t.Fatal(err)
			}
		}
		f.WriteAt([]byte("XX"), 60)
		f.Close()
		return kept[0]
	}
	damage()
	code, out, errs := runCLI(t, "rollback", "--config", config)
	if code != cli.ExitFailure || !strings.Contains(errs, "kept archive of alpha-gates 1.0.0 is damaged") {
		t.Fatalf("rollback to a damaged kept archive = %d\n%s%s; want 2, saying it is damaged", code, out, errs)
	}
	if got := machineFingerprint(t, config); got != wantB {
		t.Fatalf("the refused rollback changed the machine: %s; want %s", got, wantB)
	}
	code, out, errs = runCLI(t, "sync", "--set", srvA.URL+"/", "--config", config, "--prune")
	if code != cli.ExitOK || !strings.Contains(out, "the machine now equals the set "+wantA) {
		t.Fatalf("sync --set with the kept archive damaged = %d\n%s%s; want the set applied", code, out, errs)
	}
	kept, _ := filepath.Glob(filepath.Join(archives, "alpha-gates-*"))
	lock, _ := lock.Decode("lock", mustRead(t, filepath.Join(dirA, lock.LockName)), lock.DecodeOptions{Have: lock.HaveAll})
	if len(kept) != 1 || sha256File(t, kept[0]) != lock.Packs[0].SHA256 {
		t.Fatalf("kept archives %v; want alpha-gates kept again with its pinned bytes", kept)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
