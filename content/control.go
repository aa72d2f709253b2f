package content

// KRaft control records (__cluster_metadata logs and snapshots): the values
// of control types 2-6 are generated messages, restated here from the
// message JSON files of Kafka 4.4.0's clients jar (common/message/
// LeaderChangeMessage.json, SnapshotHeaderRecord.json,
// SnapshotFooterRecord.json, KRaftVersionRecord.json, VotersRecord.json).
// Every one is flexible in all versions and starts with its own int16
// Version field; there is no version prefix.

// leaderChangeVoter is LeaderChangeMessage's common struct Voter.
var leaderChangeVoter = nested("Voter",
	fld("voterId", kInt32, "0+"),
	fld("voterDirectoryId", kUUID, "1+"),
)

// controlRecordSchemas are the value schemas by ControlRecordType id.
// VotersRecord's Endpoints are keyed by Name in Kafka, but their collection
// is an ImplicitLinkedHashMultiCollection, which keeps duplicates, so the
// field is not keyed() here.
var controlRecordSchemas = map[int16]*schema{
	2: msg("LeaderChangeMessage", "0-1", "0+",
		fld("version", kInt16, "0+"),
		fld("leaderId", kInt32, "0+"),
		arrOf("voters", leaderChangeVoter, "0+"),
		arrOf("grantingVoters", leaderChangeVoter, "0+"),
	),
	3: msg("SnapshotHeaderRecord", "0", "0+",
		fld("version", kInt16, "0+"),
		fld("lastContainedLogTimestamp", kInt64, "0+"),
	),
	4: msg("SnapshotFooterRecord", "0", "0+",
		fld("version", kInt16, "0+"),
	),
	5: msg("KRaftVersionRecord", "0", "0+",
		fld("version", kInt16, "0+"),
		fld("kRaftVersion", kInt16, "0+"),
	),
	6: msg("VotersRecord", "0", "0+",
		fld("version", kInt16, "0+"),
		arrOf("voters", nested("Voter",
			fld("voterId", kInt32, "0+"),
			fld("voterDirectoryId", kUUID, "0+"),
			arrOf("endpoints", nested("Endpoint",
				fld("name", kString, "0+"),
				fld("host", kString, "0+"),
				fld("port", kUint16, "0+"),
			), "0+"),
			structField("kRaftVersionFeature", nested("KRaftVersionFeature",
				fld("minSupportedVersion", kInt16, "0+"),
				fld("maxSupportedVersion", kInt16, "0+"),
			), "0+"),
		), "0+"),
	),
}

// AppendControlRecord appends the JSON that kafka-dump-log prints for the
// value of a KRaft control record of type typ (the int16 in the control
// record key): 2 LEADER_CHANGE, 3 SNAPSHOT_HEADER, 4 SNAPSHOT_FOOTER,
// 5 KRAFT_VERSION, 6 KRAFT_VOTERS. As ControlRecordUtils does, the value is
// read at schema version 0 (trailing bytes are ignored); as DumpLogSegments
// does, the JSON is written at the version the message's own Version field
// holds, so a LeaderChange of Version 1 or more shows each voter's
// voterDirectoryId (never read, so the zero UUID).
//
// ok is false, and nothing is appended, for the other types (ABORT and
// COMMIT markers, unknown ids), whose values are not generated messages. A
// value that does not decode returns dst unchanged and a *CrashError: the
// exception that stops kafka-dump-log at the record at offset.
func AppendControlRecord(dst []byte, offset int64, typ int16, value []byte) (out []byte, ok bool, err error) {
	s := controlRecordSchemas[typ]
	if s == nil {
		return dst, false, nil
	}
	vals, err := decodeMessage(value, s, 0)
	if err != nil {
		return dst, true, crash(err, offset)
	}
	ver := int16(vals[0].i) // every control schema starts with its Version
	atWriteVersion(s, vals, ver)
	var w jsonWriter
	return w.appendStruct(dst, s, vals, ver), true, nil
}

// atWriteVersion prepares values read at one version for the generated JSON
// converter writing at version ver: a field the converter writes at ver
// that the reader did not read holds its default, as the message
// constructor left it. (The opposite case, a field read but not written,
// cannot arise for the control schemas: what version 0 reads is "0+",
// which the converter writes at every version.)
func atWriteVersion(s *schema, vals []value, ver int16) {
	writes := decoder{ver: ver, loose: true} // the converter's version tests
	for i := range s.fields {
		f, v := &s.fields[i], &vals[i]
		if !v.set && !f.tagged && writes.in(f.versions) {
			*v = defaultValue(f)
		}
		if v.null {
			continue
		}
		switch {
		case f.kind == kStruct:
			atWriteVersion(f.sub, v.list, ver)
		case f.kind == kArray && f.elem == kStruct:
			for j := range v.list {
				atWriteVersion(f.sub, v.list[j].list, ver)
			}
		}
	}
}
