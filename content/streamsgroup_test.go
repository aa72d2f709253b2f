package content

import "testing"

// craftedStreamsGroup are __consumer_offsets streams-group records (types
// 17 and 19-23; 18 is unused). Kafka 4.4.0's --offsets-decoder output for
// each, "key: K payload: P" as one line, is in
// testdata/streamsgroup_crafted.golden; regenerate with
//
//	KSEG_WRITE_STREAMS=/tmp/y/00000000000000000000.log go test ./content -run TestWriteCraftedStreamsGroup
//	kafka-dump-log --files /tmp/y/00000000000000000000.log --offsets-decoder --skip-record-metadata | grep '^| key: ' | cut -c3-
var craftedStreamsGroup = []craftedRecord{
	{"group metadata", enc{}.i16(17).str("g"), enc{}.i16(0).i32(5).i64(-7).uv(0)},
	{"group metadata all tags", enc{}.i16(17).str("g"), enc{}.i16(0).i32(5).i64(8).uv(4).
		uv(0).uv(4).i32(3).
		uv(1).uv(6).uv(2).cstr("k").cstr("v").uv(0).
		uv(2).uv(4).i32(-2).
		uv(3).uv(4).i32(9)},
	{"group metadata tags at defaults", enc{}.i16(17).str("g"), enc{}.i16(0).i32(5).i64(8).uv(3).
		uv(0).uv(4).i32(-1).
		uv(2).uv(4).i32(-1).
		uv(3).uv(4).i32(-1)},
	{"group metadata null configs", enc{}.i16(17).str("g"), enc{}.i16(0).i32(1).i64(0).uv(1).uv(1).uv(1).uv(0)},
	{"group metadata empty configs", enc{}.i16(17).str("g"), enc{}.i16(0).i32(1).i64(0).uv(1).uv(1).uv(1).uv(1)},
	{"group metadata bad version", enc{}.i16(17).str("g"), enc{}.i16(1).i32(5).i64(-7).uv(0)},
	{"group metadata tombstone", enc{}.i16(17).str("g"), nil},
	{"member metadata", enc{}.i16(19).str("g").str("m"), enc{}.i16(0).uv(0).cstr("r").cstr("c").cstr("/h").
		i32(1000).i32(2).cstr("p").
		append("\x01").cstr("host").i16(-1).uv(0).
		uv(2).cstr("k").cstr("v").uv(0).
		uv(0)},
	{"member metadata null endpoint", enc{}.i16(19).str("g").str("m"), enc{}.i16(0).cstr("i").uv(0).cstr("c").cstr("/h").
		i32(-1).i32(0).cstr("p").append("\xff").uv(1).uv(0)},
	{"member metadata null process", enc{}.i16(19).str("g").str("m"), enc{}.i16(0).uv(0).uv(0).cstr("c").cstr("/h").
		i32(-1).i32(0).uv(0).append("\xff").uv(1).uv(0)},
	{"member metadata tombstone", enc{}.i16(19).str("g").str("m"), nil},
	{"target assignment metadata", enc{}.i16(20).str("g"), enc{}.i16(0).i32(3).uv(1).uv(0).uv(8).i64(99)},
	{"target assignment metadata default ts", enc{}.i16(20).str("g"), enc{}.i16(0).i32(3).uv(0)},
	{"target assignment member", enc{}.i16(21).str("g").str("m"), enc{}.i16(0).
		uv(2).cstr("0_1").uv(3).i32(0).i32(1).uv(0).
		uv(1).
		uv(2).cstr("1").uv(1).uv(0).
		uv(0)},
	{"target assignment member null tasks", enc{}.i16(21).str("g").str("m"), enc{}.i16(0).uv(1).uv(0).uv(1).uv(0)},
	{"current member assignment", enc{}.i16(22).str("g").str("m"), enc{}.i16(0).i32(4).i32(3).append("\x01").
		uv(3).
		cstr("a").uv(2).i32(4).uv(1).uv(0).uv(5).uv(2).i32(7).
		cstr("b").uv(1).uv(0).
		uv(1).uv(1).uv(1).uv(1).
		uv(2).cstr("w").uv(1).uv(1).uv(0).uv(1).uv(0).
		uv(0)},
	{"current member assignment truncated", enc{}.i16(22).str("g").str("m"), enc{}.i16(0).i32(4).i32(3)},
	{"topology", enc{}.i16(23).str("g"), enc{}.i16(0).i32(1).
		uv(2).
		cstr("0").
		uv(2).cstr("in").
		uv(2).cstr("in-.*").
		uv(2).cstr("cl").i32(0).i16(3).uv(2).cstr("cleanup.policy").cstr("compact").uv(0).uv(0).
		uv(2).cstr("rs").
		uv(1).
		uv(2).uv(3).i16(0).i16(-1).uv(1).uv(2).i16(5).uv(0).
		uv(0).
		uv(0)},
	{"topology tombstone", enc{}.i16(23).str("g"), nil},
	// The same absent-tag defaults in consumer-group records.
	{"consumer current member assignment absent epochs", enc{}.i16(8).str("g").str("m"), enc{}.i16(0).i32(4).i32(3).append("\x00").
		uv(2).append(someID).uv(2).i32(1).uv(0).
		uv(1).uv(0)},
	{"consumer member metadata absent classic", enc{}.i16(5).str("g").str("m"), enc{}.i16(0).uv(0).uv(0).cstr("c").cstr("/h").
		uv(1).uv(0).i32(5).uv(0).uv(0)},
	{"type 18 unused", enc{}.i16(18).str("g"), enc{}.i16(0)},
	{"type 24 unknown", enc{}.i16(24).str("g"), enc{}.i16(0)},
}

func TestWriteCraftedStreamsGroup(t *testing.T) {
	writeCrafted(t, "KSEG_WRITE_STREAMS", craftedStreamsGroup)
}

func TestStreamsGroupCrafted(t *testing.T) {
	checkCrafted(t, "testdata/streamsgroup_crafted.golden", craftedStreamsGroup)
}
