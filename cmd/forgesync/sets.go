package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/machine"
	"github.com/mjolnir-forge/forgesync/packset"
)

// signPasswordEnv names the environment variable that holds the password
// of a password-protected minisign secret key for --sign. A flag would
// leave it in the shell's history and the process list.
const signPasswordEnv = "FORGESYNC_SIGN_PASSWORD"

// setFlags are the flags shared by lock and export.
type setFlags struct {
	urls, sign, name string
}

func (s *setFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.urls, "urls", packset.DefaultURLTemplate, "URL `TEMPLATE` of each archive: {sha256} and {ext} are filled in")
	fs.StringVar(&s.sign, "sign", "", "sign the lock with this minisign secret key `FILE` (password from $"+signPasswordEnv+")")
	fs.StringVar(&s.name, "name", "", "the set's `NAME`, free text")
}

func (s *setFlags) key() (*minisign.PrivateKey, error) {
	if s.sign == "" {
		return nil, nil
	}
	k, err := packset.ReadSecretKey(s.sign, os.Getenv(signPasswordEnv))
	if errors.Is(err, packset.ErrKeyEncrypted) {
		return nil, fmt.Errorf("%w: put its password in $%s, or make a key without one (minisign -G -W)", err, signPasswordEnv)
	}
	return &k, err
}

func lockCommand() *command {
	var sf setFlags
	var out string
	return &command{
		name: "lock", args: "[-o FILE]", nargs: argSpec{0, 0, "no arguments"},
		summary: "write the machine's enabled packs as a pack set (forgepacks.lock, SPEC §10)\n" +
			"Without -o the lock goes to standard output. --sign writes FILE.minisig beside it.",
		flags: func(fs *flag.FlagSet) {
			sf.register(fs)
			fs.StringVar(&out, "o", "", "write the lock to `FILE`")
		},
		run: func(ctx context.Context, e *env, args []string) int {
			if sf.sign != "" && out == "" {
				fmt.Fprintln(e.stderr, "forgesync lock: --sign needs -o FILE (the signature goes beside the lock)")
				return exitFailure
			}
			key, err := sf.key()
			if err != nil {
				return e.fail(err)
			}
			m := e.open()
			defer m.Close()
			kept, err := m.Kept(ctx)
			if err != nil {
				return e.fail(err)
			}
			l, err := packset.LockFor(sf.name, kept, sf.urls)
			if err != nil {
				return e.fail(err)
			}
			if out == "" {
				data, err := packset.Encode(l)
				if err != nil {
					return e.fail(err)
				}
				e.stdout.Write(data)
				return exitOK
			}
			if _, err := packset.WriteLock(out, l, key); err != nil {
				return e.fail(err)
			}
			printSetWritten(e, out, l, key)
			return exitOK
		},
	}
}

func exportCommand() *command {
	var sf setFlags
	return &command{
		name: "export", args: "DIR", nargs: argSpec{1, 1, "one DIR"},
		summary: "write the machine's enabled packs as a folder to publish: DIR/forgepacks.lock\n" +
			"(+ .minisig with --sign) and DIR/packs/<sha256><ext>. Any static web server, bucket or\n" +
			"CDN serves it as it is; names by content never change.",
		flags: sf.register,
		run: func(ctx context.Context, e *env, args []string) int {
			key, err := sf.key()
			if err != nil {
				return e.fail(err)
			}
			m := e.open()
			defer m.Close()
			kept, err := m.Kept(ctx)
			if err != nil {
				return e.fail(err)
			}
			l, err := packset.Export(ctx, args[0], sf.name, kept, sf.urls, key)
			if err != nil {
				return e.fail(err)
			}
			printSetWritten(e, filepath.Join(args[0], packset.LockName), l, key)
			return exitOK
		},
	}
}

func printSetWritten(e *env, path string, l *packset.Lock, key *minisign.PrivateKey) {
	w := packset.Written{Lock: path, Fingerprint: l.Fingerprint(), Packs: len(l.Packs)}
	if key != nil {
		w.SignedBy = packset.KeyID(key.ID())
	}
	if e.json {
		writeJSON(e.stdout, w)
		return
	}
	packset.WriteWritten(e.stdout, w)
}

func diffCommand() *command {
	return &command{
		name: "diff", args: "LOCK|URL", nargs: argSpec{1, 1, "one lock file, folder or URL"},
		summary: "compare the machine's packs with a pack set, one line per difference\n" +
			"Exit status: 0 equal, 1 different, 2 could not tell.",
		run: func(ctx context.Context, e *env, args []string) int {
			m := e.open()
			defer m.Close()
			rep, err := packset.DiffLock(ctx, args[0], e.cfg.Sets.TrustedKeys, m.Installed)
			if err != nil {
				return e.fail(err)
			}
			code := exitOK
			if !rep.Equal {
				code = exitInvalid
			}
			if e.json {
				writeJSON(e.stdout, rep)
				return code
			}
			packset.WriteDiff(e.stdout, rep)
			return code
		},
	}
}

// runSyncSet is `forgesync sync --set LOCK|URL [--prune]`.
func runSyncSet(ctx context.Context, e *env, arg string, prune bool) int {
	e.name = "sync --set"
	m := e.open()
	defer m.Close()
	res, err := m.SyncSet(ctx, arg, prune)
	if err != nil && !errors.Is(err, machine.ErrDeploy) {
		if e.json && res != nil {
			writeJSON(e.stdout, res)
		}
		return e.fail(err)
	}
	if e.json {
		writeJSON(e.stdout, res)
	} else {
		api.WriteSetSync(e.stdout, res)
	}
	if err != nil {
		return exitFailure // the summary's warnings say what failed
	}
	return exitOK
}
