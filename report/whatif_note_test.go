package report

import (
	"strings"
	"testing"

	"github.com/kseg/kseg/internal/whatif"
)

// A topic whose log passed the records whatif reads says where its replay
// ended, in the text's note and on the report page.
func TestWhatifUnreadNote(t *testing.T) {
	if n := WhatifUnread(&whatif.Topic{}); n != "" {
		t.Errorf("a topic read whole: note %q", n)
	}
	tp := &whatif.Topic{End: 1_700_000_000_000, Bound: 170, Unread: []whatif.Unread{{Partition: 0, From: 80}, {Partition: 2, From: 75}}}
	n := WhatifUnread(tp)
	for _, want := range []string{"(170 records, a producer session counting as 90 more", "the replay ends at 2023-11-14T22:13:20.000Z", "not read: partition 0 from offset 80, 2 from offset 75"} {
		if !strings.Contains(n, want) {
			t.Errorf("note %q lacks %q", n, want)
		}
	}
	var sb strings.Builder
	whatifSection(&sb, "run", []WhatifTopic{{Topic: "t", Note: n}})
	if !strings.Contains(sb.String(), `<p class="meta">note: the log holds more than whatif reads`) {
		t.Errorf("no note on the page:\n%s", sb.String())
	}
}
