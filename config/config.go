// Package config owns forgesync's TOML configuration file (SPEC §1): its
// keys, the defaults per operating system, resolving relative paths against
// the file's folder (a service starts in another working directory), and
// validation with errors that name the key and its line.
package config

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/spec"
)

// Config is a loaded, resolved configuration. Every path in it is absolute
// (or empty where SPEC §1 makes it optional and no default applies).
type Config struct {
	// File is the configuration file it was loaded from; empty for defaults.
	File   string
	Paths  Paths
	Watch  Watch
	Limits Limits
	Deploy Deploy
	Log    Log
	API    API
	Sets   Sets
	// LAN is the LAN peer cache (SPEC §13).
	LAN LAN
	// Performance says how install work shares the machine with the game.
	Performance Performance
	// Update says where forgesync's own releases come from (SPEC §14).
	Update Update
}

// Update configures `forgesync update` and the daemon's check for a newer
// forgesync.
type Update struct {
	// Feed is the http or https URL of the folder holding a release's
	// SHA256SUMS, its signature and archives; empty: the project's.
	Feed string
	// Check makes the daemon read the feed at most once a day.
	Check bool
}

// Performance says how install work shares the machine with a game that
// runs beside it.
type Performance struct {
	// Priority is PriorityBackground (the default: the unpacker and the
	// install's writes run at a low processor and I/O priority) or
	// PriorityNormal.
	Priority string
}

// The values of performance.priority.
const (
	priorityBackground = "background"
	PriorityNormal     = "normal"
)

// API configures the optional loopback TCP API (SPEC §8).
type API struct {
	// Listen is a loopback host:port; empty: no TCP API.
	Listen string
}

// Paths are the places on disk of SPEC §1.
type Paths struct {
	Drop   string // where players drop archives
	Mods   string // the game's UE4SS Mods folder
	Paks   string // where pack content containers go
	State  string // the daemon's own data
	Socket string // the status socket
}

// Watch tunes the drop-folder watcher.
type Watch struct {
	Settle time.Duration // a file must stay unchanged this long before it is claimed
	Rescan time.Duration // full rescan period, the safety net for lost events
}

// Limits are the extraction limits of SPEC §2 as configured; a zero field
// means the built-in default (internal/spec). They may only lower
// the defaults; whoever builds the extractor checks that when it turns
// them into the intake's limits.
type Limits struct {
	MaxEntries    int
	MaxTotalBytes int64
	MaxEntryBytes int64
	MaxRatio      int
}

// Deploy says what the daemon deploys into the game's folders.
type Deploy struct {
	Modules string // the release bundle's modules/ folder
	Lua     bool   // deploy the Lua lift scripts
	Native  bool   // deploy the native door module
}

// Log configures logging.
type Log struct {
	Level  slog.Level
	Format string // "text" or "json"
	// File is where a service also logs, rotated by size; by default
	// <state>/logs/forgesync.log.
	File string
}

// Sets configures following a pack set (SPEC §10) and keeping generations
// (SPEC §11).
type Sets struct {
	// Source is the lock file the daemon follows: an http(s) or file URL
	// or an oci:// reference as written, or an absolute path (a relative
	// one is resolved against the config file's folder); empty: none.
	Source string
	// Interval is how often the daemon checks Source.
	Interval time.Duration
	// TrustedKeys are minisign public keys (the base64 line of a .pub
	// file); when set, an unsigned or wrongly signed lock is refused.
	TrustedKeys []string
	// CacheMax bounds state/cache/, the downloaded and superseded archives.
	CacheMax int64
	// KeepGenerations is how many generations the state keeps (at least 1).
	KeepGenerations int
	// MaxStageBytes bounds one stage (SPEC §12): a set whose archives
	// still to fetch are more bytes than this is refused before any
	// download.
	MaxStageBytes int64
	// KeepProfiles is how many profiles besides own the state keeps (SPEC
	// §12), the least recently used pruned first (at least 1).
	KeepProfiles int
	// AllowPrivateMirrors lets a lock served from a public address name
	// mirrors on loopback, private and link-local addresses (LAN hosts);
	// without it they are refused when dialled.
	AllowPrivateMirrors bool
	// InsecureRegistries are the OCI registries (host or host:port)
	// spoken to over plain HTTP; loopback ones always are.
	InsecureRegistries []string
	// DockerConfig is the Docker config file whose registry credentials
	// are used (an absolute path; a relative one is resolved against the
	// config file's folder); empty: $DOCKER_CONFIG/config.json, else
	// ~/.docker/config.json of the user forgesync runs as.
	DockerConfig string
}

