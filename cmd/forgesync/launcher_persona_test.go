package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// upload sends the archive data to POST /v1/install?name=NAME with an
// archive Content-Type, with key as the TCP API's bearer when set, and
// returns the status and the answer.
func upload(t *testing.T, c *http.Client, base, key, name string, data []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/v1/install?name="+name, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/zip")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST /v1/install?name=%s: %v", name, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestLauncherPersona plays a launcher developer's first hour with the
// binary: the contract from `forgesync openapi`, the same served by the
// daemon, the daemon's folders from its status, an archive installed by
// upload on the socket, a refused one whose file-level reason says no
// line, column or path it does not know, a missing copy answered 404, the
// API key found through status's state folder and an upload on the TCP API
// with it, and the CLI's status --json naming the folders too. Every
// exchange is validated against the contract the binary printed.
func TestLauncherPersona(t *testing.T) {
	printed, err := exec.Command(binary, "openapi").Output()
	if err != nil {
		t.Fatalf("forgesync openapi: %v", err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(printed)
	if err != nil || doc.Validate(t.Context()) != nil || doc.Paths.Find("/v1/install").Post.RequestBody.Value.Content.Get("application/zip") == nil {
		t.Fatalf("forgesync openapi printed no contract that documents an upload to /v1/install: %v", err)
	}
	con := &contract{doc: doc, router: newRouter(t, doc)}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	g := newGame(t)
	appendConfig(t, g.config, "[api]\nlisten = \""+addr+"\"\n")
	g.start(t)
	c, rec := socketClient(g.sock)

	if served := expect(t, c, http.MethodGet, "/v1/openapi.json", "", http.StatusOK); !bytes.Equal(served, printed) {
		t.Errorf("GET /v1/openapi.json differs from what forgesync openapi prints")
	}
	var st api.Status
	if err := json.Unmarshal(expect(t, c, http.MethodGet, "/v1/status", "", http.StatusOK), &st); err != nil {
		t.Fatal(err)
	}
	if st.Folders.Drop != g.drop || st.Folders.State != g.state || st.Folders.Inventory != g.inv {
		t.Errorf("status folders = %+v; want drop %s, state %s, inventory %s", st.Folders, g.drop, g.state, g.inv)
	}

	// An example pack, packed as its author would, sent over the socket.
	archive := filepath.Join(t.TempDir(), "foundry-wide.zip")
	if code, out, errs := runCLI(t, "pack", filepath.Join("examples", "foundry-wide"), "-o", archive); code != cli.ExitOK {
		t.Fatalf("pack = %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	status, body := upload(t, c, "http://forgesync", "", "foundry-wide.zip", data)
	var sum map[string]any
	if status != http.StatusOK || json.Unmarshal(body, &sum) != nil || !strings.Contains(string(body), `"result":"installed","pack":"foundry-wide"`) {
		t.Fatalf("upload foundry-wide.zip = %d %s; want 200 installed", status, body)
	}
	if _, ok := sum["duration_s"].(float64); !ok {
		t.Errorf("the install's summary has no duration_s in seconds: %s", body)
	}

	// A pack with a file no pack may hold: the reason about that file
	// carries no line, column or path.
	manifest := `{"schema":1,"id":"stray","version":"1.0.0","name":"Stray","authors":["L"],"pieces":[{"id":"deck","kind":"block","tag":"mjolnir\\forge\\stray\\deck","class":"/Game/MJOLNIR/Forge/stray/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}]}`
	var stray bytes.Buffer
	if err := intake.WritePackZip(&stray, fstest.MapFS{"forgepack.json": {Data: []byte(manifest)}, "lift.svg": {Data: []byte("<svg/>")}},
		[]intake.File{{Path: "forgepack.json", Size: int64(len(manifest))}, {Path: "lift.svg", Size: 6}}); err != nil {
		t.Fatal(err)
	}
	status, body = upload(t, c, "http://forgesync", "", "stray-file.zip", stray.Bytes())
	var refused api.Summary
	if status != http.StatusOK || json.Unmarshal(body, &refused) != nil || len(refused.Outcomes) != 1 || refused.Outcomes[0].Result != api.ResultRejected {
		t.Fatalf("upload stray-file.zip = %d %s; want 200 rejected", status, body)
	}
	if !bytes.Contains(body, []byte(`{"file":"lift.svg","rule":`)) || bytes.Contains(body, []byte(`"line":0`)) || bytes.Contains(body, []byte(`"column":0`)) {
		t.Errorf("the reason about lift.svg = %s; want file lift.svg and no line, column or path", body)
	}
	expect(t, c, http.MethodPost, "/v1/install", `{"archive":"gone/foundry-wide.zip"}`, http.StatusNotFound)

	// The TCP API, with the key from the state folder status named.
	key, err := os.ReadFile(filepath.Join(st.Folders.State, "api-key"))
	if err != nil {
		t.Fatal(err)
	}
	tcpRec := &recorder{base: http.DefaultTransport}
	tcp := &http.Client{Transport: tcpRec}
	data = exampleZip(t, "glass-works")
	if status, body := upload(t, tcp, "http://"+addr, strings.TrimSpace(string(key)), "glass-works.zip", data); status != http.StatusOK ||
		!strings.Contains(string(body), `"result":"installed","pack":"glass-works"`) {
		t.Fatalf("upload glass-works.zip on the TCP API = %d %s; want 200 installed", status, body)
	}
	if status, body := upload(t, tcp, "http://"+addr, "", "glass-works.zip", data); status != http.StatusUnauthorized {
		t.Errorf("upload without the key = %d %s; want 401", status, body)
	}

	code, out, errs := runCLI(t, "status", "--json", "--config", g.config)
	var cliStatus struct {
		Folders api.Folders `json:"folders"`
		Counts  api.Counts  `json:"counts"`
	}
	if code != cli.ExitOK || json.Unmarshal([]byte(out), &cliStatus) != nil || cliStatus.Folders != st.Folders || cliStatus.Counts.Packs != 2 {
		t.Errorf("status --json = %d\n%s%s\nwant the folders %+v and 2 packs", code, out, errs, st.Folders)
	}

	// The document routes the socket's host; the TCP API takes the same
	// paths and bodies.
	all := rec.all
	for _, ex := range tcpRec.all {
		ex.url = strings.Replace(ex.url, "http://"+addr, "http://forgesync", 1)
		all = append(all, ex)
	}
	faults, seen := con.checkAll(t.Context(), all, nil)
	for _, f := range faults {
		t.Error(f)
	}
	if len(seen["install"]) < 3 || len(seen["getOpenAPI"]) != 1 {
		t.Errorf("operations seen %v; want install answered 200, 401 and 404, and the contract served", seen)
	}
}
