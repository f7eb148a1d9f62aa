package machine

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/native"
)

// SetupRecordName is the file in the state folder where `forgesync setup`
// records what it made, for `setup --undo`.
const SetupRecordName = "setup.json"

// SetupOptions are a player's answers to `forgesync setup`.
type SetupOptions struct {
	// Mods, Paks and State are the game's UE4SS Mods folder, its Paks
	// folder and forgesync's state folder. Mods and Paks must exist; State
	// is made when missing.
	Mods, Paks, State string
	// Env says where the config goes: the user's file, or the machine's
	// when Env.Machine is set (SPEC §1 discovery finds either).
	Env config.Env
}

// setupRecord is what setup made, in <state>/setup.json: the config file
// with the SHA-256 of the bytes it wrote, and the folders it created, in
// the order it created them.
type setupRecord struct {
	Config string   `json:"config"`
	SHA256 string   `json:"sha256"`
	Made   []string `json:"made"`
}

// ConfigFile returns the file setup writes for env: the machine's file
// when env.Machine is set, else the user's.
func ConfigFile(env config.Env) string {
	if env.Machine {
		return env.MachineFile()
	}
	return env.UserFile()
}

// Setup checks the game folders of o, writes the config where discovery
// finds it and makes the folders the daemon needs, naming on out every
// file it wrote and every folder it made. Run again with the same answers
// it changes nothing and says so. It refuses a config file it did not
// write (or that was changed since), and bad folders, with the reason and
// the fix.
func Setup(o SetupOptions, out io.Writer) error {
	if err := checkSetupFolders(&o); err != nil {
		return err
	}
	file := ConfigFile(o.Env)
	if file == "" {
		return errors.New("setup: this account has no config folder (neither %APPDATA% nor a home folder is set): run setup with --machine, or set one")
	}
	text := SetupConfig(o.Mods, o.Paks, o.State)
	if err := reportMods(o.Mods, out); err != nil {
		return err
	}
	cfg, err := config.ParseEnv(file, text, o.Env)
	if err != nil {
		return fmt.Errorf("setup: the config it would write does not parse: %w", err)
	}
	recordPath := filepath.Join(o.State, SetupRecordName)
	old, err := atomicfile.ReadFile(file, config.MaxConfigBytes)
	switch {
	case err == nil && bytes.Equal(old, text):
		if _, err := os.Stat(cfg.Paths.Drop); err == nil {
			_, err = fmt.Fprintf(out, "nothing to change: %s already says this\ndrop packs into %s\n", file, cfg.Paths.Drop)
			return err
		}
	case !errors.Is(err, fs.ErrNotExist) && err != nil:
		return fmt.Errorf("setup: read %s: %w", file, err)
	}
	rec := setupRecord{Config: file}
	staleRecord := "" // the record of the config being replaced, in another state folder
	if err == nil && !bytes.Equal(old, text) {
		// The config says something else: setup rewrites it only when its
		// record, in the state folder that config names, says setup wrote
		// exactly these bytes; the record moves to the new state folder.
		oldRecord := ""
		if oldCfg, perr := config.ParseEnv(file, old, o.Env); perr == nil {
			oldRecord = filepath.Join(oldCfg.Paths.State, SetupRecordName)
		}
		prev, rerr := readSetupRecord(oldRecord)
		if oldRecord == "" || rerr != nil || prev.Config != file || prev.SHA256 != hash(old) {
			return fmt.Errorf("setup: %s already exists and says something else, and setup did not write it: edit it by hand, or move it away and run setup again", file)
		}
		rec.Made = prev.Made
		if oldRecord != recordPath {
			staleRecord = oldRecord
		}
	} else if prev, rerr := readSetupRecord(recordPath); rerr == nil && prev.Config == file {
		rec.Made = prev.Made
	}
	for _, dir := range []string{filepath.Dir(file), o.State, filepath.Dir(cfg.Paths.Drop), cfg.Paths.Drop} {
		perm := os.FileMode(0o755)
		if dir == o.State {
			perm = 0o700 // the daemon keeps its key and socket there
		}
		made, err := mkdirAllMade(dir, perm)
		if err != nil {
			return fmt.Errorf("setup: make folder %s: %w", dir, err)
		}
		for _, m := range made {
			rec.Made = append(rec.Made, m)
			if _, err := fmt.Fprintf(out, "made folder %s\n", m); err != nil {
				return err
			}
		}
	}
	rec.SHA256 = hash(text)
	if !bytes.Equal(old, text) {
		if err := writeFileAtomic(file, text); err != nil {
			return fmt.Errorf("setup: write %s: %w", file, err)
		}
		if _, err := fmt.Fprintf(out, "wrote %s\n", file); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(recordPath, append(data, '\n')); err != nil {
		return fmt.Errorf("setup: write %s: %w", recordPath, err)
	}
	if staleRecord != "" {
		if err := os.Remove(staleRecord); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
		if _, err := fmt.Fprintf(out, "removed %s\n", staleRecord); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(out, "wrote %s (what setup made, for `forgesync setup --undo`)\ndrop packs into %s\n", recordPath, cfg.Paths.Drop)
	return err
}

// SetupUndo removes what [Setup] made for env, as its record in the state
// folder of the config says: the config file when it still holds the
// bytes setup wrote, the record, and the folders setup made that are
// empty. It never removes a pack or any file setup did not write.
func SetupUndo(env config.Env, out io.Writer) error {
	file := ConfigFile(env)
	data, err := atomicfile.ReadFile(file, config.MaxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		_, err = fmt.Fprintf(out, "nothing to undo: there is no %s\n", file)
		return err
	}
	if err != nil {
		return fmt.Errorf("setup --undo: read %s: %w", file, err)
	}
	cfg, err := config.ParseEnv(file, data, env)
	if err != nil {
		return fmt.Errorf("setup --undo: %w", err)
	}
	recordPath := filepath.Join(cfg.Paths.State, SetupRecordName)
	rec, err := readSetupRecord(recordPath)
	if errors.Is(err, fs.ErrNotExist) || err == nil && rec.Config != file {
		return fmt.Errorf("setup --undo: %s has no record of %s (%s), so setup did not write it: remove it by hand if you want it gone", cfg.Paths.State, file, recordPath)
	}
	if err != nil {
		return fmt.Errorf("setup --undo: %w", err)
	}
	if hash(data) == rec.SHA256 {
		if err := os.Remove(file); err != nil {
			return fmt.Errorf("setup --undo: %w", err)
		}
		fmt.Fprintf(out, "removed %s\n", file)
	} else {
		fmt.Fprintf(out, "kept %s: it was changed after setup wrote it\n", file)
	}
	if err := os.Remove(recordPath); err != nil {
		return fmt.Errorf("setup --undo: %w", err)
	}
	fmt.Fprintf(out, "removed %s\n", recordPath)
	for i := len(rec.Made) - 1; i >= 0; i-- {
		dir := rec.Made[i]
		switch err := os.Remove(dir); {
		case err == nil:
			fmt.Fprintf(out, "removed folder %s\n", dir)
		case errors.Is(err, fs.ErrNotExist):
		default:
			if _, serr := os.Stat(dir); serr == nil {
				fmt.Fprintf(out, "kept folder %s: it is not empty\n", dir)
			}
		}
	}
	return nil
}

// SetupConfig returns the config setup writes for the three folders.
func SetupConfig(mods, paks, state string) []byte {
	var b strings.Builder
	b.WriteString("# Written by `forgesync setup`; `forgesync setup --undo` removes it.\n")
	b.WriteString("# Every key and its default: see \"Getting started\" in the README.\n")
	b.WriteString("[paths]\n")
	fmt.Fprintf(&b, "mods = %s\npaks = %s\nstate = %s\n", tomlString(mods), tomlString(paks), tomlString(state))
	return []byte(b.String())
}

// tomlString quotes s for TOML: a literal string when it can be one, so a
// Windows path keeps its backslashes as they are.
func tomlString(s string) string {
	if !strings.ContainsAny(s, "'\n\r") {
		return "'" + s + "'"
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`)
	return `"` + r.Replace(s) + `"`
}

// checkSetupFolders makes the folders of o absolute and checks them: Mods
// and Paks exist, are folders and writable, State is a folder or missing,
// and none is inside another.
func checkSetupFolders(o *SetupOptions) error {
	example := map[string]string{
		"mods":  `the game's UE4SS Mods folder, e.g. ...\Binaries\Win64\Mods (or .../Binaries/Win64/ue4ss/Mods)`,
		"paks":  `the game's Paks folder, e.g. ...\Content\Paks`,
		"state": `a folder of forgesync's own, e.g. ` + o.Env.UserStateDir(),
	}
	dirs := []struct {
		flag string
		path *string
	}{{"mods", &o.Mods}, {"paks", &o.Paks}, {"state", &o.State}}
	for _, d := range dirs {
		if *d.path == "" {
			return fmt.Errorf("--%s: no folder given; give %s", d.flag, example[d.flag])
		}
		abs, err := filepath.Abs(*d.path)
		if err != nil {
			return fmt.Errorf("--%s %s: %w", d.flag, *d.path, err)
		}
		*d.path = abs
		fi, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist) && d.flag == "state":
			continue
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("--%s %s: no such folder; give %s", d.flag, abs, example[d.flag])
		case err != nil:
			return fmt.Errorf("--%s %s: %w", d.flag, abs, err)
		case !fi.IsDir():
			return fmt.Errorf("--%s %s: a file, not a folder; give %s", d.flag, abs, example[d.flag])
		}
		if err := checkWritable(abs); err != nil {
			return fmt.Errorf("--%s %s: not writable (%v); give a folder you can write to, or run setup as its owner", d.flag, abs, err)
		}
	}
	for i, a := range dirs {
		for j, b := range dirs {
			if i != j && inside(*a.path, *b.path) {
				return fmt.Errorf("--%s %s is inside --%s %s; give folders that are not inside each other", a.flag, *a.path, b.flag, *b.path)
			}
		}
	}
	return nil
}

