package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// TestInitFreshGitRepository: `init .` in a fresh git repository (only
// .git and the author's .gitignore) starts the pack there, takes the id
// from the folder's name, keeps the .gitignore and says so; the preview
// SVG a session leaves in the folder stays out of the pack; the repository
// commits and packs; and a second init is refused and changes nothing.
func TestInitFreshGitRepository(t *testing.T) {
	gitPath := toolcheck.Need(t, "git")[0]
	repo := filepath.Join(t.TempDir(), "Neon Halls")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, gitPath, repo, "init", "-q")
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("build/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	code, out, errs := runCLI(t, "init", ".")
	want := ".: new pack neon-halls (forgepack.json, README.md, content/, .forgeignore, .github/workflows/forgesync.yml)\n" +
		".: kept .gitignore as it was (init never overwrites a file)\n" +
		"next: forgesync scan ., then forgesync pack .\n"
	if code != cli.ExitOK || out != want {
		t.Fatalf("init . = %d\n%s%s\nwant 0 and\n%s", code, out, errs, want)
	}
	if data, _ := os.ReadFile(".gitignore"); string(data) != "build/\n" {
		t.Fatalf(".gitignore = %q; want the author's, kept", data)
	}
	if data, _ := os.ReadFile("forgepack.json"); !strings.Contains(string(data), `"id": "neon-halls"`) {
		t.Fatalf("forgepack.json has no id from the folder's name:\n%s", data)
	}
	runLine(t, "forgesync lift-preview . lift_pad --svg lift.svg")
	runLine(t, "forgesync scan .")
	git(t, gitPath, repo, "add", ".")
	git(t, gitPath, repo, "commit", "-q", "-m", "neon halls")
	runLine(t, "forgesync pack . -o ../neon.zip")
	zr, err := zip.OpenReader("../neon.zip")
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "README.md forgepack.json" {
		t.Fatalf("zip holds %s; want README.md forgepack.json", got)
	}

	before, _ := os.ReadFile("forgepack.json")
	code, _, errs = runCLI(t, "init", ".")
	if want := "forgesync init: .: holds README.md, content, forgepack.json and 1 more; init starts a pack only in a new or empty folder, or one holding nothing but dot-files such as .git\n"; code != cli.ExitFailure || errs != want {
		t.Fatalf("init . again = %d, %q; want 2, %q", code, errs, want)
	}
	if after, _ := os.ReadFile("forgepack.json"); !bytes.Equal(before, after) {
		t.Fatal("a refused init changed forgepack.json")
	}
}

