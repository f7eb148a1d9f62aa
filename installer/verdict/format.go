package verdict

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/internal/text"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// Formats `forgesync scan --format` writes besides its text.
const (
	formatText   = "text"   // compiler-style lines and a summary per pack
	formatJSON   = "json"   // the reports as JSON
	formatGitHub = "github" // GitHub Actions workflow commands (::error file=…::…)
	formatSARIF  = "sarif"  // SARIF 2.1.0, for code-scanning dashboards
)

// Formats lists the values of --format.
var Formats = []string{formatText, formatJSON, formatGitHub, formatSARIF}

// write writes reports in format (one of Formats); toolVersion names the
// scanner in a SARIF log.
func write(w io.Writer, format string, reports []*Report, toolVersion string) error {
	switch format {
	case formatGitHub:
		return writeGitHub(w, reports)
	case formatSARIF:
		return writeSARIF(w, reports, toolVersion)
	case formatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if len(reports) == 1 {
			return enc.Encode(reports[0])
		}
		return enc.Encode(reports)
	case formatText:
		for _, r := range reports {
			if err := WriteText(w, r); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// WriteText writes a report for people: every problem compiler-style with
// its rule id in brackets,
// named the way the user can open its file (beside the folder they named,
// or inside the archive they named), a stray file of a folder with the
// .forgeignore line that keeps it (keepHint), then a line with the
// verdict. Names
// and messages are escaped (rejection.Escape): an archive's entry names
// cannot drive the terminal or forge a line.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	dir := r.isDir()
	for _, p := range r.Problems {
		p.Message += r.keepHint(p)
		rule := " [" + rejection.Escape(p.Rule) + "]"
		switch {
		case p.File == "":
			fmt.Fprintf(&b, "%s: %s%s\n", rejection.Escape(r.Source), p, rule)
		case dir:
			if p.Path == p.File {
				p.Path = ""
			}
			p.File = filepath.Join(r.Source, filepath.FromSlash(p.File))
			fmt.Fprintf(&b, "%s%s\n", p, rule)
		default:
			if p.Path == p.File {
				p.Path = ""
			}
			fmt.Fprintf(&b, "%s: %s%s\n", rejection.Escape(r.Source), p, rule)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "%s: note: %s\n", rejection.Escape(r.Source), rejection.Escape(n))
	}
	b.WriteString(r.verdictLine() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// isDir reports whether the report is of a folder.
func (r *Report) isDir() bool {
	info, err := os.Stat(r.Source)
	return err == nil && info.IsDir()
}

// keepHint is what a problem's words gain in a folder scan when the file
// is one of the author's own that packs may not carry (the SVG
// lift-preview drew), not one in the wrong place: the .forgeignore line
// that keeps it in the folder but out of the pack. The reason itself
// stays as an archive's scan gives it.
func (r *Report) keepHint(p rejection.Reason) string {
	if p.Rule != intake.RuleNotAllowed || p.File == "" || strings.Contains(p.Message, "belong") || !r.isDir() {
		return ""
	}
	return "; to keep it in this folder but out of the pack, add the line " + strconv.Quote("/"+p.File) + " to " + ignoreName
}

// verdictLine says the verdict in one line, escaped: "neon-halls 0.1.0:
// valid (2 pieces, 1 lift, 1 door, 0 surface packages)" or "…: invalid,
// 3 problems".
func (r *Report) verdictLine() string {
	name := strings.TrimSpace(r.Pack.ID + " " + r.Pack.Version)
	if name == "" {
		name = r.unnamed()
	}
	name = rejection.Escape(name)
	if r.Valid {
		m := r.Manifest
		return fmt.Sprintf("%s: valid (%s, %s, %s, %s)", name, text.Count(len(m.Pieces), "piece"),
			text.Count(m.Lifts(), "lift"), text.Count(m.Doors(), "door"), text.Count(len(m.RequiredPackages()), "surface package"))
	}
	return fmt.Sprintf("%s: invalid, %s", name, text.Count(len(r.Problems), "problem"))
}

// unnamed names a pack whose id could not be read: a folder whose
// manifest is at fault by the manifest's path (forgepack.json, not "."),
// else the folder or archive checked.
func (r *Report) unnamed() string {
	if !r.isDir() {
		return r.Source
	}
	for _, p := range r.Problems {
		if path.Base(p.File) == inventory.ManifestName {
			return filepath.FromSlash(r.manifestFile())
		}
	}
	return r.Source
}

// manifestFile is the pack's manifest as [Report.ProblemFile] names
// files: beside the folder scanned (below it when the pack's root is a
// folder inside), or the archive itself.
func (r *Report) manifestFile() string {
	name := inventory.ManifestName
	if rel, err := filepath.Rel(r.Source, r.Root); err == nil && rel != "." && filepath.IsLocal(rel) {
		name = filepath.ToSlash(rel) + "/" + name
	}
	return r.ProblemFile(rejection.Reason{File: name})
}

// ProblemFile returns the file a problem is in the way a user, or a CI
// system running in the repository, opens it: beside the folder that was
// scanned, or the archive itself when the problem is inside an archive.
// Slashes are forward on every OS.
func (r *Report) ProblemFile(p rejection.Reason) string {
	if info, err := os.Stat(r.Source); err == nil && info.IsDir() && p.File != "" {
		return filepath.ToSlash(filepath.Join(r.Source, filepath.FromSlash(p.File)))
	}
	return filepath.ToSlash(r.Source)
}

// writeGitHub writes one `::error` workflow command per problem, so a pack
// repository's GitHub Actions run marks each problem on its line, and one
// `::notice` on the manifest of each valid pack with its verdict, so a run
// that passes says what it checked. Control and bidi characters in names
// and messages are escaped (escapeLines), then GitHub's own escaping
// applies: a name cannot end the command's line and start a command of its
// own.
func writeGitHub(w io.Writer, reports []*Report) error {
	for _, r := range reports {
		if r.Valid {
			if _, err := fmt.Fprintf(w, "::notice file=%s,title=forgesync::%s\n", escapeProperty(escapeLines(r.manifestFile())), escapeData(r.verdictLine())); err != nil {
				return err
			}
			continue
		}
		for _, p := range r.Problems {
			p.Message += r.keepHint(p)
			props := []string{"file=" + escapeProperty(escapeLines(r.ProblemFile(p)))}
			if p.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", p.Line), fmt.Sprintf("col=%d", p.Column))
			}
			props = append(props, "title="+escapeProperty("forgesync "+p.Rule))
			if _, err := fmt.Fprintf(w, "::error %s::%s\n", strings.Join(props, ","), escapeData(escapeLines(detail(p)))); err != nil {
				return err
			}
		}
	}
	return nil
}

// detail is the problem without its file and position, which a tool shows
// in their own columns: "pieces[1].door.travel_m: must be > 0 and ≤ 16, got 17".
func detail(p rejection.Reason) string {
	msg := p.Message
	if p.Path != "" && p.Path != p.File {
		msg = p.Path + ": " + msg
	}
	if p.Value != "" {
		msg += ", got " + p.Value
	}
	return msg
}

// escapeLines escapes what rejection.Escape does, but for line feeds,
// which the formats that take several lines (GitHub's %0A, SARIF's JSON)
// carry safely themselves.
func escapeLines(s string) string {
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = rejection.Escape(p)
	}
	return strings.Join(parts, "\n")
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// The SARIF 2.1.0 log, as much of it as forgesync fills.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID               string        `json:"id"`
		ShortDescription sarifMessage  `json:"shortDescription"`
		Help             *sarifMessage `json:"help,omitempty"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
)

// sarifSchemaURL is the published schema a SARIF 2.1.0 log names.
const sarifSchemaURL = "https://json.schemastore.org/sarif-2.1.0.json"

// writeSARIF writes the reports as one SARIF 2.1.0 run of the tool
// forgesync at version toolVersion: a rule per distinct rule broken, with
// its short description and help (ruleDocs), a result per problem with its file and, for the manifest, line and column.
func writeSARIF(w io.Writer, reports []*Report, toolVersion string) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: "forgesync", Version: toolVersion,
			InformationURI: "https://github.com/mjolnir-forge/forgesync",
			Rules:          []sarifRule{},
		}},
		Results: []sarifResult{},
	}
	index := map[string]int{}
	for _, r := range reports {
		for _, p := range r.Problems {
			p.Message += r.keepHint(p)
			id := p.Rule
			i, seen := index[id]
			if !seen {
				i = len(run.Tool.Driver.Rules)
				index[id] = i
				doc := ruleDocOf(id)
				rule := sarifRule{ID: id, ShortDescription: sarifMessage{Text: rejection.Escape(doc.short)}}
				if doc.help != "" {
					rule.Help = &sarifMessage{Text: rejection.Escape(doc.help)}
				}
				run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rule)
			}
			loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: (&url.URL{Path: r.ProblemFile(p)}).String()}}
			if p.Line > 0 {
				loc.Region = &sarifRegion{StartLine: p.Line, StartColumn: p.Column}
			}
			run.Results = append(run.Results, sarifResult{
				RuleID: id, RuleIndex: i, Level: "error", Message: sarifMessage{Text: escapeLines(detail(p))},
				Locations: []sarifLocation{{PhysicalLocation: loc}},
			})
		}
	}
	slices.SortStableFunc(run.Results, func(a, b sarifResult) int {
		return strings.Compare(a.Locations[0].PhysicalLocation.ArtifactLocation.URI, b.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	})
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: sarifSchemaURL, Version: "2.1.0", Runs: []sarifRun{run}})
}
