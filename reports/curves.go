package reports

import "github.com/loopwatch/loopwatch/eval"

// The curve kinds of the curve table.
const (
	CurvePR  = "pr"
	CurveROC = "roc"
)

// CurveRow is one row of the curve table (curves.parquet): one operating point of one
// detector's ranking under one configuration, on one curve. Each point of an
// [eval.Curve] appears once per kind — "pr" (recall, precision) and "roc" (fpr,
// recall) — with the same counts, so `WHERE curve = 'roc'` selects a whole curve.
// Thresholds descend within a curve; observations with equal scores cross together.
// The anchors are not rows: a ROC curve starts at (0, 0), and average precision is
// the step-wise sum Σ (Rₙ − Rₙ₋₁)·Pₙ from recall 0. A threshold of −Infinity is the
// point where observations without a score are flagged too. Undefined rates are null.
type CurveRow struct {
	Detector  string   `parquet:"detector"`
	Config    string   `parquet:"config"` // the configuration's label: "seed", "shipped-today", "tuned", a hash…
	Curve     string   `parquet:"curve"`  // "pr" or "roc"
	Point     int32    `parquet:"point"`  // 0-based position on the curve, thresholds descending
	Threshold float64  `parquet:"threshold"`
	TP        int32    `parquet:"tp"`
	FP        int32    `parquet:"fp"`
	FN        int32    `parquet:"fn"`
	TN        int32    `parquet:"tn"`
	Precision *float64 `parquet:"precision,optional"`
	Recall    *float64 `parquet:"recall,optional"`
	FPR       *float64 `parquet:"fpr,optional"`
}

// CurveRows converts a detector's curve under one configuration into rows: its PR
// points, then its ROC points. A curve without points gives no rows.
func CurveRows(detector, config string, c eval.Curve) []CurveRow {
	rows := make([]CurveRow, 0, 2*len(c.Points))
	for _, kind := range []string{CurvePR, CurveROC} {
		for i, p := range c.Points {
			rows = append(rows, CurveRow{
				Detector: detector, Config: config, Curve: kind, Point: int32(i), Threshold: p.Threshold,
				TP: int32(p.TP), FP: int32(p.FP), FN: int32(p.FN), TN: int32(p.TN),
				Precision: finite(p.Precision), Recall: finite(p.Recall), FPR: finite(p.FPR),
			})
		}
	}
	return rows
}
