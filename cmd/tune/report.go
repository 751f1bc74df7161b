package main

import (
	"github.com/loopwatch/loopwatch/reports/htmlreport"
	"github.com/loopwatch/loopwatch/tune"
)

// writeReport writes the sweep's HTML report.
func writeReport(path string, res *tune.Result, in string) error {
	title := "loopwatch tune of " + in
	if in == "" {
		title = "loopwatch tune of the built-in sample"
	}
	return htmlreport.WriteFile(path, tune.Report(res, title))
}
