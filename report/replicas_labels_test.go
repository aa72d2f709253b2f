package report

import (
	"testing"

	"github.com/kseg/kseg/internal/replicas"
)

func TestCopyLabels(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    []string
		under string
		want  []string
	}{
		{"one copy", []string{"/var/lib/kafka/data/orders-0"}, "", []string{"/var/lib/kafka/data/orders-0"}},
		{"brokers over the wire", []string{"broker-1", "broker-2"}, "", []string{"broker-1", "broker-2"}},
		{"disks of three brokers", []string{"/mnt/b1/data/orders-0", "/mnt/b2/data/orders-0", "/mnt/b3/data/orders-0"},
			"/mnt/", []string{"b1/data/orders-0", "b2/data/orders-0", "b3/data/orders-0"}},
		{"a prefix inside a directory name stays whole", []string{"data-1/orders-0", "data-2/orders-0"}, "", []string{"data-1/orders-0", "data-2/orders-0"}},
		{"numbers sharing digits", []string{"x/n1", "x/n10"}, "x/", []string{"n1", "n10"}},
		{"a copy that is the prefix itself", []string{"x/", "x/n1"}, "", []string{"x/", "x/n1"}},
		{"relative paths", []string{"../copies/n1/rep-0", "../copies/n3/rep-0"}, "../copies/", []string{"n1/rep-0", "n3/rep-0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := make([]replicas.Copy, len(tc.in))
			for i, n := range tc.in {
				cs[i].Name = n
			}
			under, short := copyLabels(cs)
			if under != tc.under {
				t.Errorf("under = %q, want %q", under, tc.under)
			}
			for i, n := range tc.in {
				if got := short(n); got != tc.want[i] {
					t.Errorf("short(%q) = %q, want %q", n, got, tc.want[i])
				}
			}
		})
	}
}

func TestShortInLongestNameFirst(t *testing.T) {
	cs := []replicas.Copy{{Name: "d/n1"}, {Name: "d/n1/rep-0"}}
	_, short := copyLabels(cs)
	got := shortIn("d/n1/rep-0 wrote more than d/n1", cs, short)
	if want := "n1/rep-0 wrote more than n1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
