package view

import (
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/text"
)

// WriteProfiles writes the profiles kept on the machine as a table: own
// first, the current one marked, each with its packs, when it was last
// used, the disk it holds (only its own, and in all) and the packs whose
// archives are not kept.
func WriteProfiles(w io.Writer, pl *api.Profiles) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	printf(tw, "PROFILE\tSOURCE\tPACKS\tLAST USED\tONLY ITS OWN\tIN ALL\tFINGERPRINT\n")
	for _, p := range pl.Profiles {
		name := p.Name
		if p.Current {
			name += " (current)"
		}
		enabled := 0
		for _, gp := range p.Packs {
			if gp.Enabled {
				enabled++
			}
		}
		used := "-"
		if !p.LastUsed.IsZero() {
			used = p.LastUsed.Local().Format("2006-01-02 15:04")
		}
		printf(tw, "%s\t%s\t%d, %d enabled\t%s\t%s\t%s\t%s\n", name, p.Source, len(p.Packs), enabled, used, byteSize(p.OwnBytes), byteSize(p.Bytes), p.Fingerprint)
	}
	tw.Flush()
	for _, p := range pl.Profiles {
		if len(p.Missing) == 0 {
			continue
		}
		var names []string
		for _, m := range p.Missing {
			names = append(names, m.ID+" "+m.Version)
		}
		printf(&b, "profile %s: %s not kept on this machine (%s); a switch to it is refused until it is staged again\n",
			p.Name, text.Count(len(p.Missing), "archive"), strings.Join(names, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSwitch writes what a profile switch did: the profiles from and to
// and the generation it recorded, or that there was nothing to do; then
// what changed and its summary.
func WriteSwitch(w io.Writer, sum *api.Summary) error {
	if sw := sum.Switched; sw != nil {
		if sum.Generation == 0 {
			printf(w, "profile %s is current; the installed packs already were its own\n", sw.To)
		} else {
			printf(w, "switched from profile %s to %s: now generation %d\n", sw.From, sw.To, sum.Generation)
		}
	}
	if r := sum.Set; r != nil {
		var b strings.Builder
		writeChanges(&b, r, "  ", false)
		io.WriteString(w, b.String())
	}
	return WriteSummary(w, sum)
}
