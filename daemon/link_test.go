package daemon

import (
	"strings"
	"testing"
)

func TestParseLink(t *testing.T) {
	good := []struct {
		link string
		want Link
	}{
		{"forgesync://set?url=https%3A%2F%2Fhost.example%2Fforgepacks.lock", Link{URL: "https://host.example/forgepacks.lock"}},
		{"forgesync://set/?url=oci://registry.example/packs:v1&key=RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3", Link{URL: "oci://registry.example/packs:v1", Key: "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3"}},
		{"FORGESYNC://set?key=RWQ%2Bab%2F%3D&url=http://127.0.0.1:8080/l", Link{URL: "http://127.0.0.1:8080/l", Key: "RWQ+ab/="}},
		{"forgesync://set?url=https://h.example/l&key=RWQ+ab", Link{URL: "https://h.example/l", Key: "RWQ+ab"}},
	}
	for _, tc := range good {
		got, err := ParseLink(tc.link)
		if err != nil || got != tc.want {
			t.Errorf("ParseLink(%q) = %+v, %v; want %+v", tc.link, got, err, tc.want)
		}
	}
	bad := []struct{ link, want string }{
		{"https://set?url=https://h.example/l", `scheme "https"`},
		{"forgesync://apply?url=https://h.example/l", "want forgesync://set"},
		{"forgesync://set/x?url=https://h.example/l", "want forgesync://set"},
		{"forgesync://set?url=https://h.example/l#x", "want forgesync://set"},
		{"forgesync://set?url=https://h.example/l&prune=1", `unknown parameter "prune"`},
		{"forgesync://set?url=https://a.example/l&url=https://b.example/l", "url given twice"},
		{"forgesync://set?key=RWQ", "no url parameter"},
		{"forgesync://set?url=file:///etc/passwd", `scheme "file"`},
		{"forgesync://set?url=C:%5CUsers%5Cx.lock", `scheme "c"`},
		{"forgesync://set?url=https://user:pw@h.example/l", "no user or password"},
		{"forgesync://set?url=https://h.example/l&key=RW<img>", `character '<'`},
		{"forgesync://set?url=https://h.example/" + strings.Repeat("a", maxLinkURLBytes), "more than 2048"},
		{"forgesync://set?url=" + strings.Repeat("a", maxLinkBytes), "more than the 4096"},
		{"forgesync://set?url=https://h.example/l x", "space or control character at byte 40"},
	}
	for _, tc := range bad {
		if _, err := ParseLink(tc.link); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseLink(%.60q) = %v; want an error saying %q", tc.link, err, tc.want)
		}
	}
}
