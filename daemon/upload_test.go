package daemon

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// uploadLimits are the [limits] of the upload tests' daemon: an archive
// sent as a body may have at most 64 KiB + 16 × 2 KiB (UploadLimit).
const (
	uploadMaxTotal   = 64 << 10
	uploadMaxEntries = 16
	uploadLimit      = uploadMaxTotal + uploadMaxEntries*2048
)

// serveUploads serves a real machine with small [limits] on its socket
// and its TCP API until the test ends; it returns the options, a client of
// the socket and one of the TCP API with the key.
func serveUploads(t *testing.T) (Options, *Client, *Client) {
	t.Helper()
	opts := game(t)
	opts.Config.Limits.MaxTotalBytes, opts.Config.Limits.MaxEntries = uploadMaxTotal, uploadMaxEntries
	opts, tcp := serveTCPWith(t, opts)
	sock := NewClient(opts.Config.Paths.Socket)
	t.Cleanup(func() { sock.Close() })
	return opts, sock, tcp
}

// post sends body to target with the Content-Type ctype (none when
// empty), the client's key when it has one and the headers in h; a body
// of unknown length (size < 0) goes chunked.
func post(t *testing.T, c *Client, target, ctype string, body io.Reader, size int64, h http.Header) (int, string) {
	t.Helper()
	if size < 0 {
		body = io.MultiReader(body) // hides the length
	}
	req, err := http.NewRequestWithContext(waitCtx(t), http.MethodPost, c.base+target, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = max(size, -1)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if host := h.Get("Host"); host != "" {
		req.Host = host
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %s: read answer: %v", target, err)
	}
	return resp.StatusCode, string(b)
}

// installLeftovers lists what is left under drop/.install/.
func installLeftovers(t *testing.T, opts Options) []string {
	t.Helper()
	var left []string
	base := filepath.Join(opts.Config.Paths.Drop, pipeline.InstallDir)
	filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != base {
			left = append(left, p)
		}
		return nil
	})
	return left
}

