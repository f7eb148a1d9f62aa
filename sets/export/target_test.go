package export

import (
	"errors"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/sets/lock"
	"github.com/mjolnir-forge/forgesync/sets/settest"
)

func TestExpandURL(t *testing.T) {
	got, err := expandURL("https://cdn.example.org/forge/{sha256}{ext}", settest.HashA, ".tar.zst")
	if err != nil || got != "https://cdn.example.org/forge/"+settest.HashA+".tar.zst" {
		t.Errorf("ExpandURL = %q, %v", got, err)
	}
	if got, err := expandURL(DefaultURLTemplate, settest.HashA, ".zip"); err != nil || got != "packs/"+settest.HashA+".zip" {
		t.Errorf("ExpandURL(default) = %q, %v", got, err)
	}
	for _, bad := range []string{"https://cdn.example.org/forge/x.zip", "https://x.org/{id}/{sha256}", "ftp://x.org/{sha256}", "packs/{sha256} {ext}"} {
		if err := checkTemplate(bad); !errors.Is(err, lock.ErrURL) {
			t.Errorf("CheckTemplate(%q) = %v; want ErrURL", bad, err)
		}
	}
	if err := checkTemplate(DefaultURLTemplate); err != nil {
		t.Errorf("CheckTemplate(default) = %v", err)
	}
}

// TestExportTarget: export writes a folder or pushes to an oci://
// reference; any other scheme is refused by name, and a drive letter is a
// folder.
func TestExportTarget(t *testing.T) {
	for _, arg := range []string{`C:\sites\league`, `C:/sites/league`, "site", "./out/site", "/srv/site", "release:2"} {
		dir, ref, err := ExportTarget(arg)
		if err != nil || ref != nil || dir != arg {
			t.Errorf("ExportTarget(%q) = %q, %v, %v; want the folder", arg, dir, ref, err)
		}
	}
	dir, ref, err := ExportTarget("oci://127.0.0.1:5000/sets/league:live")
	if err != nil || dir != "" || ref == nil || ref.Tag != "live" || ref.Host != "127.0.0.1:5000" {
		t.Errorf("ExportTarget(oci) = %q, %+v, %v; want the reference", dir, ref, err)
	}
	for arg, want := range map[string]string{
		"s3://bucket/set":               `the scheme "s3" is not one forgesync writes to`,
		"gs://bucket/set":               `the scheme "gs"`,
		"ocl://ghcr.io/o/r:live":        `the scheme "ocl"`,
		"htps://cdn.example.org/set":    `the scheme "htps"`,
		"https://u:hunter2@cdn.org/set": `the scheme "https"`,
		"oci://ghcr.io/o/r":             "name a tag (:TAG) or a digest",
		"oci://ghcr.io/o/r@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": "name the tag to push to",
	} {
		_, _, err := ExportTarget(arg)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("ExportTarget(%q) = %v; want an error saying %q, without the password", arg, err, want)
		}
	}
}
