package inventory

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/semver"
	"github.com/mjolnir-forge/forgesync/rejection"
)

// Action is what installing a pack over the installed set does (SPEC §4).
type Action string

// The outcomes of CheckInstall.
const (
	ActionInstall   Action = "install"           // no pack with this id is installed
	ActionUpgrade   Action = "upgrade"           // a lower version is replaced
	ActionAlready   Action = "already-installed" // same version, same archive bytes: nothing changes
	ActionReinstall Action = "reinstall"         // same version, other bytes, forced
	ActionDowngrade Action = "downgrade"         // a lower version, forced
	ActionReject    Action = "reject"            // see the reasons
)

// Rules of SPEC §4 a rejection Reason of CheckInstall can name.
const (
	RuleSameVersion = "same-version-other-bytes" // the version is installed from other bytes
	RuleDowngrade   = "downgrade"                // the version is older than the installed one
	RuleTagClash    = "tag-owned"                // another installed pack owns the tag
	RuleClassClash  = "class-owned"              // another installed pack owns the class
	RuleDoorLimit   = "door-limit"               // the enabled packs would pass MaxDoorsInstalled
)

// Verdict is the outcome of checking one pack against the installed set.
type Verdict struct {
	Action   Action
	Previous *InstalledPack     // the installed pack with the same id, if any
	Reasons  []rejection.Reason // why it is rejected
}

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
	v.Action = ActionInstall
	if prev := v.Previous; prev != nil {
		pv, _ := semver.Parse(prev.Manifest.Version)
		cv, _ := semver.Parse(m.Version)
		switch c := semver.Compare(cv, pv); {
		case c > 0:
			v.Action = ActionUpgrade
		case c == 0 && prev.ArchiveSHA256 == candidate.ArchiveSHA256:
			v.Action = ActionAlready
			return v
		case c == 0 && force:
			v.Action = ActionReinstall
		case c == 0:
			v.Action = ActionReject
			v.Reasons = append(v.Reasons, rejection.Reason{Path: "version", Rule: RuleSameVersion, Message: fmt.Sprintf(
				"%s %s is already installed from an archive with other bytes (sha256 %s, this one %s); bump the version, or install with --force to replace it",
				m.ID, m.Version, short(prev.ArchiveSHA256), short(candidate.ArchiveSHA256))})
		case force:
			v.Action = ActionDowngrade
		default:
			v.Action = ActionReject
			v.Reasons = append(v.Reasons, rejection.Reason{Path: "version", Rule: RuleDowngrade, Message: fmt.Sprintf(
				"%s %s is older than the installed %s; a downgrade needs --force", m.ID, m.Version, prev.Manifest.Version)})
		}
	}
	v.Reasons = append(v.Reasons, clashes(rest, m)...)
	if candidate.Enabled {
		if reason := doorLimit(rest, candidate); reason != "" {
			v.Reasons = append(v.Reasons, rejection.Reason{Rule: RuleDoorLimit, Message: reason})
		}
	}
	if len(v.Reasons) > 0 {
		v.Action = ActionReject
	}
	return v
}

// CheckEnable applies the door limit to enabling the installed pack id.
// It returns the reason the enable is refused, or "".
func CheckEnable(installed []InstalledPack, id string) string {
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
		return ""
	}
	c := *target
	c.Enabled = true
	return doorLimit(rest, c)
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

// doorLimit returns why enabling candidate beside others would pass the
// 256-door limit, naming the packs, or "".
func doorLimit(others []InstalledPack, candidate InstalledPack) string {
	total := candidate.Manifest.Doors()
	var names []string
	for _, o := range others {
		if o.Enabled && o.Manifest.Doors() > 0 {
			total += o.Manifest.Doors()
			names = append(names, fmt.Sprintf("%s (%d)", o.Manifest.ID, o.Manifest.Doors()))
		}
	}
	if total <= MaxDoorsInstalled {
		return ""
	}
	sort.Strings(names)
	return fmt.Sprintf("%s brings %d door definitions; with the enabled packs %s that makes %d, over the limit of %d across enabled packs; disable or remove a door pack first",
		candidate.Manifest.ID, candidate.Manifest.Doors(), strings.Join(names, ", "), total, MaxDoorsInstalled)
}

// LiftClasses splits the lift classes of enabled packs into those the
// runtime uses (the first MaxLiftClassesUsed by sorted class path) and those
// it ignores.
func LiftClasses(packs []InstalledPack) (used, ignored []string) {
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
	if len(all) <= MaxLiftClassesUsed {
		return all, nil
	}
	return all[:MaxLiftClassesUsed], all[MaxLiftClassesUsed:]
}

// LiftClassWarning returns the warning about the lift classes of enabled
// packs the runtime ignores (see LiftClasses), naming them, or "" when it
// uses them all. Every place that warns about them says it in these words.
func LiftClassWarning(packs []InstalledPack) string {
	_, ignored := LiftClasses(packs)
	if len(ignored) == 0 {
		return ""
	}
	return fmt.Sprintf("%d lift classes are enabled; the runtime uses the first %d by class path and ignores: %s",
		MaxLiftClassesUsed+len(ignored), MaxLiftClassesUsed, strings.Join(ignored, ", "))
}

// CheckSet applies the global rules of SPEC §4 to a whole installed set at
// once, as a set apply or a rollback makes it: tags and classes unique
// across every pack (both owners named) and at most MaxDoorsInstalled door
// definitions across the enabled packs (every door pack named). It returns
// every reason the set is refused; none when it may be published.
func CheckSet(packs []InstalledPack) []rejection.Reason {
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
	return out
}