// TestUploadInstalls: a launcher that knows only the socket installs an
// archive by sending it as the body; the answer is the install's summary,
// status names the folders as absolute paths, and nothing of the upload is
// left in drop/.install/.
func TestUploadInstalls(t *testing.T) {
	opts, sock, _ := serveUploads(t)
	zip := packArchive(t, "uploaded-pack", "1.0.0")
	status, body := post(t, sock, "/v1/install?name=uploaded-pack.zip", "application/zip", bytes.NewReader(zip), int64(len(zip)), nil)
	var sum api.Summary
	if status != http.StatusOK || json.Unmarshal([]byte(body), &sum) != nil || len(sum.Outcomes) != 1 ||
		sum.Outcomes[0].Result != api.ResultInstalled || sum.Outcomes[0].Pack != "uploaded-pack" || sum.Outcomes[0].Archive != "uploaded-pack.zip" {
		t.Fatalf("POST /v1/install with the archive = %d %s; want 200 and uploaded-pack installed", status, body)
	}
	// The same bytes again, chunked and as octet-stream, with force: the
	// same version from the same bytes is already installed.
	status, body = post(t, sock, "/v1/install?name=again.zip&force=true", "application/octet-stream", bytes.NewReader(zip), -1, nil)
	if status != http.StatusOK || !strings.Contains(body, `"result":"already-installed"`) {
		t.Errorf("POST /v1/install chunked = %d %s; want 200 already-installed", status, body)
	}
	if left := installLeftovers(t, opts); len(left) > 0 {
		t.Errorf("drop/.install/ holds %v after the installs; want nothing", left)
	}
	st, err := sock.Status(waitCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	want := api.Folders{Drop: opts.Config.Paths.Drop, State: opts.Config.Paths.State, Inventory: pipeline.InventoryDir(opts.Config.Paths.Mods)}
	if st.Folders != want || !filepath.IsAbs(st.Folders.Drop) || !filepath.IsAbs(st.Folders.State) || !filepath.IsAbs(st.Folders.Inventory) {
		t.Errorf("status folders = %+v; want %+v, absolute", st.Folders, want)
	}
	if _, err := os.Stat(filepath.Join(st.Folders.Inventory, "installed.json")); err != nil {
		t.Errorf("status names inventory folder %s, which holds no installed.json: %v", st.Folders.Inventory, err)
	}
}

// TestUploadRefusals: an archive over the limits (by its Content-Length,
// or chunked), a name that is no plain file name, no name, another
// Content-Type and an empty body are each refused with a status and a
// message saying what and where, and leave nothing in drop/.install/.
func TestUploadRefusals(t *testing.T) {
	opts, sock, _ := serveUploads(t)
	big := bytes.Repeat([]byte("x"), uploadLimit+1000)
	limit := strconv.Itoa(uploadLimit)
	tests := []struct {
		name, target, ctype string
		body                []byte
		size                int64
		status              int
		want                []string
	}{
		{"over the limit", "/v1/install?name=big.zip", "application/zip", big, int64(len(big)), 413,
			[]string{strconv.Itoa(len(big)) + " bytes", "limit of " + limit + " bytes", "max_total_bytes"}},
		{"over the limit, chunked", "/v1/install?name=big.zip", "application/zip", big, -1, 413,
			[]string{"more than " + limit + " bytes", "limit of " + limit + " bytes"}},
		{"a folder", "/v1/install?name=..%2Fescape.zip", "application/zip", []byte("PK"), 2, 400, []string{`name "../escape.zip"`, "without a folder"}},
		{"a device name", "/v1/install?name=CON.zip", "application/zip", []byte("PK"), 2, 400, []string{`name "CON.zip"`, "reserved"}},
		{"a trailing dot", "/v1/install?name=pack.zip.", "application/zip", []byte("PK"), 2, 400, []string{`name "pack.zip."`}},
		{"no name", "/v1/install", "application/x-7z-compressed", []byte("7z"), 2, 400, []string{"no archive name", "?name=FILE"}},
		{"an unknown parameter", "/v1/install?name=a.zip&path=/etc/passwd", "application/zip", []byte("PK"), 2, 400, []string{`unknown query parameter "path"`}},
		{"another type", "/v1/install?name=a.zip", "text/plain", []byte("PK"), 2, 415, []string{`Content-Type "text/plain"`, "application/zip"}},
		{"an empty body", "/v1/install?name=a.zip", "application/zip", nil, 0, 400, []string{"the body is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := post(t, sock, tt.target, tt.ctype, bytes.NewReader(tt.body), tt.size, nil)
			var e errorBody
			if status != tt.status || json.Unmarshal([]byte(body), &e) != nil {
				t.Fatalf("POST %s = %d %s; want %d", tt.target, status, body, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(e.Error.Message, w) {
					t.Errorf("POST %s says %q; want it to say %q", tt.target, e.Error.Message, w)
				}
			}
			if left := installLeftovers(t, opts); len(left) > 0 {
				t.Errorf("drop/.install/ holds %v; want nothing", left)
			}
		})
	}
	packs, err := sock.Packs(waitCtx(t))
	if err != nil || len(packs) != 0 {
		t.Errorf("packs after the refusals = %v, %v; want none", packs, err)
	}
}

// TestUploadOverTCP: the TCP API takes an upload with the key, and answers
// one without the key (401) or from a name that is not loopback (403)
// before reading it: nothing is written.
func TestUploadOverTCP(t *testing.T) {
	opts, _, tcp := serveUploads(t)
	zip := packArchive(t, "tcp-pack", "1.0.0")
	keyless := *tcp
	keyless.key = ""
	status, body := post(t, &keyless, "/v1/install?name=tcp-pack.zip", "application/zip", bytes.NewReader(zip), int64(len(zip)), nil)
	if status != http.StatusUnauthorized {
		t.Errorf("an upload without the key = %d %s; want 401", status, body)
	}
	status, body = post(t, tcp, "/v1/install?name=tcp-pack.zip", "application/zip", bytes.NewReader(zip), int64(len(zip)),
		http.Header{"Host": {"evil.example"}})
	if status != http.StatusForbidden {
		t.Errorf("an upload from Host evil.example = %d %s; want 403", status, body)
	}
	if left := installLeftovers(t, opts); len(left) > 0 {
		t.Errorf("drop/.install/ holds %v after refused uploads; want nothing", left)
	}
	status, body = post(t, tcp, "/v1/install?name=tcp-pack.zip", "application/zip", bytes.NewReader(zip), int64(len(zip)), nil)
	if status != http.StatusOK || !strings.Contains(body, `"pack":"tcp-pack"`) {
		t.Errorf("an upload with the key = %d %s; want 200 and tcp-pack installed", status, body)
	}
}

// TestInstallMissingCopyIsNotFound: the JSON form naming a copy that is
// not in drop/.install/ answers 404 not_found, not 500.
func TestInstallMissingCopyIsNotFound(t *testing.T) {
	_, sock, _ := serveUploads(t)
	status, body := post(t, sock, "/v1/install", "application/json", strings.NewReader(`{"archive":"gone/pack.zip"}`), -1, nil)
	if status != http.StatusNotFound || !strings.Contains(body, `"code":"not_found"`) || !strings.Contains(body, "pack.zip") {
		t.Errorf("POST /v1/install of a missing copy = %d %s; want 404 not_found naming it", status, body)
	}
}

// TestServesOpenAPI: GET /v1/openapi.json answers the contract as JSON.
func TestServesOpenAPI(t *testing.T) {
	s := startServer(t, newFakeBackend(), nil, ServerOptions{})
	status, body := rawRequest(t, s, http.MethodGet, "/v1/openapi.json", "")
	want := api.OpenAPIJSON
	if status != http.StatusOK || body != string(want) {
		t.Errorf("GET /v1/openapi.json = %d %.80s…; want 200 and api.OpenAPIJSON", status, body)
	}
}
