module github.com/mjolnir-forge/forgesync

go 1.26.8

require (
	github.com/go-faster/city v1.0.1
	golang.org/x/sys v0.34.0
)
