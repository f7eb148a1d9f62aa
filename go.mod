module github.com/mjolnir-forge/forgesync

go 1.26.8

require (
	github.com/yuin/gopher-lua v1.1.2
	golang.org/x/sys v0.34.0
)
