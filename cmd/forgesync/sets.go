package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/installer/verdict"
	"github.com/mjolnir-forge/forgesync/sets/export"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// The commands on pack sets: lock, export, diff, sync --set (runSyncSet),
// and keygen for the key that signs them.

// signPasswordEnv names the environment variable that holds the password
// of a password-protected minisign secret key for --sign. A flag would
// leave it in the shell's history and the process list.
const signPasswordEnv = "FORGESYNC_SIGN_PASSWORD"

// setFlags are the flags shared by lock and export.
type setFlags struct {
	urls, sign, name, expires, from string
}

func (s *setFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.urls, "urls", export.DefaultURLTemplate, "URL `TEMPLATE` of each archive: {sha256} and {ext} are filled in")
	fs.StringVar(&s.sign, "sign", "", "sign the lock with this minisign secret key `FILE` (password from $"+signPasswordEnv+")")
	fs.StringVar(&s.name, "name", "", "the set's `NAME`, free text")
	fs.StringVar(&s.expires, "expires", "", "machines refuse the lock this `LONG` after now (30d, 72h); export again before to renew it")
	fs.StringVar(&s.from, "from", "", "publish the newest version of each pack in the archives of `DIR` (each checked as scan does), not the machine's packs: no game or config needed")
}

// kept returns the packs to publish: the newest of each pack id in
// --from's folder of archives, each checked as scan does (a rejected one is
// printed with its reasons, and fails the command), or else the machine's
// enabled packs.
func (s *setFlags) kept(ctx context.Context, e *cli.Env, m *daemon.Machine) ([]export.Kept, error) {
	if s.from == "" {
		return m.Kept(ctx)
	}
	f, err := daemon.KeptFrom(ctx, e.Config, s.from)
	for _, r := range f.Rejected() {
		verdict.WriteText(e.Stderr, r)
	}
	for _, p := range f.NotRead {
		fmt.Fprintf(e.Stderr, "forgesync %s: %s is not read: not a regular file\n", e.Name, p)
	}
	for _, p := range f.Older {
		fmt.Fprintf(e.Stderr, "forgesync %s: %s left out: a newer version of its pack is in %s\n", e.Name, p, s.from)
	}
	return f.Packs, err
}

// parse returns --expires (0 when not given) and the key of --sign (nil
// when not given).
func (s *setFlags) parse() (time.Duration, *minisign.PrivateKey, error) {
	var lifetime time.Duration
	if s.expires != "" {
		var err error
		if lifetime, err = lock.ParseLifetime(s.expires); err != nil {
			return 0, nil, err
		}
	}
	if s.sign == "" {
		return lifetime, nil, nil
	}
	k, err := lock.ReadSecretKey(s.sign, os.Getenv(signPasswordEnv))
	if errors.Is(err, lock.ErrKeyEncrypted) {
		return 0, nil, fmt.Errorf("%w: put its password in %s, or make a key without one (minisign -G -W)", err, view.EnvVar(runtime.GOOS, signPasswordEnv))
	}
	return lifetime, &k, err
}

func lockCommand() *cli.Command {
	var sf setFlags
	var out string
	return &cli.Command{
		Name: "lock", Args: "[-o FILE] [--from ARCHIVES_DIR]", Nargs: cli.NoArgs,
		Summary: "write the machine's enabled packs as a pack set (forgepacks.lock, SPEC §10)\n" +
			"Without -o the lock goes to standard output. --sign writes FILE.minisig beside it.\n" +
			"--from ARCHIVES_DIR locks the newest valid version of each pack in that folder instead\n" +
			"(no game or config needed); an archive scan rejects fails it, naming why (exit 1).",
		Flags: func(fs *flag.FlagSet) {
			sf.register(fs)
			fs.StringVar(&out, "o", "", "write the lock to `FILE`")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if sf.sign != "" && out == "" {
				return e.Failf("--sign needs -o FILE (the signature goes beside the lock)")
			}
			lifetime, key, err := sf.parse()
			if err != nil {
				return e.Fail(err)
			}
			m := openMachine(e)
			defer m.Close()
			kept, err := sf.kept(ctx, e, m)
			if err != nil {
				return e.Fail(err)
			}
			l, err := export.NewLock(sf.name, kept, sf.urls, out, time.Now(), lifetime)
			if err != nil {
				return e.Fail(err)
			}
			if out == "" {
				data, err := lock.Encode(l)
				if err != nil {
					return e.Fail(err)
				}
				e.Stdout.Write(data)
				return cli.ExitOK
			}
			if _, err := lock.WriteLock(out, l, key); err != nil {
				return e.Fail(err)
			}
			return cli.Show(e, export.WrittenOf(out, l, key), export.WriteWritten)
		},
	}
}

