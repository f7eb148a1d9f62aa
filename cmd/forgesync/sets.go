package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer"
	"github.com/mjolnir-forge/forgesync/packset"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/setsync"
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
			kept, closeState, err := keptArchives(ctx, e)
			if err != nil {
				return e.fail(err)
			}
			defer closeState()
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
			kept, closeState, err := keptArchives(ctx, e)
			if err != nil {
				return e.fail(err)
			}
			defer closeState()
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
	signed := ""
	if key != nil {
		signed = packset.KeyID(key.ID())
	}
	if e.json {
		writeJSON(e.stdout, map[string]any{"lock": path, "fingerprint": l.Fingerprint(), "packs": len(l.Packs), "signed_by": signed})
		return
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d packs, %s\n", path, len(l.Packs), l.Fingerprint())
	if key != nil {
		fmt.Fprintf(e.stdout, "signed by key %s (%s)\n", signed, path+".minisig")
	}
}

func diffCommand() *command {
	return &command{
		name: "diff", args: "LOCK|URL", nargs: argSpec{1, 1, "one lock file, folder or URL"},
		summary: "compare the machine's packs with a pack set, one line per difference\n" +
			"Exit status: 0 equal, 1 different, 2 could not tell.",
		run: func(ctx context.Context, e *env, args []string) int {
			return runDiff(ctx, e, args[0])
		},
	}
}

// diffReport is what `forgesync diff --json` prints.
type diffReport struct {
	Source    string               `json:"source"`
	Name      string               `json:"name,omitempty"`
	Signature packset.Verification `json:"signature"`
	packset.Comparison
}

