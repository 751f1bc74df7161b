package pipeline

import (
	"fmt"
	"testing"
)

// TestMetadataDifference: a refusal of shards replayed with other flags names what
// differs — the JSON members, with both values — rather than quoting both values
// from their start, where they are the same.
func TestMetadataDifference(t *testing.T) {
	eval := `{"beta":1,"ci_level":0.95,"friction_window":"5m0s","positive_outcomes":["failure","abandoned"],"resamples":%s,"seed":%s}`
	long := `built-in sample run labels sha256:16a74c6ff934af2e; built-in sample session labels sha256:`
	for _, tt := range []struct {
		name     string
		a, b     string
		okA, okB bool
		want     string
	}{
		{"one member", fmt.Sprintf(eval, "200", "1"), fmt.Sprintf(eval, "100", "1"), true, true,
			"resamples 200 in shard=0, 100 in shard=1"},
		{"two members", fmt.Sprintf(eval, "200", "1"), fmt.Sprintf(eval, "100", "5"), true, true,
			"resamples 200 in shard=0, 100 in shard=1; seed 1 in shard=0, 5 in shard=1"},
		{"nested and absent", `{"breaker":{"cooldown":"1m","failure_threshold":3},"x":true}`, `{"breaker":{"cooldown":"2m"},"x":true}`, true, true,
			`breaker.cooldown "1m" in shard=0, "2m" in shard=1; breaker.failure_threshold 3 in shard=0, absent in shard=1`},
		{"array element", `{"positive_outcomes":["failure","abandoned"]}`, `{"positive_outcomes":["failure","good"]}`, true, true,
			`positive_outcomes[1] "abandoned" in shard=0, "good" in shard=1`},
		{"arrays of other lengths", `[1,2]`, `[1]`, true, true, `(the whole value) [1,2] in shard=0, [1] in shard=1`},
		{"many members", `{"a":1,"b":1,"c":1,"d":1,"e":1}`, `{"a":2,"b":2,"c":2,"d":2,"e":2}`, true, true,
			"a 1 in shard=0, 2 in shard=1; b 1 in shard=0, 2 in shard=1; c 1 in shard=0, 2 in shard=1; and 2 more"},
		{"a long value cut", `{"p":"` + long + `"}`, `{"p":"x"}`, true, true,
			`p "built-in sample run labels sha256:16a74c6ff934af2e; built-i… in shard=0, "x" in shard=1`},
		// Values alike in their first 60 bytes and more: compared whole, each quoted from
		// where they differ.
		{"long values differing late", `{"p":"` + long + `aaaa","q":1}`, `{"p":"` + long + `bbbb","q":1}`, true, true,
			`p …aaaa" in shard=0, …bbbb" in shard=1`},
		{"long values differing late, two members", `{"p":"` + long + `a","q":"` + long + `c"}`, `{"p":"` + long + `b","q":"` + long + `d"}`, true, true,
			`p …a" in shard=0, …b" in shard=1; q …c" in shard=0, …d" in shard=1`},
		{"long values differing late, cut", `{"p":"` + long + `a` + long + `"}`, `{"p":"` + long + `b` + long + `"}`, true, true,
			`p …abuilt-in sample run labels sha256:16a74c6ff934af2e; built-i… in shard=0, …bbuilt-in sample run labels sha256:16a74c6ff934af2e; built-i… in shard=1`},
		{"long values differing early", `{"p":"a` + long + `"}`, `{"p":"b` + long + `"}`, true, true,
			`p "abuilt-in sample run labels sha256:16a74c6ff934af2e; built-… in shard=0, "bbuilt-in sample run labels sha256:16a74c6ff934af2e; built-… in shard=1`},
		{"not JSON", long + "aaaa", long + "bbbb", true, true,
			`from byte 90: "…aaaa" in shard=0, "…bbbb" in shard=1`},
		{"not JSON, from the start", "0.1.0", "0.2.0", true, true, `from byte 2: "…1.0" in shard=0, "…2.0" in shard=1`},
		{"a long tail cut", "x" + long, "y" + long, true, true,
			`from byte 0: "xbuilt-in sample run labels sha256:16a74c6ff934af2e; built-i…" in shard=0, "ybuilt-in sample run labels sha256:16a74c6ff934af2e; built-i…" in shard=1`},
		{"JSON equal but for its bytes", `{"a": 1}`, `{"a":1}`, true, true, `from byte 5: "… 1}" in shard=0, "…1}" in shard=1`},
		{"a character not split", "é-a", "é-b", true, true, `from byte 3: "…a" in shard=0, "…b" in shard=1`},
		{"split inside a character", "aé", "aè", true, true, `from byte 1: "…é" in shard=0, "…è" in shard=1`},
		{"absent", "1.0", "", true, false, `"1.0" in shard=0, absent in shard=1`},
		{"absent in the first", "", "1.0", false, true, `absent in shard=0, "1.0" in shard=1`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := metadataDifference(tt.a, tt.b, tt.okA, tt.okB, "shard=0", "shard=1"); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
