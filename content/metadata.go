package content

import (
	"fmt"
	"strconv"
)

// KRaft metadata records (__cluster_metadata), restated from the message
// JSON files of Kafka 4.4.0's kafka-metadata jar (common/metadata/*.json).
// Every record type is flexible in all versions.

// metaMsg builds a metadata record schema: flexible in every version.
func metaMsg(name, valid string, fields ...field) *schema { return msg(name, valid, "0+", fields...) }

// tagNull marks f as tagged field tag, nullable in the versions given, with
// default null (written to JSON iff it is not null).
func (f field) tagNull(tag int32, nullable string) field {
	f = f.null(nullable).withTag(tag, 0)
	f.defNull = true
	return f
}

var metadataFeature = nested("Feature",
	fld("name", kString, "0+"),
	fld("minSupportedVersion", kInt16, "0+"),
	fld("maxSupportedVersion", kInt16, "0+"),
)

var metadataEndpoint = nested("Endpoint",
	fld("name", kString, "0+"),
	fld("host", kString, "0+"),
	fld("port", kUint16, "0+"),
	fld("securityProtocol", kInt16, "0+"),
)

// metadataType is one MetadataRecordType: its enum name and schema.
type metadataType struct {
	name   string
	schema *schema
}

// metadataRecordTypes is MetadataRecordType of Kafka 4.4.0 by id.
var metadataRecordTypes = map[int16]metadataType{
	0: {"REGISTER_BROKER_RECORD", metaMsg("RegisterBrokerRecord", "0-4",
		fld("brokerId", kInt32, "0+"),
		fld("isMigratingZkBroker", kBool, "2+"),
		fld("incarnationId", kUUID, "0+"),
		fld("brokerEpoch", kInt64, "0+"),
		arrOf("endPoints", metadataEndpoint, "0+"),
		arrOf("features", metadataFeature, "0+"),
		fld("rack", kString, "0+").null("0+"),
		fld("fenced", kBool, "0+"),
		fld("inControlledShutdown", kBool, "1+"),
		arr("logDirs", kUUID, "3+").withTag(0, 0),
		arr("cordonedLogDirs", kUUID, "4+").tagNull(1, "4+"),
	)},
	1: {"UNREGISTER_BROKER_RECORD", metaMsg("UnregisterBrokerRecord", "0",
		fld("brokerId", kInt32, "0+"),
		fld("brokerEpoch", kInt64, "0+"),
	)},
	2: {"TOPIC_RECORD", metaMsg("TopicRecord", "0",
		fld("name", kString, "0+"),
		fld("topicId", kUUID, "0+"),
	)},
	3: {"PARTITION_RECORD", metaMsg("PartitionRecord", "0-2",
		fld("partitionId", kInt32, "0+"),
		fld("topicId", kUUID, "0+"),
		arr("replicas", kInt32, "0+"),
		arr("isr", kInt32, "0+"),
		arr("removingReplicas", kInt32, "0+"),
		arr("addingReplicas", kInt32, "0+"),
		fld("leader", kInt32, "0+"),
		fld("leaderRecoveryState", kInt8, "0+").withTag(0, 0),
		fld("leaderEpoch", kInt32, "0+"),
		fld("partitionEpoch", kInt32, "0+"),
		arr("directories", kUUID, "1+"),
		arr("eligibleLeaderReplicas", kInt32, "2+").tagNull(1, "2+"),
		arr("lastKnownElr", kInt32, "2+").tagNull(2, "2+"),
	)},
	4: {"CONFIG_RECORD", metaMsg("ConfigRecord", "0",
		fld("resourceType", kInt8, "0+"),
		fld("resourceName", kString, "0+"),
		fld("name", kString, "0+"),
		fld("value", kString, "0+").null("0+"),
	)},
	5: {"PARTITION_CHANGE_RECORD", metaMsg("PartitionChangeRecord", "0-2",
		fld("partitionId", kInt32, "0+"),
		fld("topicId", kUUID, "0+"),
		arr("isr", kInt32, "0+").tagNull(0, "0+"),
		fld("leader", kInt32, "0+").withTag(1, -2),
		arr("replicas", kInt32, "0+").tagNull(2, "0+"),
		arr("removingReplicas", kInt32, "0+").tagNull(3, "0+"),
		arr("addingReplicas", kInt32, "0+").tagNull(4, "0+"),
		fld("leaderRecoveryState", kInt8, "0+").withTag(5, -1),
		arr("directories", kUUID, "1+").tagNull(8, "1+"),
		arr("eligibleLeaderReplicas", kInt32, "2+").tagNull(6, "2+"),
		arr("lastKnownElr", kInt32, "2+").tagNull(7, "2+"),
	)},
	7: {"FENCE_BROKER_RECORD", metaMsg("FenceBrokerRecord", "0",
		fld("id", kInt32, "0+"),
		fld("epoch", kInt64, "0+"),
	)},
	8: {"UNFENCE_BROKER_RECORD", metaMsg("UnfenceBrokerRecord", "0",
		fld("id", kInt32, "0+"),
		fld("epoch", kInt64, "0+"),
	)},
	9: {"REMOVE_TOPIC_RECORD", metaMsg("RemoveTopicRecord", "0",
		fld("topicId", kUUID, "0+"),
	)},
	10: {"DELEGATION_TOKEN_RECORD", metaMsg("DelegationTokenRecord", "0",
		fld("owner", kString, "0+"),
		fld("requester", kString, "0+"),
		arr("renewers", kString, "0+"),
		fld("issueTimestamp", kInt64, "0+"),
		fld("maxTimestamp", kInt64, "0+"),
		fld("expirationTimestamp", kInt64, "0+"),
		fld("tokenId", kString, "0+"),
	)},
	11: {"USER_SCRAM_CREDENTIAL_RECORD", metaMsg("UserScramCredentialRecord", "0",
		fld("name", kString, "0+"),
		fld("mechanism", kInt8, "0+"),
		fld("salt", kBytes, "0+"),
		fld("storedKey", kBytes, "0+"),
		fld("serverKey", kBytes, "0+"),
		fld("iterations", kInt32, "0+"),
	)},
	12: {"FEATURE_LEVEL_RECORD", metaMsg("FeatureLevelRecord", "0",
		fld("name", kString, "0+"),
		fld("featureLevel", kInt16, "0+"),
	)},
	14: {"CLIENT_QUOTA_RECORD", metaMsg("ClientQuotaRecord", "0",
		arrOf("entity", nested("EntityData",
			fld("entityType", kString, "0+"),
			fld("entityName", kString, "0+").null("0+"),
		), "0+"),
		fld("key", kString, "0+"),
		fld("value", kFloat64, "0+"),
		fld("remove", kBool, "0+"),
	)},
	15: {"PRODUCER_IDS_RECORD", metaMsg("ProducerIdsRecord", "0",
		fld("brokerId", kInt32, "0+"),
		fld("brokerEpoch", kInt64, "0+"),
		fld("nextProducerId", kInt64, "0+"),
	)},
	17: {"BROKER_REGISTRATION_CHANGE_RECORD", metaMsg("BrokerRegistrationChangeRecord", "0-3",
		fld("brokerId", kInt32, "0+"),
		fld("brokerEpoch", kInt64, "0+"),
		fld("fenced", kInt8, "0+").withTag(0, 0),
		fld("inControlledShutdown", kInt8, "1+").withTag(1, 0),
		arr("logDirs", kUUID, "2+").withTag(2, 0),
		arr("cordonedLogDirs", kUUID, "3+").tagNull(3, "3+"),
	)},
	18: {"ACCESS_CONTROL_ENTRY_RECORD", metaMsg("AccessControlEntryRecord", "0",
		fld("id", kUUID, "0+"),
		fld("resourceType", kInt8, "0+"),
		fld("resourceName", kString, "0+"),
		fld("patternType", kInt8, "0+"),
		fld("principal", kString, "0+"),
		fld("host", kString, "0+"),
		fld("operation", kInt8, "0+"),
		fld("permissionType", kInt8, "0+"),
	)},
	19: {"REMOVE_ACCESS_CONTROL_ENTRY_RECORD", metaMsg("RemoveAccessControlEntryRecord", "0",
		fld("id", kUUID, "0+"),
	)},
	20: {"NO_OP_RECORD", metaMsg("NoOpRecord", "0")},
	21: {"ZK_MIGRATION_STATE_RECORD", metaMsg("ZkMigrationStateRecord", "0",
		fld("zkMigrationState", kInt8, "0+"),
	)},
	22: {"REMOVE_USER_SCRAM_CREDENTIAL_RECORD", metaMsg("RemoveUserScramCredentialRecord", "0",
		fld("name", kString, "0+"),
		fld("mechanism", kInt8, "0+"),
	)},
	23: {"BEGIN_TRANSACTION_RECORD", metaMsg("BeginTransactionRecord", "0",
		fld("name", kString, "0+").tagNull(0, "0+"),
	)},
	24: {"END_TRANSACTION_RECORD", metaMsg("EndTransactionRecord", "0")},
	25: {"ABORT_TRANSACTION_RECORD", metaMsg("AbortTransactionRecord", "0",
		fld("reason", kString, "0+").tagNull(0, "0+"),
	)},
	26: {"REMOVE_DELEGATION_TOKEN_RECORD", metaMsg("RemoveDelegationTokenRecord", "0",
		fld("tokenId", kString, "0+"),
	)},
	27: {"REGISTER_CONTROLLER_RECORD", metaMsg("RegisterControllerRecord", "0",
		fld("controllerId", kInt32, "0+"),
		fld("incarnationId", kUUID, "0+"),
		fld("zkMigrationReady", kBool, "0+"),
		arrOf("endPoints", metadataEndpoint, "0+"),
		arrOf("features", metadataFeature, "0+"),
	)},
	28: {"CLEAR_ELR_RECORD", metaMsg("ClearElrRecord", "0",
		fld("topicName", kString, "0+"),
	)},
	29: {"UNREGISTER_CONTROLLER_RECORD", metaMsg("UnregisterControllerRecord", "0",
		fld("controllerId", kInt32, "0+"),
	)},
}

