package testbuildfail

import "testing"

func TestDouble(t *testing.T) {
	if Double(2) != want {
		t.Fail()
	}
}
