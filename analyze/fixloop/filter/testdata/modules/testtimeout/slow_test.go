package slow

import "testing"

func TestWait(t *testing.T) {
	Wait(-1)
}
