package main

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDaemonOnTheTCPAPIAlone plays a machine without AF_UNIX (wine, old
// Windows): the socket cannot be opened (here: a path too long for one),
// so the daemon serves the loopback TCP API alone, and the CLI, which
// finds the config through $FORGESYNC_CONFIG, talks to it there with the
// key from the state folder.
func TestDaemonOnTheTCPAPIAlone(t *testing.T) {
	g := newGame(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	long := strings.Repeat("s", 120) + ".sock"
	text := "[paths]\nmods = \"mods\"\npaks = \"paks\"\nstate = \"state\"\nsocket = \"" + long + "\"\n[watch]\nsettle = \"200ms\"\n[deploy]\nnative = false\n[api]\nlisten = \"" + addr + "\"\n"
	if err := os.WriteFile(g.config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g.start(t)
	cmd := exec.Command(binary, "status")
	cmd.Env = append(os.Environ(), "FORGESYNC_CONFIG="+g.config)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "packs: 0 installed") {
		t.Fatalf("status over the TCP API = %v:\n%s", err, out)
	}
	key, err := os.ReadFile(g.state + "/api-key")
	if err != nil || len(strings.TrimSpace(string(key))) != 64 {
		t.Fatalf("api-key = %q, %v; want 64 hex digits", key, err)
	}
}
