package inventory

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/semver"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// Outcome is what became of one pack offered for installation (SPEC §4):
// the one list of install outcomes, which the pipeline reports and the
// wire (api.Result) names at its edge.
type Outcome string

// The outcomes of installing a pack. CheckInstall decides among them for a
// pack whose files and manifest passed their rules; a pack that broke one
// the pipeline rejects (OutcomeRejected) before it asks.
const (
	OutcomeInstalled   Outcome = "installed"         // no pack with this id is installed
	OutcomeUpgraded    Outcome = "upgraded"          // a lower version is replaced
	OutcomeAlready     Outcome = "already-installed" // same version, same archive bytes: nothing changes
	OutcomeReinstalled Outcome = "reinstalled"       // same version, other bytes, forced
	OutcomeDowngraded  Outcome = "downgraded"        // a lower version, forced
	OutcomeRejected    Outcome = "rejected"          // see the reasons
)

// Outcomes lists every Outcome, for the code that names them elsewhere.
var Outcomes = []Outcome{OutcomeInstalled, OutcomeUpgraded, OutcomeAlready, OutcomeReinstalled, OutcomeDowngraded, OutcomeRejected}

// Rules of SPEC §4 a rejection Reason of CheckInstall can name.
const (
	RuleSameVersion = "same-version-other-bytes" // the version is installed from other bytes
	RuleDowngrade   = "downgrade"                // the version is older than the installed one
	RuleTagClash    = "tag-owned"                // another installed pack owns the tag
	RuleClassClash  = "class-owned"              // another installed pack owns the class
	RuleDoorLimit   = "door-limit"               // the enabled packs would pass MaxDoorsInstalled
)

// Verdict is what a check of the install rules decides, in the one shape
// CheckInstall, CheckEnable and CheckSet share: the reasons the change is
// refused (none when it may go ahead) and, for CheckInstall, what
// installing does.
type Verdict struct {
	// Reasons says why the change is refused, every rule it breaks; empty
	// when it may go ahead.
	Reasons []rejection.Reason
	// Outcome is, for CheckInstall, what installing the pack does
	// (OutcomeRejected when Reasons refuse it); empty for the other checks.
	Outcome Outcome
	// Previous is, for CheckInstall, the installed pack with the same id,
	// if any.
	Previous *InstalledPack
}

// Refused reports whether the verdict refuses the change.
func (v Verdict) Refused() bool { return len(v.Reasons) > 0 }

// CheckInstall applies the install rules of SPEC §4 to candidate over the
// installed set: version and archive comparison (same version with other
// bytes, or a lower version, is rejected unless force), tags and classes
// unique across packs (both owners named), and the door limit across
// enabled packs. The candidate's Enabled field says whether it will be
// enabled; an upgrade keeps the installed pack's flag, which the caller
// sets before calling.
func CheckInstall(installed []InstalledPack, candidate InstalledPack, force bool) Verdict {
	m := candidate.Manifest
	var v Verdict
	var rest []InstalledPack
	for i := range installed {
		if installed[i].Manifest.ID == m.ID {
			v.Previous = &installed[i]
			continue
		}
		rest = append(rest, installed[i])
	}
	v.Outcome = OutcomeInstalled
	if prev := v.Previous; prev != nil {
		pv, _ := semver.Parse(prev.Manifest.Version)
		cv, _ := semver.Parse(m.Version)
		switch c := semver.Compare(cv, pv); {
		case c > 0:
			v.Outcome = OutcomeUpgraded
		case c == 0 && prev.ArchiveSHA256 == candidate.ArchiveSHA256:
			v.Outcome = OutcomeAlready
			return v
		case c == 0 && force:
			v.Outcome = OutcomeReinstalled
		case c == 0:
			v.Outcome = OutcomeRejected
			v.Reasons = append(v.Reasons, rejection.Reason{Path: "version", Rule: RuleSameVersion, Message: fmt.Sprintf(
				"%s %s is already installed from an archive with other bytes (sha256 %s, this one %s); bump the version, or install with --force to replace it",
				m.ID, m.Version, short(prev.ArchiveSHA256), short(candidate.ArchiveSHA256))})
		case force:
			v.Outcome = OutcomeDowngraded
		default:
			v.Outcome = OutcomeRejected
			v.Reasons = append(v.Reasons, rejection.Reason{Path: "version", Rule: RuleDowngrade, Message: fmt.Sprintf(
				"%s %s is older than the installed %s; a downgrade needs --force", m.ID, m.Version, prev.Manifest.Version)})
		}
	}
	v.Reasons = append(v.Reasons, clashes(rest, m)...)
	if candidate.Enabled {
		v.Reasons = append(v.Reasons, doorLimit(rest, candidate)...)
	}
	if len(v.Reasons) > 0 {
		v.Outcome = OutcomeRejected
	}
	return v
}

