package daemon

import (
	"context"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/api"
)

func TestBodyDuplicateKeysRefused(t *testing.T) {
	b := newFakeBackend()
	s := startServer(t, b, nil, ServerOptions{})
	tests := []struct{ body, key string }{
		{`{"generation": 1, "generation": 7}`, `\"generation\"`},
		{`{"generation": 1, "Generation": 7}`, `\"Generation\"`},
	}
	for _, tc := range tests {
		status, body := rawRequest(t, s, http.MethodPost, "/v1/rollback", tc.body)
		if status != http.StatusBadRequest || !strings.Contains(body, codeInvalid) || !strings.Contains(body, "duplicate key") || !strings.Contains(body, tc.key) {
			t.Errorf("POST /v1/rollback %s = %d %s; want 400 naming the duplicate key %s", tc.body, status, body, tc.key)
		}
	}
	if calls := b.callLog(); len(calls) != 0 {
		t.Errorf("a body with duplicate keys reached the backend: %q", calls)
	}
}

// fakeSets is a fakeBackend that serves pack sets, recording each apply.
type fakeSets struct {
	*fakeBackend
	applied chan api.SetApplyRequest
}

func (f *fakeSets) SetInfo() api.SetInfo { return api.SetInfo{} }
func (f *fakeSets) SetDiff(context.Context, []byte) (api.SetComparison, error) {
	return api.SetComparison{}, nil
}
func (f *fakeSets) SetCheck(context.Context) (*api.SetSyncResult, error) {
	return &api.SetSyncResult{}, nil
}
func (f *fakeSets) SetFollow(context.Context) (*api.SetSyncResult, error) {
	return &api.SetSyncResult{}, nil
}
func (f *fakeSets) SetApply(_ context.Context, req api.SetApplyRequest) (*api.SetSyncResult, error) {
	f.applied <- req
	return &api.SetSyncResult{Downloaded: []api.Downloaded{}}, nil
}

func TestSetApplyLocalPathOnlyOverTheSocket(t *testing.T) {
	local := []string{"/home/someone/packs/forgepacks.lock", "file:///etc/shadow", `C:\packs`, "packs/"}
	remote := []string{"https://forge.example.org/forgepacks.lock", "oci://ghcr.io/league/packs:live", "OCI://ghcr.io/league/packs@sha256:" + strings.Repeat("0", 64)}

	// The TCP API: an http(s) URL or a lock's text, never a local path.
	key, err := apiKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := listenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &fakeSets{fakeBackend: newFakeBackend(), applied: make(chan api.SetApplyRequest, 10)}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, b, nil, ServerOptions{APIKey: key, Now: fixedClock}) }()
	defer func() { cancel(); <-served }()
	c := newTCPClient(ln.Addr().String(), key)
	defer c.Close()
	for _, path := range local {
		_, err := c.SetApply(waitCtx(t), api.SetApplyRequest{URL: path})
		if err == nil || !strings.Contains(err.Error(), "TCP API") || !strings.Contains(err.Error(), "local path") {
			t.Errorf("SetApply(%q) over TCP = %v; want it refused as a local path", path, err)
		}
	}
	for _, ref := range remote {
		if _, err := c.SetApply(waitCtx(t), api.SetApplyRequest{URL: ref}); err != nil {
			t.Errorf("SetApply(%q) over TCP = %v; want it applied", ref, err)
		}
	}
	if _, err := c.SetApply(waitCtx(t), api.SetApplyRequest{Lock: "format = \"forgepacks-lock\"\n"}); err != nil {
		t.Errorf("SetApply(a lock's text) over TCP = %v; want it applied", err)
	}
	if n, want := len(b.applied), len(remote)+1; n != want {
		t.Errorf("%d applies reached the backend over TCP; want %d", n, want)
	}

	// The local socket: the peer is the daemon's user, so a path is read.
	s2 := &fakeSets{fakeBackend: newFakeBackend(), applied: make(chan api.SetApplyRequest, 10)}
	path := filepath.Join(sockDir(t), "forgesync.sock")
	uln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	served2 := make(chan error, 1)
	go func() { served2 <- Serve(ctx2, uln, s2, nil, ServerOptions{Now: fixedClock}) }()
	defer func() { cancel2(); <-served2 }()
	uc := NewClient(path)
	defer uc.Close()
	if _, err := uc.SetApply(waitCtx(t), api.SetApplyRequest{URL: local[0]}); err != nil {
		t.Errorf("SetApply(%q) over the socket by the daemon's user = %v; want it applied", local[0], err)
	}
}

func TestSetApplyLocalPathOtherUserRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peer credentials are read on Linux")
	}
	b := &fakeSets{fakeBackend: newFakeBackend(), applied: make(chan api.SetApplyRequest, 10)}
	path := filepath.Join(sockDir(t), "forgesync.sock")
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	// The socket admits the peer, but it is not one whose files the
	// daemon reads.
	go func() {
		served <- Serve(ctx, ln, b, nil, ServerOptions{Now: fixedClock, readsPathsOf: func(uint32) bool { return false }})
	}()
	defer func() { cancel(); <-served }()
	c := NewClient(path)
	defer c.Close()
	_, err = c.SetApply(waitCtx(t), api.SetApplyRequest{URL: "/srv/forgepacks.lock"})
	if err == nil || !strings.Contains(err.Error(), "daemon's own user or root") {
		t.Errorf("SetApply(local path) by another user = %v; want it refused", err)
	}
	if _, err := c.SetApply(waitCtx(t), api.SetApplyRequest{URL: "http://forge.example.org/"}); err != nil {
		t.Errorf("SetApply(URL) by another user = %v; want it applied", err)
	}
	if len(b.applied) != 1 {
		t.Errorf("%d applies reached the backend; want 1", len(b.applied))
	}
}
