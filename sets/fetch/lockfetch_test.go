package fetch

import (
	"bufio"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

func TestFetchLockConditional(t *testing.T) {
	m := newMirror(t)
	m.files["/set/forgepacks.lock"] = []byte(settest.GoodLock)
	m.files["/set/forgepacks.lock.minisig"] = []byte("untrusted comment: x\nsig\n")
	f, _ := newFetcher(t)
	src, err := LockSource(m.url("/set/"))
	if err != nil {
		t.Fatal(err)
	}
	lf, err := f.FetchLock(t.Context(), src, Validators{})
	if err != nil || lf.NotModified || string(lf.Data) != settest.GoodLock || lf.Signature == nil {
		t.Fatalf("FetchLock = %+v, %v", lf, err)
	}
	if lf.Validators.ETag == "" || lf.Validators.LastModified == "" {
		t.Errorf("Validators = %+v; want both", lf.Validators)
	}
	before := len(m.requests())
	again, err := f.FetchLock(t.Context(), src, lf.Validators)
	if err != nil || !again.NotModified || again.Data != nil || again.Validators != lf.Validators {
		t.Fatalf("FetchLock(validators) = %+v, %v; want not modified", again, err)
	}
	reqs := m.requests()[before:]
	if len(reqs) != 1 || reqs[0].IfNoneMatch != lf.Validators.ETag || reqs[0].IfModifiedSince != lf.Validators.LastModified {
		t.Errorf("second check made %+v; want one conditional request", reqs)
	}
	// A changed lock comes back whole.
	m.mu.Lock()
	m.files["/set/forgepacks.lock"] = []byte(settest.GoodLock + "\n")
	m.mu.Unlock()
	changed, err := f.FetchLock(t.Context(), src, lf.Validators)
	if err != nil || changed.NotModified || len(changed.Data) != len(settest.GoodLock)+1 {
		t.Errorf("FetchLock(changed) = %+v, %v", changed, err)
	}
}

func TestFetchLockSignature(t *testing.T) {
	m := newMirror(t)
	m.files["/forgepacks.lock"] = []byte(settest.GoodLock)
	f, s := newFetcher(t)
	src := Source{URL: m.url("/forgepacks.lock")}
	lf, err := f.FetchLock(t.Context(), src, Validators{})
	if err != nil || lf.Signature != nil {
		t.Fatalf("FetchLock(no signature) = %+v, %v; want no signature, no error", lf, err)
	}
	// An unreachable signature is an error, not "unsigned".
	m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if strings.HasSuffix(r.URL.Path, ".minisig") {
			http.Error(w, "oops", http.StatusInternalServerError)
			return true
		}
		return false
	}
	if _, err := f.FetchLock(t.Context(), src, Validators{}); err == nil || !strings.Contains(err.Error(), "signature") {
		t.Errorf("FetchLock(signature 500) = %v; want an error about the signature", err)
	}
	if s.count() != defaultTries-1 {
		t.Errorf("back-offs = %d; want %d", s.count(), defaultTries-1)
	}
	// Too large.
	m.files["/big.lock"] = make([]byte, lock.MaxLockBytes+1)
	if _, err := f.FetchLock(t.Context(), Source{URL: m.url("/big.lock")}, Validators{}); !errors.Is(err, errTooLarge) {
		t.Errorf("FetchLock(big) = %v; want ErrTooLarge", err)
	}
}

func TestFetchLockLocal(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, lock.LockName), []byte(settest.GoodLock), 0o644)
	f, _ := newFetcher(t)
	src, _ := LockSource(dir)
	lf, err := f.FetchLock(t.Context(), src, Validators{})
	if err != nil || string(lf.Data) != settest.GoodLock || lf.Signature != nil {
		t.Fatalf("FetchLock(local) = %+v, %v", lf, err)
	}
	os.WriteFile(filepath.Join(dir, lock.SignatureName), []byte("sig"), 0o644)
	if lf, err = f.FetchLock(t.Context(), src, Validators{}); err != nil || string(lf.Signature) != "sig" {
		t.Errorf("FetchLock(local, signed) = %+v, %v", lf, err)
	}
	if _, err := f.FetchLock(t.Context(), Source{Path: filepath.Join(dir, "none.lock")}, Validators{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("FetchLock(missing) = %v", err)
	}
}

