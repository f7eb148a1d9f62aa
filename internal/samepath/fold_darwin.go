package samepath

// foldCase: APFS and HFS+ are case-insensitive by default.
var foldCase = true