func runDiff(ctx context.Context, e *env, arg string) int {
	fail := func(err error) int {
		return e.fail(err)
	}
	keys, err := packset.ParsePublicKeys(e.cfg.Sets.TrustedKeys)
	if err != nil {
		return fail(err)
	}
	src, err := packset.LockSource(arg)
	if err != nil {
		return fail(err)
	}
	lf, err := (&packset.Fetcher{}).FetchLock(ctx, src, packset.Validators{})
	if err != nil {
		return fail(err)
	}
	v, err := packset.Verify(lf.Data, lf.Signature, keys)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", src, err))
	}
	l, err := packset.Decode(src.String(), lf.Data, packset.DecodeOptions{Have: packset.HaveAll})
	if err != nil {
		return fail(err)
	}
	installed, closeState, err := installedPacks(ctx, e)
	if err != nil {
		return fail(err)
	}
	closeState()
	rep := diffReport{Source: src.String(), Name: l.Name, Signature: v, Comparison: packset.Compare(installed, l.Entries())}
	code := exitOK
	if !rep.Equal {
		code = exitInvalid
	}
	if e.json {
		writeJSON(e.stdout, rep)
		return code
	}
	for _, d := range rep.Differences {
		fmt.Fprintln(e.stdout, d.String())
	}
	switch v.State {
	case packset.Verified:
		fmt.Fprintf(e.stdout, "set %s signed by trusted key %s\n", rep.Set, v.KeyID)
	case packset.Unverified:
		fmt.Fprintf(e.stdout, "set %s signed by key %s (not checked: no [sets] trusted_keys)\n", rep.Set, v.KeyID)
	case packset.Invalid:
		fmt.Fprintf(e.stdout, "set %s: its signature is not valid: %s\n", rep.Set, v.Reason)
	default:
		fmt.Fprintf(e.stdout, "set %s (unsigned)\n", rep.Set)
	}
	if rep.Equal {
		fmt.Fprintf(e.stdout, "the machine equals the set (%d packs)\n", len(l.Packs))
	} else {
		n := len(rep.Differences)
		fmt.Fprintf(e.stdout, "the machine (%s) differs from the set in %d %s\n", rep.Machine, n, plural(n, "pack", "packs"))
	}
	return code
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// installedPacks reads the installed packs the way `forgesync packs` does:
// from the daemon when it runs, else from the state under its lock (after
// finishing any interrupted transaction). The returned function releases
// the state.
func installedPacks(ctx context.Context, e *env) ([]packset.Installed, func(), error) {
	var out []packset.Installed
	if c := daemonClient(ctx, e.cfg); c != nil {
		defer c.Close()
		packs, err := c.Packs(ctx)
		if err != nil {
			return nil, nil, err
		}
		for _, p := range packs {
			out = append(out, packset.Installed{ID: p.ID, Version: p.Version, SHA256: p.ArchiveSHA256, Enabled: p.Enabled})
		}
		return out, func() {}, nil
	}
	p, _, err := openPipeline(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	packs, err := p.Packs()
	if err != nil {
		p.Close()
		return nil, nil, err
	}
	for _, pk := range packs {
		out = append(out, packset.Installed{ID: pk.Manifest.ID, Version: pk.Manifest.Version, SHA256: pk.ArchiveSHA256, Enabled: pk.Enabled})
	}
	return out, func() { p.Close() }, nil
}

// keptArchives returns each enabled pack with its kept archive. Without a
// daemon the state's lock is held until the returned function is called,
// so that no transaction replaces an archive while it is read; with a
// daemon the state file (replaced atomically) is read as it stands, and
// every archive's SHA-256 is checked while it is copied.
func keptArchives(ctx context.Context, e *env) ([]packset.Kept, func(), error) {
	installed, closeState, err := installedPacks(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	store := &installer.Store{Dir: e.cfg.Paths.State}
	st, err := store.Load()
	if err != nil {
		closeState()
		return nil, nil, err
	}
	var kept []packset.Kept
	for _, p := range installed {
		if !p.Enabled {
			continue
		}
		r := st.Find(p.ID)
		if r == nil || r.ArchiveSHA256 != p.SHA256 || r.Archive == "" {
			closeState()
			return nil, nil, fmt.Errorf("pack %s %s: its kept archive is not in the state (a transaction ran meanwhile? try again)", p.ID, p.Version)
		}
		kept = append(kept, packset.Kept{ID: p.ID, Version: p.Version, SHA256: p.SHA256,
			Path: store.Path(installer.ArchivesDir, r.Archive), Ext: packset.ArchiveExt(r.Archive)})
	}
	return kept, closeState, nil
}

// setFetcher is the template of every fetch of a set: the defaults of
// packset.Fetcher, which tests shorten.
var setFetcher packset.Fetcher

// setOptions are the options of a Syncer from the configuration.
func setOptions(e *env) (setsync.Options, error) {
	keys, err := packset.ParsePublicKeys(e.cfg.Sets.TrustedKeys)
	if err != nil {
		return setsync.Options{}, err
	}
	return setsync.Options{State: e.cfg.Paths.State, Follow: e.cfg.Sets.Source, TrustedKeys: keys,
		CacheMax: e.cfg.Sets.CacheMax, Log: e.log, Fetcher: setFetcher}, nil
}

// runSyncSet is `forgesync sync --set LOCK|URL [--prune]`: through the
// daemon when one answers, else under the state lock.
func runSyncSet(ctx context.Context, e *env, arg string, prune bool) int {
	fail := func(err error) int {
		fmt.Fprintf(e.stderr, "forgesync sync --set: %v\n", err)
		if errors.Is(err, pipeline.ErrRefused) || errors.Is(err, api.ErrConflict) {
			return exitInvalid
		}
		return exitFailure
	}
	src, err := packset.LockSource(arg)
	if err != nil {
		return fail(err)
	}
	if c := daemonClient(ctx, e.cfg); c != nil {
		// The daemon is the single writer: it fetches and applies.
		defer c.Close()
		res, err := c.SetApply(ctx, api.SetApplyRequest{URL: src.String(), Prune: prune})
		if err != nil {
			return fail(err)
		}
		return printSetSync(e, res)
	}
	opts, err := setOptions(e)
	if err != nil {
		return fail(err)
	}
	p, rec, err := openPipeline(ctx, e)
	if err != nil {
		return fail(err)
	}
	defer p.Close()
	if !e.json {
		// A headless host sees each download start (and each retry).
		var mu sync.Mutex
		opts.Events = func(d api.EventData) {
			if dl, ok := d.(api.Download); ok && dl.Done == 0 {
				mu.Lock()
				fmt.Fprintf(e.stderr, "fetching %s (%d bytes) from %s\n", dl.Pack, dl.Total, dl.URL)
				mu.Unlock()
			}
		}
	}
	s, err := setsync.New(p, opts)
	if err != nil {
		return fail(err)
	}
	res, err := s.Sync(ctx, setsync.Request{Source: src.String(), Prune: prune})
	if err != nil {
		if e.json {
			writeJSON(e.stdout, res)
		}
		return fail(err)
	}
	// What opening the state recovered or republished counts with the run.
	if res.Summary != nil {
		res.Summary = rec.Merge(res.Summary)
	}
	reports, derr := p.Deploy(ctx)
	warnings, deployFailed := pipeline.DeployWarnings(reports, derr)
	if res.Summary != nil {
		res.Summary.Warnings = append(res.Summary.Warnings, warnings...)
	}
	code := printSetSync(e, res)
	if deployFailed {
		return exitFailure
	}
	return code
}

// printSetSync prints what a set sync did and returns its exit status.
func printSetSync(e *env, res *api.SetSyncResult) int {
	if e.json {
		writeJSON(e.stdout, res)
		return exitOK
	}
	signed := "unsigned or not checked"
	if res.SignedBy != "" {
		signed = "signed by trusted key " + res.SignedBy
	}
	fmt.Fprintf(e.stdout, "set %s (%s)\n", res.Check.Fingerprint, signed)
	for _, d := range res.Downloaded {
		fmt.Fprintf(e.stdout, "downloaded %s from %s (%d bytes)\n", d.Pack, d.URL, d.Bytes)
	}
	if sum := res.Summary; sum != nil {
		if r := sum.Set; r != nil {
			for _, c := range r.Installed {
				fmt.Fprintf(e.stdout, "installed %s %s\n", c.ID, c.Version)
			}
			for _, c := range r.Upgraded {
				fmt.Fprintf(e.stdout, "upgraded %s %s → %s\n", c.ID, c.Previous, c.Version)
			}
			for _, c := range r.Downgraded {
				fmt.Fprintf(e.stdout, "downgraded %s %s → %s (pinned by the set)\n", c.ID, c.Previous, c.Version)
			}
			for _, c := range r.Reinstalled {
				fmt.Fprintf(e.stdout, "reinstalled %s %s from other bytes\n", c.ID, c.Version)
			}
			for _, id := range r.Enabled {
				fmt.Fprintf(e.stdout, "enabled %s\n", id)
			}
			for _, id := range r.Disabled {
				fmt.Fprintf(e.stdout, "disabled %s (not in the set)\n", id)
			}
			for _, id := range r.Removed {
				fmt.Fprintf(e.stdout, "removed %s (not in the set)\n", id)
			}
		}
		for _, w := range sum.Warnings {
			fmt.Fprintf(e.stdout, "warning: %s\n", w)
		}
		if len(sum.Published) > 0 {
			fmt.Fprintf(e.stdout, "published %s\n", strings.Join(sum.Published, ", "))
		}
	}
	switch {
	case res.Check.Result == api.CheckApplied:
		fmt.Fprintf(e.stdout, "the machine now equals the set %s\n", res.Check.Fingerprint)
	case res.Check.NotModified:
		fmt.Fprintln(e.stdout, "nothing to do: the set is unchanged (304) and the machine equals it")
	default:
		fmt.Fprintln(e.stdout, "nothing to do: the machine equals the set")
	}
	return exitOK
}
