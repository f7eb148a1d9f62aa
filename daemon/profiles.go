package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/store"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// profiler is a [Backend] that keeps profiles (SPEC §12): GET
// /v1/profiles and POST /v1/profile/{switch,save,remove}; a Backend
// without it answers those endpoints 404.
type profiler interface {
	Profiles() (*api.Profiles, error)
	SwitchProfile(ctx context.Context, name string) (*api.Summary, error)
	SaveProfile(ctx context.Context, name string) error
	RemoveProfile(ctx context.Context, name string) error
}

// Profiles are the profiles of the latest snapshot.
func (b runnerBackend) Profiles() (*api.Profiles, error) {
	pl, err := b.r.Profiles()
	return wireProfiles(pl), err
}

// SwitchProfile switches to profile name through the writer.
func (b runnerBackend) SwitchProfile(ctx context.Context, name string) (*api.Summary, error) {
	return wired(b.r.SwitchProfile(ctx, name))
}

// SaveProfile records the installed set as profile name through the writer.
func (b runnerBackend) SaveProfile(ctx context.Context, name string) error {
	return b.r.SaveProfile(ctx, name)
}

// RemoveProfile forgets profile name through the writer.
func (b runnerBackend) RemoveProfile(ctx context.Context, name string) error {
	return b.r.RemoveProfile(ctx, name)
}

// profileRoutes adds the profile endpoints to mux.
func (s *server) profileRoutes(mux *http.ServeMux) {
	mux.Handle("/v1/profiles", s.handle(map[string]handlerFunc{http.MethodGet: s.getProfiles}))
	mux.Handle("/v1/profile/switch", s.handle(map[string]handlerFunc{http.MethodPost: s.postProfile(func(ctx context.Context, p profiler, name string) (any, error) {
		return p.SwitchProfile(ctx, name)
	})}))
	mux.Handle("/v1/profile/save", s.handle(map[string]handlerFunc{http.MethodPost: s.postProfile(func(ctx context.Context, p profiler, name string) (any, error) {
		if err := p.SaveProfile(ctx, name); err != nil {
			return nil, err
		}
		return p.Profiles()
	})}))
	mux.Handle("/v1/profile/remove", s.handle(map[string]handlerFunc{http.MethodPost: s.postProfile(func(ctx context.Context, p profiler, name string) (any, error) {
		if err := p.RemoveProfile(ctx, name); err != nil {
			return nil, err
		}
		return p.Profiles()
	})}))
}

// profilerOf returns the backend's profiler, or a 404 error.
func (s *server) profilerOf() (profiler, error) {
	p, ok := s.b.(profiler)
	if !ok {
		return nil, errkind.New(errkind.NotFound, "this daemon keeps no profiles")
	}
	return p, nil
}

func (s *server) getProfiles(w http.ResponseWriter, r *http.Request) error {
	p, err := s.profilerOf()
	if err != nil {
		return err
	}
	pl, err := p.Profiles()
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, pl)
	return nil
}

// postProfile answers a POST of {"name": NAME} with what do returns.
func (s *server) postProfile(do func(ctx context.Context, p profiler, name string) (any, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		const hint = `send {"name": "PROFILE"} (see GET /v1/profiles)`
		p, err := s.profilerOf()
		if err != nil {
			return err
		}
		var body api.ProfileName
		if err := s.readBody(w, r, &body, hint); err != nil {
			return err
		}
		if err := store.CheckProfileName(body.Name); err != nil {
			return errkind.Errorf(errkind.Invalid, "request body: %v; %s", err, hint)
		}
		res, err := do(r.Context(), p, body.Name)
		if err != nil {
			return err
		}
		s.writeJSON(w, http.StatusOK, res)
		return nil
	}
}

// wireProfiles is the profiles in their wire shape; nil stays nil.
func wireProfiles(pl *pipeline.ProfileList) *api.Profiles {
	if pl == nil {
		return nil
	}
	out := &api.Profiles{Current: pl.Current, Profiles: make([]api.Profile, len(pl.Profiles))}
	for i, p := range pl.Profiles {
		out.Profiles[i] = api.Profile{Name: p.Name, Source: api.ProfileSource(p.Source), Fingerprint: p.Fingerprint, Current: p.Current,
			LastUsed: p.LastUsed, Packs: wireGenerationPacks(p.Packs), Missing: wireGenerationPacks(p.Missing), Bytes: p.Bytes, OwnBytes: p.OwnBytes}
	}
	return out
}

