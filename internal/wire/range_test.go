package wire

// A fetched partition's reader tells the dump the offsets asked for, so it
// prints only their records (internal/dump.OffsetRanger).
var _ interface{ OffsetRange() (from, to int64) } = (*reader)(nil)
