package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"aead.dev/minisign"
	"golang.org/x/term"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// The files keygen writes in its folder.
const (
	secretKeyName = "forgesync.key"
	publicKeyName = "forgesync.pub"
)

// askPassword asks for a password on the terminal without echoing it; ok
// is false when standard input is not a terminal. Tests replace it.
var askPassword = func(prompt string) (password string, ok bool, err error) {
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return "", false, nil
	}
	fmt.Fprint(os.Stderr, prompt)
	b, err := term.ReadPassword(fd)
	fmt.Fprintln(os.Stderr)
	return string(b), true, err
}

// KeyPair is what `forgesync keygen` wrote.
type KeyPair struct {
	SecretKey string `json:"secret_key"`
	PublicKey string `json:"public_key"`
	KeyID     string `json:"key_id"`
	// Public is the public key's base64 line, what [sets] trusted_keys
	// lists.
	Public    string `json:"public"`
	Encrypted bool   `json:"encrypted"`
}

// trustedKeysLine is the config line that trusts the key.
func (k KeyPair) trustedKeysLine() string { return `trusted_keys = ["` + k.Public + `"]` }

// writeKeyPair prints what keygen wrote and how to use it, as commands
// that work pasted into the shells of goos (cmd and PowerShell on
// Windows).
func writeKeyPair(w *bufio.Writer, k KeyPair, goos string) {
	how := "without a password: anyone who has the file can sign"
	if k.Encrypted {
		how = "password-protected"
	}
	fmt.Fprintf(w, "wrote %s (the secret key, %s; keep it private)\n", k.SecretKey, how)
	fmt.Fprintf(w, "wrote %s (the public key %s)\n", k.PublicKey, k.KeyID)
	fmt.Fprintf(w, "Put this line in the [sets] section of each server's config:\n\n    %s\n\n", k.trustedKeysLine())
	w.WriteString(commandLine(goos, "export", "DIR", "--sign", k.SecretKey).text("Sign a set with"))
	if k.Encrypted {
		fmt.Fprintf(w, "with the key's password in %s\n", envVarText(goos, signPasswordEnv))
	}
}

func keygenCommand() *cli.Command {
	var dir string
	var password, noPassword bool
	return &cli.Command{
		Name: "keygen", Args: "[-o DIR] [--password|--no-password]", Nargs: cli.Args{Min: 0, Max: 0, Want: "no arguments"},
		Summary: "make a minisign key pair to sign pack sets: DIR/" + secretKeyName + " (secret) and DIR/" + publicKeyName + ",\n" +
			"and print the trusted_keys line for the servers' config. The secret key is password-protected\n" +
			"with the environment variable " + signPasswordEnv + ", or a password asked on the terminal; elsewhere --no-password\n" +
			"makes one without. Existing key files are never replaced.",
		NoConfig: true,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&dir, "o", ".", "write the key files into `DIR`")
			fs.BoolVar(&password, "password", false, "protect the secret key with a password (refuse when there is none to be had)")
			fs.BoolVar(&noPassword, "no-password", false, "write the secret key without a password")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if password && noPassword {
				fmt.Fprintln(e.Stderr, "forgesync keygen: --password and --no-password contradict each other: choose one")
				return cli.ExitFailure
			}
			sec, pub := filepath.Join(dir, secretKeyName), filepath.Join(dir, publicKeyName)
			for _, p := range []string{sec, pub} {
				if _, err := os.Lstat(p); err == nil {
					fmt.Fprintf(e.Stderr, "forgesync keygen: %s already exists, and a new key would not match what it signs or the servers trust: keep it, or move it away first, or choose another folder with -o DIR\n", p)
					return cli.ExitFailure
				} else if !errors.Is(err, fs.ErrNotExist) {
					return e.Fail(err)
				}
			}
			pass := ""
			if !noPassword {
				var ok bool
				var err error
				pass, ok, err = keygenPassword(e)
				if err != nil {
					return e.Fail(err)
				}
				if !ok && password {
					fmt.Fprintf(e.Stderr, "forgesync keygen: --password needs the password: put it in %s, or run keygen on a terminal to be asked for it\n", envVarText(runtime.GOOS, signPasswordEnv))
					return cli.ExitFailure
				}
				if !ok {
					fmt.Fprintf(e.Stderr, "forgesync keygen: no password for the secret key: put one in %s, run keygen on a terminal to be asked for it, or add --no-password for a key without one\n", envVarText(runtime.GOOS, signPasswordEnv))
					return cli.ExitFailure
				}
				if pass == "" && password {
					fmt.Fprintln(e.Stderr, "forgesync keygen: --password needs a password, and the one given is empty")
					return cli.ExitFailure
				}
			}
			k, err := makeKeyPair(sec, pub, pass)
			if err != nil {
				return e.Fail(err)
			}
			if e.JSON {
				cli.WriteJSON(e.Stdout, k)
				return cli.ExitOK
			}
			w := bufio.NewWriter(e.Stdout)
			writeKeyPair(w, k, runtime.GOOS)
			w.Flush()
			return cli.ExitOK
		},
	}
}

// keygenPassword returns the password for a new secret key: the
// environment's, else one asked twice on the terminal (an empty answer
// means no password); ok is false when there is neither.
func keygenPassword(e *cli.Env) (string, bool, error) {
	if p := os.Getenv(signPasswordEnv); p != "" {
		return p, true, nil
	}
	p, ok, err := askPassword("Password for the secret key (empty: none): ")
	if err != nil || !ok {
		return "", ok, err
	}
	if p == "" {
		return "", true, nil
	}
	again, _, err := askPassword("The same password again: ")
	if err != nil {
		return "", true, err
	}
	if again != p {
		return "", true, errors.New("the two passwords differ: nothing was written")
	}
	return p, true, nil
}

// makeKeyPair generates a key pair and writes it: the secret key (mode
// 0600, encrypted when password is not empty) and the public key. Neither
// file may exist; when the second cannot be written, the first is removed.
func makeKeyPair(sec, pub, password string) (KeyPair, error) {
	pk, sk, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		return KeyPair{}, fmt.Errorf("generate key: %w", err)
	}
	var secText []byte
	if password != "" {
		secText, err = minisign.EncryptKey(password, sk)
	} else {
		secText, err = sk.MarshalText()
	}
	if err != nil {
		return KeyPair{}, fmt.Errorf("encode secret key: %w", err)
	}
	pubText, _ := pk.MarshalText()
	if err := os.MkdirAll(filepath.Dir(sec), 0o700); err != nil {
		return KeyPair{}, fmt.Errorf("key folder: %w", err)
	}
	if err := writeNew(sec, append(secText, '\n'), 0o600); err != nil {
		return KeyPair{}, err
	}
	if err := writeNew(pub, append(pubText, '\n'), 0o644); err != nil {
		os.Remove(sec)
		return KeyPair{}, err
	}
	return KeyPair{SecretKey: sec, PublicKey: pub, KeyID: lock.KeyID(pk.ID()), Public: pk.String(), Encrypted: password != ""}, nil
}

// writeNew writes a file that must not exist yet, removing it again when
// it cannot be written whole.
func writeNew(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
