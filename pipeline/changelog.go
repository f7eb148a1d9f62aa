package pipeline

// logChanges writes one INFO line for each change a committed transaction
// made to the installed set (DESIGN: every change is one INFO line): a set
// applied or rolled back, with its fingerprint and generation, then each
// pack it installed, upgraded, downgraded, reinstalled, enabled, disabled
// or removed; and each pack an enable, disable or remove changed. The
// archives of a pass are logged as they are processed ("archive
// processed").
func (p *Pipeline) logChanges(sum *Summary, changes []PackChange, o txnOptions) {
	cause := o.cause
	for _, c := range changes {
		p.log.Info("pack "+string(c.Kind), "pack", c.Pack, "version", c.Version, "generation", sum.Generation, "cause", cause)
	}
	s := sum.Set
	if s == nil || !s.Changed() {
		return
	}
	if cause == CauseRollback {
		p.log.Info("rolled back", "to_generation", o.rollbackTo, "fingerprint", s.Fingerprint, "generation", s.Generation)
	} else {
		p.log.Info("pack set applied", "fingerprint", s.Fingerprint, "generation", s.Generation, "cause", cause)
	}
	at := []any{"generation", s.Generation, "cause", cause}
	for _, g := range []struct {
		msg     string
		changes []SetChange
	}{{"pack installed", s.Installed}, {"pack upgraded", s.Upgraded}, {"pack downgraded", s.Downgraded}, {"pack reinstalled", s.Reinstalled}} {
		for _, c := range g.changes {
			attrs := []any{"pack", c.ID, "version", c.Version}
			if c.Previous != "" {
				attrs = append(attrs, "previous", c.Previous)
			}
			p.log.Info(g.msg, append(attrs, at...)...)
		}
	}
	for _, g := range []struct {
		msg   string
		packs []string
	}{{"pack enabled", s.Enabled}, {"pack disabled", s.Disabled}, {"pack removed", s.Removed}} {
		for _, id := range g.packs {
			p.log.Info(g.msg, append([]any{"pack", id}, at...)...)
		}
	}
}
