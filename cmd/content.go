package cmd

import (
	"github.com/kseg/kseg/content"
)

// newContentParser picks the record content renderer from the options, in
// kafka-dump-log's precedence: offsets, transaction log, cluster metadata,
// then decoders.
func newContentParser(a *dumpArgs) (content.Parser, error) {
	switch {
	case a.offsets:
		return content.NewOffsetsParser(), nil
	case a.txnLog:
		return content.NewTransactionLogParser(), nil
	case a.metadata:
		return content.NewClusterMetadataParser(), nil
	}
	return content.NewStringParser(a.keyDecoder, a.valDecoder)
}
