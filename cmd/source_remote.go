package cmd

// Remote segments as a source for every command: lts://DIR (Kafka's
// LocalTieredStorage directory) and s3://BUCKET/PREFIX[/TOPIC-PARTITION]
// (Aiven tiered-storage plugin layout) register themselves with
// segment.RegisterScheme; their options ride on the argument's query
// string (see package remote), so kseg dump's kafka-dump-log argument
// list takes them too.
import _ "github.com/kseg/kseg/remote"
