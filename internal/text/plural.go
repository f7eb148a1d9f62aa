package text

import "strconv"

// Count returns n and the noun one, made plural by adding "s" unless n is
// 1: Count(1, "lift") is "1 lift", Count(2, "lift") "2 lifts".
func Count(n int, one string) string {
	return Of(n, one, one+"s")
}

// Of returns n and one when n is 1, else n and many, for nouns whose
// plural is not one+"s".
func Of(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Count64 is Count for an int64 (a byte count).
func Count64(n int64, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + one + "s"
}
