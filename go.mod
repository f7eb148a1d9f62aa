module github.com/mjolnir-forge/forgesync

go 1.26.8

require golang.org/x/sys v0.34.0 // indirect
