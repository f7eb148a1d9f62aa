package daemon

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// uploadHeaderBytes is what UploadLimit allows an archive beyond the
// unpacked bytes of its entries, per entry the limits allow: a tar
// header and its padding, a pax header for a long name and its padding
// (2 KiB in all), more than a zip's local and central headers or a 7z's.
const uploadHeaderBytes = 2 << 10

// archiveUploadLimit is the largest archive POST /v1/install takes as its body
// under lim: an archive holds at most lim.MaxTotalBytes of entries (stored
// uncompressed, at worst) and their headers, so a larger body could never
// pass the limits a dropped archive is held to.
func archiveUploadLimit(lim intake.Limits) int64 {
	return lim.MaxTotalBytes + int64(lim.MaxEntries)*uploadHeaderBytes
}

// uploadTypes are the Content-Types of an archive sent as the body of
// POST /v1/install; the archive's bytes, not the type, decide its format,
// as for a dropped archive.
var uploadTypes = []string{
	"application/zip", "application/x-zip-compressed", "application/x-7z-compressed", "application/x-tar",
	"application/gzip", "application/x-gzip", "application/x-xz", "application/zstd", "application/x-rar-compressed",
	"application/vnd.rar", "application/octet-stream",
}

// uploadType reports whether a request with this Content-Type sends an
// archive as its body (true) or the JSON form of POST /v1/install (false:
// application/json, or no type); any other type is refused with 415.
func uploadType(header string) (bool, error) {
	if header == "" {
		return false, nil
	}
	mt, _, err := mime.ParseMediaType(header)
	switch {
	case err == nil && mt == "application/json":
		return false, nil
	case err == nil && slices.Contains(uploadTypes, mt):
		return true, nil
	}
	return false, &APIError{Status: http.StatusUnsupportedMediaType, Code: codeInvalid,
		Message: fmt.Sprintf("Content-Type %q: POST /v1/install takes application/json ({\"archive\": …}) or an archive as the body (%s)",
			header, strings.Join(uploadTypes, ", "))}
}

// uploadName returns the archive's file name from the query's name
// parameter, checked as one entry name of SPEC §2 (a name any OS can
// create: no folder, no device name, no character Windows refuses).
func uploadName(r *http.Request) (name string, force bool, err error) {
	const hint = "send the archive's file name as ?name=FILE (and &force=true to allow a reinstall or a downgrade)"
	q := r.URL.Query()
	for k, v := range q {
		switch {
		case k != "name" && k != "force":
			return "", false, errkind.Errorf(errkind.Invalid, "unknown query parameter %q; %s", k, hint)
		case len(v) != 1:
			return "", false, errkind.Errorf(errkind.Invalid, "query parameter %s given %d times; %s", k, len(v), hint)
		}
	}
	if f := q.Get("force"); f != "" {
		if force, err = strconv.ParseBool(f); err != nil {
			return "", false, errkind.Errorf(errkind.Invalid, "force=%q: want true or false", f)
		}
	}
	name = q.Get("name")
	if name == "" {
		return "", false, errkind.New(errkind.Invalid, "no archive name; "+hint)
	}
	if strings.ContainsAny(name, `/\`) {
		return "", false, errkind.Errorf(errkind.Invalid, "name %q: a file name without a folder; %s", name, hint)
	}
	if ps := intake.CheckName(name, intake.DefaultLimits()); len(ps) > 0 {
		p := ps[0]
		p.Entry = "" // the message names it once, quoted
		return "", false, errkind.Errorf(errkind.Invalid, "name %q: %s [rule %s]; send a file name every OS can create", name, p, p.Rule)
	}
	return name, force, nil
}

// postUpload answers POST /v1/install with the archive as the body: it is
// streamed into a new folder under drop/.install/ (never held whole in
// memory), bounded by MaxArchiveBytes, installed like a copy the command
// hands over, and removed.
func (s *server) postUpload(w http.ResponseWriter, r *http.Request, in installer) error {
	name, force, err := uploadName(r)
	if err != nil {
		return err
	}
	if s.opts.Folders.Drop == "" {
		return errkind.New(errkind.NotFound, "this daemon takes no archive as a body; send {\"archive\": …} for a copy in drop/.install/")
	}
	limit := s.opts.MaxArchiveBytes
	if r.ContentLength > limit {
		w.Header().Set("Connection", "close") // the body is not read
		return s.tooLarge(r.ContentLength, limit, true)
	}
	dir, err := s.receive(w, r, name, limit)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	res, err := in.InstallHanded(r.Context(), api.Install{Archive: filepath.Base(dir) + "/" + name, Force: force})
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, res)
	return nil
}

// tooLarge is the 413 of an archive over limit bytes: size is its
// Content-Length (exact) or the bytes read when the limit was passed.
func (s *server) tooLarge(size, limit int64, exact bool) error {
	got := fmt.Sprintf("%d bytes", size)
	if !exact {
		got = fmt.Sprintf("more than %d bytes", limit)
	}
	return &APIError{Status: http.StatusRequestEntityTooLarge, Code: codeTooLarge,
		Message: fmt.Sprintf("archive: %s, over the limit of %d bytes (max_total_bytes of [limits] and the headers of max_entries entries); no pack that large can pass the limits", got, limit)}
}

// receive streams the body into drop/.install/<new folder>/name and
// returns the folder; on any failure the folder is removed.
func (s *server) receive(w http.ResponseWriter, r *http.Request, name string, limit int64) (dir string, err error) {
	base := filepath.Join(s.opts.Folders.Drop, pipeline.InstallDir)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", uploadFault(fmt.Errorf("receive archive %s: %w", name, err))
	}
	if dir, err = os.MkdirTemp(base, "upload-"); err != nil {
		return "", uploadFault(fmt.Errorf("receive archive %s: %w", name, err))
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	out, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return dir, uploadFault(fmt.Errorf("receive archive %s: %w", name, err))
	}
	rc := http.NewResponseController(w)
	body := &stallReader{r: io.LimitReader(r.Body, limit+1), rc: rc, wait: s.opts.BodyTimeout}
	n, err := io.Copy(out, body)
	_ = rc.SetReadDeadline(time.Time{}) // see readBody
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	var tooLarge *http.MaxBytesError
	switch {
	case n > limit || errors.As(err, &tooLarge):
		w.Header().Set("Connection", "close")
		return dir, s.tooLarge(n, limit, false)
	case err != nil && body.read:
		w.Header().Set("Connection", "close")
		return dir, fmt.Errorf("read request body: %w", err)
	case err != nil:
		return dir, uploadFault(fmt.Errorf("receive archive %s into %s: %w", name, dir, err))
	case n == 0:
		return dir, errkind.New(errkind.Invalid, "archive: the body is empty; send the archive's bytes")
	}
	return dir, nil
}

// uploadFault gives a failure to write an upload its kind: a full disk is
// the machine's condition, which passes (503: send it again later), any
// other failure the machine's own.
func uploadFault(err error) error {
	if pipeline.DiskFull(err) {
		return errkind.Errorf(errkind.Unavailable, "%w; free space on the drop folder's disk and send the archive again", err)
	}
	return err
}

// stallReader reads a request body with a deadline that each read moves
// on: a body may take long, but not stall for longer than wait. It
// records whether a read from the body failed (read), to tell a client
// that went away from a disk that failed.
type stallReader struct {
	r    io.Reader
	rc   *http.ResponseController
	wait time.Duration
	read bool
}

func (s *stallReader) Read(p []byte) (int, error) {
	_ = s.rc.SetReadDeadline(time.Now().Add(s.wait)) // see readBody
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.read = true
	}
	return n, err
}