// LAN configures the LAN peer cache (SPEC §13).
type LAN struct {
	// Share serves this machine's archives and chunks to LAN peers, and
	// announces and browses for peers by mDNS; off by default.
	Share bool
	// Listen is the ADDR:PORT the peer server listens on.
	Listen string
	// MaxUpload bounds the bytes per second sent to peers.
	MaxUpload int64
	// Peers are peers' base URLs (http://HOST:PORT), asked first for each
	// archive and chunk, with or without Share.
	Peers []string
}

// Defaults of SPEC §1.
const (
	// defaultLANListen is the peer server's address: every interface,
	// port 47380.
	defaultLANListen = "0.0.0.0:47380"
	// defaultMaxUpload is half of an assumed 100 Mbit/s link (6.25 MB/s):
	// a machine that shares still has the other half for itself.
	defaultMaxUpload       = 6_250_000
	defaultSettle          = 750 * time.Millisecond
	defaultRescan          = 60 * time.Second
	defaultSetInterval     = 5 * time.Minute
	defaultCacheMax        = 2 << 30
	defaultKeepGenerations = 10
	defaultMaxStageBytes   = 4 << 30
	defaultKeepProfiles    = 5
)

// errInvalid is matched by every error about the file's content (as
// opposed to failing to read it): an *Error.
var errInvalid = errors.New("invalid configuration")

// file mirrors the TOML layout; strings hold what needs parsing.
type file struct {
	Paths struct {
		Drop   string `toml:"drop"`
		Mods   string `toml:"mods"`
		Paks   string `toml:"paks"`
		State  string `toml:"state"`
		Socket string `toml:"socket"`
	} `toml:"paths"`
	Watch struct {
		Settle string `toml:"settle"`
		Rescan string `toml:"rescan"`
	} `toml:"watch"`
	Limits struct {
		MaxEntries    *int  `toml:"max_entries"`
		MaxTotalBytes *size `toml:"max_total_bytes"`
		MaxEntryBytes *size `toml:"max_entry_bytes"`
		MaxRatio      *int  `toml:"max_ratio"`
	} `toml:"limits"`
	Deploy struct {
		Modules string `toml:"modules"`
		Lua     *bool  `toml:"lua"`
		Native  *bool  `toml:"native"`
	} `toml:"deploy"`
	Log struct {
		Level  string `toml:"level"`
		Format string `toml:"format"`
		File   string `toml:"file"`
	} `toml:"log"`
	API struct {
		Listen string `toml:"listen"`
	} `toml:"api"`
	Sets struct {
		Source          string   `toml:"source"`
		Interval        string   `toml:"interval"`
		TrustedKeys     []string `toml:"trusted_keys"`
		CacheMax        *size    `toml:"cache_max"`
		KeepGenerations *int     `toml:"keep_generations"`
		MaxStageBytes   *size    `toml:"max_stage_bytes"`
		KeepProfiles    *int     `toml:"keep_profiles"`
		AllowPrivate    bool     `toml:"allow_private_mirrors"`
		Insecure        []string `toml:"insecure_registries"`
		DockerConfig    string   `toml:"docker_config"`
	} `toml:"sets"`
	LAN struct {
		Share     bool     `toml:"share"`
		Listen    string   `toml:"listen"`
		MaxUpload *size    `toml:"max_upload"`
		Peers     []string `toml:"peers"`
	} `toml:"lan"`
	Performance struct {
		Priority string `toml:"priority"`
	} `toml:"performance"`
	Update struct {
		Feed  string `toml:"feed"`
		Check bool   `toml:"check"`
	} `toml:"update"`
}

// parseSize parses a byte count with an optional unit: B, KB, MB, GB, TB
// (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("size %q: want a number with an optional unit such as 4GiB", s)
	}
	mult := map[string]float64{"": 1, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("size %q: unknown unit %q (use B, KB, MB, GB, KiB, MiB, GiB)", s, unit)
	}
	v := f * mult
	if v > 1<<62 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(v), nil
}

