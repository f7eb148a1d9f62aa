module github.com/mjolnir-forge/forgesync

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	golang.org/x/sys v0.34.0 // indirect
)
