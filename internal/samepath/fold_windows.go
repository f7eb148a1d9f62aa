package samepath

// foldCase: NTFS and FAT compare names without case.
var foldCase = true