func exportCommand() *cli.Command {
	var sf setFlags
	var prune, noIndex bool
	var chunksURL string
	return &cli.Command{
		Name: "export", Args: "DIR|oci://HOST/REPO:TAG [--prune] [--from ARCHIVES_DIR]", Nargs: cli.One("one DIR or oci:// reference"),
		Summary: "write the machine's enabled packs as a folder to publish: DIR/forgepacks.lock\n" +
			"(+ .minisig with --sign) and DIR/packs/<sha256><ext>, each with its chunk index\n" +
			"DIR/packs/<sha256>.caibx and one shared chunk store DIR/chunks/ for delta updates.\n" +
			"Any static web server, bucket or CDN serves it as it is; names by content never change.\n" +
			"oci://HOST/REPO:TAG pushes the set to an OCI registry instead (blobs it has are not sent\n" +
			"again), moves the tag, and prints oci://HOST/REPO@sha256:… which pins the set.\n" +
			"--from ARCHIVES_DIR publishes the newest valid version of each pack in that folder instead\n" +
			"(no game or config needed); an archive scan rejects fails it, naming why (exit 1).",
		Flags: func(fs *flag.FlagSet) {
			sf.register(fs)
			fs.BoolVar(&prune, "prune", false, "after the new lock is written, remove from DIR/packs the archives it no longer pins and their chunk indexes (naming both), and from DIR/chunks the chunks no kept index uses")
			fs.BoolVar(&noIndex, "no-index", false, "write no chunk indexes and no chunk store (no delta updates)")
			fs.StringVar(&chunksURL, "chunks", export.DefaultChunksURL, "the chunk store's `URL` as the lock names it (relative: beside the lock)")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			dir, ref, err := export.ExportTarget(args[0])
			if err != nil {
				return e.Fail(err)
			}
			if ref != nil && prune {
				return e.Failf("--prune goes with a folder; a registry keeps what its tags and digests name")
			}
			lifetime, key, err := sf.parse()
			if err != nil {
				return e.Fail(err)
			}
			warnUnsigned(e, key)
			m := openMachine(e)
			defer m.Close()
			kept, err := sf.kept(ctx, e, m)
			if err != nil {
				return e.Fail(err)
			}
			if ref != nil {
				p, err := export.ExportOCI(ctx, m.Registry(), *ref, sf.name, kept, sf.urls, key, time.Now(), lifetime)
				if err != nil {
					return e.Fail(err)
				}
				return cli.Show(e, p.Report(), export.WritePushed)
			}
			w, err := export.Publish(ctx, dir, kept, export.ExportOptions{Name: sf.name, Template: sf.urls, Key: key,
				NoIndex: noIndex, ChunksURL: chunksURL, Lifetime: lifetime}, prune)
			return cli.Result(e, w, err, export.WriteWritten)
		},
	}
}

// warnUnsigned warns when a set is published without --sign from a
// config that trusts keys: machines configured alike refuse it.
func warnUnsigned(e *cli.Env, key *minisign.PrivateKey) {
	if key != nil || e.Config == nil || len(e.Config.Sets.TrustedKeys) == 0 {
		return
	}
	fmt.Fprintf(e.Stderr, "forgesync %s: warning: the set is not signed, and this config trusts keys ([sets] trusted_keys in %s): "+
		"machines that trust keys refuse an unsigned lock; add --sign KEY\n", e.Name, cmp.Or(e.Config.File, "the config"))
}

