package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/cmd/forgesync/view"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/sets/casync"
	"github.com/mjolnir-forge/forgesync/sets/export"
	"github.com/mjolnir-forge/forgesync/sets/fetch"
	"github.com/mjolnir-forge/forgesync/sets/follow"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// signPasswordEnv names the environment variable that holds the password
// of a password-protected minisign secret key for --sign. A flag would
// leave it in the shell's history and the process list.
const signPasswordEnv = "FORGESYNC_SIGN_PASSWORD"

// setFlags are the flags shared by lock and export.
type setFlags struct {
	urls, sign, name, expires string
}

func (s *setFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.urls, "urls", export.DefaultURLTemplate, "URL `TEMPLATE` of each archive: {sha256} and {ext} are filled in")
	fs.StringVar(&s.sign, "sign", "", "sign the lock with this minisign secret key `FILE` (password from $"+signPasswordEnv+")")
	fs.StringVar(&s.name, "name", "", "the set's `NAME`, free text")
	fs.StringVar(&s.expires, "expires", "", "machines refuse the lock this `LONG` after now (30d, 72h); export again before to renew it")
}

// lifetime returns --expires, 0 when not given.
func (s *setFlags) lifetime() (time.Duration, error) {
	if s.expires == "" {
		return 0, nil
	}
	return lock.ParseLifetime(s.expires)
}

func (s *setFlags) key() (*minisign.PrivateKey, error) {
	if s.sign == "" {
		return nil, nil
	}
	k, err := lock.ReadSecretKey(s.sign, os.Getenv(signPasswordEnv))
	if errors.Is(err, lock.ErrKeyEncrypted) {
		return nil, fmt.Errorf("%w: put its password in %s, or make a key without one (minisign -G -W)", err, view.EnvVar(runtime.GOOS, signPasswordEnv))
	}
	return &k, err
}

func lockCommand() *cli.Command {
	var sf setFlags
	var out string
	return &cli.Command{
		Name: "lock", Args: "[-o FILE]", Nargs: cli.Args{Min: 0, Max: 0, Want: "no arguments"},
		Summary: "write the machine's enabled packs as a pack set (forgepacks.lock, SPEC §10)\n" +
			"Without -o the lock goes to standard output. --sign writes FILE.minisig beside it.",
		Flags: func(fs *flag.FlagSet) {
			sf.register(fs)
			fs.StringVar(&out, "o", "", "write the lock to `FILE`")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			if sf.sign != "" && out == "" {
				fmt.Fprintln(e.Stderr, "forgesync lock: --sign needs -o FILE (the signature goes beside the lock)")
				return cli.ExitFailure
			}
			lifetime, err := sf.lifetime()
			if err != nil {
				return e.Fail(err)
			}
			key, err := sf.key()
			if err != nil {
				return e.Fail(err)
			}
			m := openMachine(e)
			defer m.Close()
			kept, err := m.Kept(ctx)
			if err != nil {
				return e.Fail(err)
			}
			l, err := export.LockFor(sf.name, kept, sf.urls)
			if err != nil {
				return e.Fail(err)
			}
			var prev *lock.Lock
			if out != "" {
				prev = lock.PreviousLock(out)
			}
			l.Stamp(prev, time.Now(), lifetime)
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
			printSetWritten(e, out, l, key)
			return cli.ExitOK
		},
	}
}

