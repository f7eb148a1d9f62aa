//go:build !windows && !darwin

package samepath

// foldCase: Linux file systems compare names byte for byte; a case-folding
// volume is caught by the os.SameFile checks.
var foldCase = false
