package native

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// TestModuleDLL builds the module with `make dll` (mingw-w64) into a temp
// folder and checks the PE file: x86-64, the C ABI exported by name, no
// runtime DLL beyond what Windows ships, and the version file.
func TestModuleDLL(t *testing.T) {
	tools := toolcheck.Need(t, "make", "x86_64-w64-mingw32-gcc")
	dist := t.TempDir()
	cmd := exec.Command(tools[0], "-C", "..", "dll", "DIST="+dist)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make dll: %v\n%s", err, out)
	}
	if bytes.Contains(out, []byte("warning")) {
		t.Fatalf("make dll printed warnings:\n%s", out)
	}
	dll := filepath.Join(dist, "modules", filepath.FromSlash(ModulePath()))
	f, err := pe.Open(dll)
	if err != nil {
		t.Fatalf("pe.Open(%s): %v", dll, err)
	}
	defer f.Close()
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 || f.Characteristics&pe.IMAGE_FILE_DLL == 0 {
		t.Errorf("%s: machine %#x characteristics %#x; want an AMD64 DLL", moduleFile, f.Machine, f.Characteristics)
	}
	exports, err := peExports(f)
	if err != nil {
		t.Fatalf("exports of %s: %v", dll, err)
	}
	for _, want := range []string{"forge_doors_api_version", "forge_doors_module_version", "forge_doors_runtime_size",
		"forge_doors_init", "forge_doors_load_inventory", "forge_doors_step", "forge_doors_observe_panel",
		"forge_doors_save_project", "forge_doors_request_edit", "forge_doors_gate"} {
		if !slices.Contains(exports, want) {
			t.Errorf("%s does not export %s (exports %v)", moduleFile, want, exports)
		}
	}
	for _, name := range exports {
		if !strings.HasPrefix(name, "forge_doors_") {
			t.Errorf("%s exports %s; want only the forge_doors_ ABI", moduleFile, name)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range libs {
		if l := strings.ToLower(lib); l != "kernel32.dll" && l != "msvcrt.dll" && !strings.HasPrefix(l, "api-ms-win-crt-") {
			t.Errorf("%s imports %s; want only system DLLs (a game folder has no mingw runtime)", moduleFile, lib)
		}
	}
	ver, err := os.ReadFile(filepath.Join(dist, "modules", filepath.FromSlash(VersionPath())))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ver, VersionFileContents()) {
		t.Errorf("%s = %q; want %q", versionFile, ver, VersionFileContents())
	}
}

// peExports lists the names in a PE file's export directory.
func peExports(f *pe.File) ([]string, error) {
	oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok {
		return nil, errors.New("not a PE32+ file")
	}
	if len(oh.DataDirectory) <= pe.IMAGE_DIRECTORY_ENTRY_EXPORT {
		return nil, errors.New("no data directories")
	}
	dir := oh.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_EXPORT]
	if dir.Size == 0 {
		return nil, errors.New("no export directory")
	}
	read := func(rva uint32, n int) ([]byte, error) {
		for _, s := range f.Sections {
			if rva >= s.VirtualAddress && rva < s.VirtualAddress+s.VirtualSize {
				data, err := s.Data()
				if err != nil {
					return nil, err
				}
				off := int(rva - s.VirtualAddress)
				if off+n > len(data) {
					n = len(data) - off
				}
				return data[off : off+n], nil
			}
		}
		return nil, fmt.Errorf("rva %#x in no section", rva)
	}
	ed, err := read(dir.VirtualAddress, 40)
	if err != nil || len(ed) < 40 {
		return nil, fmt.Errorf("export directory: %v", err)
	}
	count := binary.LittleEndian.Uint32(ed[24:])
	namesRVA := binary.LittleEndian.Uint32(ed[32:])
	if count > 4096 {
		return nil, fmt.Errorf("implausible export count %d", count)
	}
	ptrs, err := read(namesRVA, int(count)*4)
	if err != nil || len(ptrs) < int(count)*4 {
		return nil, fmt.Errorf("export name table: %v", err)
	}
	names := make([]string, 0, count)
	for i := range int(count) {
		b, err := read(binary.LittleEndian.Uint32(ptrs[i*4:]), 256)
		if err != nil {
			return nil, err
		}
		if j := bytes.IndexByte(b, 0); j >= 0 {
			b = b[:j]
		}
		names = append(names, string(b))
	}
	return names, nil
}
