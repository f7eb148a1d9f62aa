// Package interp owns running the embedded Lua scripts of package lua in
// gopher-lua, an interpreter of Lua 5.1 written in Go: it compiles every
// script once and hands out states in which require finds each of them by
// module name, so tests, benchmarks and lift-preview need nothing installed.
package interp

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	glua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/mjolnir-forge/forgesync/lua"
)

var compiled = sync.OnceValues(func() (map[string]*glua.FunctionProto, error) {
	return compile(lua.Files)
})

// compile parses and compiles every .lua file of fsys, keyed by module name
// (see [lua.ModuleName]).
func compile(fsys fs.FS) (map[string]*glua.FunctionProto, error) {
	protos := map[string]*glua.FunctionProto{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".lua") {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		chunk, err := parse.Parse(bytes.NewReader(src), p)
		if err != nil {
			return fmt.Errorf("parse %s: %w", p, err)
		}
		proto, err := glua.Compile(chunk, p)
		if err != nil {
			return fmt.Errorf("compile %s: %w", p, err)
		}
		protos[lua.ModuleName(p)] = proto
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("compile lua scripts: %w", err)
	}
	return protos, nil
}

// New returns a fresh state with the standard libraries open and every
// embedded script registered in package.preload under its module name.
// The caller closes it.
func New() (*glua.LState, error) {
	protos, err := compiled()
	if err != nil {
		return nil, err
	}
	return newWith(protos), nil
}

// newWith returns a fresh state with the given compiled modules preloaded.
func newWith(protos map[string]*glua.FunctionProto) *glua.LState {
	L := glua.NewState()
	preload := L.GetField(L.GetField(L.Get(glua.EnvironIndex), "package"), "preload")
	for name, proto := range protos {
		L.SetField(preload, name, L.NewFunctionFromProto(proto))
	}
	return L
}

// Require runs require(name) in L and returns the module's value.
func Require(L *glua.LState, name string) (glua.LValue, error) {
	if err := L.CallByParam(glua.P{Fn: L.GetGlobal("require"), NRet: 1, Protect: true}, glua.LString(name)); err != nil {
		return glua.LNil, fmt.Errorf("require %q: %w", name, err)
	}
	v := L.Get(-1)
	L.Pop(1)
	return v, nil
}

// Call calls the function field fn of table mod with args and returns its
// nret results.
func Call(L *glua.LState, mod glua.LValue, fn string, nret int, args ...glua.LValue) ([]glua.LValue, error) {
	f := L.GetField(mod, fn)
	if f.Type() != glua.LTFunction {
		return nil, fmt.Errorf("call %s: not a function (%s)", fn, f.Type())
	}
	if err := L.CallByParam(glua.P{Fn: f, NRet: nret, Protect: true}, args...); err != nil {
		return nil, fmt.Errorf("call %s: %w", fn, err)
	}
	out := make([]glua.LValue, nret)
	for i := range nret {
		out[i] = L.Get(-nret + i)
	}
	L.Pop(nret)
	return out, nil
}
