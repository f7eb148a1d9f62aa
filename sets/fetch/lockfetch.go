package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"path"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// errHTMLPage is returned when a lock's URL answers an HTML page: most
// often a folder's listing, its URL given without the trailing slash.
var errHTMLPage = errors.New("answered an HTML page, not a lock")

// Validators are what a server said about a lock's version, sent back to
// ask whether it changed (If-None-Match, If-Modified-Since).
type Validators struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// Digest is the manifest digest of a set in an OCI registry: a tag
	// that still resolves to it has not changed.
	Digest string `json:"digest,omitempty"`
}

// LockFile is a lock as read from its source, with its signature.
type LockFile struct {
	Source Source
	// NotModified is set when the server answered 304 to the validators
	// given: Data and Signature are then empty, and the caller's copy
	// stands.
	NotModified bool
	Data        []byte
	// Signature is the .minisig beside the lock; nil when there is none.
	Signature []byte
	// Validators are the server's for this version of the lock.
	Validators Validators
	// Layers are the sizes of the blobs of a set in an OCI registry, by
	// SHA-256, as its manifest lists them (see [CheckLayers]); nil for
	// other sources, and when NotModified.
	Layers map[string]int64
}

// FetchLock reads the lock at src and its signature. For a URL it sends
// prev's validators, and a 304 comes back as NotModified without a second
// request; failures that may pass are retried like an archive's. A lock
// over MaxLockBytes is refused. A signature that does not exist (404, or
// no file) is nil; any other failure to read it is an error, so that a
// missing signature is never confused with an unreachable one.
func (f *Fetcher) FetchLock(ctx context.Context, src Source, prev Validators) (*LockFile, error) {
	out := &LockFile{Source: src}
	if src.OCI != "" {
		return f.fetchOCILock(ctx, src, prev)
	}
	if !src.Remote() {
		data, err := readLimited(src.Path, lock.MaxLockBytes)
		if err != nil {
			return nil, fmt.Errorf("read lock: %w", err)
		}
		out.Data = data
		sig, err := readLimited(signatureSource(src).Path, lock.MaxSignatureBytes)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read lock signature: %w", err)
		}
		out.Signature = sig
		return out, nil
	}
	var peer netip.Addr
	var ctype string
	data, val, status, err := f.get(ctx, src.URL, prev, lock.MaxLockBytes, &peer, &ctype)
	if err != nil {
		return nil, fmt.Errorf("fetch lock %s: %w", lock.Redact(src.URL), err)
	}
	if status == http.StatusOK && isHTML(ctype, data) {
		return nil, htmlError(src.URL)
	}
	out.Validators = val
	out.Source.Private = peer.IsValid() && addressKind(peer) != ""
	if status == http.StatusNotModified {
		out.NotModified = true
		// A 304 may repeat or update a validator, or omit it.
		out.Validators = prev
		if val.ETag != "" {
			out.Validators.ETag = val.ETag
		}
		if val.LastModified != "" {
			out.Validators.LastModified = val.LastModified
		}
		return out, nil
	}
	out.Data = data
	sigURL := signatureSource(src).URL
	sig, _, _, err := f.get(ctx, sigURL, Validators{}, lock.MaxSignatureBytes, nil, nil)
	var se *httpStatusError
	switch {
	case errors.As(err, &se) && (se.Code == http.StatusNotFound || se.Code == http.StatusGone):
	case err != nil:
		return nil, fmt.Errorf("fetch lock signature %s: %w", lock.Redact(sigURL), err)
	default:
		out.Signature = sig
	}
	return out, nil
}

// isHTML reports whether an answer is an HTML page: its body starts with
// a doctype or an html tag, or it says it is text/html and starts with a
// tag (a lock never starts with '<').
func isHTML(ctype string, data []byte) bool {
	head := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\ufeff")), " \t\r\n")
	if len(head) > 16 {
		head = head[:16]
	}
	lower := strings.ToLower(string(head))
	if strings.HasPrefix(lower, "<!doctype") || strings.HasPrefix(lower, "<html") {
		return true
	}
	mt, _, _ := mime.ParseMediaType(ctype)
	return mt == "text/html" && strings.HasPrefix(lower, "<")
}

