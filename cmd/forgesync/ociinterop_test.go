package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/internal/registrytest"
	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/oci"
)

// oras runs the oras CLI in dir with reg's account and no Docker config
// of the user's.
func oras(t *testing.T, reg *registrytest.Registry, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(registrytest.Oras(t), append(args, "--plain-http", "-u", reg.User, "-p", reg.Password)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DOCKER_CONFIG="+t.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// files returns the regular files under dir, by slash path, with their
// bytes.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func names(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// signedHost makes a host with two packs installed and a signing key; it
// returns its config and the key's file and public key.
func signedHost(t *testing.T) (string, string, minisign.PublicKey) {
	t.Helper()
	config, drop, _ := gameEnv(t)
	doorPack(t, drop, "alpha-gates", "1.0.0", 2)
	doorPack(t, drop, "beta-gates", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
		t.Fatalf("host sync = %d\n%s%s", code, out, errs)
	}
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := priv.MarshalText()
	key := filepath.Join(t.TempDir(), "k.key")
	if err := os.WriteFile(key, text, 0o600); err != nil {
		t.Fatal(err)
	}
	return config, key, pub
}

// trustingMachine is a fresh machine that trusts pub.
func trustingMachine(t *testing.T, pub minisign.PublicKey) string {
	t.Helper()
	config, _, _ := gameEnv(t)
	text, _ := os.ReadFile(config)
	if err := os.WriteFile(config, append(text, []byte("[sets]\ntrusted_keys = [\""+pub.String()+"\"]\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	return config
}

// TestOrasPullsWhatExportPushed: `oras pull` of a set that `forgesync
// export oci://` pushed writes the folder `forgesync export DIR --no-index`
// writes: the same archives byte for byte, and the same lock but for the
// serial each export gives it, signed (a registry holds no chunk store:
// its archives are blobs).
func TestOrasPullsWhatExportPushed(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthToken})
	ociFetch(t, reg.User, reg.Password)
	config, key, pub := signedHost(t)

	folder := filepath.Join(t.TempDir(), "folder")
	if code, out, errs := runCLI(t, "export", folder, "--no-index", "--sign", key, "--config", config); code != cli.ExitOK {
		t.Fatalf("export %s = %d\n%s%s", folder, code, out, errs)
	}
	ref := reg.Ref(ociRepo, "live")
	if code, out, errs := runCLI(t, "export", "oci://"+ref, "--sign", key, "--config", config); code != cli.ExitOK {
		t.Fatalf("export oci://%s = %d\n%s%s", ref, code, out, errs)
	}
	pulled := t.TempDir()
	if out, err := oras(t, reg, pulled, "pull", ref); err != nil {
		t.Fatalf("oras pull %s: %v\n%s", ref, err, out)
	}
	want, got := files(t, folder), files(t, pulled)
	if strings.Join(names(got), " ") != strings.Join(names(want), " ") {
		t.Fatalf("oras pull wrote %v; want the files of the folder export %v", names(got), names(want))
	}
	// Two exports, two serials: the locks agree on the rest, and each
	// signature is the lock's.
	serial := regexp.MustCompile(`(?m)^serial = [0-9]+\n`)
	if g, w := serial.ReplaceAll(got[lock.LockName], nil), serial.ReplaceAll(want[lock.LockName], nil); !bytes.Equal(g, w) || bytes.Equal(g, got[lock.LockName]) {
		t.Errorf("oras pull got the lock\n%s\nwant the folder export's, but for its serial:\n%s", got[lock.LockName], want[lock.LockName])
	}
	if !minisign.Verify(pub, got[lock.LockName], got[lock.SignatureName]) {
		t.Errorf("the pulled signature is not the pulled lock's")
	}
	delete(want, lock.LockName)
	delete(want, lock.SignatureName)
	archives := 0
	for name, w := range want {
		if !bytes.Equal(got[name], w) {
			t.Errorf("%s: oras pull got %d bytes that differ from the folder export's %d", name, len(got[name]), len(w))
		}
		if strings.HasPrefix(name, "packs/") {
			archives++
		}
	}
	if archives != 2 || got[lock.LockName] == nil || got[lock.SignatureName] == nil {
		t.Errorf("pulled %v; want two archives, the lock and its signature", names(got))
	}
}

// TestSyncSetFromOrasPush: a set pushed with plain `oras push` (the files
// of a folder export, with the artifact type of a set) syncs, signature
// checked; without the artifact type it is refused by name.
func TestSyncSetFromOrasPush(t *testing.T) {
	reg := registrytest.Start(t, registrytest.Options{Auth: registrytest.AuthToken})
	ociFetch(t, reg.User, reg.Password)
	config, key, pub := signedHost(t)
	folder := filepath.Join(t.TempDir(), "folder")
	if code, out, errs := runCLI(t, "export", folder, "--sign", key, "--config", config); code != cli.ExitOK {
		t.Fatalf("export %s = %d\n%s%s", folder, code, out, errs)
	}
	want := machineFingerprint(t, config)
	pushed := names(files(t, folder))

	ref := reg.Ref(ociRepo, "by-oras")
	args := append([]string{"push", ref, "--artifact-type", oci.ArtifactType}, pushed...)
	if out, err := oras(t, reg, folder, args...); err != nil {
		t.Fatalf("oras %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	machine := trustingMachine(t, pub)
	code, out, errs := runCLI(t, "sync", "--set", "oci://"+ref, "--config", machine)
	if code != cli.ExitOK || !strings.Contains(out, "signed by trusted key "+lock.KeyID(pub.ID())) {
		t.Fatalf("sync --set oci://%s = %d\n%s%s", ref, code, out, errs)
	}
	if got := machineFingerprint(t, machine); got != want {
		t.Errorf("machine fingerprint %s; want %s", got, want)
	}

	// Without --artifact-type oras pushes application/vnd.unknown.artifact.v1.
	untyped := reg.Ref(ociRepo, "untyped")
	if out, err := oras(t, reg, folder, append([]string{"push", untyped}, pushed...)...); err != nil {
		t.Fatalf("oras push %s: %v\n%s", untyped, err, out)
	}
	other := trustingMachine(t, pub)
	before := machineFingerprint(t, other)
	code, out, errs = runCLI(t, "sync", "--set", "oci://"+untyped, "--config", other)
	if code == cli.ExitOK || !strings.Contains(errs, "application/vnd.unknown.artifact.v1") || !strings.Contains(errs, "--artifact-type "+oci.ArtifactType) {
		t.Errorf("sync --set of an untyped oras push = %d\n%s%s\nwant it refused, naming its artifact type and the one to push", code, out, errs)
	}
	if after := machineFingerprint(t, other); after != before {
		t.Errorf("a refused set changed the machine: %s -> %s", before, after)
	}
}
