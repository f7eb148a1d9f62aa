package config

import (
	"errors"
	"strings"
	"testing"
)

// TestLANDefaults: sharing is off, and the listen address and upload
// bound have their documented defaults.
func TestLANDefaults(t *testing.T) {
	c, err := parse("/games/forgesync.toml", []byte(""))
	if err != nil {
		t.Fatal(err)
	}
	if c.LAN.Share || c.LAN.Listen != "0.0.0.0:47380" || c.LAN.MaxUpload != 6_250_000 || len(c.LAN.Peers) != 0 {
		t.Errorf("LAN = %+v; want share off, 0.0.0.0:47380, 6.25 MB/s, no peers", c.LAN)
	}
	if d := Default().LAN; d.Share || d.Listen != "0.0.0.0:47380" || d.MaxUpload != 6_250_000 || d.Peers != nil {
		t.Errorf("Default().LAN = %+v", Default().LAN)
	}
}

// TestLANParse: the [lan] keys, and each bad value refused with its key,
// line and what is wanted.
func TestLANParse(t *testing.T) {
	c, err := parse("/games/forgesync.toml", []byte("[lan]\nshare = true\nlisten = \"192.168.1.5:9000\"\nmax_upload = \"2MiB\"\npeers = [\"http://192.168.1.7:47380\", \"http://host-b:47380/\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.LAN.Share || c.LAN.Listen != "192.168.1.5:9000" || c.LAN.MaxUpload != 2<<20 || len(c.LAN.Peers) != 2 {
		t.Errorf("LAN = %+v", c.LAN)
	}
	for _, tt := range []struct{ text, want string }{
		{`listen = "nowhere"`, "f.toml:2: lan.listen: want ADDR:PORT"},
		{`listen = "0.0.0.0:0"`, "lan.listen: want ADDR:PORT"},
		{`listen = "host:80"`, "lan.listen: want ADDR:PORT with an IP address"},
		{`max_upload = "0"`, "lan.max_upload: want bytes per second above 0"},
		{`max_upload = "fast"`, "lan.max_upload"},
		{`peers = ["https://h:1"]`, "lan.peers: peer 1: want http://HOST:PORT"},
		{`peers = ["http://h"]`, "peer 1: want http://HOST:PORT"},
		{`peers = ["http://h:1", "http://u:secret@h:2"]`, "peer 2: want http://HOST:PORT"},
		{`peers = ["http://h:1/state.json"]`, "peer 1: want http://HOST:PORT"},
		{`shares = true`, "lan.shares: unknown key"},
	} {
		_, err := parse("/games/f.toml", []byte("[lan]\n"+tt.text+"\n"))
		if err == nil || !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parse(%q) = %v; want an error with %q", tt.text, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("parse(%q) = %v: shows the password", tt.text, err)
		}
	}
}