// TestPythonHTTPServer serves an export-like folder with python3 -m
// http.server: the lock and its packs come over real HTTP from another
// implementation, a lock with a wrong fingerprint line is refused, and the
// second check is answered 304 (the server honours If-Modified-Since).
func TestPythonHTTPServer(t *testing.T) {
	py := toolcheck.Need(t, "python3")[0]
	dir := t.TempDir()
	var packs []lock.Pack
	want := map[string][]byte{}
	os.MkdirAll(filepath.Join(dir, "packs"), 0o755)
	for i, id := range []string{"alpha-pack", "beta-pack", "gamma-pack"} {
		data, p := archive(id, 40000*(i+1))
		p.URLs = []string{"packs/" + p.SHA256 + ".zip"}
		os.WriteFile(filepath.Join(dir, "packs", p.SHA256+".zip"), data, 0o644)
		packs = append(packs, p)
		want[p.SHA256] = data
	}
	text, err := lock.Encode(&lock.Lock{Name: "python", Packs: packs})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, lock.LockName), text, 0o644)
	lines := strings.SplitN(string(text), "\n", 5)
	lines[3] = `fingerprint = "sha256:` + settest.HashC + `"`
	os.WriteFile(filepath.Join(dir, "bad.lock"), []byte(strings.Join(lines, "\n")), 0o644)

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

	f, _ := newFetcher(t)
	src, _ := LockSource(base)
	lf, err := f.FetchLock(t.Context(), src, Validators{})
	if err != nil || lf.Signature != nil {
		t.Fatalf("FetchLock = %+v, %v", lf, err)
	}
	l, err := lock.Decode(src.String(), lf.Data, lock.DecodeOptions{})
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	res, err := f.Fetch(t.Context(), lf.Source, l.Packs)
	if err != nil || len(res) != 3 {
		t.Fatalf("Fetch = %+v, %v", res, err)
	}
	checkLanded(t, f.Dir, want)
	again, err := f.FetchLock(t.Context(), src, lf.Validators)
	if err != nil || !again.NotModified {
		t.Errorf("FetchLock(If-Modified-Since %q) = %+v, %v; want not modified", lf.Validators.LastModified, again, err)
	}
	badSrc := Source{URL: base + "bad.lock"}
	blf, err := f.FetchLock(t.Context(), badSrc, Validators{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Decode(badSrc.URL, blf.Data, lock.DecodeOptions{}); err == nil || !strings.Contains(err.Error(), badSrc.URL+":4: fingerprint:") {
		t.Errorf("Decode(wrong fingerprint) = %v; want an error at line 4", err)
	}
}

func TestFetchLock304WithoutValidators(t *testing.T) {
	m := newMirror(t)
	m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	f, _ := newFetcher(t)
	src, err := LockSource(m.url("/set/"))
	if err != nil {
		t.Fatal(err)
	}
	lf, err := f.FetchLock(t.Context(), src, Validators{})
	if err == nil || !strings.Contains(err.Error(), "the server answered 304 Not Modified to a request without validators") {
		t.Errorf("FetchLock(304 to a first request) = %+v, %v; want a clear error", lf, err)
	}
	if n := len(m.requests()); n != 1 {
		t.Errorf("made %d requests; want one, not retried", n)
	}
}

func TestUnexpectedAnswerEscaped(t *testing.T) {
	m := newMirror(t)
	m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return true
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 203 Odd\x1b[2J\u202e\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		buf.Flush()
		return true
	}
	f, _ := newFetcher(t)
	src, err := LockSource(m.url("/set/"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.FetchLock(t.Context(), src, Validators{})
	_, p := archive("odd-pack", 10, m.url("/a.zip"))
	_, ferr := f.Fetch(t.Context(), Source{}, []lock.Pack{p})
	for what, err := range map[string]error{"FetchLock": err, "Fetch": ferr} {
		if err == nil || strings.ContainsAny(err.Error(), "\x1b\u202e") || !strings.Contains(err.Error(), `unexpected answer 203 Odd\x1b[2J\u202e`) {
			t.Errorf("%s(203 with a hostile reason) = %q; want it escaped", what, err)
		}
	}
}
