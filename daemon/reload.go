package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"unicode"

	"golang.org/x/sync/errgroup"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/pipeline"
	"github.com/mjolnir-forge/forgesync/sets/follow"
)

// The sections a reload applies to a running daemon; every other key
// takes effect at a restart.
const (
	sectionSets        = "[sets]"
	sectionWatch       = "[watch]"
	sectionLimits      = "[limits]"
	sectionPerformance = "[performance]"
)

// reloader owns the parts of a running daemon that a config reload
// replaces (SIGHUP, POST /v1/reload): the drop-folder watcher and the set
// follower's loop run under it and start again with the new [watch] and
// [sets]; the writer takes the new [limits] and [performance]. It also
// logs every signal the daemon receives. Its run goroutine owns cfg and x;
// Reload asks it.
type reloader struct {
	m    *Machine
	load func() (*config.Config, error)
	log  *slog.Logger
	r    *pipeline.Runner
	sets *atomic.Pointer[follow.Syncer]
	// priority is the [performance] priority in force, for status.
	priority atomic.Pointer[string]
	reqs     chan chan reloadAnswer

	cfg *config.Config    // in force; owned by run
	x   *intake.Extractor // the writer's unpacker; owned by run, closed by it
}

type reloadAnswer struct {
	res *api.ReloadResult
	err error
}

func newReloader(m *Machine, load func() (*config.Config, error), r *pipeline.Runner, sets *atomic.Pointer[follow.Syncer], x *intake.Extractor) *reloader {
	rl := &reloader{m: m, load: load, log: m.opts.Log, r: r, sets: sets, reqs: make(chan chan reloadAnswer), cfg: m.opts.Config, x: x}
	p := m.opts.Config.Performance.Priority
	rl.priority.Store(&p)
	return rl
}

// Priority is the [performance] priority in force.
func (rl *reloader) Priority() string { return *rl.priority.Load() }

