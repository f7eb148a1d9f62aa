// Package registrytest owns the real OCI registry that tests push pack sets
// to and sync them from: the distribution/distribution v3 handler run in
// process on a loopback port (filesystem storage in the test's temporary
// folder), optionally behind htpasswd basic auth or a token server that
// issues bearer tokens the way Docker Hub and GHCR do; a fault-injecting
// proxy in front of it; and the oras CLI built from its module. No command
// uses it: only test files import it.
package registrytest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/handlers"
	"github.com/sirupsen/logrus"
	"golang.org/x/crypto/bcrypt"

	// The registry finds its storage driver and access controllers by
	// name in registries these packages fill when they are linked in.
	_ "github.com/distribution/distribution/v3/registry/auth/htpasswd"
	_ "github.com/distribution/distribution/v3/registry/auth/token"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
)

// The kinds of authentication [Options.Auth] names.
const (
	AuthNone  = ""
	AuthBasic = "basic"
	AuthToken = "token"
)

// TokenPath is where the token server of an [AuthToken] registry answers,
// on the registry's own host (the realm of its 401 challenges).
const TokenPath = "/auth/token"

// tokenService and tokenIssuer are the audience and issuer the registry
// checks in every bearer token.
const (
	tokenService = "registrytest"
	tokenIssuer  = "registrytest-token-server"
	tokenKeyID   = "registrytest-key"
)

// Options says how a registry authenticates.
type Options struct {
	// Auth is AuthNone, AuthBasic (htpasswd) or AuthToken (a token server
	// that checks the same htpasswd credentials and issues bearer tokens).
	Auth string
	// User and Password are the one account; both default to fixed values
	// when Auth is not AuthNone.
	User, Password string
	// AnonymousPull lets a token request without credentials have pull
	// access, as public repositories on Docker Hub and GHCR do.
	AnonymousPull bool
}

// Registry is a running registry.
type Registry struct {
	// Host is 127.0.0.1:port, the host part of a reference.
	Host string
	// URL is http://Host.
	URL string
	// User and Password are the account when the registry authenticates.
	User, Password string

	mu sync.Mutex // guards issued and refused
	// issued counts the tokens the token server granted.
	issued int
	// refused counts token requests turned away for bad credentials.
	refused int
}

// Start runs a registry for the duration of the test.
func Start(t testing.TB, opt Options) *Registry {
	t.Helper()
	quietRegistryLogs()
	switch opt.Auth {
	case AuthNone, AuthBasic, AuthToken:
	default:
		t.Fatalf("registrytest.Start: unknown Auth %q (want %q, %q or %q)", opt.Auth, AuthNone, AuthBasic, AuthToken)
	}
	dir := t.TempDir()
	r := &Registry{}
	if opt.Auth != AuthNone {
		r.User, r.Password = opt.User, opt.Password
		if r.User == "" {
			r.User = "forge"
		}
		if r.Password == "" {
			r.Password = "s3cret-" + randomHex(8)
		}
	}

	// The server starts before the handler exists: the token realm must
	// name the server's address, which the configuration needs.
	var handler http.Handler
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		handler.ServeHTTP(w, req)
	}))
	srv.Start()
	r.URL = srv.URL
	r.Host = strings.TrimPrefix(srv.URL, "http://")

	cfg := &configuration.Configuration{}
	cfg.Version = configuration.CurrentVersion
	cfg.Storage = configuration.Storage{
		"filesystem": configuration.Parameters{"rootdirectory": filepath.Join(dir, "storage")},
		"delete":     configuration.Parameters{"enabled": true},
		"maintenance": configuration.Parameters{
			"uploadpurging": map[any]any{"enabled": false},
		},
	}
	cfg.HTTP.Secret = randomHex(16)
	cfg.Log.Level = "error"

	var tokens *tokenServer
	switch opt.Auth {
	case AuthBasic:
		path := writeHtpasswd(t, dir, r.User, r.Password)
		cfg.Auth = configuration.Auth{"htpasswd": configuration.Parameters{"realm": "registrytest", "path": path}}
	case AuthToken:
		tokens = newTokenServer(t, r, opt.AnonymousPull)
		cfg.Auth = configuration.Auth{"token": configuration.Parameters{
			"realm":   r.URL + TokenPath,
			"service": tokenService,
			"issuer":  tokenIssuer,
			"jwks":    tokens.writeJWKS(t, dir),
		}}
	}

	ctx, cancel := context.WithCancel(context.Background())
	app := handlers.NewApp(ctx, cfg)
	mux := http.NewServeMux()
	if tokens != nil {
		mux.Handle(TokenPath, tokens)
	}
	mux.Handle("/", app)
	handler = mux
	t.Cleanup(func() {
		srv.Close()
		_ = app.Shutdown()
		cancel()
	})
	return r
}

// Ref returns the reference HOST/repo:tag (or HOST/repo@digest when tag
// starts with "sha256:") of this registry.
func (r *Registry) Ref(repo, tag string) string {
	if strings.HasPrefix(tag, "sha256:") {
		return r.Host + "/" + repo + "@" + tag
	}
	return r.Host + "/" + repo + ":" + tag
}

// Tokens reports how many token requests the token server granted and how
// many it refused for bad credentials.
func (r *Registry) Tokens() (issued, refused int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.issued, r.refused
}

