package daemon

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startTCP serves b on a loopback TCP port with key, and returns the
// address.
func startTCP(t *testing.T, b *fakeBackend, key string) string {
	t.Helper()
	ln, err := listenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ev := NewEvents(EventsOptions{Now: fixedClock})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, b, ev, ServerOptions{APIKey: key, Now: fixedClock, Version: "1.2.3"}) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-served:
		case <-waitCtx(t).Done():
			t.Error("Serve did not return")
		}
		ev.Close()
	})
	return ln.Addr().String()
}

func TestTCPAPI(t *testing.T) {
	key, err := apiKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	addr := startTCP(t, newFakeBackend(), key)
	get := func(host string, header map[string]string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(waitCtx(t), http.MethodGet, "http://"+addr+"/v1/status", nil)
		req.Host = host
		for k, v := range header {
			req.Header.Set(k, v)
		}
		req.Header.Set("Origin", "http://evil.example")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	cases := []struct {
		name   string
		host   string
		header map[string]string
		want   int
	}{
		{"no key", addr, nil, http.StatusUnauthorized},
		{"wrong key", addr, map[string]string{"X-API-Key": strings.Repeat("0", 64)}, http.StatusUnauthorized},
		{"short key", addr, map[string]string{"Authorization": "Bearer " + key[:10]}, http.StatusUnauthorized},
		{"basic auth", addr, map[string]string{"Authorization": "Basic " + key}, http.StatusUnauthorized},
		{"bearer", addr, map[string]string{"Authorization": "Bearer " + key}, http.StatusOK},
		{"bearer lower case", addr, map[string]string{"Authorization": "bearer " + key}, http.StatusOK},
		{"bearer upper case", addr, map[string]string{"Authorization": "BEARER " + key}, http.StatusOK},
		{"bearer extra spaces", addr, map[string]string{"Authorization": "Bearer   " + key}, http.StatusOK},
		{"bearer no key", addr, map[string]string{"Authorization": "Bearer"}, http.StatusUnauthorized},
		{"bearerish scheme", addr, map[string]string{"Authorization": "Bearerx " + key}, http.StatusUnauthorized},
		{"x-api-key", addr, map[string]string{"X-API-Key": key}, http.StatusOK},
		{"localhost", "localhost:8384", map[string]string{"X-API-Key": key}, http.StatusOK},
		{"ipv6 loopback", "[::1]:8384", map[string]string{"X-API-Key": key}, http.StatusOK},
		{"rebound name", "evil.example:8384", map[string]string{"X-API-Key": key}, http.StatusForbidden},
		{"lan address", "192.168.1.5:8384", map[string]string{"X-API-Key": key}, http.StatusForbidden},
	}
	for _, c := range cases {
		status, h, body := get(c.host, c.header)
		if status != c.want {
			t.Errorf("%s: status %d (%s); want %d", c.name, status, body, c.want)
		}
		if status != http.StatusOK && strings.Contains(body, "1.2.3") {
			t.Errorf("%s: a refused request got data: %s", c.name, body)
		}
		for k := range h {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s: CORS header %s sent", c.name, k)
			}
		}
	}
	// The client speaks it.
	c := newTCPClient(addr, key)
	defer c.Close()
	if st, err := c.Status(waitCtx(t)); err != nil || st.Version != "1.2.3" {
		t.Fatalf("TCP client Status = %+v, %v", st, err)
	}
	bad := newTCPClient(addr, "nope")
	defer bad.Close()
	var ae *APIError
	if _, err := bad.Packs(waitCtx(t)); !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized {
		t.Fatalf("TCP client with a wrong key = %v; want 401", err)
	}
}

func TestListenTCPRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0"} {
		if ln, err := listenTCP(addr); !errors.Is(err, errNotLoopback) {
			if ln != nil {
				ln.Close()
			}
			t.Errorf("ListenTCP(%q) = %v; want ErrNotLoopback", addr, err)
		}
	}
}

func TestAPIKeyCreatedOnceAndPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	k1, err := apiKey(dir)
	if err != nil || len(k1) != 64 {
		t.Fatalf("APIKey = %q, %v; want 64 hex digits", k1, err)
	}
	k2, err := apiKey(dir)
	if err != nil || k2 != k1 {
		t.Fatalf("second APIKey = %q, %v; want the same key", k2, err)
	}
	fi, err := os.Stat(filepath.Join(dir, apiKeyName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("api-key mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	k3, _ := apiKey(t.TempDir())
	if k3 == k1 {
		t.Fatal("two state folders got the same key")
	}
}

func TestServeRefusesTCPWithoutKey(t *testing.T) {
	ln, err := listenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ev := NewEvents(EventsOptions{})
	defer ev.Close()
	if err := Serve(waitCtx(t), ln, newFakeBackend(), ev, ServerOptions{}); err == nil || !strings.Contains(err.Error(), "API key") {
		t.Fatalf("Serve(TCP, no key) = %v; want a refusal", err)
	}
	ln.Close()
}

// TestTCPKeyMessages pins the 401 messages: a request without a key is told
// where the key is, one with a key that does not match is told it is wrong.
func TestTCPKeyMessages(t *testing.T) {
	key, err := apiKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	addr := startTCP(t, newFakeBackend(), key)
	const missing = `{"error":{"code":"unauthorized","message":"an API key is required (Authorization: Bearer KEY or X-API-Key: KEY; the key is in the state folder's api-key file)"}}`
	const wrong = `{"error":{"code":"unauthorized","message":"wrong API key: the key sent does not match the state folder's api-key file"}}`
	cases := []struct {
		name   string
		header map[string]string
		want   string
	}{
		{"no key", nil, missing},
		{"empty x-api-key", map[string]string{"X-API-Key": " "}, missing},
		{"basic auth", map[string]string{"Authorization": "Basic " + key}, missing},
		{"wrong x-api-key", map[string]string{"X-API-Key": strings.Repeat("0", 64)}, wrong},
		{"wrong bearer", map[string]string{"Authorization": "Bearer " + key[:10]}, wrong},
	}
	for _, c := range cases {
		req, _ := http.NewRequestWithContext(waitCtx(t), http.MethodGet, "http://"+addr+"/v1/status", nil)
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || strings.TrimSpace(string(b)) != c.want {
			t.Errorf("%s: %d %s; want 401 %s", c.name, resp.StatusCode, b, c.want)
		}
	}
}
