// Package view owns the plain-text views the forgesync command prints for
// people of the daemon's answers and events (api's wire shapes): status,
// summaries, packs, history, set syncs, and the event stream with its
// progress bar; and the advice it prints as command lines to paste into
// the user's shells (keygen's). Every value from elsewhere goes through
// printf or sprintf, which escape it: names come from archives, messages
// from servers, and neither may drive a terminal or start a line of its
// own. The sentences of the domain (a rejection reason, a difference from
// a set) are the domain's: a wire value is said by turning it back into
// its domain value.
package view

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mjolnir-forge/forgesync/api"
	"github.com/mjolnir-forge/forgesync/internal/text"
	"github.com/mjolnir-forge/forgesync/inventory"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
	"github.com/mjolnir-forge/forgesync/sets/lock"
)

// printf is fmt.Fprintf with each argument escaped (see escapeArgs): the
// format holds the writer's own text and lines.
func printf(w io.Writer, format string, args ...any) (int, error) {
	return fmt.Fprintf(w, format, escapeArgs(args)...)
}

// sprintf is fmt.Sprintf with each argument escaped.
func sprintf(format string, args ...any) string {
	return fmt.Sprintf(format, escapeArgs(args)...)
}

// escapeArgs passes every argument that is text (a string or a type of
// string, a byte slice, an error, a fmt.Stringer) through
// text.Escape; numbers and the like are left as they are.
func escapeArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = text.Escape(v)
		case []byte:
			out[i] = text.Escape(string(v))
		case error:
			out[i] = text.Escape(v.Error())
		case fmt.Stringer:
			out[i] = text.Escape(v.String())
		default:
			switch rv := reflect.ValueOf(a); {
			case rv.Kind() == reflect.String:
				out[i] = text.Escape(rv.String())
			case rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8:
				out[i] = text.Escape(string(rv.Bytes()))
			default:
				out[i] = a
			}
		}
	}
	return out
}

