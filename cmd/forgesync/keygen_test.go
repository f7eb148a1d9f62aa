package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// noTerminal makes keygen see no terminal, and no password in the
// environment.
func noTerminal(t *testing.T) {
	t.Helper()
	t.Setenv(signPasswordEnv, "")
	old := askPassword
	askPassword = func(string) (string, bool, error) { return "", false, nil }
	t.Cleanup(func() { askPassword = old })
}

// keyLineOf returns the trusted_keys line keygen printed.
func keyLineOf(out string) string {
	for l := range strings.Lines(out) {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "trusted_keys = ") {
			return t
		}
	}
	return ""
}

// TestKeygenNoPassword: keygen --no-password writes an unencrypted key
// (0600) and the public key, prints the trusted_keys line of that key, and
// refuses to overwrite either file.
func TestKeygenNoPassword(t *testing.T) {
	noTerminal(t)
	dir := filepath.Join(t.TempDir(), "keys")
	code, out, errs := runCLI(t, "keygen", "-o", dir, "--no-password")
	if code != cli.ExitOK || errs != "" {
		t.Fatalf("keygen = %d\n%s%s", code, out, errs)
	}
	sec, pub := filepath.Join(dir, "forgesync.key"), filepath.Join(dir, "forgesync.pub")
	pubText, err := os.ReadFile(pub)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := lock.ParsePublicKey(string(pubText))
	if err != nil {
		t.Fatal(err)
	}
	want := "wrote " + sec + " (the secret key, without a password: anyone who has the file can sign; keep it private)\n" +
		"wrote " + pub + " (the public key " + lock.KeyID(pk.ID()) + ")\n" +
		"Put this line in the [sets] section of each server's config:\n\n" +
		"    trusted_keys = [\"" + pk.String() + "\"]\n\n" +
		"Sign a set with: forgesync export DIR --sign " + sec + "\n"
	if out != want {
		t.Errorf("keygen printed\n%s\nwant\n%s", out, want)
	}
	st, err := os.Stat(sec)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("secret key mode = %v; want 0600", st.Mode().Perm())
	}
	sk, err := lock.ReadSecretKey(sec, "")
	if err != nil || sk.ID() != pk.ID() {
		t.Fatalf("ReadSecretKey = %v (id %X, public %X)", err, sk.ID(), pk.ID())
	}
	sig := lock.Sign(sk, []byte("x"), "")
	if !minisign.Verify(pk, []byte("x"), sig) {
		t.Errorf("the secret key does not match the public key")
	}
	// A second run refuses, and leaves both files as they were.
	secText, _ := os.ReadFile(sec)
	code, out, errs = runCLI(t, "keygen", "-o", dir, "--no-password")
	wantErr := "forgesync keygen: " + sec + " already exists, and a new key would not match what it signs or the servers trust: keep it, or move it away first, or choose another folder with -o DIR\n"
	if code != cli.ExitFailure || out != "" || errs != wantErr {
		t.Errorf("keygen again = %d\n%s%s\nwant 2 and %s", code, out, errs, wantErr)
	}
	os.Remove(sec)
	code, _, errs = runCLI(t, "keygen", "-o", dir, "--no-password")
	if code != cli.ExitFailure || !strings.Contains(errs, pub+" already exists") {
		t.Errorf("keygen with only the public key left = %d %s", code, errs)
	}
	if _, err := os.Stat(sec); err == nil {
		t.Errorf("keygen wrote a secret key beside an old public key")
	}
	os.WriteFile(sec, secText, 0o600)
}

// TestKeygenRefusesWithoutPassword: without a terminal, a password in the
// environment or --no-password, keygen writes nothing and says what to do.
func TestKeygenRefusesWithoutPassword(t *testing.T) {
	noTerminal(t)
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{nil, "forgesync keygen: no password for the secret key: put one in $FORGESYNC_SIGN_PASSWORD, run keygen on a terminal to be asked for it, or add --no-password for a key without one\n"},
		{[]string{"--password"}, "forgesync keygen: --password needs the password: put it in $FORGESYNC_SIGN_PASSWORD, or run keygen on a terminal to be asked for it\n"},
		{[]string{"--password", "--no-password"}, "forgesync keygen: --password and --no-password contradict each other: choose one\n"},
	}
	for _, tt := range tests {
		code, out, errs := runCLI(t, append([]string{"keygen", "-o", dir}, tt.args...)...)
		if code != cli.ExitFailure || out != "" || errs != tt.want {
			t.Errorf("keygen %v = %d\n%s%s\nwant 2 and %s", tt.args, code, out, errs, tt.want)
		}
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("keygen refused but wrote %v", names)
	}
}