type clusterMetadataParser struct{ buf []byte }

// NewClusterMetadataParser returns the --cluster-metadata-decoder parser
// (KRaft __cluster_metadata logs and snapshots), Kafka 4.4 format: no key;
// the value [frame version 1][apiKey][version][record], all unsigned
// varints but the record, prints as
// {"type":"<MetadataRecordType>","version":<v>,"data":{...}}, and any
// failure as "Error at <offset>, skipping. <message>".
func NewClusterMetadataParser() Parser { return &clusterMetadataParser{} }

// Clone implements Cloner.
func (p *clusterMetadataParser) Clone() Parser { return &clusterMetadataParser{} }

func (p *clusterMetadataParser) Parse(offset int64, _, val []byte) (Result, error) {
	b, msg := p.render(p.buf[:0], val)
	if msg != "" {
		return Result{Payload: "Error at " + strconv.FormatInt(offset, 10) + ", skipping. " + msg, HasPayload: true}, nil
	}
	p.buf = b
	return Result{Payload: string(b), HasPayload: true}, nil
}

// render appends the JSON of one metadata record to dst, or returns the
// message of the exception MetadataRecordSerde.read would throw.
func (p *clusterMetadataParser) render(dst, val []byte) ([]byte, string) {
	r := reader{b: val} // a null value reads like an empty one: the first read fails
	frame, msg := unsignedIntToShort(&r, "frame version")
	if msg != "" {
		return dst, msg
	}
	if frame == 0 {
		return dst, "Could not deserialize metadata record with frame version 0. Note that upgrades from the preview release of KRaft in 2.8 to newer versions are not supported."
	}
	if frame != 1 {
		return dst, fmt.Sprintf("Could not deserialize metadata record due to unknown frame version %d(only frame version 1 is supported)", frame)
	}
	typ, msg := unsignedIntToShort(&r, "type")
	if msg != "" {
		return dst, msg
	}
	ver, msg := unsignedIntToShort(&r, "version")
	if msg != "" {
		return dst, msg
	}
	mt, ok := metadataRecordTypes[typ]
	if !ok {
		return dst, fmt.Sprintf("org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id %d", typ)
	}
	// Generated read methods check no version: every version reads,
	// flexible, with the fields its version tests select.
	d := decoder{r: reader{b: r.b[r.p:]}, ver: ver, flex: true, loose: true}
	vals, err := d.structFields(mt.schema)
	if err != nil {
		return dst, fmt.Sprintf("Failed to deserialize record with type %d", typ)
	}
	if n := d.r.remaining(); n > 0 {
		return dst, fmt.Sprintf("Found %d byte(s) of garbage after %d", n, typ)
	}
	var w jsonWriter
	dst = append(dst, `{"type":"`...)
	dst = append(dst, mt.name...)
	dst = append(dst, `","version":`...)
	dst = appendInt(dst, int64(ver))
	dst = append(dst, `,"data":`...)
	dst = w.appendStruct(dst, mt.schema, vals, ver)
	return append(dst, '}'), ""
}

// unsignedIntToShort is AbstractApiMessageSerde.unsignedIntToShort: an
// unsigned varint that must not exceed 32767 (a negative Java int passes
// and is truncated to a short).
func unsignedIntToShort(r *reader, what string) (int16, string) {
	n, err := r.uvarint()
	if err != nil {
		return 0, "Error while reading " + what
	}
	if n > 0x7fff {
		return 0, "Value for " + what + " was too large."
	}
	return int16(n), ""
}
