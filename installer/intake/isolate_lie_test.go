package intake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// lyingChild is a child that unpacks as the real one does, then lies to
// the parent as mode says: about the sizes, the files, the links and the
// places of what it left in staging. target is a file outside staging
// (mode "symlink-dir": a folder) for the lies that point there.
func lyingChild(mode, target string) int {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		return 2
	}
	var req childRequest
	if err := json.Unmarshal(data, &req); err != nil {
		return 2
	}
	var out bytes.Buffer
	if code := RunChild(bytes.NewReader(data), &out); code != 0 {
		return code
	}
	var final *childMessage
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var m childMessage
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Final {
			final = &m
		}
	}
	if final == nil || len(final.Files) == 0 {
		fmt.Fprintln(os.Stderr, "lying child: the real child unpacked nothing")
		return 3
	}
	_, staging := req.paths()
	root := filepath.Join(staging, filepath.FromSlash(final.Root))
	replace := func(rel string, link func(old, new string) error) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.RemoveAll(p); err != nil {
			panic(err)
		}
		if err := link(target, p); err != nil {
			panic(err)
		}
	}
	switch mode {
	case "size":
		final.Files[0].Size++
	case "extra":
		if err := os.WriteFile(filepath.Join(root, "content", "unlisted.pak"), []byte("pak"), 0o644); err != nil {
			panic(err)
		}
	case "extra-outside-root":
		if err := os.WriteFile(filepath.Join(staging, "beside.pak"), []byte("pak"), 0o644); err != nil {
			panic(err)
		}
	case "missing":
		final.Files = append(final.Files, File{Path: "content/ghost.pak", Size: 3})
	case "unlisted":
		final.Files = final.Files[1:]
	case "twice":
		final.Files = append(final.Files, final.Files[0])
	case "symlink":
		replace("content/extra.pak", os.Symlink)
	case "symlink-dir":
		replace("content/maps", os.Symlink)
	case "hardlink":
		replace("content/extra.pak", os.Link)
	case "root-dotdot":
		final.Root = "../x"
	case "root-abs":
		final.Root = filepath.ToSlash(filepath.Dir(target))
	case "path-dotdot":
		final.Files[0].Path = "../" + final.Files[0].Path
	case "path-abs":
		final.Files[0].Path = filepath.ToSlash(target)
	case "flushed":
		// That it flushed the files it left to the parent to flush.
		final.SyncFS = false
	case "modes":
		// Not a lie: modes the files would be installed with.
		for i, m := range []os.FileMode{0o4755 | os.ModeSetuid, 0o600, 0o444, 0o777} {
			if err := os.Chmod(filepath.Join(root, filepath.FromSlash(final.Files[i%len(final.Files)].Path)), m); err != nil {
				panic(err)
			}
		}
	default:
		fmt.Fprintln(os.Stderr, "lying child: unknown mode", mode)
		return 3
	}
	if err := json.NewEncoder(os.Stdout).Encode(final); err != nil {
		return 1
	}
	return 0
}

// TestIsolationLyingChild: a child that lies about what it left in
// staging (wrong sizes, files not listed or listed but missing, links to
// outside, places outside staging) is caught by the parent's own checks:
// the archive is rejected by the unpacker-output rule with a value that
// says what was wrong, staging is emptied, and the file outside is intact.
// The child reports no hash of the archive: the parent hashes it itself.
func TestIsolationLyingChild(t *testing.T) {
	symlinks := runtime.GOOS != "windows" // symbolic links need a privilege there
	for _, tc := range []struct {
		mode, says string
		symlink    bool
	}{
		{mode: "size", says: "README.md holds 15 bytes, listed 16"},
		{mode: "extra", says: "content/unlisted.pak was not listed"},
		{mode: "extra-outside-root", says: "beside.pak was not listed"},
		{mode: "missing", says: "9 files listed, 8 found"},
		{mode: "unlisted", says: "README.md was not listed"},
		{mode: "twice", says: "README.md listed twice"},
		{mode: "symlink", says: "extra.pak is not a regular file", symlink: true},
		{mode: "symlink-dir", says: "maps is not a regular file", symlink: true},
		{mode: "hardlink", says: "content/extra.pak has 2 links"},
		{mode: "root-dotdot", says: `pack root "`},
		{mode: "root-abs", says: `pack root "`},
		{mode: "path-dotdot", says: "../README.md"},
		{mode: "path-abs", says: "outside.pak"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			if tc.symlink && !symlinks {
				t.Skip("symbolic links need a privilege on Windows")
			}
			outside := t.TempDir()
			target := filepath.Join(outside, "outside.pak")
			if err := os.WriteFile(target, []byte("pak"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.mode == "symlink-dir" {
				target = outside
			}
			isolateFor(t, &Isolation{Env: []string{envLie + "=" + tc.mode, envLieTarget + "=" + target}})
			iso := newIsolated(t)
			archive := writeArchive(t, "pack.zip", zipBytes(t, goodPack("")))
			st, err := testExtract(t.Context(), archive, iso.staging, DefaultLimits(), nil)
			var re *RejectError
			if !errors.As(err, &re) || len(re.Problems) != 1 || re.Problems[0].Rule != RuleUnpackerOutput ||
				!strings.Contains(re.Problems[0].Value, tc.says) {
				files := []File(nil)
				if st != nil {
					files = st.Files
				}
				t.Fatalf("Extract with a child lying (%s) = %v (files %v); want the rule %q saying %q", tc.mode, err, files, RuleUnpackerOutput, tc.says)
			}
			iso.verify(t, true)
			if data, err := os.ReadFile(filepath.Join(outside, "outside.pak")); err != nil || string(data) != "pak" {
				t.Fatalf("the file outside staging = %q, %v; want it intact", data, err)
			}
		})
	}
}

// TestIsolationChildModes: whatever modes a child gave the staged files (a
// setuid bit, private, read-only, executable), each is installed as 0644
// (on Windows: not read-only), as the parent sets them again.
func TestIsolationChildModes(t *testing.T) {
	isolateFor(t, &Isolation{Env: []string{envLie + "=modes", envLieTarget + "=" + t.TempDir()}})
	iso := newIsolated(t)
	archive := writeArchive(t, "pack.zip", zipBytes(t, goodPack("")))
	st, err := testExtract(t.Context(), archive, iso.staging, DefaultLimits(), nil)
	if err != nil {
		t.Fatalf("Extract with a child setting modes = %v; want the pack staged", err)
	}
	defer st.Remove()
	for _, f := range st.Files {
		fi, err := os.Lstat(filepath.Join(st.Root, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		if !installable(fi.Mode()) || runtime.GOOS != "windows" && fi.Mode() != 0o644 {
			t.Errorf("%s staged with mode %v; want %v", f.Path, fi.Mode(), os.FileMode(0o644))
		}
	}
}