// htmlError says that the lock's URL answered an HTML page and what URL
// to give instead: a URL without a trailing slash whose last segment is
// not a file's name is a folder's, which needs the slash.
func htmlError(lockURL string) error {
	shown := lock.Redact(lockURL)
	u, err := url.Parse(lockURL)
	if err == nil && !strings.Contains(path.Base(u.Path), ".") {
		u.Path += "/"
		u.RawPath = ""
		return fmt.Errorf("%s %w: the folder's URL needs its trailing slash, %s", shown, errHTMLPage, lock.Redact(u.String()))
	}
	return fmt.Errorf("%s %w: is it the URL of the %s file, or of its folder with a trailing slash?", shown, errHTMLPage, lock.LockName)
}

// get fetches a small file, retrying failures that may pass. When peer is
// given, it receives the address that answered, unless the answer came
// through a proxy; when ctype is given, it receives the answer's
// Content-Type.
func (f *Fetcher) get(ctx context.Context, url string, prev Validators, limit int64, peer *netip.Addr, ctype *string) ([]byte, Validators, int, error) {
	var data []byte
	var val Validators
	var status int
	tries, err := f.retry(ctx, retryable, func() (err error) {
		data, val, status, err = f.getOnce(ctx, url, prev, limit, peer, ctype)
		return err
	})
	if err != nil && tries > 1 {
		err = fmt.Errorf("%w (%d tries)", err, tries)
	}
	return data, val, status, err
}

func (f *Fetcher) getOnce(ctx context.Context, url string, prev Validators, limit int64, peer *netip.Addr, ctype *string) ([]byte, Validators, int, error) {
	ctx, cancel := context.WithTimeout(ctx, pos(f.Stall, defaultStall))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, Validators{}, 0, permanent(err)
	}
	if peer != nil {
		*peer = netip.Addr{}
		proxied := false
		if t, ok := f.client().Transport.(*http.Transport); ok && t.Proxy != nil {
			u, _ := t.Proxy(req)
			proxied = u != nil // the proxy answers: where the lock came from is unknown
		}
		if !proxied {
			req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
				if ap, err := netip.ParseAddrPort(info.Conn.RemoteAddr().String()); err == nil {
					*peer = ap.Addr().Unmap()
				}
			}}))
		}
	}
	if prev.ETag != "" {
		req.Header.Set("If-None-Match", prev.ETag)
	}
	if prev.LastModified != "" {
		req.Header.Set("If-Modified-Since", prev.LastModified)
	}
	resp, err := f.client().Do(req)
	if err != nil {
		return nil, Validators{}, 0, requestError(err)
	}
	defer resp.Body.Close()
	val := Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	if ctype != nil {
		*ctype = resp.Header.Get("Content-Type")
	}
	if err := statusError(resp); err != nil {
		return nil, Validators{}, resp.StatusCode, err
	}
	if resp.StatusCode == http.StatusNotModified {
		if prev == (Validators{}) {
			// Nothing to be not modified from: a copy kept here would be
			// taken for the lock.
			return nil, Validators{}, resp.StatusCode, permanent(errors.New("the server answered 304 Not Modified to a request without validators"))
		}
		return nil, val, resp.StatusCode, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, Validators{}, resp.StatusCode, permanent(fmt.Errorf("unexpected answer %s", rejection.Escape(resp.Status)))
	}
	if resp.ContentLength > limit {
		return nil, Validators{}, resp.StatusCode, permanent(fmt.Errorf("%w: %d bytes, over the limit of %d", errTooLarge, resp.ContentLength, limit))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, Validators{}, resp.StatusCode, requestError(err)
	}
	if int64(len(data)) > limit {
		return nil, Validators{}, resp.StatusCode, permanent(fmt.Errorf("%w: over the limit of %d bytes", errTooLarge, limit))
	}
	return data, val, resp.StatusCode, nil
}

// readLimited reads a local file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	data, err := atomicfile.ReadFile(path, limit)
	if errors.Is(err, atomicfile.ErrTooLarge) {
		return nil, fmt.Errorf("%s: %w: over the limit of %d bytes", path, errTooLarge, limit)
	}
	return data, err
}
