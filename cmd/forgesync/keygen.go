package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// askPassword asks for a password on the terminal; tests replace it.
var askPassword = cli.AskPassword

func keygenCommand() *cli.Command {
	var dir string
	var password, noPassword bool
	return &cli.Command{
		Name: "keygen", Args: "[-o DIR] [--password|--no-password]", Nargs: cli.NoArgs,
		Summary: "make a minisign key pair to sign pack sets: DIR/" + lock.SecretKeyName + " (secret) and DIR/" + lock.PublicKeyName + ",\n" +
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
				return e.Failf("--password and --no-password contradict each other: choose one")
			}
			sec, pub := filepath.Join(dir, lock.SecretKeyName), filepath.Join(dir, lock.PublicKeyName)
			for _, p := range []string{sec, pub} {
				if _, err := os.Lstat(p); err == nil {
					return e.Failf("%s already exists, and a new key would not match what it signs or the servers trust: keep it, or move it away first, or choose another folder with -o DIR", p)
				} else if !errors.Is(err, fs.ErrNotExist) {
					return e.Fail(err)
				}
			}
			pass := ""
			if !noPassword {
				var code int
				if pass, code = keygenPassword(e, password); code != cli.ExitOK {
					return code
				}
			}
			k, err := lock.GenerateKeyPair(sec, pub, pass)
			if err != nil {
				return e.Fail(err)
			}
			return cli.Show(e, k, func(w io.Writer, k lock.KeyPair) error {
				return view.WriteKeyPair(w, k, runtime.GOOS, signPasswordEnv)
			})
		},
	}
}

// keygenPassword returns the password for a new secret key: the
// environment's, else one asked twice on the terminal (an empty answer
// means no password). Without either, or without one that --password
// (required) needs, it says so and returns the exit status.
func keygenPassword(e *cli.Env, required bool) (string, int) {
	pass, ok, err := newPassword()
	switch {
	case err != nil:
		return "", e.Fail(err)
	case !ok && required:
		return "", e.Failf("--password needs the password: put it in %s, or run keygen on a terminal to be asked for it", view.EnvVar(runtime.GOOS, signPasswordEnv))
	case !ok:
		return "", e.Failf("no password for the secret key: put one in %s, run keygen on a terminal to be asked for it, or add --no-password for a key without one", view.EnvVar(runtime.GOOS, signPasswordEnv))
	case pass == "" && required:
		return "", e.Failf("--password needs a password, and the one given is empty")
	}
	return pass, cli.ExitOK
}

// newPassword returns the environment's password, else one asked twice
// on the terminal (an empty answer means no password); ok is false when
// there is neither.
func newPassword() (string, bool, error) {
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
