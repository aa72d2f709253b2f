package content

// Message schemas, restated from the message JSON files of Kafka 4.4.0
// (group-coordinator, transaction-coordinator and clients
// common/message/*.json). Field names are the JSON names (first letter
// lower-cased); order is schema order, which is also JSON output order.

func fld(name string, k kind, versions string) field {
	return field{name: name, kind: k, versions: vr(versions), nullable: noVersions, tag: -1}
}

func (f field) null(versions string) field { f.nullable = vr(versions); return f }

// withTag marks f as tagged field tag with numeric default def.
func (f field) withTag(tag int32, def int64) field {
	f.tagged, f.tag, f.defInt = true, tag, def
	return f
}

func arr(name string, elem kind, versions string) field {
	f := fld(name, kArray, versions)
	f.elem = elem
	return f
}

func arrOf(name string, sub *schema, versions string) field {
	f := arr(name, kStruct, versions)
	f.sub = sub
	return f
}

func structField(name string, sub *schema, versions string) field {
	f := fld(name, kStruct, versions)
	f.sub = sub
	return f
}

func (f field) expanding(e expandKind) field { f.expand = e; return f }

func (f field) keyed() field { f.mapKey = true; return f }

func msg(name, valid, flexible string, fields ...field) *schema {
	return &schema{name: name, fields: fields, valid: vr(valid), flexible: vr(flexible)}
}

// nested builds a struct type used inside a message; its flexibility is the
// enclosing message's.
func nested(name string, fields ...field) *schema {
	return &schema{name: name, fields: fields, valid: vr("0+"), flexible: noVersions}
}

// ---- consumer protocol (clients) ----

var consumerProtocolSubscription = msg("ConsumerProtocolSubscription", "0-3", "none",
	arr("topics", kString, "0+"),
	fld("userData", kBytes, "0+").null("0+"),
	arrOf("ownedPartitions", nested("TopicPartition",
		fld("topic", kString, "1+"),
		arr("partitions", kInt32, "1+"),
	), "1+").keyed(),
	fld("generationId", kInt32, "2+"),
	fld("rackId", kString, "3+").null("3+"),
)

var consumerProtocolAssignment = msg("ConsumerProtocolAssignment", "0-3", "none",
	arrOf("assignedPartitions", nested("TopicPartition",
		fld("topic", kString, "0+"),
		arr("partitions", kInt32, "0+"),
	), "0+").keyed(),
	fld("userData", kBytes, "0+").null("0+"),
)

// ---- group coordinator (__consumer_offsets) ----

var offsetCommitKeyFields = []field{
	fld("group", kString, "0"),
	fld("topic", kString, "0"),
	fld("partition", kInt32, "0"),
}

var groupIDKey = []field{fld("groupId", kString, "0")}

var groupMemberKey = []field{fld("groupId", kString, "0"), fld("memberId", kString, "0")}

var consumerGroupTopicPartition = nested("TopicPartition",
	fld("topicId", kUUID, "0+"),
	arr("partitions", kInt32, "0+"),
)

var consumerGroupTopicPartitions = nested("TopicPartitions",
	fld("topicId", kUUID, "0+"),
	arr("partitions", kInt32, "0+"),
	arr("assignmentEpochs", kInt32, "0+").null("0+").withTag(0, 0),
)

var shareTopicPartitionsInfo = nested("TopicPartitionsInfo",
	fld("topicId", kUUID, "0+"),
	fld("topicName", kString, "0+"),
	arr("partitions", kInt32, "0+"),
)

// streamsTaskIDs is StreamsGroupTargetAssignmentMemberValue's TaskIds.
var streamsTaskIDs = nested("TaskIds",
	fld("subtopologyId", kString, "0+"),
	arr("partitions", kInt32, "0+"),
)

