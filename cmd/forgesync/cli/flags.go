package cli

// OptionalValue is a flag that may stand alone (`--set`) or carry a value
// (`--set=URL`). A value after it as the next argument (`--set URL`) is
// parsed as a positional argument, for the command to take with
// [OptionalValue.With].
type OptionalValue struct {
	Given bool   // the flag was given
	value string // its value after "=", if any
}

// String returns the flag's value.
func (v *OptionalValue) String() string { return v.value }

// IsBoolFlag reports that the flag may stand alone.
func (v *OptionalValue) IsBoolFlag() bool { return true }

// Set records the flag, with its value unless it stands alone (the flag
// package then sets "true").
func (v *OptionalValue) Set(s string) error {
	v.Given = true
	if s != "true" {
		v.value = s
	}
	return nil
}

// With returns the flag's value followed by the positional arguments
// args, or args alone when the flag carries no value.
func (v *OptionalValue) With(args []string) []string {
	if v.value != "" {
		return append([]string{v.value}, args...)
	}
	return args
}
