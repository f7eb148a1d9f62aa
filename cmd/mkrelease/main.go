// Command mkrelease writes the release archives of `make release` from the
// bundles `make dist` built:
//
//	mkrelease -version V -epoch SECONDS -out DIR [-sign-key FILE] OS=BUNDLE...
//
// For each OS=BUNDLE it writes DIR/forgesync_V_OS_amd64.zip (windows) or
// .tar.gz (the others), for linux also the .deb for hosts
// (DIR/forgesync_V_amd64.deb), then DIR/SHA256SUMS and, with -sign-key, its
// minisign signature DIR/SHA256SUMS.minisig (the key's password, if it
// has one, from $FORGESYNC_SIGN_PASSWORD) and the key's public half beside
// it, DIR/forgesync.pub, as `minisign -Vm SHA256SUMS -p forgesync.pub`
// reads it. Every entry is dated SECONDS
// (SOURCE_DATE_EPOCH), so the same inputs give the same bytes.
//
// A release archive holds the built bundle (the binary and its modules/
// folder), the Lua scripts the daemon deploys, README.md and LICENSE. The
// archives are reproducible: entries sorted, one fixed time, no owner, so
// two builds of one commit are the same bytes. The packaging (nfpm, for
// the .deb) is this command's alone: the forgesync binary never links it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// signPasswordEnv is the variable `forgesync lock --sign` reads too.
const signPasswordEnv = "FORGESYNC_SIGN_PASSWORD"

var safeVersion = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+_-]*$`)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "mkrelease: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("mkrelease", flag.ContinueOnError)
	version := fs.String("version", "", "the release's `VERSION`, in the archive names")
	epoch := fs.Int64("epoch", -1, "the time of every entry, in `SECONDS` since 1970 (SOURCE_DATE_EPOCH)")
	out := fs.String("out", "", "the `FOLDER` to write the release into")
	root := fs.String("root", ".", "the repository `FOLDER` (README.md, LICENSE)")
	signKey := fs.String("sign-key", "", "sign SHA256SUMS with this minisign secret key `FILE`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case !safeVersion.MatchString(*version):
		return fmt.Errorf("-version %q: want letters, digits and . + _ -", *version)
	case *epoch < 0:
		return fmt.Errorf("-epoch %d: want the seconds since 1970 (SOURCE_DATE_EPOCH)", *epoch)
	case *out == "":
		return fmt.Errorf("-out: the release folder is missing")
	case fs.NArg() == 0:
		return fmt.Errorf("no OS=BUNDLE given")
	}
	mtime := time.Unix(*epoch, 0)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	written := map[string][]byte{}
	for _, a := range fs.Args() {
		goos, dir, ok := strings.Cut(a, "=")
		if !ok || goos == "" || dir == "" {
			return fmt.Errorf("%q: want OS=BUNDLE, e.g. linux=dist/linux", a)
		}
		files, err := readBundle(dir, *root)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("forgesync_%s_%s_amd64", *version, goos)
		var data []byte
		if goos == "windows" {
			name += ".zip"
			data, err = makeZip(files, mtime)
		} else {
			name += ".tar.gz"
			data, err = makeTarGz(files, mtime)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if _, dup := written[name]; dup {
			return fmt.Errorf("%s: %s given twice", a, goos)
		}
		written[name] = data
		if goos == "linux" {
			var deb bytes.Buffer
			if err := writeDeb(&deb, *version, dir, *root, mtime); err != nil {
				return err
			}
			written[debName(*version)] = deb.Bytes()
		}
	}
	sums := sha256Sums(written)
	written[sumsName] = sums
	if *signKey != "" {
		if err := sign(written, *signKey, sums); err != nil {
			return err
		}
	}
	for name, data := range written {
		p := filepath.Join(*out, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	fmt.Print(string(sums))
	return nil
}

// sign adds to written the signature of sums by the key at keyPath and,
// beside it, the key's public half: after the sums, which check the files
// the key checks, and do not list it.
func sign(written map[string][]byte, keyPath string, sums []byte) error {
	sig, err := signSums(keyPath, os.Getenv(signPasswordEnv), sums)
	if err != nil {
		return err
	}
	written[sumsName+".minisig"] = sig
	pub, err := publicKeyOf(keyPath, os.Getenv(signPasswordEnv))
	if err != nil {
		return err
	}
	written[pubName] = pub
	return nil
}
