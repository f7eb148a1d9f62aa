package native

import (
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// pow10Row matches one row of fd_pow10_128 in the header:
// {0xHI..u, 0xLO..u, exp2}, /* 1eQ */
var pow10Row = regexp.MustCompile(`\{0x([0-9A-F]{16})u, 0x([0-9A-F]{16})u, (-?[0-9]+)\},? +/\* 1e(-?[0-9]+) \*/`)

// TestPow10TableExact recomputes every row of the decimal reader's 128-bit
// power-of-ten table with math/big: the mantissa of 10^q rounded down to
// 128 bits with its top bit set, and exp2 such that
// 10^q = mantissa / 2^128 * 2^exp2. A wrong row would make the
// Eisel-Lemire path round some numbers wrongly.
func TestPow10TableExact(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("lobby", "forge_doors_runtime.h"))
	if err != nil {
		t.Fatal(err)
	}
	rows := pow10Row.FindAllStringSubmatch(string(src), -1)
	if len(rows) != 81 {
		t.Fatalf("forge_doors_runtime.h: found %d fd_pow10_128 rows; want 81 (1e-40 to 1e40)", len(rows))
	}
	for i, r := range rows {
		q, _ := strconv.Atoi(r[4])
		if q != i-40 {
			t.Fatalf("fd_pow10_128 row %d is 1e%d; want 1e%d (rows in order from 1e-40)", i, q, i-40)
		}
		exp2, _ := strconv.Atoi(r[3])
		// want = floor(10^q * 2^(128-exp2)), which must have exactly 128 bits
		num := big.NewInt(1)
		den := big.NewInt(1)
		ten := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(absInt(q))), nil)
		if q >= 0 {
			num.Mul(num, ten)
		} else {
			den.Mul(den, ten)
		}
		if s := 128 - exp2; s >= 0 {
			num.Lsh(num, uint(s))
		} else {
			den.Lsh(den, uint(-s))
		}
		want := new(big.Int).Quo(num, den)
		if want.BitLen() != 128 {
			t.Errorf("fd_pow10_128 1e%d: exp2 %d gives a %d-bit mantissa; want 128 bits", q, exp2, want.BitLen())
			continue
		}
		got, _ := new(big.Int).SetString(r[1]+r[2], 16)
		if got.Cmp(want) != 0 {
			t.Errorf("fd_pow10_128 1e%d = 0x%s%s; want 0x%032X", q, r[1], r[2], want)
		}
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
