/* holder PATH READY RELEASE TIMEOUT_MS: plays a game (or a virus scanner)
 * holding PATH open with share mode 0 (no reading, writing or deleting by
 * anyone else). It creates READY once it holds the file, then lets go when
 * RELEASE exists or TIMEOUT_MS has passed. Test-only, for
 * scripts/wine-e2e.sh. */
#include <windows.h>
#include <stdio.h>
#include <wchar.h>

static int exists(const wchar_t *p) { return GetFileAttributesW(p) != INVALID_FILE_ATTRIBUTES; }

int wmain(int argc, wchar_t **argv) {
	if (argc != 5) {
		fwprintf(stderr, L"usage: holder PATH READY RELEASE TIMEOUT_MS\n");
		return 2;
	}
	HANDLE h = CreateFileW(argv[1], GENERIC_READ, 0 /* share mode 0 */, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		fwprintf(stderr, L"holder: open %ls: error %lu\n", argv[1], GetLastError());
		return 1;
	}
	HANDLE r = CreateFileW(argv[2], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	if (r != INVALID_HANDLE_VALUE)
		CloseHandle(r);
	DWORD timeout = (DWORD)_wtoi(argv[4]);
	DWORD start = GetTickCount();
	while (!exists(argv[3]) && GetTickCount() - start < timeout)
		Sleep(20);
	CloseHandle(h);
	return 0;
}
