package iostore

import "fmt"

// Layout is the chunk-type numbering a TOC uses: UE 4.27 and UE5 number
// the same kinds of chunk differently.
type Layout uint8

// The chunk-type layouts.
const (
	LayoutUE4 Layout = iota + 1 // UE 4.27 (EIoChunkType up to ContainerHeader = 10)
	LayoutUE5                   // UE 5.x (ExportBundleData = 1, ContainerHeader = 6)
)

// Raw type numbers of the container header chunk, which decides the layout.
const (
	ue4ContainerHeader = 10
	ue5ContainerHeader = 6
)

// String returns "UE4.27" or "UE5".
func (l Layout) String() string {
	switch l {
	case LayoutUE4:
		return "UE4.27"
	case LayoutUE5:
		return "UE5"
	}
	return fmt.Sprintf("Layout(%d)", uint8(l))
}

// MarshalText renders l as [Layout.String] does.
func (l Layout) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// Kind is what a chunk holds, independent of either engine's numbering.
type Kind uint8

// The chunk kinds either engine names. KindUnknown is a type number the
// TOC's layout does not name (including 0, Invalid).
const (
	kindUnknown Kind = iota
	KindExportBundleData
	KindBulkData
	kindOptionalBulkData
	KindMemoryMappedBulkData
	KindContainerHeader
	// UE 4.27 only.
	kindInstallManifest
	kindLoaderGlobalMeta
	kindLoaderInitialLoadMeta
	kindLoaderGlobalNames
	kindLoaderGlobalNameHashes
	// UE5 only.
	KindScriptObjects
	kindExternalFile
	kindShaderCodeLibrary
	kindShaderCode
	kindPackageStoreEntry
	kindDerivedData
	kindEditorDerivedData
	kindPackageResource
)

var kindNames = [...]string{
	kindUnknown:                "Unknown",
	KindExportBundleData:       "ExportBundleData",
	KindBulkData:               "BulkData",
	kindOptionalBulkData:       "OptionalBulkData",
	KindMemoryMappedBulkData:   "MemoryMappedBulkData",
	KindContainerHeader:        "ContainerHeader",
	kindInstallManifest:        "InstallManifest",
	kindLoaderGlobalMeta:       "LoaderGlobalMeta",
	kindLoaderInitialLoadMeta:  "LoaderInitialLoadMeta",
	kindLoaderGlobalNames:      "LoaderGlobalNames",
	kindLoaderGlobalNameHashes: "LoaderGlobalNameHashes",
	KindScriptObjects:          "ScriptObjects",
	kindExternalFile:           "ExternalFile",
	kindShaderCodeLibrary:      "ShaderCodeLibrary",
	kindShaderCode:             "ShaderCode",
	kindPackageStoreEntry:      "PackageStoreEntry",
	kindDerivedData:            "DerivedData",
	kindEditorDerivedData:      "EditorDerivedData",
	kindPackageResource:        "PackageResource",
}

// String returns the engine's name for k, such as "ExportBundleData".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// MarshalText renders k as [Kind.String] does.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// ue4Kinds is UE 4.27's EIoChunkType, indexed by raw type.
var ue4Kinds = [...]Kind{
	1:                  kindInstallManifest,
	2:                  KindExportBundleData,
	3:                  KindBulkData,
	4:                  kindOptionalBulkData,
	5:                  KindMemoryMappedBulkData,
	6:                  kindLoaderGlobalMeta,
	7:                  kindLoaderInitialLoadMeta,
	8:                  kindLoaderGlobalNames,
	9:                  kindLoaderGlobalNameHashes,
	ue4ContainerHeader: KindContainerHeader,
}

// ue5Kinds is UE5's EIoChunkType, indexed by raw type.
var ue5Kinds = [...]Kind{
	1:                  KindExportBundleData,
	2:                  KindBulkData,
	3:                  kindOptionalBulkData,
	4:                  KindMemoryMappedBulkData,
	5:                  KindScriptObjects,
	ue5ContainerHeader: KindContainerHeader,
	7:                  kindExternalFile,
	8:                  kindShaderCodeLibrary,
	9:                  kindShaderCode,
	10:                 kindPackageStoreEntry,
	11:                 kindDerivedData,
	12:                 kindEditorDerivedData,
	13:                 kindPackageResource,
}

func (l Layout) table() []Kind {
	if l == LayoutUE4 {
		return ue4Kinds[:]
	}
	return ue5Kinds[:]
}

// KindOf returns what raw chunk type t means under l.
func (l Layout) KindOf(t uint8) Kind {
	tab := l.table()
	if int(t) < len(tab) {
		return tab[t]
	}
	return kindUnknown
}

// TypeOf returns the raw chunk type number of k under l, and false when l
// has no such kind.
func (l Layout) TypeOf(k Kind) (uint8, bool) {
	if k == kindUnknown {
		return 0, false
	}
	for t, kk := range l.table() {
		if kk == k {
			return uint8(t), true
		}
	}
	return 0, false
}
