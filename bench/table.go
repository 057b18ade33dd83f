package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// row is one line of the table.
type row struct {
	figure      string
	switchboard string
	reference   string
	ratio       string
	target      string
	verdict     string // "met", "NOT met", or "" when the row has no target
}

// printTable writes rows as a Markdown table, the form the README shows.
func printTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| figure | Switchboard | reference | ratio | target | |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rows {
		cells := []string{r.figure, r.switchboard, r.reference, r.ratio, r.target, r.verdict}
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", "\\|")
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// verdict says whether got meets a target of at most limit.
func verdict(got, limit float64) string {
	if got <= limit {
		return "met"
	}
	return "NOT met"
}

// ratioRow is a row comparing a Switchboard duration with a reference one,
// with a target ratio of at most limit (none when limit is 0).
func ratioRow(figure string, sb, ref time.Duration, refName string, limit float64) row {
	ratio := float64(sb) / float64(ref)
	r := row{
		figure:      figure,
		switchboard: ms(sb),
		reference:   ms(ref) + " " + refName,
		ratio:       fmt.Sprintf("%.2fx", ratio),
	}
	if limit > 0 {
		r.target, r.verdict = fmt.Sprintf("≤ %.3gx", limit), verdict(ratio, limit)
	}
	return r
}

// ms formats a duration in milliseconds, with a decimal below 10 ms.
func ms(d time.Duration) string {
	m := float64(d) / float64(time.Millisecond)
	switch {
	case m < 1:
		return fmt.Sprintf("%.2f ms", m)
	case m < 10:
		return fmt.Sprintf("%.1f ms", m)
	}
	return fmt.Sprintf("%.0f ms", m)
}

// kb formats a byte count in kilobytes (1,000 bytes).
func kb(n float64) string {
	if n < 10_000 {
		return fmt.Sprintf("%.1f KB", n/1000)
	}
	return fmt.Sprintf("%.0f KB", n/1000)
}

// percentile returns the p-th percentile (0 < p ≤ 100) of ds, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(len(s)-1, i))]
}

// median returns the median of ds.
func median(ds []time.Duration) time.Duration { return percentile(ds, 50) }

// medianInt returns the median of ns.
func medianInt(ns []int64) int64 {
	if len(ns) == 0 {
		return 0
	}
	s := slices.Clone(ns)
	slices.Sort(s)
	return s[len(s)/2]
}
