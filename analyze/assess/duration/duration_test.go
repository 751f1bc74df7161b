package duration

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDurationJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{in: `"5m"`, want: 5 * time.Minute},
		{in: `"1h30m"`, want: 90 * time.Minute},
		{in: `"250ms"`, want: 250 * time.Millisecond},
		{in: `"0s"`, want: 0},
		{in: `"-1s"`, wantErr: true},
		{in: `"five minutes"`, wantErr: true},
		{in: `300`, wantErr: true},
	}
	for _, tt := range tests {
		var d Duration
		err := json.Unmarshal([]byte(tt.in), &d)
		if (err != nil) != tt.wantErr {
			t.Fatalf("Unmarshal(%s) error = %v, wantErr %v", tt.in, err, tt.wantErr)
		}
		if err == nil && d.Std() != tt.want {
			t.Errorf("Unmarshal(%s) = %v, want %v", tt.in, d.Std(), tt.want)
		}
	}
	b, err := json.Marshal(struct {
		D Duration `json:"d"`
	}{Duration(5 * time.Minute)})
	if err != nil || string(b) != `{"d":"5m0s"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
}
