// Command gensurfaces writes a placeholder IoStore container carrying a
// Forge pack's surface packages, for examples and tests:
//
//	go run ./cmd/gensurfaces -pack PACKID -out DIR [-engine ue5|ue4.27] [-name Surfaces]
//
// writes DIR/content/NAME.utoc and DIR/content/NAME.ucas with an
// ExportBundleData chunk (and a BulkData chunk) for
// /Game/MJOLNIR/Forge/PACKID/Surfaces/MI_GlassCyan and
// .../MI_TeleporterGreen. See package tocfixture for what the files are
// and are not.
package main

//go:generate go run . -pack glass-works -out ../forgesync/examples/glass-works

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/installer/iostore/tocfixture"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gensurfaces:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	fl := flag.NewFlagSet("gensurfaces", flag.ContinueOnError)
	pack := fl.String("pack", "", "pack id (required)")
	out := fl.String("out", "", "pack folder; files go to its content/ (required)")
	engine := fl.String("engine", "ue5", "TOC layout: ue5 (version 8) or ue4.27 (version 3)")
	name := fl.String("name", "Surfaces", "container base name")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *pack == "" || *out == "" || fl.NArg() > 0 {
		fl.Usage()
		return fmt.Errorf("want -pack PACKID -out DIR and no arguments")
	}
	if strings.ContainsAny(*pack, "/\\.") {
		return fmt.Errorf("-pack %q: want a pack id, not a path", *pack)
	}
	if !filepath.IsLocal(*name) || filepath.Base(*name) != *name {
		return fmt.Errorf("-name %q: want a plain file name", *name)
	}
	var e tocfixture.Engine
	switch *engine {
	case "ue5":
		e = tocfixture.UE5
	case "ue4.27":
		e = tocfixture.UE427
	default:
		return fmt.Errorf("-engine %q: want ue5 or ue4.27", *engine)
	}
	dir := filepath.Join(*out, "content")
	if err := tocfixture.Surfaces(e, *pack).Write(dir, *name); err != nil {
		return err
	}
	for _, n := range tocfixture.SurfacePackages(*pack) {
		fmt.Printf("%s %016X\n", n, iostore.PackageID(n))
	}
	fmt.Printf("wrote %s\n", filepath.Join(dir, *name+".{utoc,ucas}"))
	return nil
}
