package content

import "testing"

// craftedShareGroup are __consumer_offsets share-group records (types
// 10-15). Kafka 4.4.0's --offsets-decoder output for each, "key: K
// payload: P" as one line, is in testdata/sharegroup_crafted.golden;
// regenerate with
//
//	KSEG_WRITE_SHARE=/tmp/y/00000000000000000000.log go test ./content -run TestWriteCraftedShareGroup
//	kafka-dump-log --files /tmp/y/00000000000000000000.log --offsets-decoder --skip-record-metadata | grep '^| key: ' | cut -c3-
var craftedShareGroup = []craftedRecord{
	{"member metadata", enc{}.i16(10).str("g").str("m"), enc{}.i16(0).uv(5).append("rack").cstr("c").cstr("/h").uv(3).cstr("a").cstr("b").uv(0)},
	{"member metadata null rack", enc{}.i16(10).str("g").str("m"), enc{}.i16(0).uv(0).cstr("c").cstr("/h").uv(1).uv(0)},
	{"member metadata tombstone", enc{}.i16(10).str("g").str("m"), nil},
	{"group metadata", enc{}.i16(11).str("g"), enc{}.i16(0).i32(3).i64(-5).uv(0)},
	{"target assignment metadata", enc{}.i16(12).str("g"), enc{}.i16(0).i32(3).uv(1).uv(0).uv(8).i64(99)},
	{"target assignment metadata default ts", enc{}.i16(12).str("g"), enc{}.i16(0).i32(3).uv(0)},
	{"target assignment member", enc{}.i16(13).str("g").str("m"), enc{}.i16(0).uv(2).append(someID).uv(3).i32(0).i32(1).uv(0).uv(0)},
	{"current member assignment", enc{}.i16(14).str("g").str("m"), enc{}.i16(0).i32(4).i32(3).append("\x01").uv(2).append(zeroID).uv(1).uv(0).uv(0)},
	{"state partition metadata", enc{}.i16(15).str("g"), enc{}.i16(0).
		uv(2).append(someID).cstr("t").uv(2).i32(7).uv(0).
		uv(1).
		uv(2).append(someID).cstr("d").uv(0).
		uv(0)},
	{"state partition metadata truncated", enc{}.i16(15).str("g"), enc{}.i16(0).uv(2).append(someID)},
	{"share metadata bad version", enc{}.i16(11).str("g"), enc{}.i16(1).i32(3).i64(-5).uv(0)},
	{"type 9 gone", enc{}.i16(9).str("g"), enc{}.i16(0)},
}

func TestWriteCraftedShareGroup(t *testing.T) { writeCrafted(t, "KSEG_WRITE_SHARE", craftedShareGroup) }

func TestShareGroupCrafted(t *testing.T) {
	checkCrafted(t, "testdata/sharegroup_crafted.golden", craftedShareGroup)
}
