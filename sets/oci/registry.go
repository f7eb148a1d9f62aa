package oci

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/errcode"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// The environment variables that override the Docker config's credentials,
// for CI: both set, they are the credential for every registry.
const (
	EnvUsername = "FORGESYNC_REGISTRY_USERNAME"
	EnvPassword = "FORGESYNC_REGISTRY_PASSWORD"
)

// Defaults of a Registry.
const (
	// defaultMaxRetryAfter is the longest Retry-After of a 429 that is
	// waited out; a registry that asks for more fails the request at once
	// with ErrRateLimited.
	defaultMaxRetryAfter = time.Minute
	// defaultRetries is how often a request that may pass (a connection
	// error, 408, 429, 5xx) is sent again.
	defaultRetries = 4
	// defaultMinWait and DefaultMaxWait bound the back-off between retries.
	defaultMinWait = 250 * time.Millisecond
	defaultMaxWait = 5 * time.Second
)

// Errors of talking to a registry, wrapped with the reference and the
// registry's answer.
var (
	// errRateLimited is returned when the registry answers 429 Too Many
	// Requests after the retries, or asks to wait longer than the bound.
	errRateLimited = errors.New("the registry limits requests (HTTP 429 Too Many Requests)")
	// errUnauthorized is returned when the registry refuses the credential
	// (or its absence) with 401 or 403.
	errUnauthorized = errors.New("the registry refused access")
	// errNotFound is returned when the repository, tag, manifest or blob
	// does not exist.
	errNotFound = errors.New("not found in the registry")
)

// Options configure a Registry.
type Options struct {
	// Transport makes the requests; nil means a transport with bounded
	// dial, TLS and response-header timeouts. Retries and authentication
	// are layered above it.
	Transport http.RoundTripper
	// Insecure lists the registries (host or host:port) spoken to over
	// plain HTTP ([sets] insecure_registries). Loopback hosts always are.
	Insecure []string
	// DockerConfig is the Docker config file whose credentials (and
	// credential helpers) are used; "" means $DOCKER_CONFIG/config.json,
	// else ~/.docker/config.json of the user forgesync runs as.
	DockerConfig string
	// Getenv reads the environment (FORGESYNC_REGISTRY_*, DOCKER_CONFIG);
	// nil means os.Getenv.
	Getenv func(string) string
	// Guard, when set, wraps the client of every registry that is not on
	// loopback and not listed in Insecure: it refuses connections to
	// loopback, private and link-local addresses (the registry's own, its
	// token realm's, a blob redirect's), so that a registry on the internet
	// cannot make the machine reach into its own network. nil: no guard
	// ([sets] allow_private_mirrors).
	Guard func(*http.Client) *http.Client
	// MaxRetryAfter, Retries, MinWait and MaxWait override the defaults
	// above when positive.
	MaxRetryAfter time.Duration
	Retries       int
	MinWait       time.Duration
	MaxWait       time.Duration
}

// Registry talks to OCI registries through oras-go: one auth cache for all
// of them, so that a token fetched once serves the checks that follow. Its
// methods are safe for concurrent use.
type Registry struct {
	opts Options
	// remote is the authenticating client for public registries (its
	// connections guarded by Options.Guard); lan the same without the
	// guard, for registries listed in Options.Insecure; local the one for
	// loopback registries, whose token realm may be on loopback too.
	remote, lan, local *auth.Client
	// creds is the credential store, opened on first use.
	creds func() (credentials.Store, error)
}

// New returns a Registry. The Docker config is read when a registry first
// asks for a credential, so a broken one fails only OCI sets.
func New(opts Options) *Registry {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	r := &Registry{opts: opts}
	r.creds = sync.OnceValues(r.openStore)
	base := opts.Transport
	if base == nil {
		base = defaultTransport
	}
	retried := func(base http.RoundTripper) *http.Client {
		return &http.Client{Transport: &retry.Transport{Base: base, Policy: func() retry.Policy { return r.policy() }}}
	}
	cache := auth.NewCache()
	r.lan = &auth.Client{Client: retried(base), Cache: cache, Credential: r.credential}
	r.lan.SetUserAgent("forgesync")
	remote := *r.lan
	if opts.Guard != nil {
		remote.Client = retried(opts.Guard(&http.Client{Transport: base}).Transport)
	}
	r.remote = &remote
	local := *r.lan
	local.BlockedRealmPrefixes = slices.DeleteFunc(auth.DefaultBlockedRealmPrefixes(), func(p netip.Prefix) bool { return p.Addr().IsLoopback() })
	r.local = &local
	return r
}

// defaultTransport bounds each phase of a request but not the body: a
// large blob may take long.
var defaultTransport = &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	TLSHandshakeTimeout:   15 * time.Second,
	ResponseHeaderTimeout: 30 * time.Second,
	IdleConnTimeout:       90 * time.Second,
	MaxIdleConnsPerHost:   4,
	ForceAttemptHTTP2:     true,
}

