package update_test

// The tests of `forgesync update` drive real binaries against a real HTTP
// server: TestMain builds forgesync twice with a test release key (1.0.0,
// the installed one, and 1.1.0, the release) and the release folder with
// the real cmd/mkrelease, signed by that key, once for the package.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/native"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

const (
	oldVersion = "1.0.0"
	newVersion = "1.1.0"
	keyVar     = "github.com/mjolnir-forge/forgesync/selfupdate.releaseKey"
)

var (
	oldBinary string // forgesync 1.0.0, with the test key
	feedDir   string // mkrelease's output for 1.1.0: SHA256SUMS, its signature, the archives
	otherSig  []byte // a signature of the same SHA256SUMS by another key
)

func TestMain(m *testing.M) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		os.Exit(m.Run()) // the tests skip: make release makes linux/amd64's archive, not this system's
	}
	dir, err := os.MkdirTemp("", "fsupdate")
	if err == nil {
		err = setup(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// setup builds the binaries and the signed release under dir.
func setup(dir string) error {
	kp, err := lock.GenerateKeyPair(filepath.Join(dir, "release.key"), filepath.Join(dir, "release.pub"), "")
	if err != nil {
		return err
	}
	_, err = lock.GenerateKeyPair(filepath.Join(dir, "other.key"), filepath.Join(dir, "other.pub"), "")
	if err != nil {
		return err
	}
	oldBinary = filepath.Join(dir, "old", "forgesync")
	bundle := filepath.Join(dir, "dist", "linux")
	mkrelease := filepath.Join(dir, "mkrelease")
	builds := [][]string{
		{"build", "-ldflags", "-X main.version=" + oldVersion + " -X " + keyVar + "=" + kp.Public, "-o", oldBinary, ".."},
		{"build", "-ldflags", "-X main.version=" + newVersion + " -X " + keyVar + "=" + kp.Public, "-o", filepath.Join(bundle, "forgesync"), ".."},
		{"build", "-o", mkrelease, "../../mkrelease"},
	}
	for _, args := range builds {
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for _, n := range []string{native.ModulePath(), native.VersionPath()} {
		if err := writeFile(filepath.Join(bundle, "modules", filepath.FromSlash(n)), "new "+n); err != nil {
			return err
		}
	}
	feedDir = filepath.Join(dir, "feed")
	cmd := exec.Command(mkrelease, "-version", newVersion, "-epoch", "1764000000", "-out", feedDir, "-root", "../../..",
		"-sign-key", filepath.Join(dir, "release.key"), "linux="+bundle)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mkrelease: %v\n%s", err, out)
	}
	// The same SHA256SUMS signed by a key the binaries do not trust.
	cmd = exec.Command(mkrelease, "-version", newVersion, "-epoch", "1764000000", "-out", filepath.Join(dir, "other"), "-root", "../../..",
		"-sign-key", filepath.Join(dir, "other.key"), "linux="+bundle)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mkrelease: %v\n%s", err, out)
	}
	otherSig, err = os.ReadFile(filepath.Join(dir, "other", "SHA256SUMS.minisig"))
	return err
}

func writeFile(p, text string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(text), 0o755)
}

// inst is an installed forgesync 1.0.0: its folder holds the binary and a
// modules/ folder, and a config naming the feed.
type inst struct {
	dir, bin, config string
}

func newInst(t *testing.T, feed string) *inst {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("make release makes linux/amd64's archive, not this system's; scripts/wine-e2e.sh updates the Windows build")
	}
	root := t.TempDir()
	in := &inst{dir: filepath.Join(root, "forgesync"), config: filepath.Join(root, "f.toml")}
	in.bin = filepath.Join(in.dir, "forgesync")
	data, err := os.ReadFile(oldBinary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(in.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in.bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{native.ModulePath(), native.VersionPath()} {
		if err := writeFile(filepath.Join(in.dir, "modules", filepath.FromSlash(n)), "old "+n); err != nil {
			t.Fatal(err)
		}
	}
	text := fmt.Sprintf("[update]\nfeed = %q\n", feed)
	if err := os.WriteFile(in.config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return in
}

// run runs the installed binary and returns its exit status and output.
func (in *inst) run(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(in.bin, append(args, "--config", in.config)...)
	home := t.TempDir()
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "FORGESYNC_") || strings.HasPrefix(strings.ToUpper(kv), "HTTP_PROXY=") || strings.HasPrefix(strings.ToUpper(kv), "NO_PROXY=")
	}), append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_STATE_HOME=" + home}, env...)...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s %v: %v", in.bin, args, err)
		}
		code = ee.ExitCode()
	}
	return code, out.String(), errs.String()
}