// inside reports whether path is dir or a folder below it.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// checkWritable creates and removes a file in dir.
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".forgesync-setup-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// reportMods names the MJOLNIR mods found under mods with their versions,
// as <mods>/<Mod>/version.txt says.
func reportMods(mods string, out io.Writer) error {
	for _, m := range native.CheckGatesDir(mods).Mods {
		var err error
		switch m.State {
		case native.ModOK:
			_, err = fmt.Fprintf(out, "found %s %s\n", m.Mod, m.Version)
		case native.ModMissing:
			_, err = fmt.Fprintf(out, "not found: %s (no %s); packs install, but it is needed in game\n", m.Mod, filepath.Join(mods, m.Mod, "version.txt"))
		default:
			_, err = fmt.Fprintf(out, "found %s %s: %s (%s)\n", m.Mod, m.Version, m.State, m.Reason)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mkdirAllMade makes dir and its missing parents and returns the folders
// it made, outermost first.
func mkdirAllMade(dir string, perm os.FileMode) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return nil, err
	}
	for i, j := 0, len(missing)-1; i < j; i, j = i+1, j-1 {
		missing[i], missing[j] = missing[j], missing[i]
	}
	return missing, nil
}

func readSetupRecord(path string) (setupRecord, error) {
	var rec setupRecord
	data, err := atomicfile.ReadFile(path, config.MaxConfigBytes)
	if err != nil {
		return rec, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return rec, fmt.Errorf("read %s: %w", path, err)
	}
	return rec, nil
}

// writeFileAtomic writes data to path through a temp file in its folder.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".forgesync-setup-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

func hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// SetupAsk fills in the folders o lacks: on a terminal it asks for each on
// out and reads the answer from in (an empty answer takes the shown
// default, when there is one); without a terminal it never prompts and
// names the first missing flag.
func SetupAsk(o *SetupOptions, in io.Reader, out io.Writer, terminal bool) error {
	questions := []struct {
		flag, question, def string
		path                *string
	}{
		{"mods", `the game's UE4SS Mods folder (e.g. ...\Binaries\Win64\Mods)`, "", &o.Mods},
		{"paks", `the game's Paks folder (e.g. ...\Content\Paks)`, "", &o.Paks},
		{"state", "forgesync's own folder, for its state and logs", o.Env.UserStateDir(), &o.State},
	}
	if o.Env.Machine {
		questions[2].def = o.Env.MachineStateDir()
	}
	var lines *bufio.Scanner
	for _, q := range questions {
		if *q.path != "" {
			continue
		}
		if !terminal {
			return fmt.Errorf("--%s: not given, and there is no terminal to ask on; pass --%s DIR (%s)", q.flag, q.flag, q.question)
		}
		if lines == nil {
			lines = bufio.NewScanner(in)
		}
		for *q.path == "" {
			if q.def != "" {
				fmt.Fprintf(out, "%s [%s]: ", q.question, q.def)
			} else {
				fmt.Fprintf(out, "%s: ", q.question)
			}
			if !lines.Scan() {
				if err := lines.Err(); err != nil {
					return fmt.Errorf("setup: read the answer for --%s: %w", q.flag, err)
				}
				return fmt.Errorf("--%s: no answer (the input ended); pass --%s DIR", q.flag, q.flag)
			}
			*q.path = strings.Trim(strings.TrimSpace(lines.Text()), `"`)
			if *q.path == "" {
				*q.path = q.def
			}
		}
	}
	return nil
}
