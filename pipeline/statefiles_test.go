package pipeline

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/installer/store"
)

// TestDamagedStateFiles damages, one at a time, every file of the state
// folder a sync reads (null, {}, [], garbage, a truncated copy of a real
// one) and checks the documented rule of each: nothing panics, an advisory
// file (attempts.json, rejections.json) is set aside or started over and
// the sync goes on, and the state itself (packs.json, a stored manifest) is
// refused with the safe step, the error naming the file.
func TestDamagedStateFiles(t *testing.T) {
	skipUnderRace(t)
	damages := []struct {
		name string
		data func(real []byte) []byte
	}{
		{"null", func([]byte) []byte { return []byte("null") }},
		{"empty object", func([]byte) []byte { return []byte("{}") }},
		{"empty array", func([]byte) []byte { return []byte("[]") }},
		{"garbage", func([]byte) []byte { return []byte("\x00\xffnot json at all\n") }},
		{"truncated", func(real []byte) []byte { return real[:len(real)/2] }},
		{"empty", func([]byte) []byte { return nil }},
		{"folder", nil}, // a folder in its place
	}
	type outcome int
	const (
		tolerated outcome = iota // Open and a sync work; the pack installs
		refused                  // Open refuses with the safe step
	)
	files := []struct {
		name string
		// path returns the file to damage in a state folder holding one
		// installed pack, one rejected archive and attempt counts.
		path func(e *env) string
		want outcome
		// okDamage lists damages the file reads as valid content.
		okDamage []string
	}{
		{name: "packs.json", path: func(e *env) string { return filepath.Join(e.state, store.StateFileName) }, want: refused},
		{name: "manifest", path: func(e *env) string {
			return filepath.Join(e.state, store.ManifestsDir, listFiles(t, filepath.Join(e.state, store.ManifestsDir))[0])
		}, want: refused},
		{name: "attempts.json", path: func(e *env) string { return filepath.Join(e.state, attemptsFile) }, want: tolerated,
			okDamage: []string{"empty object"}},
		{name: "rejections.json", path: func(e *env) string { return filepath.Join(e.state, rejectionsFile) }, want: tolerated},
	}
	for _, f := range files {
		for _, d := range damages {
			t.Run(f.name+"/"+d.name, func(t *testing.T) {
				e := newEnv(t)
				now := time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)
				opts := e.options()
				opts.Now = func() time.Time { return now }
				var logs bytes.Buffer
				opts.Log = slog.New(slog.NewTextHandler(&logs, nil))
				p, _, err := Open(t.Context(), opts)
				if err != nil {
					t.Fatal(err)
				}
				e.dropPack(t, "good.zip", spec{id: "good-pack", version: "1.0.0", doors: 1})
				e.dropPack(t, "bad.zip", spec{id: "bad-pack", version: "1.0.0", doors: 1, bad: true})
				mustSync(t, p, map[string]Result{"good.zip": ResultInstalled, "bad.zip": ResultRejected})
				// A real attempt count, as a try that died leaves it.
				if err := p.saveAttempts(attempts{"late.zip": {Count: 2, Last: "the program stopped"}}); err != nil {
					t.Fatal(err)
				}
				p.Close()

				path := f.path(e)
				real, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if d.data == nil {
					if err := os.Remove(path); err != nil {
						t.Fatal(err)
					}
					if err := os.Mkdir(path, 0o700); err != nil {
						t.Fatal(err)
					}
				} else if err := os.WriteFile(path, d.data(real), 0o600); err != nil {
					t.Fatal(err)
				}

				var sum *Summary
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s %s: panic %v", f.name, d.name, r)
						}
					}()
					e.dropPack(t, "next.zip", spec{id: "next-pack", version: "1.0.0", doors: 1})
					p, _, err = Open(t.Context(), opts)
					if err == nil {
						defer p.Close()
						sum, err = p.SyncDrop(t.Context())
					}
				}()
				switch f.want {
				case refused:
					if !errors.Is(err, store.ErrStateRefused) || !strings.Contains(err.Error(), path) && !strings.Contains(err.Error(), filepath.Base(path)) ||
						!strings.Contains(err.Error(), "rename "+filepath.Join(e.state, store.StateFileName)+" to packs.json.damaged") {
						t.Fatalf("Open with %s %s = %v; want a refusal naming the file and the safe step", f.name, d.name, err)
					}
					// The step named brings the pack back.
					statePath := filepath.Join(e.state, store.StateFileName)
					if err := os.Rename(statePath, statePath+".damaged"); err != nil {
						t.Fatal(err)
					}
					p := e.open(t)
					if _, err := p.SyncDrop(t.Context()); err != nil {
						t.Fatalf("Sync after the safe step = %v", err)
					}
					if inv := e.inv("installed.txt"); !strings.Contains(inv, "good-pack") || !strings.Contains(inv, "next-pack") {
						t.Fatalf("after the safe step, installed.txt = %q; want good-pack and next-pack", inv)
					}
					p.Close()
					if _, _, err := Open(t.Context(), opts); err != nil {
						t.Fatalf("Open after the safe step = %v; want the state whole again", err)
					}
				case tolerated:
					if err != nil {
						t.Fatalf("Open and Sync with %s %s = %v; want them to work", f.name, d.name, err)
					}
					if got := results(sum)["next.zip"]; got != ResultInstalled {
						t.Fatalf("Sync with %s %s: next.zip %v; want installed", f.name, d.name, got)
					}
					if f.name == attemptsFile && !contains(f.okDamage, d.name) {
						aside := path + ".bad-" + now.Format(badTimeFormat)
						if d.data == nil {
							if info, err := os.Stat(aside); err != nil || !info.IsDir() {
								t.Fatalf("damaged %s %s: set aside as %s: %v; want the folder there", f.name, d.name, aside, err)
							}
						} else if got, err := os.ReadFile(aside); err != nil || string(got) != string(d.data(real)) {
							t.Fatalf("damaged %s %s: set aside as %s = %q, %v; want the damaged bytes", f.name, d.name, aside, got, err)
						}
						if !strings.Contains(logs.String(), aside) {
							t.Fatalf("damaged %s %s: log %q; want a warning naming %s", f.name, d.name, logs.String(), aside)
						}
					}
				}
			})
		}
	}
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