// Default returns the configuration used without a file: every default of
// SPEC §1 for this operating system, with Mods and Paks unset.
func Default() *Config {
	c := &Config{
		Watch:  Watch{Settle: defaultSettle, Rescan: defaultRescan},
		Deploy: Deploy{Lua: true, Native: true},
		Log:    Log{Level: slog.LevelInfo, Format: "text"},
		Sets: Sets{Interval: defaultSetInterval, CacheMax: defaultCacheMax, KeepGenerations: defaultKeepGenerations,
			KeepProfiles: defaultKeepProfiles, MaxStageBytes: defaultMaxStageBytes},
		LAN: LAN{Listen: defaultLANListen, MaxUpload: defaultMaxUpload},

		Performance: Performance{Priority: priorityBackground},
	}
	c.Paths.State = Process(false).defaultState("")
	c.fillDerived()
	return c
}

// fillDerived sets the defaults that follow from other paths.
func (c *Config) fillDerived() {
	if c.Paths.Drop == "" && c.Paths.Mods != "" {
		c.Paths.Drop = filepath.Join(c.Paths.Mods, "MJOLNIRForgePacks", "drop")
	}
	if c.Paths.Socket == "" && c.Paths.State != "" {
		c.Paths.Socket = filepath.Join(c.Paths.State, "forgesync.sock")
	}
	if c.Log.File == "" && c.Paths.State != "" {
		c.Log.File = filepath.Join(c.Paths.State, "logs", "forgesync.log")
	}
	if c.Deploy.Modules == "" {
		if exe, err := os.Executable(); err == nil {
			c.Deploy.Modules = filepath.Join(filepath.Dir(exe), "modules")
		}
	}
}

// Load reads the configuration file at path; an empty path gives Default().
// Unknown keys, bad durations, sizes, levels and formats are errors naming
// the key and its line.
func Load(path string) (*Config, error) { return LoadEnv(path, Process(false)) }

