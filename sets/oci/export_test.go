package oci

// ErrNotASet is errNotASet, for the external tests.
var ErrNotASet = errNotASet

// ErrRateLimited is errRateLimited, for the external tests.
var ErrRateLimited = errRateLimited

// ErrUnauthorized is errUnauthorized, for the external tests.
var ErrUnauthorized = errUnauthorized
