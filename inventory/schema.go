package inventory

import _ "embed"

// JSONSchemaURL is the $id of forgepack.schema.json, the address a
// manifest names in its "$schema" key (`forgesync init` writes it). It
// names the copy published at schema/forgepack.schema.json of the
// repository; TestPublishedSchema keeps that copy equal to JSONSchema.
const JSONSchemaURL = "https://raw.githubusercontent.com/mjolnir-forge/forgesync/main/schema/forgepack.schema.json"

// JSONSchema is the text of forgepack.schema.json: the JSON Schema (draft
// 2020-12) of a manifest, SPEC §3, which editors use to complete and
// explain its fields. It describes what Decode accepts; the rules that
// span fields (namespaces, uniqueness, a unit direction) are Decode's
// alone, and TestAgreement lists them.
//
//go:embed forgepack.schema.json
var JSONSchema []byte
