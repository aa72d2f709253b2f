package segment

import "testing"

func TestFormatHistogram(t *testing.T) {
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
		if got := FormatHistogram(tt.in); got != tt.want {
			t.Errorf("FormatHistogram(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseHistogram(t *testing.T) {
	tests := []struct {
		in      string
		want    string // FormatHistogram of the result
		wantErr bool
	}{
		{"8x25", "8x25", false},
		{"52x1 148x1", "148x1 52x1", false},
		{"  8x2  8x3 ", "8x5", false},
		{"", "", false},
		{"8", "", true},
		{"8x", "", true},
		{"x3", "", true},
		{"8x0", "", true},
		{"-1x2", "", true},
		{"8*25", "", true},
	}
	for _, tt := range tests {
		got, err := ParseHistogram(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseHistogram(%q) err = %v", tt.in, err)
			continue
		}
		if err == nil && FormatHistogram(got) != tt.want {
			t.Errorf("ParseHistogram(%q) = %q, want %q", tt.in, FormatHistogram(got), tt.want)
		}
	}
}