var quietOnce sync.Once

// quietRegistryLogs sends the registry's logrus output nowhere: the
// registry logs every request, and a test reads what it needs from the
// proxy's record instead.
func quietRegistryLogs() {
	quietOnce.Do(func() {
		logrus.SetOutput(io.Discard)
		logrus.SetLevel(logrus.ErrorLevel)
	})
}

func writeHtpasswd(t testing.TB, dir, user, password string) string {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatalf("registrytest: hash the password: %v", err)
	}
	path := filepath.Join(dir, "htpasswd")
	if err := os.WriteFile(path, []byte(user+":"+string(hash)+"\n"), 0o600); err != nil {
		t.Fatalf("registrytest: write %s: %v", path, err)
	}
	return path
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("registrytest: random bytes: %v", err))
	}
	return hex.EncodeToString(b)
}

// tokenServer is the token endpoint of the Docker registry token
// authentication spec: a GET with basic credentials (or none, for
// anonymous pull) and scope parameters answers a signed JWT granting the
// requested repository actions.
type tokenServer struct {
	reg           *Registry
	key           ed25519.PrivateKey
	hash          []byte // bcrypt hash of the account's password
	anonymousPull bool
}

func newTokenServer(t testing.TB, reg *Registry, anonymousPull bool) *tokenServer {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("registrytest: token key: %v", err)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(reg.Password), bcrypt.MinCost)
	if err != nil {
		t.Fatalf("registrytest: hash the password: %v", err)
	}
	return &tokenServer{reg: reg, key: key, hash: hash, anonymousPull: anonymousPull}
}

// writeJWKS writes the token server's public key where the registry's
// token access controller reads it, and returns the path.
func (s *tokenServer) writeJWKS(t testing.TB, dir string) string {
	t.Helper()
	pub := s.key.Public().(ed25519.PublicKey)
	doc, err := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig",
		"kid": tokenKeyID, "x": base64.RawURLEncoding.EncodeToString(pub),
	}}})
	if err != nil {
		t.Fatalf("registrytest: encode the JWKS: %v", err)
	}
	path := filepath.Join(dir, "jwks.json")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatalf("registrytest: write %s: %v", path, err)
	}
	return path
}

func (s *tokenServer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodPost {
		http.Error(w, "token: method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if err := req.ParseForm(); err != nil {
		http.Error(w, "token: bad form", http.StatusBadRequest)
		return
	}
	user, password, hasBasic := req.BasicAuth()
	if req.Method == http.MethodPost && req.PostForm.Get("grant_type") == "password" {
		user, password, hasBasic = req.PostForm.Get("username"), req.PostForm.Get("password"), true
	}
	anonymous := !hasBasic
	if hasBasic && (user != s.reg.User || bcrypt.CompareHashAndPassword(s.hash, []byte(password)) != nil) {
		s.reg.mu.Lock()
		s.reg.refused++
		s.reg.mu.Unlock()
		writeErrors(w, http.StatusUnauthorized, "UNAUTHORIZED", "token: incorrect username or password")
		return
	}
	if anonymous && !s.anonymousPull {
		w.Header().Set("WWW-Authenticate", `Basic realm="registrytest"`)
		writeErrors(w, http.StatusUnauthorized, "UNAUTHORIZED", "token: authentication required")
		return
	}

	var access []map[string]any
	for _, scope := range req.Form["scope"] {
		for sc := range strings.FieldsSeq(scope) {
			typ, rest, ok := strings.Cut(sc, ":")
			if !ok {
				continue
			}
			i := strings.LastIndex(rest, ":")
			if i < 0 {
				continue
			}
			name, actions := rest[:i], strings.Split(rest[i+1:], ",")
			if anonymous {
				var pull []string
				for _, a := range actions {
					if a == "pull" {
						pull = append(pull, a)
					}
				}
				actions = pull
			}
			access = append(access, map[string]any{"type": typ, "name": name, "actions": actions})
		}
	}
	subject := user
	if anonymous {
		subject = ""
	}
	now := time.Now()
	token, err := s.sign(map[string]any{
		"iss": tokenIssuer, "sub": subject, "aud": tokenService,
		"exp": now.Add(5 * time.Minute).Unix(), "nbf": now.Add(-10 * time.Second).Unix(),
		"iat": now.Unix(), "jti": randomHex(8), "access": access,
	})
	if err != nil {
		http.Error(w, "token: "+err.Error(), http.StatusInternalServerError)
		return
	}
	s.reg.mu.Lock()
	s.reg.issued++
	s.reg.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"token": token, "access_token": token, "expires_in": 300,
		"issued_at": now.UTC().Format(time.RFC3339),
	})
}

// sign returns the compact JWS of claims signed with EdDSA.
func (s *tokenServer) sign(claims map[string]any) (string, error) {
	header, err := json.Marshal(map[string]string{"typ": "JWT", "alg": "EdDSA", "kid": tokenKeyID})
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(header) + "." + enc.EncodeToString(body)
	sig := ed25519.Sign(s.key, []byte(signing))
	return signing + "." + enc.EncodeToString(sig), nil
}

// writeErrors answers the error body of the distribution spec.
func writeErrors(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"errors": []map[string]string{{"code": code, "message": message}},
	})
}
