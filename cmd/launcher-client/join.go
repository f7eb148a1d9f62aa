package main

import (
	"context"
	"fmt"
	"io"

	"github.com/mjolnir-forge/forgesync/cmd/launcher-client/forgesyncapi"
)

// server is what a launcher's server list knows of one game server: where
// its pack set is published, the fingerprint it advertises, and the public
// key the player agreed to trust for it (empty: [sets] trusted_keys only).
type server struct {
	url, fingerprint, trust string
}

// standing asks how the server's set stands on this machine (GET
// /v1/set/check?fingerprint=): what a launcher shows in its server list.
func standing(ctx context.Context, c *forgesyncapi.ClientWithResponses, s server) (*forgesyncapi.SetFingerprintCheck, error) {
	r, err := c.CheckFingerprintWithResponse(ctx, &forgesyncapi.CheckFingerprintParams{Fingerprint: s.fingerprint})
	if err != nil {
		return nil, fmt.Errorf("GET /v1/set/check: %w", err)
	}
	if r.JSON200 == nil {
		return nil, apiError("GET /v1/set/check", r.StatusCode(), r.Body)
	}
	return r.JSON200, nil
}

// stage fetches and keeps the server's set without changing what is
// installed (POST /v1/set/stage): what a launcher does on hover or in the
// lobby.
func stage(ctx context.Context, w io.Writer, c *forgesyncapi.ClientWithResponses, s server) error {
	req := forgesyncapi.SetStageRequest{Url: &s.url}
	if s.trust != "" {
		req.Key = &s.trust
	}
	r, err := c.StageSetWithResponse(ctx, req)
	if err != nil {
		return fmt.Errorf("POST /v1/set/stage: %w", err)
	}
	if r.JSON200 == nil {
		return apiError("POST /v1/set/stage", r.StatusCode(), r.Body)
	}
	res := r.JSON200
	if res.Fingerprint != s.fingerprint {
		return fmt.Errorf("POST /v1/set/stage: %s serves the set %s, not the %s the server advertises: ask its host which is right", s.url, res.Fingerprint, s.fingerprint)
	}
	fmt.Fprintf(w, "staged %s as profile %s: %d bytes fetched, %d in all\n", res.Fingerprint, res.Name, res.Bytes, res.SetBytes)
	return nil
}

// join makes the machine's packs the server's set: staged first when it is
// not on the machine, then applied by fingerprint (POST /v1/set/apply
// {"fingerprint"}), which needs no network.
func join(ctx context.Context, w io.Writer, c *forgesyncapi.ClientWithResponses, s server) error {
	st, err := standing(ctx, c, s)
	if err != nil {
		return err
	}
	switch {
	case st.Current:
		fmt.Fprintf(w, "the machine has the set %s: join\n", s.fingerprint)
		return nil
	case !st.Staged:
		if err := stage(ctx, w, c, s); err != nil {
			return err
		}
	}
	r, err := c.ApplySetWithResponse(ctx, forgesyncapi.SetApplyRequest{Fingerprint: &s.fingerprint})
	if err != nil {
		return fmt.Errorf("POST /v1/set/apply: %w", err)
	}
	if r.JSON200 == nil {
		return apiError("POST /v1/set/apply", r.StatusCode(), r.Body)
	}
	res := r.JSON200
	if len(res.Downloaded) > 0 {
		return fmt.Errorf("POST /v1/set/apply: a staged set downloaded %d archives", len(res.Downloaded))
	}
	fmt.Fprintf(w, "switched to %s (%s): join\n", s.fingerprint, res.Check.Source)
	return nil
}

// leaveToOwn switches back to the player's own packs when they leave the
// server (POST /v1/profile/switch {"name": "own"}): from kept archives, no
// network.
func leaveToOwn(ctx context.Context, w io.Writer, c *forgesyncapi.ClientWithResponses) error {
	r, err := c.SwitchProfileWithResponse(ctx, forgesyncapi.ProfileName{Name: "own"})
	if err != nil {
		return fmt.Errorf("POST /v1/profile/switch: %w", err)
	}
	if r.JSON200 == nil {
		return apiError("POST /v1/profile/switch", r.StatusCode(), r.Body)
	}
	fmt.Fprintln(w, "switched back to profile own")
	return nil
}
