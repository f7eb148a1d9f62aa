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
	CSRF string `json:"csrf"`
	Link string `json:"link,omitempty"`
}