// workflow is the part of a GitHub Actions workflow the tests read.
type workflow struct {
	On   []string `yaml:"on"`
	Jobs map[string]struct {
		RunsOn string            `yaml:"runs-on"`
		Env    map[string]string `yaml:"env"`
		Steps  []struct {
			Name string `yaml:"name"`
			Uses string `yaml:"uses"`
			Run  string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// releaseArchive is a Linux release archive holding this test binary's
// forgesync and a README, as make release lays it out.
func releaseArchive(t *testing.T) []byte {
	t.Helper()
	exe, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	var tgz bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&tgz, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		data []byte
	}{{"README.md", []byte("forgesync\n")}, {"forgesync", exe}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o755, Size: int64(len(f.data))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return tgz.Bytes()
}

// releaseServer serves the release tgz of version as GitHub does, under
// /releases: /latest redirects to the tag's page, /download/vV/ holds the
// Linux archive and SHA256SUMS. sums replaces the SHA256SUMS when not nil.
// It counts requests for /latest.
func releaseServer(t *testing.T, version string, tgz, sums []byte) (url string, latest *atomic.Int32) {
	t.Helper()
	archive := "forgesync_" + version + "_linux_amd64.tar.gz"
	if sums == nil {
		h := sha256.Sum256(tgz)
		sums = []byte("0000000000000000000000000000000000000000000000000000000000000000  forgesync_" + version + "_amd64.deb\n" +
			hex.EncodeToString(h[:]) + "  " + archive + "\n")
	}
	latest = new(atomic.Int32)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /releases/latest", func(w http.ResponseWriter, r *http.Request) {
		latest.Add(1)
		http.Redirect(w, r, "/releases/tag/v"+version, http.StatusFound)
	})
	mux.HandleFunc("GET /releases/tag/v"+version, func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("GET /releases/download/v"+version+"/"+archive, func(w http.ResponseWriter, r *http.Request) { w.Write(tgz) })
	mux.HandleFunc("GET /releases/download/v"+version+"/SHA256SUMS", func(w http.ResponseWriter, r *http.Request) { w.Write(sums) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/releases", latest
}

// runStep runs a workflow step's script with bash in dir, as a runner
// does: the job's env, RUNNER_TEMP and GITHUB_PATH set, and the folders
// earlier steps added to GITHUB_PATH first on PATH.
func runStep(t *testing.T, bash, dir, script string, env map[string]string, runner string) (string, error) {
	t.Helper()
	cmd := exec.Command(bash, "-e", "-c", script)
	cmd.Dir = dir
	path := os.Getenv("PATH")
	if added, err := os.ReadFile(filepath.Join(runner, "github_path")); err == nil {
		for _, p := range strings.Fields(string(added)) {
			path = p + string(os.PathListSeparator) + path
		}
	}
	cmd.Env = append(os.Environ(), "PATH="+path, "RUNNER_TEMP="+filepath.Join(runner, "temp"), "GITHUB_PATH="+filepath.Join(runner, "github_path"))
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestInitWorkflow: the workflow init writes is a valid GitHub Actions
// workflow for pushes and pull requests that needs no Go; its install
// step, run by bash against a release server, finds the latest release,
// checks the archive against SHA256SUMS, puts forgesync on the path, and
// the scan step then marks the valid pack with a notice. A pinned version
// is taken as written, and an archive that does not match SHA256SUMS
// stops the job before anything is installed.
func TestInitWorkflow(t *testing.T) {
	tools := toolcheck.Need(t, "bash", "curl", "sha256sum", "tar")
	t.Chdir(t.TempDir())
	runLine(t, "forgesync init neon-halls")
	data, err := os.ReadFile(filepath.Join("neon-halls", ".github", "workflows", "forgesync.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("forgesync.yml is not YAML: %v\n%s", err, data)
	}
	job, ok := wf.Jobs["scan"]
	if !slices.Contains(wf.On, "push") || !slices.Contains(wf.On, "pull_request") || !ok || job.RunsOn != "ubuntu-latest" || len(job.Steps) != 3 {
		t.Fatalf("workflow = %+v; want a scan job on ubuntu-latest for push and pull_request, 3 steps", wf)
	}
	if strings.Contains(string(data), "setup-go") || strings.Contains(string(data), "go install") {
		t.Fatalf("the workflow needs Go:\n%s", data)
	}
	if job.Steps[0].Uses != "actions/checkout@v4" || job.Steps[2].Run != "forgesync scan --format github .\n" && job.Steps[2].Run != "forgesync scan --format github ." {
		t.Fatalf("steps = %+v; want checkout, install, scan --format github", job.Steps)
	}
	if job.Env["FORGESYNC_VERSION"] != "latest" || job.Env["FORGESYNC_RELEASES"] != "https://github.com/mjolnir-forge/forgesync/releases" {
		t.Fatalf("env = %v; a development build installs the latest release from GitHub", job.Env)
	}
	install, scan := job.Steps[1].Run, job.Steps[2].Run
	tgz := releaseArchive(t)
	pack, err := filepath.Abs("neon-halls")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("latest", func(t *testing.T) {
		url, latest := releaseServer(t, "9.8.7", tgz, nil)
		runner := t.TempDir()
		env := map[string]string{"FORGESYNC_VERSION": job.Env["FORGESYNC_VERSION"], "FORGESYNC_RELEASES": url}
		if out, err := runStep(t, tools[0], pack, install, env, runner); err != nil || latest.Load() != 1 {
			t.Fatalf("install step: %v, %d asks for the latest\n%s", err, latest.Load(), out)
		}
		out, err := runStep(t, tools[0], pack, scan, env, runner)
		if want := "::notice file=forgepack.json,title=forgesync::neon-halls 0.1.0: valid (2 pieces, 1 lift, 1 door, 0 surface packages)\n"; err != nil || out != want {
			t.Fatalf("scan step: %v\n%s\nwant %q", err, out, want)
		}
	})
	t.Run("pinned", func(t *testing.T) {
		url, latest := releaseServer(t, "9.8.7", tgz, nil)
		runner := t.TempDir()
		env := map[string]string{"FORGESYNC_VERSION": "9.8.7", "FORGESYNC_RELEASES": url}
		if out, err := runStep(t, tools[0], pack, install, env, runner); err != nil || latest.Load() != 0 {
			t.Fatalf("install step: %v, %d asks for the latest; want none\n%s", err, latest.Load(), out)
		}
		if _, err := os.Stat(filepath.Join(runner, "temp", "forgesync", "forgesync")); err != nil {
			t.Fatalf("forgesync not installed: %v", err)
		}
	})
	t.Run("tampered", func(t *testing.T) {
		sums := []byte(strings.Repeat("ab", 32) + "  forgesync_9.8.7_linux_amd64.tar.gz\n")
		url, _ := releaseServer(t, "9.8.7", tgz, sums)
		runner := t.TempDir()
		env := map[string]string{"FORGESYNC_VERSION": "9.8.7", "FORGESYNC_RELEASES": url}
		out, err := runStep(t, tools[0], pack, install, env, runner)
		if err == nil || !strings.Contains(out, "FAILED") {
			t.Fatalf("install step with a wrong checksum: %v\n%s\nwant a failure naming the check", err, out)
		}
		if _, err := os.Stat(filepath.Join(runner, "github_path")); !os.IsNotExist(err) {
			t.Fatalf("a failed check still put forgesync on the path: %v", err)
		}
	})
}
