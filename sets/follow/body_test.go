package follow

import (
	"errors"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestDecodeBodyJSON(t *testing.T) {
	body := `{"format":"forgepacks-lock","version":1,"name":"league","pack":[{"id":"foundry-wide","version":"1.4.0","sha256":"` + sha + `","size":1788,"urls":["packs/a.zip"]}]}`
	l, err := decodeBody("json", []byte(body), lock.DecodeOptions{})
	if err != nil || l.Name != "league" || len(l.Packs) != 1 || l.Packs[0].Size != 1788 || l.Packs[0].URLs[0] != "packs/a.zip" {
		t.Fatalf("DecodeBody(%s) = %+v, %v", body, l, err)
	}
	toml := []byte("format = \"forgepacks-lock\"\nversion = 1\n")
	if l, err := decodeBody("toml", toml, lock.DecodeOptions{}); err != nil || len(l.Packs) != 0 {
		t.Errorf("DecodeBody(TOML) = %+v, %v; want the empty set", l, err)
	}
	for _, bad := range []string{"", "  ", `{"format":null}`, `{"a":1} {}`, `{"size":1.5e400}`} {
		if _, err := decodeBody("json", []byte(bad), lock.DecodeOptions{}); !errors.Is(err, errkind.Invalid) {
			t.Errorf("DecodeBody(%q) = %v; want an invalid request", bad, err)
		}
	}
	// A JSON lock is held to the lock's rules: an unknown key is refused
	// with its name.
	if _, err := decodeBody("json", []byte(`{"format":"forgepacks-lock","version":1,"colour":"red"}`), lock.DecodeOptions{}); err == nil || !strings.Contains(err.Error(), "colour") {
		t.Errorf("DecodeBody(unknown key) = %v; want it named", err)
	}
}

func TestDiffBody(t *testing.T) {
	installed := []lock.Installed{{ID: "foundry-wide", Version: "1.3.0", SHA256: sha, Enabled: true}}
	body := `{"format":"forgepacks-lock","version":1,"pack":[{"id":"foundry-wide","version":"1.4.0","sha256":"` + sha + `","size":1788,"urls":[]}]}`
	c, err := Diff(installed, []byte(body))
	if err != nil || c.Equal || len(c.Differences) != 1 || c.Differences[0].Kind != lock.OtherVersion {
		t.Fatalf("Diff = %+v, %v; want one other-version", c, err)
	}
	if _, err := Diff(installed, []byte("version = 2\n")); !errors.Is(err, errkind.Invalid) {
		t.Errorf("Diff(bad lock) = %v; want an invalid request", err)
	}
}

func TestDecodeBodyDuplicateKeys(t *testing.T) {
	for _, body := range []string{
		`{"format":"forgepacks-lock","version":1,"version":2}`,
		`{"format":"forgepacks-lock","version":1,"pack":[{"id":"a","id":"b"}]}`,
	} {
		if _, err := decodeBody("json", []byte(body), lock.DecodeOptions{}); !errors.Is(err, errkind.Invalid) || !strings.Contains(err.Error(), "duplicate key") {
			t.Errorf("DecodeBody(%s) = %v; want an invalid request naming the duplicate key", body, err)
		}
	}
}
