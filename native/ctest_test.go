package native

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// strictCFlags are the flags every C file of the module must pass.
var strictCFlags = []string{"-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"}

// sanitizeFlags build a C program under AddressSanitizer and
// UndefinedBehaviorSanitizer, stopping at the first report.
var sanitizeFlags = []string{"-g", "-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"}

// buildC compiles C sources with compiler cc into a program in a temp dir
// and returns its path. The test fails with the compiler's output.
func buildC(t *testing.T, cc string, extra []string, sources ...string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(sources[0]), ".c"))
	args := append(append(append([]string{}, strictCFlags...), extra...), "-o", exe)
	args = append(append(args, sources...), "-lm")
	out, err := exec.Command(cc, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, out)
	}
	if len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("%s printed warnings:\n%s", cc, out)
	}
	return exe
}

// cCompilers are the system C compiler and clang, each built with and
// without sanitizers. A missing compiler skips locally and fails in CI.
var cCompilers = []string{"cc", "clang"}

func TestCRuntime(t *testing.T) {
	for _, cc := range cCompilers {
		for _, mode := range []struct {
			name  string
			flags []string
		}{{"plain", []string{"-O2"}}, {"sanitized", sanitizeFlags}} {
			t.Run(cc+"/"+mode.name, func(t *testing.T) {
				path := toolcheck.Need(t, cc)[0]
				if mode.name == "sanitized" {
					needSanitizerRuntime(t, path)
				}
				exe := buildC(t, path, mode.flags, filepath.Join("lobby", "forge_doors_test.c"))
				cmd := exec.Command(exe)
				cmd.Env = append(os.Environ(), "ASAN_OPTIONS=abort_on_error=0:detect_leaks=0", "UBSAN_OPTIONS=print_stacktrace=1")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("forge_doors_test (%s, %s): %v\n%s", cc, mode.name, err, out)
				}
				if !bytes.Contains(out, []byte(", 0 failures")) {
					t.Fatalf("forge_doors_test (%s, %s) did not report success:\n%s", cc, mode.name, out)
				}
				t.Logf("%s", bytes.TrimSpace(out))
			})
		}
	}
}

// needSanitizerRuntime links an empty program under the sanitizers with
// compiler cc. When the runtime library is missing (Debian ships clang's
// in libclang-rt-N-dev, not with clang itself) the test skips locally and
// fails under CI, naming the package to install; any other failure is a
// failure of the test.
func needSanitizerRuntime(t *testing.T, cc string) {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "probe.c")
	if err := os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, sanitizeFlags...), "-o", filepath.Join(dir, "probe"), src)
	out, err := exec.Command(cc, args...).CombinedOutput()
	if err == nil {
		return
	}
	if !bytes.Contains(out, []byte("cannot find")) && !bytes.Contains(out, []byte("No such file")) {
		t.Fatalf("%s cannot build with %s: %v\n%s", cc, strings.Join(sanitizeFlags, " "), err, out)
	}
	toolcheck.Missing(t, "the sanitizer runtime of %s (Debian package %s): %s",
		cc, sanitizerPackage(cc), bytes.TrimSpace(out))
}

// sanitizerPackage names the Debian package that holds the ASan/UBSan
// runtime of compiler cc.
func sanitizerPackage(cc string) string {
	out, err := exec.Command(cc, "-dumpversion").Output()
	major, _, _ := strings.Cut(strings.TrimSpace(string(out)), ".")
	switch {
	case err != nil || major == "":
		return "libclang-rt-N-dev or libgcc-N-dev"
	case strings.Contains(filepath.Base(cc), "clang"):
		return "libclang-rt-" + major + "-dev"
	default:
		return "libgcc-" + major + "-dev"
	}
}

// TestCFilesStrict compiles the other C programs of the module warning-free.
func TestCFilesStrict(t *testing.T) {
	cc := toolcheck.Need(t, "cc")[0]
	for _, src := range []string{"contract_driver.c", "forge_doors_bench.c", "version_main.c"} {
		t.Run(src, func(t *testing.T) {
			buildC(t, cc, []string{"-O2"}, filepath.Join("lobby", src))
		})
	}
	t.Run("forge_doors_module.c", func(t *testing.T) {
		// a shared object on this platform: the same ABI the DLL exports
		out := filepath.Join(t.TempDir(), "forge_doors.so")
		args := append(append([]string{}, strictCFlags...), "-O2", "-shared", "-fPIC", "-o", out,
			filepath.Join("lobby", "forge_doors_module.c"), "-lm")
		if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil || len(b) > 0 {
			t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, b)
		}
	})
}

// TestAPIVersionMatchesHeader compiles a program that prints the header's
// versions and compares them with the Go constants.
func TestAPIVersionMatchesHeader(t *testing.T) {
	cc := toolcheck.Need(t, "cc")[0]
	exe := buildC(t, cc, nil, filepath.Join("lobby", "version_main.c"))
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("version_main: %v", err)
	}
	if want := VersionFileContents(); !bytes.Equal(out, want) {
		t.Fatalf("header versions %q; Go constants say %q (keep APIVersion/ModuleVersion and FD_API_VERSION/FD_MODULE_VERSION equal)", out, want)
	}
}
