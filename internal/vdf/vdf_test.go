package vdf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseLibraryFolders reads libraryfolders.vdf as Steam writes it on
// Windows (CRLF, doubled backslashes), on Linux, and in the format before
// 2021 (each library a string).
func TestParseLibraryFolders(t *testing.T) {
	tests := []struct {
		file  string
		paths []string // the value of "path" (or the string) of each key but the stats
	}{
		{"libraryfolders-windows.vdf", []string{`C:\Program Files (x86)\Steam`, `D:\SteamLibrary`}},
		{"libraryfolders-linux.vdf", []string{"/home/player/.local/share/Steam", "/mnt/games/SteamLibrary"}},
		{"libraryfolders-old.vdf", []string{`D:\SteamLibrary`, `E:\Games\Steam`}},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		root, err := Parse(data)
		if err != nil {
			t.Fatalf("Parse(%s) = %v", tt.file, err)
		}
		if !strings.EqualFold(root.Key, "libraryfolders") {
			t.Errorf("Parse(%s) root %q", tt.file, root.Key)
		}
		var got []string
		for _, k := range root.Keys {
			switch {
			case k.Block() && k.Get("path") != nil:
				got = append(got, k.Get("path").Value)
			case !k.Block() && k.Key != "TimeNextStatsReport" && k.Key != "ContentStatsID":
				got = append(got, k.Value)
			}
		}
		if strings.Join(got, "|") != strings.Join(tt.paths, "|") {
			t.Errorf("Parse(%s) paths = %q; want %q", tt.file, got, tt.paths)
		}
	}
	root, _ := Parse([]byte(`"a" { "apps" { "228980" "1" } }`))
	if apps := root.Get("APPS"); apps == nil || apps.Get("228980").Value != "1" {
		t.Errorf("Get is not case-insensitive, or lost a nested key: %+v", root)
	}
}

// TestParseRefuses: what is not VDF is refused with its line, and input
// past the bounds is refused before it is read.
func TestParseRefuses(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "line 1: want a quoted key, got the end of the input"},
		{"unquoted", "\"a\"\n{\n  path \"x\"\n}", "line 3: unexpected 'p': keys and values are quoted"},
		{"unclosed block", "\"a\" {\n \"b\" \"c\"\n", "line 3: want a quoted key or } in the block \"a\", got the end of the input"},
		{"unclosed string", "\"a\" {\n \"b\" \"c\n}\n", "line 2: a string that never ends"},
		{"root string", `"a" "b"`, `the root key "a" holds a string, not a block`},
		{"after root", `"a" {} "b" {}`, "text after the root block"},
		{"bad escape", `"a" { "b" "c:\q" }`, `unknown escape \q`},
		{"key without value", `"a" { "b" }`, `want a value or { after the key "b", got }`},
		{"too deep", strings.Repeat(`"a" {`, maxDepth+2) + strings.Repeat("}", maxDepth+2), "nested deeper than 32"},
		{"too large", `"a" {` + strings.Repeat(" ", MaxBytes) + "}", "larger than 1048576 bytes"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		if !errors.Is(err, errSyntax) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Parse = %v; want ErrSyntax saying %q", tt.name, err, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	entries, _ := os.ReadDir("testdata")
	for _, e := range entries {
		if data, err := os.ReadFile(filepath.Join("testdata", e.Name())); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := Parse(data)
		if err == nil && !root.Block() {
			t.Fatalf("Parse = a string root without an error")
		}
		if err != nil && !errors.Is(err, errSyntax) {
			t.Fatalf("Parse = %v; want ErrSyntax", err)
		}
	})
}