func diffCommand() *cli.Command {
	return &cli.Command{
		Name: "diff", Args: "LOCK|DIR|URL|oci://REF", Nargs: cli.One("one lock file, folder, URL or oci:// reference"),
		Summary: "compare the machine's packs with a pack set, one line per difference\n" +
			"Exit status: 0 equal, 1 different, 2 could not tell.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			m := openMachine(e)
			defer m.Close()
			rep, err := m.Diff(ctx, args[0], func(err error) {
				fmt.Fprintf(e.Stderr, "forgesync diff: no estimate of the transfer: %v\n", err)
			})
			if err != nil {
				return e.Fail(err)
			}
			cli.Show(e, rep, fetch.WriteDiff)
			if !rep.Equal {
				return cli.ExitInvalid
			}
			return cli.ExitOK
		},
	}
}

// runSyncSet is `forgesync sync --set [LOCK|URL] [--prune]`; without a
// lock it syncs the configured [sets] source.
func runSyncSet(ctx context.Context, e *cli.Env, locks []string, prune bool) int {
	e.Name = "sync --set"
	if len(locks) > 1 {
		return e.Failf("want one lock file, folder or URL, got %d: %s", len(locks), strings.Join(locks, " "))
	}
	var arg string
	if len(locks) == 1 {
		arg = locks[0]
	} else if arg = e.Config.Sets.Source; arg == "" {
		return e.Failf("no set named and no [sets] source in the config: name the lock (sync --set URL), or set source in the [sets] section of the config")
	}
	m := openMachine(e)
	defer m.Close()
	res, err := m.SyncSet(ctx, arg, prune)
	return showSetSync(e, res, err)
}

// showSetSync prints a set sync's result and returns its exit status.
func showSetSync(e *cli.Env, res *api.SetSyncResult, err error) int {
	if err != nil && !errors.Is(err, daemon.ErrDeploy) {
		if e.JSON && res != nil {
			cli.WriteJSON(e.Stdout, res)
		}
		return e.Fail(err)
	}
	cli.Show(e, res, view.WriteSetSync)
	if err != nil || (res.Summary != nil && res.Summary.Waiting()) {
		// The summary says what failed, or what waits (an inventory file
		// the game holds: the set is committed, the game does not see it
		// yet).
		return cli.ExitFailure
	}
	return cli.ExitOK
}

// runResumeFollow is `forgesync sync --set --follow`: following [sets]
// source again, and a sync of it now.
func runResumeFollow(ctx context.Context, e *cli.Env, set cli.OptionalValue, args []string, prune bool) int {
	e.Name = "sync --set --follow"
	switch {
	case !set.Given:
		return e.Failf("--follow goes with --set: sync --set --follow")
	case len(set.With(args)) > 0:
		return e.Failf("--follow syncs [sets] source, and takes no lock (got %s): drop it, or sync --set LOCK without --follow", strings.Join(set.With(args), " "))
	case prune:
		return e.Failf("--prune goes with --set LOCK|URL, not --follow")
	case e.Config.Sets.Source == "":
		return e.Failf("no [sets] source in the config to follow: set source in the [sets] section of the config")
	}
	m := openMachine(e)
	defer m.Close()
	res, err := m.ResumeFollow(ctx)
	return showSetSync(e, res, err)
}

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
			pass, code := keygenPassword(e, password, noPassword)
			if code != cli.ExitOK {
				return code
			}
			k, err := lock.GenerateKeyPair(sec, pub, pass)
			return cli.Result(e, k, err, func(w io.Writer, k lock.KeyPair) error {
				return view.WriteKeyPair(w, k, runtime.GOOS, signPasswordEnv)
			})
		},
	}
}

// keygenPassword returns the password for a new secret key: none with
// --no-password, else the environment's, else one asked twice on the
// terminal (an empty answer means none). Without either, or without one
// that --password (required) needs, it says so and returns the exit status.
func keygenPassword(e *cli.Env, required, none bool) (string, int) {
	if none {
		return "", cli.ExitOK
	}
	pass, ok, err := cli.NewPassword(os.Getenv(signPasswordEnv), "the secret key", askPassword)
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
