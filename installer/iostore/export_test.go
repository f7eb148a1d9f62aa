package iostore

import "io"

// Read reads a TOC of size bytes from r, for the tests of package
// iostore_test. Path names the file in errors. Only the header and the
// chunk-id array are read.
func Read(r io.ReaderAt, size int64, path string) (*TOC, error) {
	return read(io.NewSectionReader(r, 0, size), size, path)
}
