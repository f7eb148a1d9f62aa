package lock

import "testing"

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:s3cret@mirror.example.org/a.zip", "https://user:xxxxx@mirror.example.org/a.zip"},
		{"http://token@mirror.example.org/a.zip", "http://token@mirror.example.org/a.zip"},
		{"https://mirror.example.org/a@b.zip", "https://mirror.example.org/a@b.zip"},
		{"/srv/packs/a.zip", "/srv/packs/a.zip"},
		{"http://user:s3cret@host/%zz", "http://user:xxxxx@host/%zz"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
