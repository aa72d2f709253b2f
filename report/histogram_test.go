package report

import "testing"

func TestHistogram(t *testing.T) {
	tests := []struct {
		in   map[int]int
		want string
	}{
		{map[int]int{52: 1, 148: 1}, "148x1 52x1"},
		{map[int]int{1: 200}, "1x200"},
		{map[int]int{4: 1, 8: 22}, "8x22 4x1"},
		{map[int]int{8: 3, 5: 0}, "8x3"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := Histogram(tt.in); got != tt.want {
			t.Errorf("Histogram(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