// tree returns every file under dir with its bytes.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// feedServer serves feedDir, each answer first offered to tamper (which
// reports whether it answered).
func feedServer(t *testing.T, tamper func(w http.ResponseWriter, r *http.Request, name string, data []byte) bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Path)
		data, err := os.ReadFile(filepath.Join(feedDir, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if tamper != nil && tamper(w, r, name, data) {
			return
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (in *inst) version(t *testing.T) string {
	t.Helper()
	code, out, errs := in.run(t, nil, "version")
	if code != 0 {
		t.Fatalf("version = %d\n%s%s", code, out, errs)
	}
	return out
}

// TestUpdateInstallsTheReleaseAndRollsBack: a good release installs, the
// new binary runs and says its version, modules/ is the release's, the
// check then says it is the newest; --rollback brings back the previous
// binary and modules, and --check then offers the release (exit 1).
func TestUpdateInstallsTheReleaseAndRollsBack(t *testing.T) {
	srv := feedServer(t, nil)
	in := newInst(t, srv.URL+"/releases/")
	before := tree(t, in.dir)
	if code, out, errs := in.run(t, nil, "update", "--check"); code != 1 || !strings.Contains(out, "forgesync "+newVersion+" is available (this is "+oldVersion+")") {
		t.Fatalf("update --check = %d\n%s%s\nwant 1 and the newer version named", code, out, errs)
	}
	code, out, errs := in.run(t, nil, "update", "--yes")
	if code != 0 || !strings.Contains(out, "updated forgesync "+oldVersion+" → "+newVersion) {
		t.Fatalf("update = %d\n%s%s\nwant 0 and %s → %s", code, out, errs, oldVersion, newVersion)
	}
	if v := in.version(t); !strings.HasPrefix(v, "forgesync "+newVersion+" ") {
		t.Fatalf("after the update, version = %q; want %s", v, newVersion)
	}
	mod := filepath.Join(in.dir, "modules", filepath.FromSlash(native.ModulePath()))
	if data, _ := os.ReadFile(mod); string(data) != "new "+native.ModulePath() {
		t.Errorf("after the update, %s = %q; want the release's", mod, data)
	}
	if code, out, errs := in.run(t, nil, "update", "--check"); code != 0 || !strings.Contains(out, "is the newest") {
		t.Errorf("update --check after the update = %d\n%s%s\nwant 0, the newest", code, out, errs)
	}
	code, out, errs = in.run(t, nil, "update", "--rollback", "--yes")
	if code != 0 || !strings.Contains(out, "rolled back forgesync "+newVersion+" → "+oldVersion) {
		t.Fatalf("update --rollback = %d\n%s%s", code, out, errs)
	}
	after := tree(t, in.dir)
	for name, data := range before {
		if after[name] != data {
			t.Errorf("after the rollback %s differs from before the update", name)
		}
	}
	if v := in.version(t); !strings.HasPrefix(v, "forgesync "+oldVersion+" ") {
		t.Errorf("after the rollback, version = %q; want %s", v, oldVersion)
	}
}

// TestUpdateRefusesABadReleaseAndChangesNothing: a signature by another
// key, an archive whose SHA-256 is not the signed one, a download cut
// short, and a public feed that redirects the download to a private
// address each fail the update (exit 2) saying why, and leave the folder
// exactly as it was: the binary's bytes, modules/, and no file of the
// update's.
func TestUpdateRefusesABadReleaseAndChangesNothing(t *testing.T) {
	archive := "forgesync_" + newVersion + "_linux_amd64.tar.gz"
	tests := []struct {
		name   string
		tamper func(w http.ResponseWriter, r *http.Request, name string, data []byte) bool
		proxy  bool
		want   string
	}{
		{"signature by another key", func(w http.ResponseWriter, _ *http.Request, name string, _ []byte) bool {
			if name != "SHA256SUMS.minisig" {
				return false
			}
			w.Write(otherSig)
			return true
		}, false, "SHA256SUMS.minisig from http://127.0.0.1"},
		{"SHA256SUMS edited", func(w http.ResponseWriter, _ *http.Request, name string, data []byte) bool {
			if name != "SHA256SUMS" {
				return false
			}
			w.Write(bytes.Replace(data, []byte("  forgesync_"), []byte("  forgesync_0"), 1))
			return true
		}, false, "the signature by the release key"},
		{"other bytes", func(w http.ResponseWriter, _ *http.Request, name string, data []byte) bool {
			if name != archive {
				return false
			}
			data = bytes.Clone(data)
			data[len(data)/2] ^= 1
			w.Write(data)
			return true
		}, false, archive + ": the downloaded archive is not the signed release: its SHA-256 is"},
		{"cut short", func(w http.ResponseWriter, _ *http.Request, name string, data []byte) bool {
			if name != archive {
				return false
			}
			w.Header().Set("Content-Length", fmt.Sprint(len(data)))
			w.Write(data[:len(data)/2])
			return true
		}, false, "download " + archive + ": unexpected EOF"},
		{"redirect to a private address", func(w http.ResponseWriter, r *http.Request, name string, _ []byte) bool {
			if name != archive {
				return false
			}
			http.Redirect(w, r, "http://192.168.0.1/"+archive, http.StatusFound)
			return true
		}, true, "refused to connect to 192.168.0.1, a private address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := feedServer(t, tt.tamper)
			feed, env := srv.URL+"/releases/", []string(nil)
			if tt.proxy {
				// A feed on a public address, reached through a proxy
				// (the test server), as a machine behind one reaches it.
				feed, env = "http://203.0.113.7/releases/", []string{"HTTP_PROXY=" + srv.URL, "NO_PROXY="}
			}
			in := newInst(t, feed)
			before := tree(t, in.dir)
			code, out, errs := in.run(t, env, "update", "--yes")
			if code != 2 || !strings.Contains(errs, tt.want) || !strings.Contains(errs, "nothing was changed") {
				t.Errorf("update = %d\n%s%s\nwant 2 and %q, nothing was changed", code, out, errs, tt.want)
			}
			after := tree(t, in.dir)
			for name := range after {
				if _, ok := before[name]; !ok {
					t.Errorf("update left %s behind", name)
				}
			}
			for name, data := range before {
				if after[name] != data {
					t.Errorf("update changed %s", name)
				}
			}
		})
	}
}

// TestDaemonSaysANewerVersionExists: a daemon of 1.0.0 with [update]
// check = true reads the feed when it starts and answers GET /v1/update
// on its socket with 1.1.0 available; it keeps the check in its state
// folder.
func TestDaemonSaysANewerVersionExists(t *testing.T) {
	srv := feedServer(t, nil)
	in := newInst(t, srv.URL+"/")
	root, err := os.MkdirTemp("", "fsupd") // a socket path fits in 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	sock := filepath.Join(root, "s.sock")
	text := fmt.Sprintf("[paths]\nmods = %q\npaks = %q\nstate = %q\nsocket = %q\n[deploy]\nnative = false\n[update]\nfeed = %q\ncheck = true\n",
		filepath.Join(root, "mods"), filepath.Join(root, "paks"), filepath.Join(root, "state"), sock, srv.URL+"/")
	if err := os.WriteFile(in.config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(in.bin, "daemon", "--config", in.config)
	logs := &lineWatch{want: "a newer forgesync exists", seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	select {
	case <-logs.seen:
	case <-time.After(30 * time.Second):
		t.Fatalf("the daemon logged no newer version in 30 s; its log:\n%s", logs.String())
	}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	var st struct {
		Current, Latest string
		Available       bool
		CheckedAt       *time.Time `json:"checked_at"`
	}
	resp, err := client.Get("http://forgesync/v1/update")
	if err != nil {
		t.Fatalf("GET /v1/update: %v", err)
	}
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || st.CheckedAt == nil {
		t.Fatalf("GET /v1/update = %+v, %v; want a check", st, err)
	}
	if st.Current != oldVersion || st.Latest != newVersion || !st.Available {
		t.Errorf("GET /v1/update = %+v; want %s available to %s", st, newVersion, oldVersion)
	}
	if _, err := os.Stat(filepath.Join(root, "state", "update-check.json")); err != nil {
		t.Errorf("the check is not kept in the state folder: %v", err)
	}
}

// lineWatch keeps a process's output and closes seen once it holds want.
type lineWatch struct {
	mu   sync.Mutex // guards buf and seen's closing
	buf  bytes.Buffer
	want string
	seen chan struct{}
	done bool
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.done && strings.Contains(w.buf.String(), w.want) {
		w.done = true
		close(w.seen)
	}
	return len(p), nil
}

func (w *lineWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
