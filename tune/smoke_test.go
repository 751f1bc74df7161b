package tune

import (
	"context"
	"fmt"
	"testing"

	"github.com/loopwatch/loopwatch/pipeline"
)

func TestSmoke(t *testing.T) {
	opts := Options{Settings: pipeline.DefaultSettings()}
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(res.Scheme, res.LabelsNote, res.Warnings)
	for _, tr := range res.Targets {
		fmt.Println(tr.Target, tr.Units, tr.Positives, len(tr.Configs), tr.FoldChoice, tr.Final, tr.Verdict)
		for _, r := range tr.Rows {
			if r.Report != nil {
				fmt.Println(r.Name, r.Report.Confusion, r.Report.Precision.Value, r.Report.Recall.Value, r.Report.F1.Value, r.Report.AP.Value)
			} else {
				fmt.Println(r.Name, r.Moments.Recall.Value, r.Moments.Precision.Value, r.Moments.FalseAlarmsPer100.Value)
			}
		}
		for _, p := range tr.Paired {
			fmt.Printf("%s %+v\n", p.Metric, p.PairedDifference)
		}
	}
}
