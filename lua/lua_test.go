package lua_test

import (
	"io/fs"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	glua "github.com/yuin/gopher-lua"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/mjolnir-forge/forgesync/lua"
	"github.com/mjolnir-forge/forgesync/lua/interp"
)

// suites are the Lua suites CI runs: the three lift suites of LUA.md and
// the unchanged maths suite.
var suites = []string{"halo2_math", "script_writer", "pack_lifts", "lifts"}

func newRunner(t *testing.T) (*glua.LState, glua.LValue) {
	t.Helper()
	L, err := interp.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(L.Close)
	r, err := interp.Require(L, "tests.runner")
	if err != nil {
		t.Fatal(err)
	}
	return L, r
}

func caseNames(t *testing.T, L *glua.LState, r glua.LValue, suite string) []string {
	t.Helper()
	out, err := interp.Call(L, r, "names", 1, glua.LString(suite))
	if err != nil {
		t.Fatalf("names(%q): %v", suite, err)
	}
	tbl, ok := out[0].(*glua.LTable)
	if !ok {
		t.Fatalf("names(%q) = %v; want a table", suite, out[0])
	}
	var names []string
	for i := 1; i <= tbl.Len(); i++ {
		names = append(names, tbl.RawGetInt(i).String())
	}
	return names
}

// TestSuites runs every case of every Lua suite in gopher-lua (Lua 5.1
// semantics), one subtest per case, each in a fresh state.
func TestSuites(t *testing.T) {
	L, r := newRunner(t)
	listed, err := interp.Call(L, r, "names", 1, glua.LString("lifts"))
	if err != nil || listed[0].Type() != glua.LTTable {
		t.Fatalf("runner.names: %v %v", listed, err)
	}
	suiteTbl := L.GetField(r, "SUITES").(*glua.LTable)
	var luaSuites []string
	for i := 1; i <= suiteTbl.Len(); i++ {
		luaSuites = append(luaSuites, suiteTbl.RawGetInt(i).String())
	}
	if !slices.Equal(luaSuites, suites) {
		t.Fatalf("tests/runner.lua SUITES = %v; want %v (keep Go and Lua lists in step)", luaSuites, suites)
	}
	for _, suite := range suites {
		t.Run(suite, func(t *testing.T) {
			L, r := newRunner(t)
			names := caseNames(t, L, r, suite)
			if len(names) == 0 {
				t.Fatalf("suite %s has no cases", suite)
			}
			for _, name := range names {
				t.Run(name, func(t *testing.T) {
					L, r := newRunner(t)
					out, err := interp.Call(L, r, "run_case", 1, glua.LString(suite), glua.LString(name))
					if err != nil {
						t.Fatal(err)
					}
					if out[0] != glua.LNil {
						t.Errorf("%s/%s: %s", suite, name, out[0].String())
					}
				})
			}
		})
	}
}

// TestSuitesLua54 runs the suites under Debian's lua5.4, the interpreter
// UE4SS embeds, through tests/run.lua.
func TestSuitesLua54(t *testing.T) {
	lua54 := toolcheck.Need(t, "lua5.4")[0]
	cmd := exec.CommandContext(t.Context(), lua54, "tests/run.lua")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("lua5.4 tests/run.lua: %v\n%s", err, out)
	}
	// Same cases as under gopher-lua, all passing.
	L, r := newRunner(t)
	total := 0
	for _, s := range suites {
		total += len(caseNames(t, L, r, s))
	}
	want := regexp.MustCompile(`(?m)^(\d+) cases, 0 failed \(Lua 5\.4\)$`)
	m := want.FindSubmatch(out)
	if m == nil || string(m[1]) != strconv.Itoa(total) {
		t.Fatalf("lua5.4 tests/run.lua summary missing or wrong (want %d cases, 0 failed):\n%s", total, out)
	}
}

// TestLuacParse lints every Lua file with luac5.4 -p. Debian's luac5.4
// 5.4.4 aborts ("double free") when given several files at once, so each
// file gets its own run.
func TestLuacParse(t *testing.T) {
	luac := toolcheck.Need(t, "luac5.4")[0]
	for _, name := range luaFiles(t) {
		out, err := exec.CommandContext(t.Context(), luac, "-p", name).CombinedOutput()
		if err != nil {
			t.Errorf("luac5.4 -p %s: %v\n%s", name, err, out)
		}
	}
}

func luaFiles(t *testing.T) []string {
	t.Helper()
	var names []string
	err := fs.WalkDir(lua.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lua") {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 10 {
		t.Fatalf("embedded Lua files = %v; want the scripts, sim/ and tests/", names)
	}
	return names
}