// wireGenerationPacks are packs in their wire shape, never nil.
func wireGenerationPacks(packs []store.GenerationPack) []api.GenerationPack {
	out := make([]api.GenerationPack, len(packs))
	for i, gp := range packs {
		out[i] = api.GenerationPack{ID: gp.ID, Version: gp.Version, SHA256: gp.SHA256, Enabled: gp.Enabled}
	}
	return out
}

// Profiles returns GET /v1/profiles.
func (c *Client) Profiles(ctx context.Context) (*api.Profiles, error) {
	var pl api.Profiles
	if err := c.do(ctx, http.MethodGet, "/v1/profiles", &pl); err != nil {
		return nil, err
	}
	return &pl, nil
}

// profilePost posts {"name": name} to path and decodes the answer into v.
func (c *Client) profilePost(ctx context.Context, path, name string, v any) error {
	body, _ := json.Marshal(api.ProfileName{Name: name})
	resp, err := c.sendBody(ctx, http.MethodPost, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswerBytes)).Decode(v); err != nil {
		return fmt.Errorf("daemon %s: POST %s: decode answer: %w", c.path, path, err)
	}
	return nil
}

// SwitchProfile asks the daemon to switch to profile name and waits for
// the result.
func (c *Client) SwitchProfile(ctx context.Context, name string) (*api.Summary, error) {
	var res api.Summary
	if err := c.profilePost(ctx, "/v1/profile/switch", name, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// SaveProfile asks the daemon to record the installed set as profile
// name; it returns the profiles afterwards.
func (c *Client) SaveProfile(ctx context.Context, name string) (*api.Profiles, error) {
	var pl api.Profiles
	return &pl, c.profilePost(ctx, "/v1/profile/save", name, &pl)
}

// RemoveProfile asks the daemon to forget profile name; it returns the
// profiles afterwards.
func (c *Client) RemoveProfile(ctx context.Context, name string) (*api.Profiles, error) {
	var pl api.Profiles
	return &pl, c.profilePost(ctx, "/v1/profile/remove", name, &pl)
}

// Profiles returns the profiles kept on the machine: from the daemon, or
// else read from the state without its lock (see pipeline.ReadProfiles).
func (m *Machine) Profiles(ctx context.Context) (*api.Profiles, error) {
	if c := m.Daemon(ctx); c != nil {
		return c.Profiles(ctx)
	}
	pl, err := pipeline.ReadProfiles(m.opts.Config.Paths.State)
	return wireProfiles(pl), err
}

// SwitchProfile makes the installed set equal to profile name, from kept
// archives only: through the daemon, or else locally under the lock.
func (m *Machine) SwitchProfile(ctx context.Context, name string) (*api.Summary, error) {
	return m.mutate(ctx, func(c *Client) (*api.Summary, error) { return c.SwitchProfile(ctx, name) },
		func(p *pipeline.Pipeline) (*pipeline.Summary, error) { return p.SwitchProfile(ctx, name) })
}

// SaveProfile records the installed set as profile name (through the
// daemon, or else locally) and returns the profiles afterwards.
func (m *Machine) SaveProfile(ctx context.Context, name string) (*api.Profiles, error) {
	return m.editProfiles(ctx, name, (*Client).SaveProfile, func(p *pipeline.Pipeline) error {
		_, err := p.SaveProfile(ctx, name)
		return err
	})
}

// RemoveProfile forgets profile name (through the daemon, or else
// locally) and returns the profiles afterwards.
func (m *Machine) RemoveProfile(ctx context.Context, name string) (*api.Profiles, error) {
	return m.editProfiles(ctx, name, (*Client).RemoveProfile, func(p *pipeline.Pipeline) error { return p.RemoveProfile(ctx, name) })
}

// editProfiles runs a save or a remove through the daemon, or else
// locally.
func (m *Machine) editProfiles(ctx context.Context, name string, remote func(*Client, context.Context, string) (*api.Profiles, error),
	local func(*pipeline.Pipeline) error) (*api.Profiles, error) {
	if c := m.Daemon(ctx); c != nil {
		return remote(c, ctx, name)
	}
	p, err := m.local(ctx)
	if err != nil {
		return nil, err
	}
	if err := local(p); err != nil {
		return nil, err
	}
	pl, err := p.Profiles()
	return wireProfiles(pl), err
}