// streamsTaskIDsEpochs is StreamsGroupCurrentMemberAssignmentValue's
// TaskIds, which carries the tagged assignment epochs.
var streamsTaskIDsEpochs = nested("TaskIds",
	fld("subtopologyId", kString, "0+"),
	arr("partitions", kInt32, "0+"),
	arr("assignmentEpochs", kInt32, "0+").null("0+").withTag(0, 0),
)

var streamsTopicInfo = nested("TopicInfo",
	fld("name", kString, "0+"),
	fld("partitions", kInt32, "0+"),
	fld("replicationFactor", kInt16, "0+"),
	arrOf("topicConfigs", nested("TopicConfig",
		fld("key", kString, "0+"),
		fld("value", kString, "0+"),
	), "0+"),
)

// recordType pairs the key and value schemas of one coordinator record type.
type recordType struct {
	key   *schema
	value *schema
}

var groupRecordTypes = map[int16]recordType{
	0: {
		msg("LegacyOffsetCommitKey", "0", "none", offsetCommitKeyFields...),
		msg("LegacyOffsetCommitValue", "0", "none",
			fld("offset", kInt64, "0"),
			fld("metadata", kString, "0"),
			fld("commitTimestamp", kInt64, "0"),
		),
	},
	1: {
		msg("OffsetCommitKey", "0", "none", offsetCommitKeyFields...),
		msg("OffsetCommitValue", "0-4", "4+",
			fld("offset", kInt64, "0+"),
			fld("leaderEpoch", kInt32, "3+"),
			fld("metadata", kString, "0+"),
			fld("commitTimestamp", kInt64, "0+"),
			fld("expireTimestamp", kInt64, "1"),
			fld("topicId", kUUID, "4+").withTag(0, 0),
		),
	},
	2: {
		msg("GroupMetadataKey", "0", "none", fld("group", kString, "0")),
		msg("GroupMetadataValue", "0-4", "4+",
			fld("protocolType", kString, "0+"),
			fld("generation", kInt32, "0+"),
			fld("protocol", kString, "0+").null("0+"),
			fld("leader", kString, "0+").null("0+"),
			fld("currentStateTimestamp", kInt64, "2+"),
			arrOf("members", nested("MemberMetadata",
				fld("memberId", kString, "0+"),
				fld("groupInstanceId", kString, "3+").null("3+"),
				fld("clientId", kString, "0+"),
				fld("clientHost", kString, "0+"),
				fld("rebalanceTimeout", kInt32, "1+"),
				fld("sessionTimeout", kInt32, "0+"),
				fld("subscription", kBytes, "0+").expanding(expandSubscription),
				fld("assignment", kBytes, "0+").expanding(expandAssignment),
			), "0+"),
		),
	},
	3: {
		msg("ConsumerGroupMetadataKey", "0", "none", groupIDKey...),
		msg("ConsumerGroupMetadataValue", "0", "0+",
			fld("epoch", kInt32, "0+"),
			fld("metadataHash", kInt64, "0+").withTag(0, 0),
		),
	},
	4: {
		msg("ConsumerGroupPartitionMetadataKey", "0", "none", groupIDKey...),
		msg("ConsumerGroupPartitionMetadataValue", "0", "0+",
			arrOf("topics", nested("TopicMetadata",
				fld("topicId", kUUID, "0+"),
				fld("topicName", kString, "0+"),
				fld("numPartitions", kInt32, "0+"),
				arrOf("partitionMetadata", nested("PartitionMetadata",
					fld("partition", kInt32, "0+"),
					arr("racks", kString, "0+"),
				), "0+"),
			), "0+"),
		),
	},
	5: {
		msg("ConsumerGroupMemberMetadataKey", "0", "none", groupMemberKey...),
		msg("ConsumerGroupMemberMetadataValue", "0", "0+",
			fld("instanceId", kString, "0+").null("0+"),
			fld("rackId", kString, "0+").null("0+"),
			fld("clientId", kString, "0+"),
			fld("clientHost", kString, "0+"),
			arr("subscribedTopicNames", kString, "0+"),
			fld("subscribedTopicRegex", kString, "0+").null("0+"),
			fld("rebalanceTimeoutMs", kInt32, "0+"),
			fld("serverAssignor", kString, "0+").null("0+"),
			structField("classicMemberMetadata", nested("ClassicMemberMetadata",
				fld("sessionTimeoutMs", kInt32, "0+"),
				arrOf("supportedProtocols", nested("ClassicProtocol",
					fld("name", kString, "0+"),
					fld("metadata", kBytes, "0+"),
				), "0+"),
			), "0+").null("0+").withTag(0, 0),
		),
	},
	6: {
		msg("ConsumerGroupTargetAssignmentMetadataKey", "0", "none", groupIDKey...),
		msg("ConsumerGroupTargetAssignmentMetadataValue", "0", "0+",
			fld("assignmentEpoch", kInt32, "0+"),
			fld("assignmentTimestamp", kInt64, "0+").withTag(0, 0),
		),
	},
	7: {
		msg("ConsumerGroupTargetAssignmentMemberKey", "0", "none", groupMemberKey...),
		msg("ConsumerGroupTargetAssignmentMemberValue", "0", "0+",
			arrOf("topicPartitions", consumerGroupTopicPartition, "0+"),
		),
	},
	8: {
		msg("ConsumerGroupCurrentMemberAssignmentKey", "0", "none", groupMemberKey...),
		msg("ConsumerGroupCurrentMemberAssignmentValue", "0", "0+",
			fld("memberEpoch", kInt32, "0+"),
			fld("previousMemberEpoch", kInt32, "0+"),
			fld("state", kInt8, "0+"),
			arrOf("assignedPartitions", consumerGroupTopicPartitions, "0+"),
			arrOf("partitionsPendingRevocation", consumerGroupTopicPartitions, "0+"),
		),
	},
	10: {
		msg("ShareGroupMemberMetadataKey", "0", "none", groupMemberKey...),
		msg("ShareGroupMemberMetadataValue", "0", "0+",
			fld("rackId", kString, "0+").null("0+"),
			fld("clientId", kString, "0+"),
			fld("clientHost", kString, "0+"),
			arr("subscribedTopicNames", kString, "0+"),
		),
	},
	11: {
		msg("ShareGroupMetadataKey", "0", "none", groupIDKey...),
		msg("ShareGroupMetadataValue", "0", "0+",
			fld("epoch", kInt32, "0+"),
			fld("metadataHash", kInt64, "0+"),
		),
	},
	12: {
		msg("ShareGroupTargetAssignmentMetadataKey", "0", "none", groupIDKey...),
		msg("ShareGroupTargetAssignmentMetadataValue", "0", "0+",
			fld("assignmentEpoch", kInt32, "0+"),
			fld("assignmentTimestamp", kInt64, "0+").withTag(0, 0),
		),
	},
	13: {
		msg("ShareGroupTargetAssignmentMemberKey", "0", "none", groupMemberKey...),
		msg("ShareGroupTargetAssignmentMemberValue", "0", "0+",
			arrOf("topicPartitions", consumerGroupTopicPartition, "0+"),
		),
	},
	14: {
		msg("ShareGroupCurrentMemberAssignmentKey", "0", "none", groupMemberKey...),
		msg("ShareGroupCurrentMemberAssignmentValue", "0", "0+",
			fld("memberEpoch", kInt32, "0+"),
			fld("previousMemberEpoch", kInt32, "0+"),
			fld("state", kInt8, "0+"),
			arrOf("assignedPartitions", consumerGroupTopicPartition, "0+"),
		),
	},
	15: {
		msg("ShareGroupStatePartitionMetadataKey", "0", "none", groupIDKey...),
		msg("ShareGroupStatePartitionMetadataValue", "0", "0+",
			arrOf("initializingTopics", shareTopicPartitionsInfo, "0+"),
			arrOf("initializedTopics", shareTopicPartitionsInfo, "0+"),
			arrOf("deletingTopics", nested("TopicInfo",
				fld("topicId", kUUID, "0+"),
				fld("topicName", kString, "0+"),
			), "0+"),
		),
	},
	16: {
		msg("ConsumerGroupRegularExpressionKey", "0", "none",
			fld("groupId", kString, "0"),
			fld("regularExpression", kString, "0"),
		),
		msg("ConsumerGroupRegularExpressionValue", "0", "0+",
			arr("topics", kString, "0+"),
			fld("version", kInt64, "0+"),
			fld("timestamp", kInt64, "0+"),
		),
	},
	17: {
		msg("StreamsGroupMetadataKey", "0", "none", groupIDKey...),
		msg("StreamsGroupMetadataValue", "0", "0+",
			fld("epoch", kInt32, "0+"),
			fld("metadataHash", kInt64, "0+"),
			fld("validatedTopologyEpoch", kInt32, "0+").withTag(0, -1),
			arrOf("lastAssignmentConfigs", nested("LastAssignmentConfig",
				fld("key", kString, "0+"),
				fld("value", kString, "0+"),
			), "0+").null("0+").withTag(1, 0),
			fld("storedDescriptionTopologyEpoch", kInt32, "0+").withTag(2, -1),
			fld("failedDescriptionTopologyEpoch", kInt32, "0+").withTag(3, -1),
		),
	},
	19: {
		msg("StreamsGroupMemberMetadataKey", "0", "none", groupMemberKey...),
		msg("StreamsGroupMemberMetadataValue", "0", "0+",
			fld("instanceId", kString, "0+").null("0+"),
			fld("rackId", kString, "0+").null("0+"),
			fld("clientId", kString, "0+"),
			fld("clientHost", kString, "0+"),
			fld("rebalanceTimeoutMs", kInt32, "0+"),
			fld("topologyEpoch", kInt32, "0+"),
			fld("processId", kString, "0+"),
			structField("userEndpoint", nested("Endpoint",
				fld("host", kString, "0+"),
				fld("port", kUint16, "0+"),
			), "0+").null("0+"),
			arrOf("clientTags", nested("KeyValue",
				fld("key", kString, "0+"),
				fld("value", kString, "0+"),
			), "0+"),
		),
	},
	20: {
		msg("StreamsGroupTargetAssignmentMetadataKey", "0", "none", groupIDKey...),
		msg("StreamsGroupTargetAssignmentMetadataValue", "0", "0+",
			fld("assignmentEpoch", kInt32, "0+"),
			fld("assignmentTimestamp", kInt64, "0+").withTag(0, 0),
		),
	},
	21: {
		msg("StreamsGroupTargetAssignmentMemberKey", "0", "none", groupMemberKey...),
		msg("StreamsGroupTargetAssignmentMemberValue", "0", "0+",
			arrOf("activeTasks", streamsTaskIDs, "0+"),
			arrOf("standbyTasks", streamsTaskIDs, "0+"),
			arrOf("warmupTasks", streamsTaskIDs, "0+"),
		),
	},
	22: {
		msg("StreamsGroupCurrentMemberAssignmentKey", "0", "none", groupMemberKey...),
		msg("StreamsGroupCurrentMemberAssignmentValue", "0", "0+",
			fld("memberEpoch", kInt32, "0+"),
			fld("previousMemberEpoch", kInt32, "0+"),
			fld("state", kInt8, "0+"),
			arrOf("activeTasks", streamsTaskIDsEpochs, "0+"),
			arrOf("standbyTasks", streamsTaskIDsEpochs, "0+"),
			arrOf("warmupTasks", streamsTaskIDsEpochs, "0+"),
			arrOf("activeTasksPendingRevocation", streamsTaskIDsEpochs, "0+"),
			arrOf("standbyTasksPendingRevocation", streamsTaskIDsEpochs, "0+"),
			arrOf("warmupTasksPendingRevocation", streamsTaskIDsEpochs, "0+"),
		),
	},
	23: {
		msg("StreamsGroupTopologyKey", "0", "none", groupIDKey...),
		msg("StreamsGroupTopologyValue", "0", "0+",
			fld("epoch", kInt32, "0+"),
			arrOf("subtopologies", nested("Subtopology",
				fld("subtopologyId", kString, "0+"),
				arr("sourceTopics", kString, "0+"),
				arr("sourceTopicRegex", kString, "0+"),
				arrOf("stateChangelogTopics", streamsTopicInfo, "0+"),
				arr("repartitionSinkTopics", kString, "0+"),
				arrOf("repartitionSourceTopics", streamsTopicInfo, "0+"),
				arrOf("copartitionGroups", nested("CopartitionGroup",
					arr("sourceTopics", kInt16, "0+"),
					arr("sourceTopicRegex", kInt16, "0+"),
					arr("repartitionSourceTopics", kInt16, "0+"),
				), "0+"),
			), "0+"),
		),
	},
}

