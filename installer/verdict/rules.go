package verdict

import (
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/inventory"
)

// ruleDoc is what a SARIF log says of a rule: a short description of what
// it checks and help, what to do about a problem it finds.
type ruleDoc struct{ short, help string }

// ruleDocs describes every rule a rejection.Reason can name (the
// vocabulary of inventory/rejection's testdata/rule-ids.txt): the file
// rules, whose short words are intake's own ([intake.RuleText]), the
// manifest and install rules, this package's, and the pipeline's, which
// this package may not import and names by value.
var ruleDocs = map[string]ruleDoc{
	intake.RuleNotArchive:       {help: "Give forgesync a pack archive (zip, 7z, tar, tar.gz, tar.xz, tar.zst or rar), judged by its content, not its name; `forgesync pack DIR` writes one."},
	intake.RuleCorrupt:          {help: "The archive cannot be read to its end: download or build it again (`forgesync pack DIR`) and compare its size with the source's."},
	intake.RuleEncrypted:        {help: "Packs install unattended and cannot carry a password: build the archive without encryption."},
	intake.RuleDecoderMemory:    {help: "The archive asks for a larger decoder dictionary than unpacking allows: compress it with a smaller one (7z -md=64m), or make a zip with `forgesync pack`."},
	intake.RuleMethod:           {help: "Use zip's Store or Deflate, or 7z's LZMA or LZMA2; `forgesync pack` writes a zip every forgesync reads."},
	intake.RuleSparse:           {help: "Build the archive from regular files: a sparse file, or tar --sparse, stores entries with holes."},
	intake.RuleUnpackerCrashed:  {help: "The archive made the isolated unpacker fail: build it again with `forgesync pack`, and report it if a fresh archive does the same."},
	intake.RuleUnpackMemory:     {help: "Unpacking needed more memory than its limit: compress with a smaller dictionary, or make a zip with `forgesync pack`."},
	intake.RuleUnpackTime:       {help: "Unpacking took longer than its budget: a smaller or less compressed archive (`forgesync pack`) unpacks in time."},
	intake.RuleUnpackerOutput:   {help: "The unpacker's output failed the checks: build the archive again with `forgesync pack`."},
	intake.RuleEmptyName:        {help: "Every entry needs a name: build the archive from a folder with `forgesync pack`."},
	intake.RuleInvalidUTF8:      {help: "Name files in UTF-8: rename the file and build again (old zip tools may write a legacy code page)."},
	intake.RulePathTooLong:      {help: "Shorten the folder and file names: a path must fit SPEC §2's limit, which keeps it installable on Windows."},
	intake.RuleTooDeep:          {help: "Flatten the folders: a pack nests at most as deep as SPEC §2 allows."},
	intake.RuleBackslash:        {help: "Separate folders with /: old Windows tools store \\, which other systems read as part of a name. `forgesync pack` writes /."},
	intake.RuleControlChar:      {help: "Rename the file without control characters."},
	intake.RuleAbsolute:         {help: "Entries are relative to the pack's root: build the archive from inside the folder (`forgesync pack DIR`)."},
	intake.RuleDriveLetter:      {help: "Entries are relative to the pack's root, never on a drive: build the archive with `forgesync pack DIR`."},
	intake.RuleWindowsChar:      {help: "Rename the file without < > : \" | ? *, which Windows cannot store in a name."},
	intake.RuleEmptyComponent:   {help: "Remove the empty folder name (// in the path)."},
	intake.RuleDotComponent:     {help: "Remove the \".\" folder from the path."},
	intake.RuleDotDot:           {help: "An entry may not climb out of the pack: remove the \"..\" from the path."},
	intake.RuleReserved:         {help: "Rename it: CON, PRN, AUX, NUL, COM1-9 and LPT1-9, with any extension, cannot be files on Windows."},
	intake.RuleTrailingDotSpace: {help: "Rename it without the final dot or space, which Windows drops."},
	intake.RuleShortName:        {help: "Rename it: a NAME~1.EXT name can stand for another file on Windows."},
	intake.RuleDuplicate:        {help: "Two entries differ only in case or Unicode form, which Windows and macOS see as one file: rename one."},
	intake.RuleFileDirClash:     {help: "Rename the file or the folder: one name cannot be both."},
	intake.RuleSymlink:          {help: "Put the file the link points to in its place."},
	intake.RuleHardLink:         {help: "Store the file's bytes, not a hard link (tar --hard-dereference)."},
	intake.RuleDevice:           {help: "A pack holds regular files only: remove the device file."},
	intake.RuleFIFO:             {help: "A pack holds regular files only: remove the named pipe."},
	intake.RuleSocket:           {help: "A pack holds regular files only: remove the socket."},
	intake.RuleEntryType:        {help: "A pack holds regular files and folders only: remove the entry."},
	intake.RuleNotAllowed:       {help: "A pack holds forgepack.json, containers under content/ (.utoc with .ucas, .pak, .sig) and README, LICENSE, CHANGELOG or preview files at its root. Remove the file; in a pack folder, name it in .forgeignore to keep it there but out of the pack."},
	intake.RuleMissingManifest:  {help: "Put forgepack.json at the pack's root; `forgesync init` writes one."},
	intake.RuleTopFolders:       {help: "Put everything at the archive's root or under one folder: the pack's root is one or the other."},
	intake.RuleMissingUcas:      {help: "Ship each .utoc with the .ucas of the same name beside it under content/."},
	intake.RuleMissingUtoc:      {help: "Ship each .ucas with the .utoc of the same name beside it under content/."},
	intake.RuleTooManyEntries:   {help: "Pack fewer files (merge containers) or split the pack: SPEC §2 bounds the entries of one pack."},
	intake.RuleTotalTooLarge:    {help: "The pack is larger unpacked than SPEC §2 allows: split it into several packs."},
	intake.RuleEntryTooLarge:    {help: "Split the container into smaller ones: SPEC §2 bounds the size of one entry."},
	intake.RuleRatio:            {help: "An entry expands far more than real data does: store compressed containers (.pak, .ucas) as they are, as `forgesync pack` does."},

	inventory.RuleSyntax:       {"forgepack.json is not valid JSON", "Fix the JSON at the line and column given; an editor reading the manifest's $schema shows such mistakes as you type."},
	inventory.RuleEncoding:     {"forgepack.json is not UTF-8 without a byte order mark", "Save forgepack.json as UTF-8 without a BOM."},
	inventory.RuleTooLarge:     {"forgepack.json is larger than 1 MiB", "Keep the manifest under 1 MiB: it lists pieces; the content is in content/."},
	inventory.RuleDepth:        {"objects and lists nest too deep", "Nest at most 16 levels: nothing in SPEC §3 needs more."},
	inventory.RuleTrailingData: {"bytes follow the JSON value", "Remove what follows the manifest's closing brace: the file holds one JSON object."},
	inventory.RuleOverflow:     {"a number too large for a float64", "Write the number within the field's bounds (the JSON Schema names them)."},
	inventory.RuleDuplicateKey: {"a key given twice in one object", "Keep one of the two: JSON readers disagree on which one wins."},
	inventory.RuleUnknownKey:   {"a key the manifest schema does not have", "Correct the key (the message suggests the nearest allowed one) or remove it."},
	inventory.RuleRequired:     {"a required key is missing", "Add the key; an editor reading the manifest's $schema completes it."},
	inventory.RuleType:         {"a value of the wrong JSON type", "Write the value as the type the message names (a number, a string, a list, an object, true or false)."},
	inventory.RuleInteger:      {"a number that must be a plain integer", "Write the number without a fraction or an exponent: 3, not 3.0 or 3e0."},
	inventory.RuleRange:        {"a number outside its range", "Bring the value within the bounds the message gives (SPEC §3)."},
	inventory.RuleLength:       {"a string or a list of the wrong length", "Shorten or lengthen the value to the bounds the message gives."},
	inventory.RuleFormat:       {"a string that does not match its pattern", "Write the value in the form the message names."},
	inventory.RuleNamespace:    {"a tag or class outside the pack's namespace", `Start each tag with mjolnir\forge\<pack-id>\ and each class with /Game/MJOLNIR/Forge/<pack-id>/, so that two packs never claim one name.`},
	inventory.RuleUnique:       {"a value that must be unique is repeated", "Give each piece its own id, tag and class, and each surface of a piece its own slot."},
	inventory.RuleKind:         {"a utility on the wrong kind of piece", "A lift goes on a block, a door on a panel: change the piece's kind or move the utility."},
	inventory.RuleUnitVector:   {"a lift direction that is not of length 1", "Divide the direction by its length: the message shows the normalised vector to write instead."},
	inventory.RuleSchema:       {"an unsupported manifest schema version", `Write "schema": 1, the only version this forgesync reads.`},
	inventory.RuleProfile:      {"an unknown surface profile", `Use "glass_cyan" or "teleporter_green", the profiles of SPEC §3.3.`},

	RuleMissingPackage: {"a surface profile's cooked package is absent", `Cook the package the message names into a .utoc/.ucas pair under content/ ("Chasing a missing surface package" in the README shows how to find it).`},
	RuleBadTOC:         {"a container's table of contents cannot be read", "Cook and package the container again; `forgesync utoc FILE` shows what forgesync reads of it."},

	inventory.RuleSameVersion: {"this version is installed from other bytes", "Raise the version of a changed pack; on a machine, `forgesync install --force` replaces the installed copy."},
	inventory.RuleDowngrade:   {"the version is older than the installed one", "Install a newer version, or go back on purpose with `forgesync install --force`."},
	inventory.RuleTagClash:    {"another installed pack owns the tag", "Name the tag under your pack's own id, or remove the pack that owns it (`forgesync remove ID`)."},
	inventory.RuleClassClash:  {"another installed pack owns the class", "Name the class under your pack's own id, or remove the pack that owns it (`forgesync remove ID`)."},
	inventory.RuleDoorLimit:   {"the enabled packs would pass 256 doors", "Disable a pack with doors (`forgesync disable ID`), or use fewer doors."},

	// The pipeline's: the machine's condition, waited on and retried.
	"held":              {"a file is held open by another program", "forgesync waits and retries: close the program that holds the file (often the game)."},
	"read-only":         {"a folder forgesync writes is read-only", "Make the folder writable; forgesync retries."},
	"disk-full":         {"the disk is full", "Free space on the disk; forgesync retries."},
	"in-the-way":        {"a file or link forgesync did not place is where the pack puts its content", "Move what the message names out of the pack's way; forgesync retries."},
	"fault":             {"the machine failed an operation", "forgesync retries; the message says what failed."},
	"unreadable":        {"the archive could not be read", "Check that the file is complete and readable, then drop it again."},
	"install-failed":    {"the pack could not be installed", "The message says why; `forgesync retry NAME` tries again."},
	"failed-repeatedly": {"the archive failed several times in a row", "Fix what the earlier failures say, then `forgesync retry NAME`."},
}

// ruleDocOf returns the description and help of the rule id; an id it
// does not know is described by its own name, with no help.
func ruleDocOf(id string) ruleDoc {
	d := ruleDocs[id]
	if d.short == "" {
		d.short = intake.RuleText(id)
	}
	return d
}
