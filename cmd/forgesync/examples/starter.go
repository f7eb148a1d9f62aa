package examples

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/inventory"
)

//go:embed starter/*.tmpl
var starterFS embed.FS

// starterFiles are the files of a new pack, in the order init writes and
// names them: the template under starter/ and the slash path in the pack
// folder. Dot-files are templates without the dot, which embed would skip.
var starterFiles = []struct{ tmpl, path string }{
	{"forgepack.json.tmpl", inventory.ManifestName},
	{"README.md.tmpl", "README.md"},
	{"gitignore.tmpl", ".gitignore"},
	{"forgeignore.tmpl", ".forgeignore"},
	{"forgesync.yml.tmpl", ".github/workflows/forgesync.yml"},
}

// starter returns the files of a new pack with id packID, as `forgesync
// init` writes them, by slash path: a manifest that names its JSON Schema
// (schemaURL) and passes `forgesync scan` as written, a README saying what
// goes where, a .gitignore and a .forgeignore for builds and previews, and
// a GitHub Actions workflow that scans the pack with the forgesync release
// release ("latest", or a version like 1.4.0). The folder content/, for the
// cooked containers, is the caller's to make. packID must already be a
// valid pack slug.
func starter(packID, schemaURL, release string) map[string][]byte {
	r := strings.NewReplacer("{{ID}}", packID, "{{NAME}}", displayName(packID), "{{SCHEMA}}", schemaURL, "{{VERSION}}", release)
	out := map[string][]byte{}
	for _, f := range starterFiles {
		tmpl, err := starterFS.ReadFile("starter/" + f.tmpl)
		if err != nil {
			panic("examples: starter template missing: " + err.Error()) // embedded at build time
		}
		out[f.path] = []byte(r.Replace(string(tmpl)))
	}
	return out
}

// displayName turns a slug into words: "foundry-wide" is "Foundry Wide".
func displayName(slug string) string {
	words := strings.Split(slug, "-")
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// idRule is the pack id rule in words, for the errors that name it.
const idRule = "must be 3–48 bytes of [a-z0-9] with single '-' between them"

// idFromName derives a pack id from a folder's name the way a person
// would: lower case, accents dropped, every run of other characters one
// '-', none at either end, cut to 48 bytes ("Neon Halls" is "neon-halls",
// "Café_Lifts" is "cafe-lifts"). The result may still be no pack id (too
// short, or nothing left); [inventory.IsPackID] says.
func idFromName(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue // a combining accent: é is e
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		default:
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteRune(r)
	}
	id := b.String()
	if len(id) > 48 {
		id = strings.TrimRight(id[:48], "-")
	}
	return id
}

// packID returns the id init gives the pack in dir: id when given (it must
// be a pack id as typed), else one derived from the folder's name.
func packID(dir, id string) (string, error) {
	if id != "" {
		if !inventory.IsPackID(id) {
			return "", fmt.Errorf("pack id %q: %s (pass another --id)", id, idRule)
		}
		return id, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	name := filepath.Base(abs)
	id = idFromName(name)
	if !inventory.IsPackID(id) {
		return "", fmt.Errorf("pack id %q (from the folder's name %q): %s (rename the folder, or pass --id)", id, name, idRule)
	}
	return id, nil
}

// Started is what [Init] did: the pack id, the files (and content/) it
// wrote, and the files it found and left as they were, as slash paths in
// the pack folder.
type Started struct {
	ID      string
	Written []string
	Kept    []string
}

// Init starts a pack in dir (see starter): dir must be absent, empty, or
// hold nothing but dot-files and dot-folders (a fresh git repository:
// .git, .gitignore, .github/) and the files an OS adds (desktop.ini). The pack id is id, else derived from the
// folder's name (idFromName); release is the forgesync version the
// workflow installs. Init never overwrites a file: one that exists is
// kept, and Started says so. When a write fails, what Init made is
// removed again.
func Init(dir, id, schemaURL, release string) (*Started, error) {
	id, err := packID(dir, id)
	if err != nil {
		return nil, err
	}
	if err := startable(dir); err != nil {
		return nil, err
	}
	var made []string // paths on disk Init created, to remove on failure
	undo := func(err error) (*Started, error) {
		for i := len(made) - 1; i >= 0; i-- {
			os.Remove(made[i]) // only what this call created; a folder others filled stays
		}
		return nil, err
	}
	made, err = mkdirs(made, dir, filepath.Join(dir, "content"))
	if err != nil {
		return undo(err)
	}
	st := &Started{ID: id}
	files := starter(id, schemaURL, release)
	for _, f := range starterFiles {
		path := filepath.Join(dir, filepath.FromSlash(f.path))
		if made, err = mkdirs(made, filepath.Dir(path)); err != nil {
			return undo(err)
		}
		created, err := writeNew(path, files[f.path])
		if err != nil {
			return undo(err)
		}
		if !created {
			st.Kept = append(st.Kept, f.path)
			continue
		}
		made = append(made, path)
		st.Written = append(st.Written, f.path)
		if f.path == "README.md" {
			st.Written = append(st.Written, "content/") // named where the README says what it holds
		}
	}
	return st, nil
}

// startable reports, as an error, why init may not start a pack in dir:
// it holds an entry that is not a dot-file.
func startable(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && !osAdded(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil
	}
	list := strings.Join(names[:min(len(names), 3)], ", ")
	if len(names) > 3 {
		list += fmt.Sprintf(" and %d more", len(names)-3)
	}
	return fmt.Errorf("%s: holds %s; init starts a pack only in a new or empty folder, or one holding nothing but dot-files such as .git", dir, list)
}

// osAdded reports whether name is one of the files a Mac or Windows adds
// to a folder (intake.OSAdded, such as desktop.ini), in any case: they are
// no author's content, and scan and pack leave them out.
func osAdded(name string) bool {
	for _, a := range intake.OSAdded {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), name) {
			return true
		}
	}
	return false
}

// mkdirs makes each folder that is missing, parents first, and returns
// made with the folders it created.
func mkdirs(made []string, dirs ...string) ([]string, error) {
	for _, d := range dirs {
		var missing []string
		for p := d; ; p = filepath.Dir(p) {
			if _, err := os.Lstat(p); err == nil || filepath.Dir(p) == p {
				break
			}
			missing = append(missing, p)
		}
		for i := len(missing) - 1; i >= 0; i-- {
			if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, os.ErrExist) {
				return made, err
			} else if err == nil {
				made = append(made, missing[i])
			}
		}
	}
	return made, nil
}

// writeNew writes data to path only when no file has that name (in any
// case, where the file system ignores case), and reports whether it did.
// The file is created exclusively, so a file that appears meanwhile is
// never overwritten; a failed write removes what it created.
func writeNew(path string, data []byte) (bool, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = f.Write(data)
	if err == nil {
		err = atomicfile.Fsync(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, nil
}
