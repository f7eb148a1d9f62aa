package strictjson

import "testing"

func TestDuplicateKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1,"b":[1,{"c":2}],"d":{"e":3}}`, ""},
		{`{"a":1,"a":2}`, `duplicate key "a" at a`},
		{`{"a":1,"A":2}`, `duplicate key "A" at A (the same as "a" for the decoder)`},
		{`{"pack":[{"id":"x"},{"id":"y","id":"z"}]}`, `duplicate key "id" at pack[1].id`},
		{`{"x":{"y":[[{}],{"k":1,"k":1}]}}`, `duplicate key "k" at x.y[1].k`},
		{`{"a":{"b":1},"c":{"b":2}}`, ""},
		{`[{"a":1},{"a":2}]`, ""},
		{`{"a":`, ""},
	}
	for _, tt := range tests {
		if got := DuplicateKey([]byte(tt.in)); got != tt.want {
			t.Errorf("DuplicateKey(%s) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
