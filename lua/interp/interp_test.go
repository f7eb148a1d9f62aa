package interp

import (
	"strings"
	"testing"
	"testing/fstest"

	glua "github.com/yuin/gopher-lua"

	"github.com/mjolnir-forge/forgesync/lua"
)

func TestNewPreloadsEveryScript(t *testing.T) {
	L, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer L.Close()
	for _, name := range append(lua.Deployed(), "sim/engine.lua", "sim/preview.lua", "tests/runner.lua") {
		mod := lua.ModuleName(name)
		v, err := Require(L, mod)
		if err != nil {
			t.Errorf("Require(%q): %v", mod, err)
			continue
		}
		if v.Type() != glua.LTTable {
			t.Errorf("Require(%q) = %s; want a module table", mod, v.Type())
		}
	}
	if _, err := Require(L, "no_such_module"); err == nil || !strings.Contains(err.Error(), "no_such_module") {
		t.Errorf("Require(no_such_module) error = %v; want one naming the module", err)
	}
	m, _ := Require(L, "script_writer")
	out, err := Call(L, m, "number", 1, glua.LNumber(0.45))
	if err != nil || out[0].String() != "0.45" {
		t.Errorf("Call(script_writer.number, 0.45) = %v, %v; want 0.45", out, err)
	}
	if _, err := Call(L, m, "nope", 1); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Call(nope) error = %v; want one naming the function", err)
	}
	if _, err := Call(L, m, "set_velocity", 1, glua.LString("x")); err != nil {
		t.Errorf("Call(set_velocity, bad handle) error = %v; want nil and a message value", err)
	}
}

func TestCompileReportsTheFile(t *testing.T) {
	_, err := compile(fstest.MapFS{"good.lua": {Data: []byte("return 1")}, "sub/bad.lua": {Data: []byte("local = 1")}})
	if err == nil || !strings.Contains(err.Error(), "sub/bad.lua") {
		t.Errorf("Compile(bad) error = %v; want one naming sub/bad.lua", err)
	}
	protos, err := compile(fstest.MapFS{"a/b.lua": {Data: []byte("return 2")}, "notes.txt": {Data: []byte("x")}})
	if err != nil || len(protos) != 1 || protos["a.b"] == nil {
		t.Errorf("Compile = %v, %v; want one module a.b", protos, err)
	}
}
