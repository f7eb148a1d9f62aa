package fetch

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// A folder's URL without its trailing slash makes a file server answer
// with the folder's listing (after a redirect): that HTML page is reported
// as such, with the URL that works, and never read as an unsigned lock.
func TestFetchLockHTMLFolderListing(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "forge", "packs"), 0o755)
	os.WriteFile(filepath.Join(root, "forge", lock.LockName), []byte(settest.GoodLock), 0o644)
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	t.Cleanup(srv.Close)
	f, _ := newFetcher(t)
	src, err := LockSource(srv.URL + "/forge")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.FetchLock(t.Context(), src, Validators{})
	want := srv.URL + "/forge answered an HTML page, not a lock: the folder's URL needs its trailing slash, " + srv.URL + "/forge/"
	if err == nil || err.Error() != want || !errors.Is(err, errHTMLPage) {
		t.Fatalf("FetchLock(folder without slash) = %v\nwant %s", err, want)
	}
	// With the slash, the lock itself.
	src, _ = LockSource(srv.URL + "/forge/")
	if lf, err := f.FetchLock(t.Context(), src, Validators{}); err != nil || string(lf.Data) != settest.GoodLock {
		t.Fatalf("FetchLock(folder with slash) = %v", err)
	}
}

// A page that is HTML by its body or by its Content-Type, at a URL that
// names a file, is reported as HTML without the trailing-slash advice.
func TestFetchLockHTMLPage(t *testing.T) {
	m := newMirror(t)
	m.files["/sets/forgepacks.lock"] = []byte("\ufeff  <!doctype html>\n<title>Login</title>")
	m.files["/typed/forgepacks.lock"] = []byte("<p>Sign in</p>")
	f, _ := newFetcher(t)
	_, err := f.FetchLock(t.Context(), Source{URL: m.url("/sets/forgepacks.lock")}, Validators{})
	want := m.url("/sets/forgepacks.lock") + " answered an HTML page, not a lock: is it the URL of the " + lock.LockName + " file, or of its folder with a trailing slash?"
	if err == nil || err.Error() != want {
		t.Errorf("FetchLock(HTML body) = %v\nwant %s", err, want)
	}
	m.fault = func(w http.ResponseWriter, r *http.Request, n int) bool {
		if r.URL.Path == "/typed/forgepacks.lock" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<p>Sign in</p>"))
			return true
		}
		return false
	}
	if _, err := f.FetchLock(t.Context(), Source{URL: m.url("/typed/forgepacks.lock")}, Validators{}); !errors.Is(err, errHTMLPage) {
		t.Errorf("FetchLock(text/html) = %v; want ErrHTMLPage", err)
	}
}
