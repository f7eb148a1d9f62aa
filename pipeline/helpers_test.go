package pipeline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/inventory"
)

// env is a temp game install: drop, mods, paks and state folders.
type env struct {
	root, drop, mods, paks, state string
	keep                          int // generations kept; 0 is the default
}

func newEnv(t testing.TB) *env {
	t.Helper()
	root := t.TempDir()
	return envAt(root)
}

func envAt(root string) *env {
	return &env{root: root, drop: filepath.Join(root, "mods", "MJOLNIRForgePacks", "drop"),
		mods: filepath.Join(root, "mods"), paks: filepath.Join(root, "paks"), state: filepath.Join(root, "state")}
}

func (e *env) options() Options {
	return Options{Drop: e.drop, Mods: e.mods, Paks: e.paks, State: e.state, KeepGenerations: e.keep, Extractor: testExtractor.Load()}
}

func (e *env) open(t testing.TB) *Pipeline {
	t.Helper()
	p, _, err := Open(t.Context(), e.options())
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// inv reads an inventory file ("" when absent).
func (e *env) inv(name string) string {
	data, err := os.ReadFile(filepath.Join(InventoryDir(e.mods), name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		panic(fmt.Sprintf("read inventory file %s: %v", name, err))
	}
	return string(data)
}

// spec describes a generated pack.
type spec struct {
	id, version string
	doors       int
	lifts       int
	content     map[string]string // content/ files: name → data
	salt        string            // changes the bytes without changing the pack
	bad         bool              // a door too tall: invalid
	hold        string            // the doors' hold_open_s as written; "" is 2
	extra       map[string]string // other files of the archive, by path: what a Mac adds
}

func (s spec) manifest() string {
	var pieces []string
	hold := s.hold
	if hold == "" {
		hold = "2"
	}
	for i := range s.doors {
		travel := 4
		if s.bad && i == 0 {
			travel = 40
		}
		pieces = append(pieces, fmt.Sprintf(`{"id":"door_%d","kind":"panel","tag":"mjolnir\\forge\\%s\\door_%d","class":"/Game/MJOLNIR/Forge/%s/Panels/BP_Door%d.BP_Door%d_C","dimensions_m":[4,0.5,4],"door":{"travel_m":%d,"speed_m_s":4,"trigger_size_m":[8,16,6],"hold_open_s":%s}}`, i, s.id, i, s.id, i, i, travel, hold))
	}
	for i := range s.lifts {
		pieces = append(pieces, fmt.Sprintf(`{"id":"lift_%d","kind":"block","tag":"mjolnir\\forge\\%s\\lift_%d","class":"/Game/MJOLNIR/Forge/%s/Blocks/BP_Lift%02d.BP_Lift%02d_C","dimensions_m":[4,4,0.5],"lift":{"offset_m":[0,0,0.45],"size_m":[4,4,3.5],"direction":[0,0,1],"acceleration_m_s2":20,"max_speed_m_s":4.5,"negates_gravity":true}}`, i, s.id, i, s.id, i, i))
	}
	if len(pieces) == 0 {
		pieces = append(pieces, fmt.Sprintf(`{"id":"deck","kind":"block","tag":"mjolnir\\forge\\%s\\deck","class":"/Game/MJOLNIR/Forge/%s/Blocks/BP_Deck.BP_Deck_C","dimensions_m":[2,2,0.5]}`, s.id, s.id))
	}
	desc := ""
	if s.salt != "" {
		desc = fmt.Sprintf(`"description":%q,`, s.salt)
	}
	return fmt.Sprintf(`{"schema":1,"id":%q,"version":%q,"name":"Pack %s","authors":["Tester"],%s"pieces":[%s]}`,
		s.id, s.version, s.id, desc, strings.Join(pieces, ","))
}

// zip writes the pack as a zip archive at path, with the packer's writer.
func (s spec) zip(t testing.TB, path string) {
	t.Helper()
	dir := t.TempDir()
	files := []intake.File{}
	write := func(rel, data string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, intake.File{Path: rel, Size: int64(len(data))})
	}
	write(inventory.ManifestName, s.manifest())
	for name, data := range s.content {
		write("content/"+name, data)
	}
	for name, data := range s.extra {
		write(name, data)
	}
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, os.DirFS(dir), files); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// drop writes the pack into the drop folder as name.
func (e *env) dropPack(t testing.TB, name string, s spec) {
	t.Helper()
	s.zip(t, filepath.Join(e.drop, name))
}

func results(sum *Summary) map[string]Result {
	out := map[string]Result{}
	for _, o := range sum.Outcomes {
		out[o.Archive] = o.Result
	}
	return out
}

// listFiles returns the regular files under dir as slash paths.
func listFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("list %s: %v", dir, err)
	}
	return out
}
