package intake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/klauspost/compress/zip"
	"github.com/mholt/archives"
)

// errManifestFound stops the walk once the manifest is read.
var errManifestFound = errors.New("manifest found")

// readManifest returns the bytes of the pack manifest inside an archive that
// Extract rejected for its files, so that a scan can report the manifest's
// own faults too: forgepack.json at the archive root, or in the archive's
// one top folder, read up to its 1 MiB limit plus one byte. Nothing is
// written. It returns nil bytes when the archive holds no such file; it
// must not be used on an archive rejected for its size or compression,
// whose walk could be a bomb.
func readManifest(ctx context.Context, archivePath string) ([]byte, error) {
	f, err := os.Open(archivePath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	kind, _, err := identify(f)
	if err != nil {
		return nil, err
	}
	var ex archives.Extractor
	var src io.Reader = f
	switch kind {
	case kindUnknown, kindRar:
		return nil, nil // rar packs are read by Extract alone
	case kindZip:
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		zr, err := openZip(f, st.Size())
		if err != nil {
			return nil, fmt.Errorf("read manifest of %s: %w", archivePath, err)
		}
		ex = zipWalker{zr}
	case kind7z:
		ex = archives.SevenZip{}
	default:
		if w, ok := firstZstdWindow(f); kind == kindTarZst && ok && w > maxZstdWindow {
			return nil, nil
		}
		r, closeSrc, err := openStream(kind, f, DefaultLimits())
		if err != nil {
			return nil, fmt.Errorf("read manifest of %s: %w", archivePath, err)
		}
		defer closeSrc()
		ex, src = archives.Tar{}, r
	}
	var data []byte
	err = ex.Extract(ctx, src, func(ctx context.Context, fi archives.FileInfo) error {
		name := strings.TrimPrefix(fi.NameInArchive, "./")
		if fi.IsDir() || path.Base(name) != "forgepack.json" || strings.Count(name, "/") > 1 {
			return nil
		}
		rc, err := fi.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		data, err = io.ReadAll(io.LimitReader(rc, maxManifestBytes+1))
		if err != nil {
			return err
		}
		return errManifestFound
	})
	if err != nil && !errors.Is(err, errManifestFound) {
		return nil, fmt.Errorf("read manifest of %s: %w", archivePath, err)
	}
	return data, nil
}

// SizeProblem reports whether p is about sizes, counts or compression:
// the archive may be a bomb, and nothing more should be read from it.
func SizeProblem(p Problem) bool {
	switch p.Rule {
	case RuleTooManyEntries, RuleTotalTooLarge, RuleEntryTooLarge, RuleRatio, RuleDecoderMemory, RuleCorrupt, RuleEncrypted, RuleNotArchive,
		RuleMethod, RuleSparse, RuleUnpackerCrashed, RuleUnpackMemory, RuleUnpackTime, RuleUnpackerOutput:
		return true
	}
	return false
}

// zipWalker is an archives.Extractor over a zip opened by openZip.
type zipWalker struct{ zr *zip.Reader }

func (z zipWalker) Extract(ctx context.Context, _ io.Reader, handle archives.FileHandler) error {
	return walkZip(ctx, z.zr, handle)
}