// TestKeygenTerminalPassword: on a terminal the password is asked twice;
// answers that differ write nothing.
func TestKeygenTerminalPassword(t *testing.T) {
	t.Setenv(signPasswordEnv, "")
	var prompts []string
	answers := []string{"one", "two"}
	old := askPassword
	askPassword = func(p string) (string, bool, error) {
		prompts = append(prompts, p)
		a := answers[0]
		answers = answers[1:]
		return a, true, nil
	}
	t.Cleanup(func() { askPassword = old })
	dir := t.TempDir()
	code, out, errs := runCLI(t, "keygen", "-o", dir)
	if code != cli.ExitFailure || out != "" || errs != "forgesync keygen: the two passwords differ: nothing was written\n" {
		t.Errorf("keygen (passwords differ) = %d\n%s%s", code, out, errs)
	}
	if len(prompts) != 2 || prompts[0] != "Password for the secret key (empty: none): " || prompts[1] != "The same password again: " {
		t.Errorf("prompts = %q", prompts)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("keygen wrote %v", names)
	}
	// An empty answer on a terminal is a key without a password, as
	// minisign does.
	answers = []string{""}
	if code, out, errs := runCLI(t, "keygen", "-o", dir); code != cli.ExitOK || !strings.Contains(out, "without a password") {
		t.Errorf("keygen (empty password) = %d\n%s%s", code, out, errs)
	}
}

// TestKeygenSignsVerifiedByMinisign: a password-protected key from keygen
// signs a lock with `lock --sign` (the password from the environment), the
// minisign tool verifies it with keygen's .pub, and `diff` with the
// printed trusted_keys line verifies it too.
func TestKeygenSignsVerifiedByMinisign(t *testing.T) {
	tool := toolcheck.Need(t, "minisign")[0]
	old := askPassword
	askPassword = func(string) (string, bool, error) {
		t.Error("asked on the terminal despite the environment")
		return "", false, nil
	}
	t.Cleanup(func() { askPassword = old })
	t.Setenv(signPasswordEnv, "correct horse")
	keys := t.TempDir()
	code, out, errs := runCLI(t, "keygen", "-o", keys, "--password")
	if code != cli.ExitOK || !strings.Contains(out, "(the secret key, password-protected; keep it private)") {
		t.Fatalf("keygen --password = %d\n%s%s", code, out, errs)
	}
	sec := filepath.Join(keys, "forgesync.key")
	secText, _ := os.ReadFile(sec)
	if !minisign.IsEncrypted(bytes.TrimSpace(secText)) {
		t.Fatalf("the secret key is not encrypted:\n%s", secText)
	}
	line := keyLineOf(out)

	config, drop, _ := gameEnv(t)
	doorPack(t, drop, "alpha", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	lockPath := filepath.Join(t.TempDir(), lock.LockName)
	code, out, errs = runCLI(t, "lock", "-o", lockPath, "--sign", sec, "--config", config)
	if code != cli.ExitOK {
		t.Fatalf("lock --sign = %d\n%s%s", code, out, errs)
	}
	vout, err := exec.Command(tool, "-V", "-p", filepath.Join(keys, "forgesync.pub"), "-m", lockPath).CombinedOutput()
	if err != nil || !strings.Contains(string(vout), "Signature and comment signature verified") {
		t.Errorf("minisign -V = %v\n%s", err, vout)
	}
	appendConfig(t, config, "[sets]\n"+line+"\n")
	if code, out, errs := runCLI(t, "diff", lockPath, "--config", config); code != cli.ExitOK {
		t.Errorf("diff with the printed trusted_keys = %d\n%s%s", code, out, errs)
	}
}

// TestKeygenPrintsCommandsThatRun: the sign command keygen prints for a
// key in a folder with a space runs as printed in a POSIX shell (the
// path quoted) and signs a set. (The key has no password: minisign's
// scrypt would cost seconds twice; TestKeygenCommandsPerOS checks the
// password's line.)
func TestKeygenPrintsCommandsThatRun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the Windows shells are driven under wine (scripts/wine-e2e.sh)")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	old := askPassword
	askPassword = func(string) (string, bool, error) { return "", false, nil }
	t.Cleanup(func() { askPassword = old })
	t.Setenv(signPasswordEnv, "")
	keys := filepath.Join(t.TempDir(), "my keys")
	code, out, errs := runCLI(t, "keygen", "-o", keys, "--no-password")
	if code != cli.ExitOK {
		t.Fatalf("keygen = %d\n%s%s", code, out, errs)
	}
	var line string
	for l := range strings.Lines(out) {
		if after, ok := strings.CutPrefix(l, "Sign a set with: "); ok {
			line = strings.TrimSpace(after)
		}
	}
	if line == "" {
		t.Fatalf("keygen printed no sign command:\n%s", out)
	}
	config, drop, _ := gameEnv(t)
	doorPack(t, drop, "alpha", "1.0.0", 1)
	if code, out, errs := runCLI(t, "sync", "--config", config); code != cli.ExitOK {
		t.Fatalf("sync = %d\n%s%s", code, out, errs)
	}
	site := filepath.Join(t.TempDir(), "site")
	cmd := exec.Command(sh, "-c", strings.Replace(line, " DIR ", " "+site+" ", 1)+" --config "+config)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sh -c %q: %v\n%s", line, err, out)
	}
	if _, err := os.Stat(filepath.Join(site, lock.LockName+".minisig")); err != nil {
		t.Errorf("the printed command signed nothing: %v", err)
	}
}
