/* Test-only stand-in for bcryptprimitives.dll, which Windows 10 and later
 * ship and wine 8 lacks: Go 1.22 and later get their random bytes from its
 * ProcessPrng. It forwards to RtlGenRandom (SystemFunction036 in
 * advapi32). scripts/wine-e2e.sh builds it into its throw-away WINEPREFIX;
 * it is never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