// LoadEnv is [Load] for the account and role env describes (a machine
// service keeps its state in [Env.MachineStateDir]).
func LoadEnv(path string, env Env) (*Config, error) {
	if path == "" {
		c := Default()
		if env.Machine {
			c.Paths.State, c.Paths.Socket, c.Log.File = env.MachineStateDir(), "", ""
			c.fillDerived()
		}
		return c, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	data, err := readConfig(abs)
	if err != nil {
		return nil, err
	}
	return ParseEnv(abs, data, env)
}

// MaxConfigBytes bounds a configuration file: a hand-written file of a
// few dozen lines, with room to spare.
const MaxConfigBytes = 1 << 20

// readConfig reads the configuration file at path: a regular file of at
// most MaxConfigBytes (a device, a FIFO, a folder is refused before it is
// read).
func readConfig(path string) ([]byte, error) {
	data, err := atomicfile.ReadFile(path, MaxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return data, nil
}

// ParseEnv parses configuration text; path is the file it came from, used
// to resolve relative paths and in errors, and env the account and role
// that `~`, %LOCALAPPDATA% and a machine service's default state resolve
// to.
func ParseEnv(path string, data []byte, env Env) (*Config, error) {
	// Notepad writes a BOM; TOML does not allow one.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var f file
	var problems []problem
	bad := func(key, format string, args ...any) {
		problems = append(problems, problem{Line: keyLine(data, key), Key: key, Message: fmt.Sprintf(format, args...)})
	}
	if err := decodeFile(data, &f, bad); err != nil {
		var pe toml.ParseError
		if !errors.As(err, &pe) {
			return nil, &fileError{File: path, Problems: []problem{{Message: err.Error()}}}
		}
		msg := pe.Message
		if strings.Contains(msg, "escape") {
			msg += ` (a Windows path in double quotes needs each \ doubled: write it in single quotes, mods = 'C:\Games\Mods', or with forward slashes, mods = "C:/Games/Mods")`
		}
		return nil, &fileError{File: path, Problems: []problem{{Line: pe.Position.Line, Message: msg}}}
	}

	c := Default()
	c.File = path
	dir := filepath.Dir(path)
	resolve := func(key, p string) string {
		if p == "" {
			return ""
		}
		if msg := env.pathFormProblem(p); msg != "" {
			bad(key, "%s", msg)
			return ""
		}
		p = env.expandHome(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return filepath.Clean(p)
	}
	c.Paths = Paths{Drop: resolve("paths.drop", f.Paths.Drop), Mods: resolve("paths.mods", f.Paths.Mods),
		Paks: resolve("paths.paks", f.Paths.Paks), State: resolve("paths.state", f.Paths.State),
		Socket: resolve("paths.socket", f.Paths.Socket)}
	if c.Paths.State == "" {
		c.Paths.State = env.defaultState(path)
	}
	if f.Deploy.Modules != "" {
		c.Deploy.Modules = resolve("deploy.modules", f.Deploy.Modules)
	}
	c.Log.File = resolve("log.file", f.Log.File)
	c.fillDerived()
	if f.API.Listen != "" {
		if err := checkLoopback(f.API.Listen); err != nil {
			bad("api.listen", "%v", err)
		}
		c.API.Listen = f.API.Listen
	}
	parseWatchLog(c, &f, bad)
	parseLimits(&c.Limits, &f, bad)
	if f.Deploy.Lua != nil {
		c.Deploy.Lua = *f.Deploy.Lua
	}
	if f.Deploy.Native != nil {
		c.Deploy.Native = *f.Deploy.Native
	}
	parseSets(&c.Sets, &f, resolve, bad)
	parseUpdate(&c.Update, &f, bad)
	parseLAN(&c.LAN, &f, bad)
	if len(problems) > 0 {
		slices.SortStableFunc(problems, func(a, b problem) int { return cmp.Compare(a.Line, b.Line) })
		return nil, &fileError{File: path, Problems: problems}
	}
	return c, nil
}

// parseWatchLog validates the [watch], [log] and [performance] tables
// into c.
func parseWatchLog(c *Config, f *file, bad func(key, format string, args ...any)) {
	if f.Watch.Settle != "" {
		d, err := time.ParseDuration(f.Watch.Settle)
		if err != nil || d < 0 {
			bad("watch.settle", "want a duration such as \"750ms\", got %q", f.Watch.Settle)
		}
		c.Watch.Settle = d
	}
	if f.Watch.Rescan != "" {
		d, err := time.ParseDuration(f.Watch.Rescan)
		if err != nil || d <= 0 {
			bad("watch.rescan", "want a positive duration such as \"60s\", got %q", f.Watch.Rescan)
		}
		c.Watch.Rescan = d
	}
	if f.Log.Level != "" {
		if err := c.Log.Level.UnmarshalText([]byte(f.Log.Level)); err != nil {
			bad("log.level", "want debug, info, warn or error, got %q", f.Log.Level)
		}
	}
	switch f.Log.Format {
	case "":
	case "text", "json":
		c.Log.Format = f.Log.Format
	default:
		bad("log.format", "want text or json, got %q", f.Log.Format)
	}
	switch f.Performance.Priority {
	case "":
	case priorityBackground, PriorityNormal:
		c.Performance.Priority = f.Performance.Priority
	default:
		bad("performance.priority", "want %q or %q, got %q", priorityBackground, PriorityNormal, f.Performance.Priority)
	}
}

// parseLimits validates the [limits] table into l. A limit may only lower
// its default (SPEC §2); a raised one is quoted as the user wrote it.
func parseLimits(l *Limits, f *file, bad func(key, format string, args ...any)) {
	check := func(key, raw string, v, def int64, defText string) int64 {
		switch {
		case v <= 0:
			bad("limits."+key, "must be positive, got %s", raw)
		case v > def:
			bad("limits."+key, "%s is above the default %s; limits may only be lowered", raw, defText)
		default:
			return v
		}
		return 0
	}
	sizeLimit := func(key string, s *size, def int64) int64 {
		if s == nil {
			return 0
		}
		n, err := parseSize(s.raw)
		if err != nil {
			bad("limits."+key, "%v", err)
			return 0
		}
		raw := s.raw
		if s.quote {
			raw = strconv.Quote(raw)
		}
		return check(key, raw, n, def, strconv.Quote(formatSize(def)))
	}
	intLimit := func(key string, n *int, def int64) int64 {
		if n == nil {
			return 0
		}
		return check(key, strconv.Itoa(*n), int64(*n), def, strconv.FormatInt(def, 10))
	}
	l.MaxEntries = int(intLimit("max_entries", f.Limits.MaxEntries, spec.MaxEntries))
	l.MaxTotalBytes = sizeLimit("max_total_bytes", f.Limits.MaxTotalBytes, spec.MaxTotalBytes)
	l.MaxEntryBytes = sizeLimit("max_entry_bytes", f.Limits.MaxEntryBytes, spec.MaxEntryBytes)
	l.MaxRatio = int(intLimit("max_ratio", f.Limits.MaxRatio, spec.MaxRatio))
}

// formatSize writes a byte count in the largest binary unit that divides
// it (4294967296 is "4GiB"), else in bytes.
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// redacted is a URL with its password replaced by "xxxxx", so that an
// error about it does not print the password.
func redacted(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}

// parseUpdate validates the [update] table into u.
func parseUpdate(u *Update, f *file, bad func(key, format string, args ...any)) {
	u.Check = f.Update.Check
	if f.Update.Feed == "" {
		return
	}
	if p, err := url.Parse(f.Update.Feed); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		bad("update.feed", "want the http or https URL of the folder holding a release's SHA256SUMS, got %q", redacted(f.Update.Feed))
		return
	}
	u.Feed = f.Update.Feed
}

// parseSets validates the [sets] table into s.
func parseSets(s *Sets, f *file, resolve func(key, p string) string, bad func(key, format string, args ...any)) {
	if src := strings.TrimSpace(f.Sets.Source); src != "" {
		scheme, _, isURL := strings.Cut(src, "://")
		switch {
		case !isURL:
			s.Source = resolve("sets.source", src)
		case scheme == "http" || scheme == "https" || scheme == "file" || scheme == "oci":
			s.Source = src
		default:
			bad("sets.source", "want a lock file path, an http, https or file URL, or an oci:// reference, got %q", redacted(f.Sets.Source))
		}
	}
	for i, h := range f.Sets.Insecure {
		if h == "" || strings.ContainsAny(h, "/@ \t") || strings.Contains(h, "://") {
			bad("sets.insecure_registries", "entry %d: want a registry's host or host:port (such as \"registry.lan:5000\"), got %q", i+1, h)
		}
	}
	s.InsecureRegistries = f.Sets.Insecure
	if f.Sets.DockerConfig != "" {
		s.DockerConfig = resolve("sets.docker_config", f.Sets.DockerConfig)
	}
	if f.Sets.Interval != "" {
		d, err := time.ParseDuration(f.Sets.Interval)
		if err != nil || d < time.Second {
			bad("sets.interval", "want a duration of at least 1s such as \"5m\", got %q", f.Sets.Interval)
		}
		s.Interval = d
	}
	for i, k := range f.Sets.TrustedKeys {
		if err := checkMinisignKey(k); err != nil {
			bad("sets.trusted_keys", "key %d: %v", i+1, err)
		}
	}
	s.TrustedKeys = f.Sets.TrustedKeys
	s.AllowPrivateMirrors = f.Sets.AllowPrivate
	if f.Sets.CacheMax != nil {
		if n, err := parseSize(f.Sets.CacheMax.raw); err != nil {
			bad("sets.cache_max", "%v", err)
		} else {
			s.CacheMax = n
		}
	}
	if f.Sets.MaxStageBytes != nil {
		if n, err := parseSize(f.Sets.MaxStageBytes.raw); err != nil || n < 1 {
			bad("sets.max_stage_bytes", "want a size of at least 1 byte such as \"4GiB\", got %q", f.Sets.MaxStageBytes.raw)
		} else {
			s.MaxStageBytes = n
		}
	}
	if f.Sets.KeepGenerations != nil {
		if n := *f.Sets.KeepGenerations; n < 1 || n > 1000 {
			bad("sets.keep_generations", "want a number from 1 to 1000, got %d", n)
		} else {
			s.KeepGenerations = n
		}
	}
	if f.Sets.KeepProfiles != nil {
		if n := *f.Sets.KeepProfiles; n < 1 || n > 100 {
			bad("sets.keep_profiles", "want a number from 1 to 100, got %d", n)
		} else {
			s.KeepProfiles = n
		}
	}
}

// parseLAN validates the [lan] table into l.
func parseLAN(l *LAN, f *file, bad func(key, format string, args ...any)) {
	l.Share = f.LAN.Share
	if f.LAN.Listen != "" {
		host, port, err := net.SplitHostPort(f.LAN.Listen)
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil || n < 1 || n > 65535 || (host != "" && net.ParseIP(host) == nil) {
			bad("lan.listen", "want ADDR:PORT with an IP address and a port from 1 to 65535 (\"0.0.0.0:47380\"), got %q", f.LAN.Listen)
		} else {
			l.Listen = f.LAN.Listen
		}
	}
	if f.LAN.MaxUpload != nil {
		if n, err := parseSize(f.LAN.MaxUpload.raw); err != nil || n < 1 {
			bad("lan.max_upload", "want bytes per second above 0 such as \"6MB\", got %q", f.LAN.MaxUpload.raw)
		} else {
			l.MaxUpload = n
		}
	}
	for i, p := range f.LAN.Peers {
		u, err := url.Parse(p)
		if err != nil || u.Scheme != "http" || u.Hostname() == "" || u.Port() == "" || u.User != nil ||
			strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
			bad("lan.peers", "peer %d: want http://HOST:PORT (peers speak plain HTTP; every byte is checked against its digest), got %q", i+1, redacted(p))
			continue
		}
		l.Peers = append(l.Peers, p)
	}
}

// checkMinisignKey reports whether k looks like a minisign public key: the
// base64 of "Ed", an 8-byte key id and a 32-byte Ed25519 key. The signature
// check itself belongs to package sets/lock.
func checkMinisignKey(k string) error {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(k))
	if err != nil || len(raw) != 42 || string(raw[:2]) != "Ed" {
		return fmt.Errorf("want a minisign public key (the base64 line of a .pub file, starting \"RW\"), got %q", k)
	}
	return nil
}

