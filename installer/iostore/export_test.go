package iostore

import "io"

// Read reads a TOC of size bytes from r, for the tests of package
// iostore_test. Path names the file in errors. Only the header and the
// chunk-id array are read.
func Read(r io.ReaderAt, size int64, path string) (*TOC, error) {
	return read(io.NewSectionReader(r, 0, size), size, path)
}

// ChunkIDSize is chunkIDSize, for the external tests.
const ChunkIDSize = chunkIDSize

// ErrBadHeader is errBadHeader, for the external tests.
var ErrBadHeader = errBadHeader

// ErrBadMagic is errBadMagic, for the external tests.
var ErrBadMagic = errBadMagic

// ErrPastEnd is errPastEnd, for the external tests.
var ErrPastEnd = errPastEnd

// ErrTooManyChunks is errTooManyChunks, for the external tests.
var ErrTooManyChunks = errTooManyChunks

// ErrTruncated is errTruncated, for the external tests.
var ErrTruncated = errTruncated

// KindOptionalBulkData is kindOptionalBulkData, for the external tests.
const KindOptionalBulkData = kindOptionalBulkData

// KindPackageResource is kindPackageResource, for the external tests.
const KindPackageResource = kindPackageResource

// KindUnknown is kindUnknown, for the external tests.
const KindUnknown = kindUnknown

// MaxChunks is maxChunks, for the external tests.
const MaxChunks = maxChunks
