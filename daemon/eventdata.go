package daemon

import "github.com/mjolnir-forge/forgesync/rejection"

// The data of each event type, as the pipeline publishes them and clients
// (forgesync status --watch) decode them. Publish takes any value; these
// fix the wire shape so both ends agree.

// ArchiveSeenData is the data of [EventArchiveSeen]: an archive in drop
// was claimed for processing.
type ArchiveSeenData struct {
	Archive string `json:"archive"` // file name in drop
	Size    int64  `json:"size"`    // bytes
}

// ProgressData is the data of [EventProgress]: how far one archive's step
// is. Total is 0 when it is not known.
type ProgressData struct {
	Archive string `json:"archive"`
	Step    string `json:"step"` // e.g. "extract", "validate", "place"
	Done    int64  `json:"done"`
	Total   int64  `json:"total"`
}

// PackInstalledData is the data of [EventPackInstalled].
type PackInstalledData struct {
	Archive string `json:"archive"`
	Pack    string `json:"pack"`
	Version string `json:"version"`
	// Previous is the version it replaced, empty for a new pack.
	Previous string `json:"previous,omitempty"`
}

// PackRejectedData is the data of [EventPackRejected].
type PackRejectedData struct {
	Archive string             `json:"archive"`
	Reasons []rejection.Reason `json:"reasons"`
}

// InventoryPublishedData is the data of [EventInventoryPublished].
type InventoryPublishedData struct {
	Files []string `json:"files"` // the files rewritten, in publication order
	Packs int      `json:"packs"` // enabled packs in the published set
}

// ModuleDeployedData is the data of [EventModuleDeployed].
type ModuleDeployedData struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	// Pending is true when the file was locked (a running game) and is
	// staged beside it until the lock goes.
	Pending bool `json:"pending,omitempty"`
}

// WarningData is the data of [EventWarning].
type WarningData struct {
	Message string `json:"message"`
}
