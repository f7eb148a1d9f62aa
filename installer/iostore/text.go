package iostore

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTOC writes a table of contents as text: a line of its header, then
// a table of its chunks (id, index, type), as `forgesync utoc` prints it.
func WriteTOC(w io.Writer, toc *TOC) error {
	fmt.Fprintf(w, "%s: TOC version %d, container %016X, %d chunks, layout %v\n",
		toc.Path, toc.Version, uint64(toc.ContainerID), len(toc.Chunks), toc.Layout)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tINDEX\tTYPE")
	for _, c := range toc.Chunks {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", c.ID, c.Index, c.TypeName())
	}
	return tw.Flush()
}

// NamedID is a long package name with its package id, in hex and decimal.
type NamedID struct {
	Name    string `json:"name"`
	Hex     string `json:"id"`
	Decimal uint64 `json:"decimal"`
}

// PackageIDs returns the package id of each long package name.
func PackageIDs(names []string) []NamedID {
	var out []NamedID
	for _, n := range names {
		id := PackageID(n)
		out = append(out, NamedID{n, fmt.Sprintf("0x%016X", id), id})
	}
	return out
}

// WritePackageIDs writes one line per name: its id in hex, a tab, the
// name.
func WritePackageIDs(w io.Writer, ids []NamedID) error {
	for _, r := range ids {
		if _, err := fmt.Fprintf(w, "%s\t%s\n", r.Hex, r.Name); err != nil {
			return err
		}
	}
	return nil
}