// stripLua removes comments and string literals, leaving code.
func stripLua(src string) string {
	var b strings.Builder
	for i := 0; i < len(src); {
		switch {
		case strings.HasPrefix(src[i:], "--"):
			rest := src[i+2:]
			if lvl := longBracket(rest); lvl >= 0 {
				i += 2 + skipLong(rest, lvl)
			} else if j := strings.IndexByte(rest, '\n'); j >= 0 {
				i += 2 + j
			} else {
				i = len(src)
			}
		case src[i] == '"' || src[i] == '\'':
			q := src[i]
			j := i + 1
			for j < len(src) && src[j] != q {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			b.WriteString(`""`)
			i = j + 1
		case src[i] == '[' && longBracket(src[i:]) >= 0:
			i += skipLong(src[i:], longBracket(src[i:]))
			b.WriteString(`""`)
		default:
			b.WriteByte(src[i])
			i++
		}
	}
	return b.String()
}

// longBracket returns the level of a long bracket opening s ("[[", "[=[")
// or -1.
func longBracket(s string) int {
	if !strings.HasPrefix(s, "[") {
		return -1
	}
	n := 1
	for n < len(s) && s[n] == '=' {
		n++
	}
	if n < len(s) && s[n] == '[' {
		return n - 1
	}
	return -1
}

func skipLong(s string, lvl int) int {
	closer := "]" + strings.Repeat("=", lvl) + "]"
	if j := strings.Index(s, closer); j >= 0 {
		return j + len(closer)
	}
	return len(s)
}

// TestCommonSubset checks that the scripts avoid what Lua 5.1 lacks (goto,
// integer division, bit operators, integer-only library functions), so
// that both gopher-lua and Lua 5.4 run the same code.
func TestCommonSubset(t *testing.T) {
	forbidden := []struct {
		re   *regexp.Regexp
		what string
	}{
		{regexp.MustCompile(`\bgoto\b`), "goto"},
		{regexp.MustCompile(`::\w+::`), "a goto label"},
		{regexp.MustCompile(`//`), "integer division //"},
		{regexp.MustCompile(`<<|>>`), "a shift operator"},
		{regexp.MustCompile(`[^~=<>]~[^=]`), "bitwise xor/not ~"},
		{regexp.MustCompile(`[^\w\s]?\s&\s|\w&\w|\|`), "a bitwise and/or"},
		{regexp.MustCompile(`math\.(type|tointeger|ult)\b|utf8\.|string\.(pack|unpack)\b|<const>|<close>`), "a Lua 5.3+ library function or attribute"},
	}
	for _, name := range luaFiles(t) {
		src, err := fs.ReadFile(lua.Files, name)
		if err != nil {
			t.Fatal(err)
		}
		code := stripLua(string(src))
		for _, line := range strings.Split(code, "\n") {
			for _, f := range forbidden {
				if f.re.MatchString(line) {
					t.Errorf("%s: uses %s outside the Lua 5.1/5.4 common subset: %q", name, f.what, strings.TrimSpace(line))
				}
			}
		}
	}
	// The check itself finds what it looks for.
	if !regexp.MustCompile(`//`).MatchString(stripLua("local x = 7 // 2 -- a // b")) {
		t.Error("stripLua removed code it should keep")
	}
	if strings.Contains(stripLua(`local s = "a // b" --[[ x // y ]]`), "//") {
		t.Error("stripLua kept a string or comment")
	}
}

// TestDeployedScripts checks the deploy list: every name exists, tests
// and the simulated engine are not deployed, and every module a deployed
// script requires is deployed too.
func TestDeployedScripts(t *testing.T) {
	names := lua.Deployed()
	want := []string{"halo2_math.lua", "script_writer.lua", "h2_lifts.lua", "pack_lifts.lua", "lifts.lua"}
	if !slices.Equal(names, want) {
		t.Fatalf("Deployed() = %v; want %v", names, want)
	}
	modules := map[string]bool{}
	for _, n := range names {
		modules[lua.ModuleName(n)] = true
	}
	req := regexp.MustCompile(`require\("([^"]+)"\)`)
	for _, n := range names {
		src, err := fs.ReadFile(lua.Files, n)
		if err != nil {
			t.Fatalf("deployed script %s: %v", n, err)
		}
		for _, m := range req.FindAllStringSubmatch(string(src), -1) {
			if !modules[m[1]] {
				t.Errorf("%s requires %q, which is not deployed", n, m[1])
			}
		}
	}
	names[0] = "changed"
	if lua.Deployed()[0] != "halo2_math.lua" {
		t.Error("Deployed() shares its slice with callers")
	}
}

func TestModuleName(t *testing.T) {
	for in, want := range map[string]string{"lifts.lua": "lifts", "sim/engine.lua": "sim.engine", "tests/t.lua": "tests.t"} {
		if got := lua.ModuleName(in); got != want {
			t.Errorf("ModuleName(%q) = %q; want %q", in, got, want)
		}
	}
}