// ---- transaction coordinator (__transaction_state) ----

var txnRecordTypes = map[int16]recordType{
	0: {
		msg("TransactionLogKey", "0", "none", fld("transactionalId", kString, "0")),
		msg("TransactionLogValue", "0-1", "1+",
			fld("producerId", kInt64, "0+"),
			fld("previousProducerId", kInt64, "1+").withTag(0, -1),
			fld("nextProducerId", kInt64, "1+").withTag(1, -1),
			fld("producerEpoch", kInt16, "0+"),
			fld("nextProducerEpoch", kInt16, "1+").withTag(3, -1),
			fld("transactionTimeoutMs", kInt32, "0+"),
			fld("transactionStatus", kInt8, "0+"),
			arrOf("transactionPartitions", nested("PartitionsSchema",
				fld("topic", kString, "0+"),
				arr("partitionIds", kInt32, "0+"),
			), "0+").null("0+"),
			fld("transactionLastUpdateTimestampMs", kInt64, "0+"),
			fld("transactionStartTimestampMs", kInt64, "0+"),
			fld("clientTransactionVersion", kInt16, "1+").withTag(2, 0),
		),
	},
}

// transactionStateNames are TransactionState.stateName() by id (Kafka 4.4).
var transactionStateNames = [...]string{
	"Empty", "Ongoing", "PrepareCommit", "PrepareAbort",
	"CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence",
}