// WriteStatus writes the daemon's status and the rejected archives.
func WriteStatus(w io.Writer, st api.Status, rejected []api.Rejection) error {
	var b strings.Builder
	printf(&b, "forgesync %s (pid %d): %s, up %s\n", st.Version, st.PID, st.State, seconds(st.UptimeSeconds))
	if st.Commit != "" || st.BuildDate != "" {
		printf(&b, "commit %s, built %s\n", cmp.Or(st.Commit, "unknown"), cmp.Or(st.BuildDate, "unknown"))
	}
	writeStatusBody(&b, st, rejected)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeStatusBody writes to b what status says of the installed set, a
// running daemon's or the state on disk: the last sync, the counts, the
// generation, the set, the gates and door automation, the warnings and
// the rejected archives with their reasons.
func writeStatusBody(b *strings.Builder, st api.Status, rejected []api.Rejection) {
	if ls := st.LastSync; ls != nil {
		at := ls.Time.Local().Format("2006-01-02 15:04:05")
		if counts := resultCounts(ls.Results); len(counts) > 0 && ls.Error == "" {
			printf(b, "last sync: %s, %s (%s)\n", at, strings.Join(counts, ", "), seconds(ls.DurationSeconds))
		} else {
			printf(b, "last sync: %s, %s in %s\n", at, ls.Result, seconds(ls.DurationSeconds))
		}
		if ls.Error != "" && ls.Result == api.SyncWaiting {
			printf(b, "  waiting: %s\n", ls.Error)
		} else if ls.Error != "" {
			printf(b, "  error: %s\n", ls.Error)
		}
	}
	c := st.Counts
	printf(b, "packs: %d installed, %d enabled; %s, %s; %d of %d doors in enabled packs; %s\n",
		c.Packs, c.Enabled, text.Count(c.Pieces, "piece"), text.Count(c.Lifts, "lift"),
		c.EnabledDoors, inventory.MaxDoorsInstalled, text.Count(c.Rejected, "rejected archive"))
	if len(st.Queue) > 0 {
		printf(b, "queue: %s\n", strings.Join(st.Queue, ", "))
	}
	if st.Generation > 0 {
		printf(b, "generation %d; kept archives take %s (forgesync history)\n", st.Generation, byteSize(st.KeptArchiveBytes))
	}
	if st.Profile != "" {
		printf(b, "profile: %s (forgesync profile list)\n", st.Profile)
	}
	writeSetStatus(b, st.Set)
	if m := st.Modules; m != nil {
		for _, mv := range m.Gates.Mods {
			printf(b, "%-20s %-10s %s (needs %s)\n", mv.Mod, cmp.Or(mv.Version, "-"), mv.State, mv.Minimum)
		}
		// Door automation needs the gates and the module in place: the
		// deploy's result, not the gates alone.
		doors := canWork(m.DoorAutomation)
		if m.DoorAutomationOff != "" {
			doors += " (" + m.DoorAutomationOff + ")"
		}
		printf(b, "door automation: %s; pack lifts: %s; native module builds: %s\n",
			doors, canWork(m.Gates.PackLifts), strings.Join(m.SupportedBuilds, ", "))
	}
	for _, w := range st.Warnings {
		printf(b, "warning: %s\n", w)
	}
	if st.Priority != "" {
		printf(b, "install priority: %s\n", st.Priority)
	}
	if st.LogFile != "" {
		printf(b, "log: %s\n", st.LogFile)
	}
	if len(rejected) > 0 {
		b.WriteString("\nrejected archives (in drop/rejected/):\n")
		for _, r := range rejected {
			printf(b, "  %s  (%s)\n", r.Archive, r.Time.Local().Format("2006-01-02 15:04"))
			for _, reason := range r.Reasons {
				printf(b, "    - %s\n", reasonLine(reason))
			}
		}
	}
}

func canWork(b bool) string {
	if b {
		return "can work"
	}
	return "off"
}

func seconds(s float64) string {
	switch {
	case s < 1:
		return sprintf("%.0f ms", s*1000)
	case s < 120:
		return sprintf("%.1f s", s)
	case s < 7200:
		return sprintf("%.0f min", s/60)
	}
	return sprintf("%.1f h", s/3600)
}

// WriteSummary writes what a transaction did, a line per archive.
func WriteSummary(w io.Writer, sum *api.Summary) error {
	var b strings.Builder
	for _, o := range sum.Outcomes {
		pack := strings.TrimSpace(o.Pack + " " + o.Version)
		switch o.Result {
		case api.ResultRejected:
			printf(&b, "%s: rejected\n", o.Archive)
			for _, r := range o.Reasons {
				printf(&b, "  - %s\n", reasonLine(r))
			}
		case api.ResultWaiting:
			printf(&b, "%s: waiting\n", o.Archive)
			for _, r := range o.Reasons {
				printf(&b, "  - %s\n", r.Message)
			}
		case api.ResultUpgraded, api.ResultDowngraded, api.ResultReinstalled:
			printf(&b, "%s: %s %s (was %s)\n", o.Archive, o.Result, pack, o.Previous)
		case api.ResultKept:
			printf(&b, "%s: kept for profile own: %s (installed when own is current: `forgesync profile switch own`)\n", o.Archive, pack)
		default:
			printf(&b, "%s: %s %s\n", o.Archive, o.Result, pack)
		}
	}
	for _, w := range sum.Warnings {
		printf(&b, "warning: %s\n", w)
	}
	writePending(&b, sum.Pending)
	if len(sum.Published) > 0 {
		printf(&b, "published %s\n", strings.Join(sum.Published, ", "))
	} else if len(sum.Outcomes) == 0 && len(sum.Pending) == 0 {
		b.WriteString("nothing to do; the inventory is up to date\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writePending writes what waits for the machine's condition besides
// archives, one line each.
func writePending(b *strings.Builder, pending []api.Reason) {
	for _, r := range pending {
		printf(b, "waiting: %s\n", r.Message)
	}
}

// WriteRollback writes what a rollback did: the generation it went back to
// and the one it recorded, and what changed, or that there was nothing to
// do; then its summary.
func WriteRollback(w io.Writer, sum *api.Summary) error {
	switch {
	case sum.Generation == 0 && sum.RolledBackTo > 0 && len(sum.Outcomes) == 0 && len(sum.Published) == 0:
		_, err := printf(w, "nothing to do: the installed packs are already those of generation %d\n", sum.RolledBackTo)
		return err
	case sum.Generation == 0:
		io.WriteString(w, "nothing to do: the installed set is already that generation's\n")
	case sum.RolledBackTo > 0:
		printf(w, "rolled back to generation %d: now generation %d\n", sum.RolledBackTo, sum.Generation)
	default: // a daemon from before rolled_back_to
		printf(w, "rolled back: now generation %d\n", sum.Generation)
	}
	if r := sum.Set; r != nil {
		var b strings.Builder
		writeChanges(&b, r, "  ", false)
		io.WriteString(w, b.String())
	}
	return WriteSummary(w, sum)
}

// WritePacks writes the installed packs as a table.
func WritePacks(w io.Writer, packs []api.Pack) error {
	if len(packs) == 0 {
		_, err := io.WriteString(w, "no packs installed\n")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tVERSION\tENABLED\tPIECES\tLIFTS\tDOORS\tNAME")
	for _, p := range packs {
		printf(tw, "%s\t%s\t%v\t%d\t%d\t%d\t%s\n", p.ID, p.Version, p.Enabled, p.PieceCount, p.Lifts, p.Doors, p.Name)
	}
	return tw.Flush()
}

// EventWriter writes events as lines, and a running extraction's progress
// as a bar redrawn in place; with JSON, each event as a line of JSON. Its
// zero value is not usable; set W.
type EventWriter struct {
	W       io.Writer
	JSON    bool
	barOpen bool // a progress bar is drawn and its line not ended
}

// Write writes one event; an event of a type this version does not know is
// written raw.
func (ew *EventWriter) Write(ev api.Event) error {
	if ew.JSON {
		return json.NewEncoder(ew.W).Encode(ev)
	}
	ts := ev.Time.Local().Format("15:04:05")
	d, err := ev.Decode()
	if p, ok := d.(api.Progress); ok && err == nil {
		ew.barOpen = true
		_, err := printf(ew.W, "\r%s %s %s", ts, progressBar(p.Done, p.Total, 30), p.Archive)
		return err
	}
	if p, ok := d.(api.Download); ok && err == nil && p.Done < p.Total {
		// A download under way is a bar in MiB; its last event a line.
		ew.barOpen = true
		_, err := printf(ew.W, "\r%s %s %s of %s %s", ts, progressBar(p.Done, p.Total, 30), miB(p.Done), miB(p.Total), p.Pack)
		return err
	}
	ew.Close()
	if err != nil {
		_, err = printf(ew.W, "%s %s %s\n", ts, ev.Type, ev.Data)
		return err
	}
	_, err = printf(ew.W, "%s %s\n", ts, describe(d))
	return err
}

// Close ends a progress bar's line, if one is open.
func (ew *EventWriter) Close() {
	if ew.barOpen {
		fmt.Fprintln(ew.W)
		ew.barOpen = false
	}
}

// describe says in words what an event reports.
func describe(d api.EventData) string {
	switch d := d.(type) {
	case api.ArchiveSeen:
		return sprintf("claimed %s (%s)", d.Archive, text.Count64(d.Size, "byte"))
	case api.PackInstalled:
		s := sprintf("%s %s %s from %s", d.Result, d.Pack, d.Version, d.Archive)
		if d.Previous != "" {
			s += " (was " + text.Escape(d.Previous) + ")"
		}
		return s
	case api.PackRejected:
		s := "rejected " + text.Escape(d.Archive)
		for _, r := range d.Reasons {
			s += "\n    - " + reasonLine(r)
		}
		return s
	case api.InventoryPublished:
		return sprintf("published %s (%s)", strings.Join(d.Files, ", "), text.Count(d.Packs, "enabled pack"))
	case api.ModuleDeployed:
		if d.Pending {
			return sprintf("staged %s %s until the game lets go of it", d.Component, d.Path)
		}
		return sprintf("deployed %s %s", d.Component, d.Path)
	case api.Warning:
		return "warning: " + text.Escape(d.Message)
	case api.SetResult:
		return sprintf("set applied: %s (%d installed, %d upgraded, %d downgraded, %d disabled, %d removed)", d.Fingerprint,
			len(d.Installed), len(d.Upgraded), len(d.Downgraded), len(d.Disabled), len(d.Removed))
	case api.GenerationRecorded:
		return sprintf("generation %d (%s): %s, %s", d.N, d.Cause, text.Count(d.Packs, "pack"), d.Fingerprint)
	case api.SetCheck:
		if d.NotModified && d.Error == "" && d.Result == api.CheckEqual {
			return sprintf("pack set not modified: %s", d.Source) // a 304: nothing new, nothing done
		}
		s := sprintf("checked the pack set %s: %s", d.Source, d.Result)
		if d.NotModified {
			s += " (not modified)"
		}
		if d.Error != "" {
			s += ": " + text.Escape(d.Error)
		}
		return s
	case api.SetStaged:
		return sprintf("staged the pack set %s as profile %s (%s fetched)", d.Fingerprint, d.Name, text.Count64(d.Bytes, "byte"))
	case api.Download:
		if x := d.Delta; x != nil {
			return sprintf("rebuilt %s from chunks: ", d.Pack) + deltaFigures(x)
		}
		s := sprintf("downloaded %s (%s) from %s", d.Pack, miB(d.Total), d.URL)
		if d.Fallback != "" {
			s += "; whole, as the delta update failed: " + text.Escape(d.Fallback)
		}
		return s
	case api.PackEnabled:
		return describeChange("enabled", api.PackChange(d))
	case api.PackDisabled:
		return describeChange("disabled", api.PackChange(d))
	case api.PackRemoved:
		return describeChange("removed", api.PackChange(d))
	case api.SyncStarted:
		return sprintf("sync started (%s): %s", d.Trigger, archiveList(d.Archives))
	case api.SyncFinished:
		secs := math.Round(d.DurationSeconds*1000) / 1000
		if d.Error != "" {
			return sprintf("sync failed (%s) after %g s: %s", d.Trigger, secs, d.Error)
		}
		s := strings.Join(resultCounts(d.Results), ", ")
		if len(d.Archives) == 0 {
			s = "no archives"
		}
		s = sprintf("sync finished (%s) in %g s: ", d.Trigger, secs) + s + ";"
		if d.Generation > 0 {
			s += sprintf(" generation %d,", d.Generation)
		}
		return s + sprintf(" %s", d.Fingerprint)
	}
	return text.Escape(fmt.Sprintf("%s %+v", d.EventType(), d))
}

// resultCounts says a pass's results counted, in resultOrder, then those
// this version does not know, sorted ("3 installed, 1 rejected").
func resultCounts(results map[api.Result]int) []string {
	var counts []string
	for _, r := range resultOrder {
		if n := results[r]; n > 0 {
			counts = append(counts, sprintf("%d %s", n, r))
		}
	}
	var other []api.Result // results this version does not know
	for r, n := range results {
		if !slices.Contains(resultOrder, r) && n > 0 {
			other = append(other, r)
		}
	}
	slices.Sort(other)
	for _, r := range other {
		counts = append(counts, sprintf("%d %s", results[r], r))
	}
	return counts
}

// resultOrder is the order a pass's results are counted in.
var resultOrder = []api.Result{api.ResultInstalled, api.ResultUpgraded, api.ResultReinstalled, api.ResultDowngraded, api.ResultAlready, api.ResultRejected, api.ResultWaiting, api.ResultKept}

// describeChange says what an enable, disable or remove changed.
func describeChange(verb string, c api.PackChange) string {
	s := sprintf("%s %s %s", verb, c.Pack, c.Version)
	if c.Generation > 0 {
		s += sprintf(" (generation %d)", c.Generation)
	}
	return s
}

// archiveList names a pass's archives, or says it had none.
func archiveList(names []string) string {
	if len(names) == 0 {
		return "no archives"
	}
	return sprintf("%s", strings.Join(names, ", "))
}

// WriteHistory writes h as `forgesync history` shows it: newest first,
// each generation with its time, cause, size and fingerprint, then what
// changed from the one before, one line each.
func WriteHistory(w io.Writer, h *api.History) error {
	var b strings.Builder
	if len(h.Generations) == 0 {
		b.WriteString("no generations yet: the first change to the installed packs records one\n")
	}
	for _, g := range h.Generations {
		mark := ""
		if g.N == h.Current {
			mark = " (current)"
		}
		enabled := 0
		for _, p := range g.Packs {
			if p.Enabled {
				enabled++
			}
		}
		printf(&b, "generation %d%s  %s  %s  %s, %d enabled  %s\n", g.N, mark,
			g.Time.Local().Format("2006-01-02 15:04:05"), g.Cause, text.Count(len(g.Packs), "pack"), enabled, g.Fingerprint)
		for _, c := range g.Changes {
			printf(&b, "  %s\n", changeLine(c))
		}
	}
	if len(h.Generations) > 0 {
		printf(&b, "kept archives: %s\n", byteSize(h.KeptBytes))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteReload writes what a config reload did.
func WriteReload(w io.Writer, res *api.ReloadResult) error {
	var b strings.Builder
	if len(res.Applied) == 0 {
		printf(&b, "reloaded %s: nothing it applies changed ([sets], [watch], [limits], [performance])\n", res.Config)
	} else {
		printf(&b, "reloaded %s: applied %s\n", res.Config, strings.Join(res.Applied, ", "))
	}
	if len(res.NeedsRestart) > 0 {
		printf(&b, "changed, but taking effect only when the daemon restarts: %s\n", strings.Join(res.NeedsRestart, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// miB says a byte count in mebibytes ("12.3 MiB"), as status --watch
// prints sizes.
func miB(n int64) string { return sprintf("%.1f MiB", float64(n)/(1<<20)) }

// deltaFigures says what a rebuild from chunks fetched against the
// archive's whole size.
func deltaFigures(d *api.DeltaStats) string {
	return sprintf("fetched %s of %s (%s from earlier archives, %s on the wire)",
		miB(d.FetchedBytes), miB(d.FetchedBytes+d.SeedBytes), miB(d.SeedBytes), miB(d.WireBytes))
}

// byteSize says a byte count in binary units ("1.5 MiB").
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// progressBar draws [#####.....] 50% (or a byte count when the total is
// unknown).
func progressBar(done, total int64, width int) string {
	if total <= 0 {
		return sprintf("[%s] %d MiB", strings.Repeat("?", width), done>>20)
	}
	n := int(float64(width) * float64(min(done, total)) / float64(total))
	return sprintf("[%s%s] %3d%%", strings.Repeat("#", n), strings.Repeat(".", width-n), done*100/total)
}

// writeSetStatus writes how the machine stands against its pack set.
func writeSetStatus(b *strings.Builder, set *api.SetStatus) {
	if set == nil {
		return
	}
	how := "applied by sync --set"
	switch {
	case set.Paused != nil:
		how = "applied by hand; following paused"
	case set.Following:
		how = "followed"
	}
	if set.SignedBy != "" {
		how += ", signed by trusted key " + set.SignedBy
	}
	if set.Fingerprint == "" {
		printf(b, "pack set: %s (%s), not read yet\n", set.Source, how)
	} else {
		printf(b, "pack set: %s from %s (%s)\n", set.Fingerprint, set.Source, how)
		var fresh []string
		if set.Serial > 0 {
			fresh = append(fresh, sprintf("serial %d", set.Serial))
		}
		if set.Expires != nil {
			fresh = append(fresh, "expires "+set.Expires.Local().Format("2006-01-02 15:04:05"))
		}
		if len(fresh) > 0 {
			printf(b, "  lock %s\n", strings.Join(fresh, ", "))
		}
		if set.Equal {
			fmt.Fprintln(b, "  the machine equals its set")
		} else {
			n := len(set.Differences)
			printf(b, "  the machine (%s) differs from its set in %s:\n", set.Machine, text.Count(n, "pack"))
			for _, d := range set.Differences {
				printf(b, "    %s\n", differenceLine(d))
			}
		}
	}
	if p := set.Paused; p != nil {
		printf(b, "  following %s is paused since %s: a set was applied by hand (%s from %s); %s\n",
			p.Following, p.Since.Local().Format("2006-01-02 15:04:05"), p.Fingerprint, p.Source, p.Resume)
	}
	if c := set.LastCheck; c != nil {
		line := sprintf("  last check: %s, %s", c.Time.Local().Format("2006-01-02 15:04:05"), c.Result)
		if c.NotModified {
			line += " (not modified)"
		}
		if c.Error != "" {
			line += ": " + text.Escape(c.Error)
		}
		fmt.Fprintln(b, line)
		if set.LastDownload == nil {
			writeDownloadFigures(b, c) // a record of an older version
		}
	}
	if c := set.LastDownload; c != nil {
		// Kept until the next download, whatever checks come between.
		printf(b, "  last download: %s\n", c.Time.Local().Format("2006-01-02 15:04:05"))
		writeDownloadFigures(b, c)
	}
	if a := set.LastApply; a != nil {
		printf(b, "  last apply: %s, %s\n", a.Time.Local().Format("2006-01-02 15:04:05"), a.Fingerprint)
	}
}

// writeDownloadFigures writes a check's delta figures and fallbacks.
func writeDownloadFigures(b *strings.Builder, c *api.SetCheck) {
	if d := c.Delta; d != nil {
		b.WriteString("    delta updates: " + deltaFigures(d) + "\n")
	}
	for _, f := range c.Fallbacks {
		printf(b, "    whole, as the delta update failed: %s\n", f)
	}
}

// WriteSetSync writes what a set sync did: the set and who signed it, each
// download, each change to a pack, the warnings and what was published,
// and the verdict.
func WriteSetSync(w io.Writer, res *api.SetSyncResult) error {
	var b strings.Builder
	signed := "unsigned or not checked"
	if res.SignedBy != "" {
		signed = "signed by trusted key " + res.SignedBy
	}
	printf(&b, "set %s (%s)\n", res.Check.Fingerprint, signed)
	for _, d := range res.Downloaded {
		if x := d.Delta; x != nil {
			printf(&b, "rebuilt %s from chunks (%s): %s from earlier archives, %s fetched from %s in %s (%s on the wire)\n",
				d.Pack, text.Count64(d.Bytes, "byte"), text.Count64(x.SeedBytes, "byte"), text.Count64(x.FetchedBytes, "byte"),
				d.URL, text.Count64(x.Requests, "request"), text.Count64(x.WireBytes, "byte"))
			continue
		}
		printf(&b, "downloaded %s from %s (%s)\n", d.Pack, d.URL, text.Count64(d.Bytes, "byte"))
		if d.Fallback != "" {
			printf(&b, "  whole, as the delta update failed: %s\n", d.Fallback)
		}
	}
	if sum := res.Summary; sum != nil {
		if r := sum.Set; r != nil {
			writeChanges(&b, r, "", true)
		}
		for _, w := range sum.Warnings {
			printf(&b, "warning: %s\n", w)
		}
		writePending(&b, sum.Pending)
		if len(sum.Published) > 0 {
			printf(&b, "published %s\n", strings.Join(sum.Published, ", "))
		}
	}
	switch {
	case res.Summary != nil && res.Summary.Waiting():
		// Committed, but the game does not see it yet: the lines above
		// say what waits.
		printf(&b, "the set %s is committed; the game sees it once what waits above is done, at the next pass\n", res.Check.Fingerprint)
	case res.Check.Result == api.CheckApplied:
		printf(&b, "the machine now equals the set %s\n", res.Check.Fingerprint)
	case res.Check.NotModified:
		b.WriteString("nothing to do: the set is unchanged since the last check and the machine equals it\n")
	default:
		b.WriteString("nothing to do: the machine equals the set\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeChanges writes one line per pack a set's or a rollback's
// transaction changed, each after indent; bySet says why a set did it.
func writeChanges(b *strings.Builder, r *api.SetResult, indent string, bySet bool) {
	pinned, notInSet := "", ""
	if bySet {
		pinned, notInSet = " (pinned by the set)", " (not in the set)"
	}
	for _, c := range r.Installed {
		printf(b, "%sinstalled %s %s\n", indent, c.ID, c.Version)
	}
	for _, c := range r.Upgraded {
		printf(b, "%supgraded %s %s → %s\n", indent, c.ID, c.Previous, c.Version)
	}
	for _, c := range r.Downgraded {
		printf(b, "%sdowngraded %s %s → %s%s\n", indent, c.ID, c.Previous, c.Version, pinned)
	}
	for _, c := range r.Reinstalled {
		printf(b, "%sreinstalled %s %s from other bytes\n", indent, c.ID, c.Version)
	}
	for _, id := range r.Enabled {
		printf(b, "%senabled %s\n", indent, id)
	}
	for _, id := range r.Disabled {
		printf(b, "%sdisabled %s%s\n", indent, id, notInSet)
	}
	for _, id := range r.Removed {
		printf(b, "%sremoved %s%s\n", indent, id, notInSet)
	}
}

// reasonLine says a rejection reason in one line, compiler style, every
// part escaped: rejection.Reason's words.
func reasonLine(r api.Reason) string {
	return rejection.Reason{File: r.File, Path: r.Path, Line: r.Line, Column: r.Column, Rule: r.Rule, Value: r.Value, Message: r.Message}.String()
}

// differenceLine says how a machine differs from a set for one pack in
// one line of words: lock.Difference's words.
func differenceLine(d api.SetDifference) string {
	pd := lock.Difference{Kind: lock.Kind(d.Kind), ID: d.ID}
	if w := d.Want; w != nil {
		pd.Want = &lock.Entry{ID: w.ID, Version: w.Version, SHA256: w.SHA256}
	}
	if h := d.Have; h != nil {
		pd.Have = &lock.Installed{ID: h.ID, Version: h.Version, SHA256: h.SHA256, Enabled: h.Enabled}
	}
	return pd.String()
}

// changeLine says a change from one generation to the next in one line:
// "+ id 1.4.0", "~ id 0.3.1 → 0.4.0", "- id", "enabled id", "disabled id".
func changeLine(c api.GenerationChange) string {
	switch c.Kind {
	case api.ChangeAdded:
		return fmt.Sprintf("+ %s %s", c.ID, c.Version)
	case api.ChangeUpdated:
		if c.Previous == c.Version {
			return fmt.Sprintf("~ %s %s (other bytes)", c.ID, c.Version)
		}
		return fmt.Sprintf("~ %s %s → %s", c.ID, c.Previous, c.Version)
	case api.ChangeRemoved:
		return "- " + c.ID
	}
	return string(c.Kind) + " " + c.ID
}