// DockerConfigPath returns the Docker config file that o reads: the one
// named, else $DOCKER_CONFIG/config.json, else ~/.docker/config.json.
func (o Options) DockerConfigPath() (string, error) {
	if o.DockerConfig != "" {
		return o.DockerConfig, nil
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if d := getenv("DOCKER_CONFIG"); d != "" {
		return filepath.Join(d, "config.json"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the Docker config: %w; set DOCKER_CONFIG", err)
	}
	return filepath.Join(home, ".docker", "config.json"), nil
}

func (r *Registry) openStore() (credentials.Store, error) {
	path, err := r.opts.DockerConfigPath()
	if err != nil {
		return nil, err
	}
	s, err := credentials.NewStore(path, credentials.StoreOptions{})
	if err != nil {
		return nil, fmt.Errorf("read the Docker config %s: %w", path, err)
	}
	return s, nil
}

// credential is the credential for a registry host: the FORGESYNC_REGISTRY_*
// variables when both are set, else the Docker config's (its helper's) for
// that host, else none (anonymous tokens).
func (r *Registry) credential(ctx context.Context, host string) (auth.Credential, error) {
	user, pass := r.opts.Getenv(EnvUsername), r.opts.Getenv(EnvPassword)
	if user != "" && pass != "" {
		return auth.Credential{Username: user, Password: pass}, nil
	}
	s, err := r.creds()
	if err != nil {
		return auth.EmptyCredential, err
	}
	c, err := credentials.Credential(s)(ctx, host)
	if err != nil {
		// A helper's message may quote what it read: say only which host.
		return auth.EmptyCredential, fmt.Errorf("the Docker config's credential for %s could not be read (its credential helper failed)", host)
	}
	return c, nil
}

// policy retries what oras-go's default predicate retries (connection
// errors, 408, 429, 5xx), waiting a 429's Retry-After when it is within
// the bound and giving up at once when it is not.
func (r *Registry) policy() retry.Policy {
	return &policy{
		maxAfter: pos(r.opts.MaxRetryAfter, defaultMaxRetryAfter),
		tries:    pos(r.opts.Retries, defaultRetries),
		backoff:  retry.ExponentialBackoff(pos(r.opts.MinWait, defaultMinWait), 2, 0.2),
		maxWait:  pos(r.opts.MaxWait, defaultMaxWait),
	}
}

type policy struct {
	maxAfter time.Duration
	tries    int
	backoff  retry.Backoff
	maxWait  time.Duration
}

func (p *policy) Retry(attempt int, resp *http.Response, err error) (time.Duration, error) {
	if attempt >= p.tries {
		return -1, nil
	}
	if ok, err := retry.DefaultPredicate(resp, err); err != nil || !ok {
		return -1, nil
	}
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
		if after, ok := retryAfter(resp.Header.Get("Retry-After")); ok {
			if after > p.maxAfter {
				return -1, nil
			}
			return after, nil
		}
	}
	return min(p.backoff(attempt, nil), p.maxWait), nil
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

func pos[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// loopback reports whether host (with or without a port) is a loopback
// address or localhost.
func loopback(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}

// plain reports whether host is spoken to over plain HTTP.
func (r *Registry) plain(host string) bool {
	if loopback(host) {
		return true
	}
	name, _, _ := net.SplitHostPort(host)
	for _, h := range r.opts.Insecure {
		if strings.EqualFold(h, host) || (name != "" && strings.EqualFold(h, name)) {
			return true
		}
	}
	return false
}

// repository returns oras-go's client of ref's repository.
func (r *Registry) repository(ref Reference) *remote.Repository {
	client := r.remote
	switch {
	case loopback(ref.Host):
		client = r.local
	case r.plain(ref.Host):
		client = r.lan // named in [sets] insecure_registries: on the LAN
	}
	return &remote.Repository{
		Client:           client,
		Reference:        registry.Reference{Registry: ref.Host, Repository: ref.Repository},
		PlainHTTP:        r.plain(ref.Host),
		MaxMetadataBytes: MaxManifestBytes,
	}
}

// explain wraps an error of oras-go with what it means for the user: who
// refused, what to do. what says what was being done ("resolve oci://…").
func explain(what string, err error) error {
	if err == nil {
		return nil
	}
	var er *errcode.ErrorResponse
	switch {
	case errors.As(err, &er) && er.StatusCode == http.StatusTooManyRequests:
		return fmt.Errorf("%s: %w: it kept refusing through the retries, or asked to wait past the bound: try again later, or log in (Docker Hub allows anonymous pulls of 10 per hour per IP address; docker login or %s/%s raise it): %w",
			what, errRateLimited, EnvUsername, EnvPassword, err)
	case errors.As(err, &er) && (er.StatusCode == http.StatusUnauthorized || er.StatusCode == http.StatusForbidden):
		host := "HOST"
		if er.URL != nil {
			host = er.URL.Host
		}
		return fmt.Errorf("%s: %w (HTTP %d): log in with `docker login %s` (or oras login), or set %s and %s: %w",
			what, errUnauthorized, er.StatusCode, host, EnvUsername, EnvPassword, err)
	case errors.Is(err, errdef.ErrNotFound) || errors.As(err, &er) && er.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%s: %w: %w", what, errNotFound, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Retryable reports whether a failure to read a blob may pass when tried
// again later (a cut connection, a timeout); an answer of the registry,
// which oras-go has retried already when it may pass, does not.
func Retryable(err error) bool {
	var er *errcode.ErrorResponse
	return !errors.As(err, &er) && !errors.Is(err, errdef.ErrNotFound) && !errors.Is(err, errRateLimited) &&
		!errors.Is(err, errUnauthorized) && !errors.Is(err, errNotFound) && !errors.Is(err, ErrReference)
}
