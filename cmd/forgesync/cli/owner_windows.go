package cli

// windowsOnly names the global flags that mean something on this OS only;
// on Windows every flag does.
var windowsOnly = map[string]bool{}