// Reload asks the run goroutine to read the config again and apply it,
// and waits for what it did.
func (rl *reloader) Reload(ctx context.Context) (*api.ReloadResult, error) {
	ch := make(chan reloadAnswer, 1)
	select {
	case rl.reqs <- ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case a := <-ch:
		return a.res, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// run runs the watcher and the follower's loop until ctx ends or one of
// them fails, starting them again after each reload that applied
// something, and logs each signal.
func (rl *reloader) run(ctx context.Context) error {
	sig := make(chan os.Signal, 8)
	signal.Notify(sig, loggedSignals...)
	defer signal.Stop(sig)
	defer func() {
		if rl.x != rl.m.opts.Extractor && rl.x != nil {
			rl.x.Close() // one a reload made; Serve closes the first
		}
	}()
	for {
		lctx, cancel := context.WithCancel(ctx)
		g, gctx := errgroup.WithContext(lctx)
		w, err := rl.m.watcherFor(rl.cfg, rl.r)
		if err != nil {
			cancel()
			return err
		}
		g.Go(func() error { return w.Run(gctx) })
		sets, interval := rl.sets.Load(), rl.cfg.Sets.Interval
		g.Go(func() error { return sets.Run(gctx, interval) })
		restart := rl.wait(ctx, gctx, sig)
		cancel()
		if err := g.Wait(); err != nil || !restart {
			return err
		}
	}
}

// wait serves signals and reload requests until ctx or gctx ends (false)
// or a reload applied something (true).
func (rl *reloader) wait(ctx, gctx context.Context, sig chan os.Signal) bool {
	for {
		select {
		case <-gctx.Done():
			// Stopping: say the signal that stopped it, if one did.
			for {
				select {
				case s := <-sig:
					rl.log.Info("signal received", "signal", s.String())
				default:
					return false
				}
			}
		case s := <-sig:
			rl.log.Info("signal received", "signal", s.String())
			if !isReloadSignal(s) {
				continue
			}
			if res, err := rl.reload(ctx); err == nil && len(res.Applied) > 0 {
				return true
			}
		case ch := <-rl.reqs:
			res, err := rl.reload(ctx)
			ch <- reloadAnswer{res, err}
			if err == nil && len(res.Applied) > 0 {
				return true
			}
		}
	}
}

// reload reads the config again and applies its [sets], [watch], [limits]
// and [performance]; a config that cannot be read or is invalid is logged
// and changes nothing. It logs what it applied and names each other key
// that changed, which takes effect at a restart.
func (rl *reloader) reload(ctx context.Context) (*api.ReloadResult, error) {
	file := rl.cfg.File
	cfg, setOpts, lim, err := rl.read()
	if err != nil {
		err = fmt.Errorf("reload %s: %w; the daemon keeps the config it has: fix the file and reload again", file, err)
		rl.log.Error("config reload failed; the old config is kept", "config", file, "err", err)
		return nil, errkind.Wrap(errkind.Invalid, err)
	}
	res := &api.ReloadResult{Config: file, Applied: []string{}, NeedsRestart: needsRestart(rl.cfg, cfg)}
	next := *rl.cfg
	if !reflect.DeepEqual(rl.cfg.Limits, cfg.Limits) || rl.cfg.Performance != cfg.Performance {
		if err := rl.reconfigureWriter(ctx, cfg, lim); err != nil {
			return nil, err
		}
		for _, s := range []struct {
			name    string
			changed bool
		}{{sectionLimits, rl.cfg.Limits != cfg.Limits}, {sectionPerformance, rl.cfg.Performance != cfg.Performance}} {
			if s.changed {
				res.Applied = append(res.Applied, s.name)
			}
		}
		next.Limits, next.Performance = cfg.Limits, cfg.Performance
	}
	if rl.cfg.Watch != cfg.Watch {
		res.Applied = append(res.Applied, sectionWatch)
		next.Watch = cfg.Watch
	}
	if !reflect.DeepEqual(reloadableSets(rl.cfg.Sets), reloadableSets(cfg.Sets)) {
		rl.replaceFollower(setOpts)
		res.Applied = append(res.Applied, sectionSets)
		keep, profiles := next.Sets.KeepGenerations, next.Sets.KeepProfiles
		next.Sets, next.Sets.KeepGenerations, next.Sets.KeepProfiles = cfg.Sets, keep, profiles
	}
	rl.cfg = &next
	rl.log.Info("config reloaded", "config", file, "applied", res.Applied, "needs_restart", res.NeedsRestart)
	if len(res.NeedsRestart) > 0 {
		rl.log.Warn("config changes that take effect only at a restart", "config", file, "keys", res.NeedsRestart)
	}
	return res, nil
}

// read loads the config and checks what the daemon needs of it.
func (rl *reloader) read() (*config.Config, follow.Options, intake.Limits, error) {
	cfg, err := rl.load()
	if err != nil {
		return nil, follow.Options{}, intake.Limits{}, err
	}
	if err := cfg.RequireGame(); err != nil {
		return nil, follow.Options{}, intake.Limits{}, err
	}
	lim, err := ArchiveLimits(cfg)
	if err != nil {
		return nil, follow.Options{}, intake.Limits{}, err
	}
	if _, err := rl.m.watcherFor(cfg, rl.r); err != nil {
		return nil, follow.Options{}, intake.Limits{}, err
	}
	// The set options of the new config, and its registry client.
	nm := &Machine{opts: rl.m.opts, lan: rl.m.lan} // the same LAN peers
	nm.opts.Config = cfg
	setOpts, err := nm.setOptions()
	return cfg, setOpts, lim, err
}

// reconfigureWriter gives the writer the new limits and, when the
// priority changed, a new unpacker; lowering this process's priority is
// done at once, raising it back waits for a restart (it may need a
// privilege the daemon lacks).
func (rl *reloader) reconfigureWriter(ctx context.Context, cfg *config.Config, lim intake.Limits) error {
	var x *intake.Extractor
	if rl.cfg.Performance != cfg.Performance && rl.x != nil {
		x = SelfExtractor(cfg)
		x.Warm()
	}
	if err := rl.r.Do(ctx, func(_ context.Context, p *pipeline.Pipeline) error { p.Reconfigure(lim, x); return nil }); err != nil {
		if x != nil {
			x.Close()
		}
		return fmt.Errorf("reload: give the writer the new [limits] and [performance]: %w", err)
	}
	if x != nil {
		if rl.x != rl.m.opts.Extractor {
			rl.x.Close()
		}
		rl.x = x
	}
	lowerPriority(cfg, rl.log)
	p := cfg.Performance.Priority
	rl.priority.Store(&p)
	return nil
}

// replaceFollower puts a Syncer with the new [sets] in the place of the
// one in force, once a sync it runs has ended.
func (rl *reloader) replaceFollower(opts follow.Options) {
	old := rl.sets.Load()
	old.Retire()
	s, err := follow.New(rl.r, opts)
	if err != nil {
		// The record could not be read now: it was a moment ago, by the
		// Syncer retired; keep following with what the record holds.
		rl.log.Error("pack set follower not replaced; restart the daemon", "err", err)
		return
	}
	rl.sets.Store(s)
}

// reloadableSets is [sets] without the keys a reload does not apply.
func reloadableSets(s config.Sets) config.Sets {
	s.KeepGenerations, s.KeepProfiles = 0, 0
	return s
}

// needsRestart names each key of next that differs from cur and that a
// reload does not apply ("paths.mods", "api.listen").
func needsRestart(cur, next *config.Config) []string {
	out := []string{}
	for _, sec := range []struct {
		name    string
		cur, nx any
	}{{"paths", cur.Paths, next.Paths}, {"deploy", cur.Deploy, next.Deploy}, {"log", cur.Log, next.Log}, {"api", cur.API, next.API},
		{"lan", cur.LAN, next.LAN}} {
		a, b := reflect.ValueOf(sec.cur), reflect.ValueOf(sec.nx)
		for i := range a.NumField() {
			if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
				out = append(out, sec.name+"."+snake(a.Type().Field(i).Name))
			}
		}
	}
	if cur.Sets.KeepGenerations != next.Sets.KeepGenerations {
		out = append(out, "sets.keep_generations")
	}
	if cur.Sets.KeepProfiles != next.Sets.KeepProfiles {
		out = append(out, "sets.keep_profiles")
	}
	slices.Sort(out)
	return out
}

// snake writes a Go field name as its TOML key ("MaxEntries" →
// "max_entries").
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 && !unicode.IsUpper(rune(s[i-1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
