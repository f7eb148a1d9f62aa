package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/iostore"
	"github.com/mjolnir-forge/forgesync/installer/iostore/tocfixture"
)

func TestRun(t *testing.T) {
	out := t.TempDir()
	if err := run([]string{"-pack", "glass-works", "-out", out, "-engine", "ue4.27"}); err != nil {
		t.Fatal(err)
	}
	toc, err := iostore.ReadFile(filepath.Join(out, "content", "Surfaces.utoc"))
	if err != nil {
		t.Fatal(err)
	}
	if toc.Layout != iostore.LayoutUE4 || toc.Version != 3 {
		t.Errorf("layout %v version %d; want UE4.27, 3", toc.Layout, toc.Version)
	}
	missing, err := iostore.Require(os.DirFS(out), "content", tocfixture.SurfacePackages("glass-works"))
	if err != nil || missing != nil {
		t.Errorf("Require = %v, %v; want nil, nil", missing, err)
	}
}

func TestRunErrors(t *testing.T) {
	out := t.TempDir()
	for _, args := range [][]string{
		{},
		{"-pack", "x"},
		{"-out", out},
		{"-pack", "x", "-out", out, "extra"},
		{"-pack", "x", "-out", out, "-engine", "ue6"},
		{"-pack", "x", "-out", out, "-name", "../up"},
		{"-pack", "a/b", "-out", out},
	} {
		if err := run(args); err == nil {
			t.Errorf("run(%q) succeeded", args)
		}
	}
}

// TestExampleContent checks that cmd/forgesync/examples/glass-works/content is exactly
// what this command writes (go generate in this folder rewrites it).
func TestExampleContent(t *testing.T) {
	want := filepath.Join("..", "forgesync", "examples", "glass-works", "content")
	out := t.TempDir()
	if err := run([]string{"-pack", "glass-works", "-out", out}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Surfaces.utoc", "Surfaces.ucas"} {
		got, err := os.ReadFile(filepath.Join(out, "content", name))
		if err != nil {
			t.Fatal(err)
		}
		committed, err := os.ReadFile(filepath.Join(want, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, committed) {
			t.Errorf("%s differs from a fresh run; run go generate ./cmd/gensurfaces", filepath.Join(want, name))
		}
	}
	entries, err := os.ReadDir(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case ".utoc", ".ucas", ".pak", ".sig":
		default:
			t.Errorf("%s: content/ may hold only .utoc, .ucas, .pak, .sig", e.Name())
		}
	}
}