// CheckEnable applies the door limit to enabling the installed pack id;
// its Verdict's Reasons say why the enable is refused. An id no installed
// pack has is not refused here: the caller says it is not installed.
func CheckEnable(installed []InstalledPack, id string) Verdict {
	var rest []InstalledPack
	var target *InstalledPack
	for i := range installed {
		if installed[i].Manifest.ID == id {
			target = &installed[i]
			continue
		}
		rest = append(rest, installed[i])
	}
	if target == nil {
		return Verdict{}
	}
	c := *target
	c.Enabled = true
	return Verdict{Reasons: doorLimit(rest, c)}
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// clashes names every tag or class of m that another installed pack owns.
func clashes(others []InstalledPack, m *Manifest) []rejection.Reason {
	tags, classes := map[string]string{}, map[string]string{}
	for _, o := range others {
		for _, p := range o.Manifest.Pieces {
			owner := o.Manifest.ID + " (piece " + p.ID + ")"
			tags[p.Tag], classes[p.Class] = owner, owner
		}
	}
	var out []rejection.Reason
	for i, p := range m.Pieces {
		for _, c := range []struct {
			key, value, rule string
			owners           map[string]string
		}{{"tag", p.Tag, RuleTagClash, tags}, {"class", p.Class, RuleClassClash, classes}} {
			if owner, ok := c.owners[c.value]; ok {
				out = append(out, rejection.Reason{Path: fmt.Sprintf("pieces[%d].%s", i, c.key), Rule: c.rule, Message: fmt.Sprintf(
					"%s %s of piece %s is already owned by installed pack %s; tags and classes must be unique across packs", c.key, c.value, p.ID, owner)})
			}
		}
	}
	return out
}

// doorLimit returns the reason enabling candidate beside others would pass
// the 256-door limit, naming the packs, or none.
func doorLimit(others []InstalledPack, candidate InstalledPack) []rejection.Reason {
	total := candidate.Manifest.Doors()
	var names []string
	for _, o := range others {
		if o.Enabled && o.Manifest.Doors() > 0 {
			total += o.Manifest.Doors()
			names = append(names, fmt.Sprintf("%s (%d)", o.Manifest.ID, o.Manifest.Doors()))
		}
	}
	if total <= MaxDoorsInstalled {
		return nil
	}
	sort.Strings(names)
	return []rejection.Reason{{Rule: RuleDoorLimit, Message: fmt.Sprintf(
		"%s brings %d door definitions; with the enabled packs %s that makes %d, over the limit of %d across enabled packs; disable or remove a door pack first",
		candidate.Manifest.ID, candidate.Manifest.Doors(), strings.Join(names, ", "), total, MaxDoorsInstalled)}}
}

// liftClasses splits the lift classes of enabled packs into those the
// runtime uses (the first MaxLiftClassesUsed by sorted class path) and those
// it ignores.
func liftClasses(packs []InstalledPack) (used, ignored []string) {
	var all []string
	for _, p := range packs {
		if !p.Enabled {
			continue
		}
		for _, pc := range p.Manifest.Pieces {
			if pc.Lift != nil {
				all = append(all, pc.Class)
			}
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) <= maxLiftClassesUsed {
		return all, nil
	}
	return all[:maxLiftClassesUsed], all[maxLiftClassesUsed:]
}

// LiftClassWarning returns the warning about the lift classes of enabled
// packs the runtime ignores (see LiftClasses), naming them, or "" when it
// uses them all. Every place that warns about them says it in these words.
func LiftClassWarning(packs []InstalledPack) string {
	_, ignored := liftClasses(packs)
	if len(ignored) == 0 {
		return ""
	}
	return fmt.Sprintf("%d lift classes are enabled; the runtime uses the first %d by class path and ignores: %s",
		maxLiftClassesUsed+len(ignored), maxLiftClassesUsed, strings.Join(ignored, ", "))
}

// CheckSet applies the global rules of SPEC §4 to a whole installed set at
// once, as a set apply or a rollback makes it: tags and classes unique
// across every pack (both owners named) and at most MaxDoorsInstalled door
// definitions across the enabled packs (every door pack named). Its
// Verdict's Reasons are every reason the set is refused; none when it may
// be published.
func CheckSet(packs []InstalledPack) Verdict {
	var out []rejection.Reason
	tags, classes := map[string]string{}, map[string]string{}
	for _, o := range packs {
		for _, p := range o.Manifest.Pieces {
			owner := o.Manifest.ID + " (piece " + p.ID + ")"
			for _, c := range []struct {
				key, value, rule string
				owners           map[string]string
			}{{"tag", p.Tag, RuleTagClash, tags}, {"class", p.Class, RuleClassClash, classes}} {
				if first, ok := c.owners[c.value]; ok {
					out = append(out, rejection.Reason{Rule: c.rule, Message: fmt.Sprintf(
						"%s %s is owned by both %s and %s; tags and classes must be unique across packs", c.key, c.value, first, owner)})
					continue
				}
				c.owners[c.value] = owner
			}
		}
	}
	total := 0
	var names []string
	for _, o := range packs {
		if n := o.Manifest.Doors(); o.Enabled && n > 0 {
			total += n
			names = append(names, fmt.Sprintf("%s (%d)", o.Manifest.ID, n))
		}
	}
	if total > MaxDoorsInstalled {
		sort.Strings(names)
		out = append(out, rejection.Reason{Rule: RuleDoorLimit, Message: fmt.Sprintf(
			"the enabled packs %s bring %d door definitions, over the limit of %d across enabled packs",
			strings.Join(names, ", "), total, MaxDoorsInstalled)})
	}
	return Verdict{Reasons: out}
}
