package intake

// openFileBudget is how many handles this process may hold: Windows sets
// no small limit.
func openFileBudget() uint64 { return 1 << 24 }