func exportCommand() *cli.Command {
	var sf setFlags
	var prune, noIndex bool
	var chunksURL string
	return &cli.Command{
		Name: "export", Args: "DIR|oci://HOST/REPO:TAG [--prune]", Nargs: cli.Args{Min: 1, Max: 1, Want: "one DIR or oci:// reference"},
		Summary: "write the machine's enabled packs as a folder to publish: DIR/forgepacks.lock\n" +
			"(+ .minisig with --sign) and DIR/packs/<sha256><ext>, each with its chunk index\n" +
			"DIR/packs/<sha256>.caibx and one shared chunk store DIR/chunks/ for delta updates.\n" +
			"Any static web server, bucket or CDN serves it as it is; names by content never change.\n" +
			"oci://HOST/REPO:TAG pushes the set to an OCI registry instead (blobs it has are not sent\n" +
			"again), moves the tag, and prints oci://HOST/REPO@sha256:… which pins the set.",
		Flags: func(fs *flag.FlagSet) {
			sf.register(fs)
			fs.BoolVar(&prune, "prune", false, "after the new lock is written, remove from DIR/packs the archives it no longer pins, and from DIR/chunks the chunks no kept index uses")
			fs.BoolVar(&noIndex, "no-index", false, "write no chunk indexes and no chunk store (no delta updates)")
			fs.StringVar(&chunksURL, "chunks", export.DefaultChunksURL, "the chunk store's `URL` as the lock names it (relative: beside the lock)")
		},
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			dir, ref, err := export.ExportTarget(args[0])
			if err != nil {
				return e.Fail(err)
			}
			if ref != nil && prune {
				fmt.Fprintln(e.Stderr, "forgesync export: --prune goes with a folder; a registry keeps what its tags and digests name")
				return cli.ExitFailure
			}
			lifetime, err := sf.lifetime()
			if err != nil {
				return e.Fail(err)
			}
			key, err := sf.key()
			if err != nil {
				return e.Fail(err)
			}
			m := openMachine(e)
			defer m.Close()
			kept, err := m.Kept(ctx)
			if err != nil {
				return e.Fail(err)
			}
			if ref != nil {
				p, err := export.ExportOCI(ctx, m.Registry(), *ref, sf.name, kept, sf.urls, key, time.Now(), lifetime)
				if err != nil {
					return e.Fail(err)
				}
				cli.Show(e, pushedSet(p), writePushed)
				return cli.ExitOK
			}
			var st export.ExportStats
			l, err := export.ExportWith(ctx, dir, kept, export.ExportOptions{Name: sf.name, Template: sf.urls, Key: key,
				NoIndex: noIndex, ChunksURL: chunksURL, Stats: &st, Lifetime: lifetime})
			if err != nil {
				return e.Fail(err)
			}
			var removed []string
			pruned := 0
			if prune {
				if removed, err = export.PruneExport(dir, l); err != nil {
					return e.Fail(err)
				}
				if pruned, err = export.PruneChunks(dir, l); err != nil {
					return e.Fail(err)
				}
			}
			w := written(filepath.Join(dir, lock.LockName), l, key, removed...)
			w.Indexed, w.ChunksWritten, w.ChunksPruned, w.Repaired = st.Indexed, st.ChunksWritten, pruned, st.Repaired
			cli.Show(e, w, export.WriteWritten)
			return cli.ExitOK
		},
	}
}

// pushed is what `export oci://…` says: where the set went, the reference
// that pins it, and what was uploaded.
type pushed struct {
	Tagged        string `json:"tagged"`
	Reference     string `json:"reference"`
	Fingerprint   string `json:"fingerprint"`
	Packs         int    `json:"packs"`
	SignedBy      string `json:"signed_by"`
	Uploaded      int    `json:"uploaded_blobs"`
	UploadedBytes int64  `json:"uploaded_bytes"`
	Skipped       int    `json:"skipped_blobs"`
	// Serial and Expires are the lock's (SPEC §10.2c).
	Serial  int64      `json:"serial,omitempty"`
	Expires *time.Time `json:"expires,omitempty"`
}

func pushedSet(p *export.PushedSet) pushed {
	out := pushed{Tagged: p.Pushed.Tagged.String(), Reference: p.Pushed.Reference.String(), Fingerprint: p.Lock.Fingerprint(),
		Packs: len(p.Lock.Packs), SignedBy: p.SignedBy, Uploaded: p.Pushed.Uploaded, UploadedBytes: p.Pushed.UploadedBytes, Skipped: p.Pushed.Skipped,
		Serial: p.Lock.Serial}
	if !p.Lock.Expires.IsZero() {
		out.Expires = &p.Lock.Expires
	}
	return out
}

