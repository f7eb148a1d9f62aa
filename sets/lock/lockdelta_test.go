package lock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/settest"
)

// deltaLock is settest.GoodLock with a chunk store and alpha-pack's chunk index.
func deltaLock(t *testing.T) string {
	t.Helper()
	text := settest.Edit(t, "fingerprint = \""+settest.FpAB+"\"\n", "fingerprint = \""+settest.FpAB+"\"\nchunks = [\"chunks/\", \"https://cdn.example.org/chunks/\"]\n")
	return strings.Replace(text, `urls = ["file:///srv/forge/a.zip"]`,
		`urls = ["file:///srv/forge/a.zip"]`+"\nindex = {url = \"packs/"+settest.HashA+".caibx\", sha256 = \""+settest.HashC+"\"}", 1)
}

func TestDecodeDeltaFields(t *testing.T) {
	l, err := Decode(LockName, []byte(deltaLock(t)), DecodeOptions{})
	if err != nil {
		t.Fatalf("Decode = %v", err)
	}
	if want := []string{"chunks/", "https://cdn.example.org/chunks/"}; !slices.Equal(l.Chunks, want) {
		t.Errorf("Chunks = %q; want %q", l.Chunks, want)
	}
	a := l.Packs[1]
	if a.Index == nil || a.Index.URL != "packs/"+settest.HashA+".caibx" || a.Index.SHA256 != settest.HashC {
		t.Errorf("pack[1].Index = %+v", a.Index)
	}
	if l.Packs[0].Index != nil {
		t.Errorf("pack[0].Index = %+v; want none", l.Packs[0].Index)
	}
	// The fields do not enter the fingerprint.
	if l.Fingerprint() != settest.FpAB {
		t.Errorf("Fingerprint = %s; want %s", l.Fingerprint(), settest.FpAB)
	}
	out, err := Encode(l)
	if err != nil {
		t.Fatalf("Encode = %v", err)
	}
	for _, want := range []string{
		"\nchunks = [\"chunks/\", \"https://cdn.example.org/chunks/\"]\n",
		"\nindex = {url = \"packs/" + settest.HashA + ".caibx\", sha256 = \"" + settest.HashC + "\"}\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("Encode wrote no %q:\n%s", want, out)
		}
	}
	back, err := Decode(LockName, out, DecodeOptions{})
	if err != nil {
		t.Fatalf("Decode(Encode) = %v", err)
	}
	if !slices.Equal(back.Chunks, l.Chunks) || *back.Packs[0].Index != *a.Index {
		t.Errorf("round trip = %+v", back)
	}
	// The JSON form reads the same fields.
	j, err := DecodeJSON(LockName, asJSON(t, deltaLock(t)), DecodeOptions{})
	if err != nil {
		t.Fatalf("DecodeJSON = %v", err)
	}
	if !slices.Equal(j.Chunks, l.Chunks) || j.Packs[1].Index == nil || *j.Packs[1].Index != *a.Index {
		t.Errorf("DecodeJSON = %+v", j)
	}
}

// TestOldLockUnchanged: a lock written before chunk indexes existed reads
// and encodes to the same bytes, with the same fingerprint.
func TestOldLockUnchanged(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "league.lock"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Decode("league.lock", data, DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Chunks != nil {
		t.Errorf("Chunks = %q; want none", l.Chunks)
	}
	for _, p := range l.Packs {
		if p.Index != nil {
			t.Errorf("%s: Index = %+v; want none", p.ID, p.Index)
		}
	}
	out, err := Encode(l)
	if err != nil || string(out) != string(data) {
		t.Errorf("Encode(old lock) = %v\n%s\nwant the same bytes\n%s", err, out, data)
	}
}

func TestDecodeDeltaErrors(t *testing.T) {
	good := deltaLock(t)
	// Lines: chunks is line 5, the index line 23.
	sub := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("%q not in the lock", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	idx := `index = {url = "packs/` + settest.HashA + `.caibx", sha256 = "` + settest.HashC + `"}`
	tests := []struct {
		name string
		text string
		line int
		want string
	}{
		{"chunks not a list", sub(`chunks = ["chunks/", "https://cdn.example.org/chunks/"]`, `chunks = "chunks/"`), 5, `chunks: must be a list of chunk store URLs, found "chunks/"`},
		{"chunk url not a string", sub(`"chunks/", `, `3, `), 5, "chunks[0]: must be a string, found 3"},
		{"chunk url scheme", sub(`"chunks/", `, `"s3://bucket/chunks/", `), 5, `chunks[0]: "s3://bucket/chunks/" has the scheme "s3"`},
		{"too many stores", sub(`chunks = ["chunks/", "https://cdn.example.org/chunks/"]`, "chunks = ["+strings.Repeat(`"c/", `, 17)+"]"), 5, "17 chunk stores, over the limit of 16"},
		{"index not a table", sub(idx, `index = "packs/x.caibx"`), 23, `pack[1].index: must be a table`},
		{"index unknown key", sub(idx, `index = {url = "a.caibx", sha256 = "`+settest.HashC+`", size = 3}`), 23, "pack[1].index.size: unknown key (an index has url and sha256)"},
		{"index bad hex", sub(idx, `index = {url = "a.caibx", sha256 = "`+strings.ToUpper(settest.HashC)+`"}`), 23, "pack[1].index.sha256: must be 64 lowercase hex digits (the SHA-256 of the index file), found \"CCCC"},
		{"index no sha256", sub(idx, `index = {url = "a.caibx"}`), 23, "pack[1].index.sha256: missing"},
		{"index no url", sub(idx, `index = {sha256 = "`+settest.HashC+`"}`), 23, "pack[1].index.url: missing"},
		{"index bad url", sub(idx, `index = {url = "ftp://x/a.caibx", sha256 = "`+settest.HashC+`"}`), 23, `pack[1].index.url: "ftp://x/a.caibx" has the scheme "ftp"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("set.lock", []byte(tc.text), DecodeOptions{})
			if !errors.Is(err, errInvalidLock) {
				t.Fatalf("Decode = %v; want a lock error", err)
			}
			prefix := fmt.Sprintf("set.lock:%d: ", tc.line)
			if msg := err.Error(); !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, tc.want) {
				t.Errorf("Decode error = %q; want %q…%q", msg, prefix, tc.want)
			}
			// The JSON form refuses it with the same key and message.
			if _, jerr := DecodeJSON("set.lock", asJSON(t, tc.text), DecodeOptions{}); jerr == nil || !strings.Contains(jerr.Error(), tc.want) {
				t.Errorf("DecodeJSON = %v; want %q", jerr, tc.want)
			}
		})
	}
}
