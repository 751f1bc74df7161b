package replay

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestWindowBounds(t *testing.T) {
	tests := []struct {
		name     string
		sizes    []int64
		maxFiles int
		maxBytes int64
		// claimable is how many files the workers may hold before any delivery.
		claimable int
	}{
		{"by files", []int64{1, 1, 1, 1, 1}, 3, 100, 3},
		{"by bytes", []int64{10, 10, 10, 10}, 10, 25, 2},
		{"the first file whatever its size", []int64{1000, 1, 1}, 10, 25, 1},
		{"a large file after small ones waits", []int64{5, 5, 100, 5}, 10, 25, 2},
		{"fewer files than the bound", []int64{1, 1}, 10, 100, 2},
		{"at least one file", []int64{1, 1}, 0, 100, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w := newWindow(ctx, len(tt.sizes), tt.maxFiles, tt.maxBytes, func(k int) int64 { return tt.sizes[k] })
			for want := range tt.claimable {
				k, ok := w.claim()
				if !ok || k != want {
					t.Fatalf("claim %d = %d, %v; want %d, true", want, k, ok, want)
				}
			}
			if tt.claimable == len(tt.sizes) {
				if k, ok := w.claim(); ok {
					t.Fatalf("claim after the last file = %d, true", k)
				}
				return
			}
			got := make(chan int, 1)
			go func() {
				k, _ := w.claim()
				got <- k
			}()
			select {
			case k := <-got:
				t.Fatalf("claimed file %d beyond the bound", k)
			case <-time.After(20 * time.Millisecond):
			}
			w.delivered(0)
			for range tt.claimable { // free enough room for the waiting claim, however large
				select {
				case k := <-got:
					if k != tt.claimable {
						t.Fatalf("claim after a delivery = %d, want %d", k, tt.claimable)
					}
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
			for k := 1; k < tt.claimable; k++ {
				w.delivered(k)
			}
			if k := <-got; k != tt.claimable {
				t.Fatalf("claim once the window is empty = %d, want %d", k, tt.claimable)
			}
		})
	}
}

// TestWindowCancel: cancelling the context ends every wait.
func TestWindowCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	w := newWindow(ctx, 10, 1, 100, func(int) int64 { return 1 })
	if _, ok := w.claim(); !ok {
		t.Fatal("first claim failed")
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if k, ok := w.claim(); ok {
				t.Errorf("claim after cancel = %d, true", k)
			}
		})
	}
	time.Sleep(10 * time.Millisecond)
	cancel()
	wg.Wait()
}

// TestSniffedFileSize: the window weighs a file by its size in KiB.
func TestSniffedFileSize(t *testing.T) {
	sn := sniffedFile{kib: 3}
	if got := sn.size(); got != 3<<10 {
		t.Errorf("size of 3 KiB = %d", got)
	}
}