func (e Env) expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		if home := e.home(); home != "" {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// RequireGame reports an error unless the paths a daemon or sync needs (the
// game's Mods folder and the paks folder) are set.
func (c *Config) RequireGame() error {
	var missing []string
	if c.Paths.Mods == "" {
		missing = append(missing, "paths.mods (the game's UE4SS Mods folder)")
	}
	if c.Paths.Paks == "" {
		missing = append(missing, "paths.paks (where pack content is installed)")
	}
	if len(missing) == 0 {
		return nil
	}
	where := "no --config given"
	if c.File != "" {
		where = c.File
	}
	return &fileError{File: where, Problems: []problem{{Message: strings.Join(missing, " and ") +
		" required; set them in the config file, or try `forgesync demo`"}}}
}

// keyLine finds the line of a dotted key ("watch.settle") in TOML text by
// following table headers; 0 when not found. BurntSushi/toml does not report
// positions of undecoded keys, and a line number is what a user needs.
func keyLine(data []byte, dotted string) int {
	table, key := "", dotted
	if i := strings.LastIndexByte(dotted, '.'); i >= 0 {
		table, key = dotted[:i], dotted[i+1:]
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	cur, line, tableLine := "", 0, 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(t, "[") {
			cur = strings.Trim(t, "[] \t")
			if i := strings.IndexByte(cur, '#'); i >= 0 {
				cur = strings.TrimSpace(cur[:i])
			}
			if cur == dotted {
				tableLine = line
			}
			continue
		}
		k, _, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		k = strings.Trim(strings.TrimSpace(k), `"`)
		if (cur == table && k == key) || (cur == "" && k == dotted) {
			return line
		}
	}
	return tableLine
}

// checkLoopback reports an error unless addr is a host:port whose host is a
// loopback address or "localhost": the TCP API must not be reachable from
// another machine.
func checkLoopback(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return fmt.Errorf("want a loopback address such as \"127.0.0.1:8384\", got %q", addr)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%q is not a loopback address: the API listens on 127.0.0.1 or [::1] only (it controls what the game loads)", addr)
}
