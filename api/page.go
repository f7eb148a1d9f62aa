package api

import "time"

// PageTokenRequest is the body of POST /v1/page/token: the forgesync://
// link the page opens on, if any (SPEC §14).
type PageTokenRequest struct {
	Link string `json:"link,omitempty"`
}

// PageToken is the answer of POST /v1/page/token: the URL that opens the
// status page once, before ExpiresAt.
type PageToken struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expires_at"`
}

// PageSession is the answer of GET /v1/page/session, for the page's own
// script: the CSRF token it sends with every change (X-Forgesync-CSRF),
// and the link it was opened for.
type PageSession struct {
	CSRF string    `json:"csrf"`
	Link *PageLink `json:"link,omitempty"`
}

// PageLink is a forgesync:// link's parameters, as the daemon checked them.
type PageLink struct {
	URL string `json:"url"`
	Key string `json:"key,omitempty"`
}

// SetPreviewRequest is the body of POST /v1/set/preview: the lock a
// forgesync:// link names, and the key it names.
type SetPreviewRequest struct {
	URL string `json:"url"`
	Key string `json:"key,omitempty"`
}

// SetPreview is the answer of POST /v1/set/preview: a set the player is
// asked to join, compared with the machine; nothing was downloaded but
// the lock and its signature, nothing applied.
type SetPreview struct {
	Source string `json:"source"`
	Name   string `json:"name,omitempty"`
	// SignedBy is the key id of the verified signature; "" when none.
	SignedBy string `json:"signed_by,omitempty"`
	// LinkKey is the key id of the key the link names; "" when none.
	LinkKey string `json:"link_key,omitempty"`
	// Trusted reports whether SignedBy is one of [sets] trusted_keys.
	Trusted bool `json:"trusted"`
	// Trust says in words who signed the set and whether this machine
	// trusts them.
	Trust      string        `json:"trust"`
	Comparison SetComparison `json:"comparison"`
	// Pinned is how many packs the set pins; TotalBytes their archives,
	// DownloadBytes those the machine lacks.
	Pinned        int      `json:"pinned"`
	TotalBytes    int64    `json:"total_bytes"`
	DownloadBytes int64    `json:"download_bytes"`
	Warnings      []string `json:"warnings"`
}