// ---- share coordinator (__share_group_state) ----

var shareKeyFields = []field{
	fld("groupId", kString, "0"),
	fld("topicId", kUUID, "0"),
	fld("partition", kInt32, "0"),
}

func shareStateBatches(versions string) field {
	return arrOf("stateBatches", nested("StateBatch",
		fld("firstOffset", kInt64, versions),
		fld("lastOffset", kInt64, versions),
		fld("deliveryState", kInt8, versions),
		fld("deliveryCount", kInt16, versions),
	), versions)
}

var shareRecordTypes = map[int16]recordType{
	0: {
		msg("ShareSnapshotKey", "0", "none", shareKeyFields...),
		msg("ShareSnapshotValue", "0", "0+",
			fld("snapshotEpoch", kInt32, "0+"),
			fld("stateEpoch", kInt32, "0+"),
			fld("leaderEpoch", kInt32, "0+"),
			fld("startOffset", kInt64, "0+"),
			fld("deliveryCompleteCount", kInt32, "0+").withTag(0, -1),
			fld("createTimestamp", kInt64, "0+"),
			fld("writeTimestamp", kInt64, "0+"),
			shareStateBatches("0+"),
		),
	},
	1: {
		msg("ShareUpdateKey", "0", "none", shareKeyFields...),
		msg("ShareUpdateValue", "0", "0+",
			fld("snapshotEpoch", kInt32, "0+"),
			fld("leaderEpoch", kInt32, "0+"),
			fld("startOffset", kInt64, "0+"),
			fld("deliveryCompleteCount", kInt32, "0+").withTag(0, -1),
			shareStateBatches("0+"),
		),
	},
}