// writePushed writes what was pushed as text; its last line is the
// reference that pins the set, for scripts to take.
func writePushed(w io.Writer, p pushed) error {
	fmt.Fprintf(w, "pushed %s: %d packs, %s\n", p.Tagged, p.Packs, p.Fingerprint)
	if p.SignedBy != "" {
		fmt.Fprintf(w, "signed by key %s (%s)\n", p.SignedBy, "forgepacks.lock.minisig")
	}
	if p.Expires != nil {
		fmt.Fprintln(w, export.ExpiresLine(*p.Expires))
	}
	fmt.Fprintf(w, "uploaded %d blobs (%d bytes); %d were in the registry already\n", p.Uploaded, p.UploadedBytes, p.Skipped)
	_, err := fmt.Fprintln(w, p.Reference)
	return err
}

func printSetWritten(e *cli.Env, path string, l *lock.Lock, key *minisign.PrivateKey, removed ...string) {
	cli.Show(e, written(path, l, key, removed...), export.WriteWritten)
}

func written(path string, l *lock.Lock, key *minisign.PrivateKey, removed ...string) export.Written {
	w := export.Written{Lock: path, Fingerprint: l.Fingerprint(), Packs: len(l.Packs), Removed: removed, Serial: l.Serial}
	if !l.Expires.IsZero() {
		w.Expires = &l.Expires
	}
	if key != nil {
		w.SignedBy = lock.KeyID(key.ID())
	}
	return w
}

func diffCommand() *cli.Command {
	return &cli.Command{
		Name: "diff", Args: "LOCK|URL|oci://REF", Nargs: cli.Args{Min: 1, Max: 1, Want: "one lock file, folder, URL or oci:// reference"},
		Summary: "compare the machine's packs with a pack set, one line per difference\n" +
			"Exit status: 0 equal, 1 different, 2 could not tell.",
		Run: func(ctx context.Context, e *cli.Env, args []string) int {
			m := openMachine(e)
			defer m.Close()
			f := m.Fetcher()
			rep, err := fetch.DiffLock(ctx, &f, args[0], e.Config.Sets.TrustedKeys, m.Installed)
			if err != nil {
				return e.Fail(err)
			}
			rep.CheckExpiry(time.Now())
			// The expected delta updates: the new indexes are fetched, never
			// a chunk; a seed without a kept index is not chunked.
			if err := rep.EstimateTransfers(ctx, &f, func(sha string) string {
				return filepath.Join(e.Config.Paths.State, follow.CacheDir, sha+casync.IndexExt)
			}); err != nil {
				fmt.Fprintf(e.Stderr, "forgesync diff: no estimate of the transfer: %v\n", err)
			}
			cli.Show(e, rep, fetch.WriteDiff)
			if !rep.Equal {
				return cli.ExitInvalid
			}
			return cli.ExitOK
		},
	}
}

// setArg is sync's --set: a flag whose value may follow it as the next
// argument (`--set URL`, `--set=URL`) or be left out (`--set` alone: the
// configured [sets] source).
type setArg struct {
	given bool
	value string
}

func (s *setArg) String() string   { return s.value }
func (s *setArg) IsBoolFlag() bool { return true }

func (s *setArg) Set(v string) error {
	s.given = true
	if v != "true" { // `--set` alone sets "true"
		s.value = v
	}
	return nil
}

// lock returns the lock --set names: its value, the argument after it, or
// "" (the configured source); more than one is reported by runSyncSet.
func (s *setArg) lock(args []string) []string {
	if s.value != "" {
		return append([]string{s.value}, args...)
	}
	return args
}

// runSyncSet is `forgesync sync --set [LOCK|URL] [--prune]`; without a
// lock it syncs the configured [sets] source.
func runSyncSet(ctx context.Context, e *cli.Env, locks []string, prune bool) int {
	e.Name = "sync --set"
	if len(locks) > 1 {
		fmt.Fprintf(e.Stderr, "forgesync sync --set: want one lock file, folder or URL, got %d: %s\n", len(locks), strings.Join(locks, " "))
		return cli.ExitFailure
	}
	var arg string
	if len(locks) == 1 {
		arg = locks[0]
	} else if arg = e.Config.Sets.Source; arg == "" {
		fmt.Fprintln(e.Stderr, "forgesync sync --set: no set named and no [sets] source in the config: name the lock (sync --set URL), or set source in the [sets] section of the config")
		return cli.ExitFailure
	}
	m := openMachine(e)
	defer m.Close()
	res, err := m.SyncSet(ctx, arg, prune)
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
