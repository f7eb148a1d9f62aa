// Package schema owns the JSON Schema (draft 2020-12) of forgepack.json,
// SPEC §3, which editors use to complete and explain a manifest's fields.
// The schema describes what `forgesync scan` accepts; the rules that span
// fields (namespaces, uniqueness, a unit direction) stay with the
// inventory decoder, and the agreement test lists them.
package schema

import _ "embed"

// ManifestURL is the schema's $id: the address a manifest names in its
// "$schema" key.
const ManifestURL = "https://raw.githubusercontent.com/mjolnir-forge/forgesync/main/schema/forgepack.schema.json"

// Manifest is the text of forgepack.schema.json.
//
//go:embed forgepack.schema.json
var Manifest []byte
