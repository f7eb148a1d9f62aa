package daemon

// Probe is probe, for the external tests.
var Probe = probe
