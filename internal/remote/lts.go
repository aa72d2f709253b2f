// Package remote reads Kafka segments held in tiered (remote) storage as
// segment.Partitions: Kafka's LocalTieredStorage directory (lts://) and
// S3-compatible object stores laid out by Aiven's
// tiered-storage-for-apache-kafka plugin (s3://), resolved by Resolve.
//
// Options ride on the source argument as a query string, so that every
// command (kseg dump's kafka-dump-log argument list included) takes them the
// same way:
//
//	local=PATH        also take the partition's local segments from PATH (a
//	                  partition directory or a log directory): remote
//	                  segments below the first local offset, then the local
//	                  ones, as one partition
//	metadata=PATH     read __remote_log_metadata under PATH (a partition
//	                  directory or a log directory): remote segments whose
//	                  latest state is not COPY_SEGMENT_FINISHED are left out,
//	                  and a copied segment missing from the store below the
//	                  first local offset is an error (a gap in the history)
//	region=R          S3 region (else the AWS chain: AWS_REGION, profile)
//	endpoint=URL      S3 endpoint override (S3-compatible stores)
//	path-style=1      path-style addressing
//	rsa-key=FILE      PEM RSA private key for encrypted Aiven segments
//	timeout=DURATION  deadline of each S3 request, its retries and body
//	                  included (10s; kseg's --timeout)
//
// The same options can be given once for all arguments with kseg's flags
// --rsa-key, --s3-endpoint, --s3-region and --s3-path-style (Resolve's
// defaults).
// Credentials come from the usual AWS chain (environment, shared files,
// instance roles); AWS_REGION and AWS_ENDPOINT_URL_S3 work as in the AWS CLI.
package remote

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kseg/kseg/segment"
)

// Resolve turns an lts:// or s3:// argument into partitions; ok is false
// for any other argument. defaults are options that apply when arg does
// not set them itself (kseg's --rsa-key, --s3-endpoint, --s3-region and
// --s3-path-style flags).
func Resolve(arg string, defaults url.Values) (parts []segment.Partition, ok bool, err error) {
	switch {
	case strings.HasPrefix(arg, "lts://"):
		parts, err = resolveLTS(arg, defaults)
	case strings.HasPrefix(arg, "s3://"):
		parts, err = resolveS3(arg, defaults)
	default:
		return nil, false, nil
	}
	return parts, true, err
}

// ltsPartitionDir is LocalTieredStorage's RemoteTopicPartitionDirectory
// name, <topic>-<partition>-<topicId> (the topic id is Kafka's 22-character
// URL-safe base64 Uuid); ltsSegmentFile is a RemoteLogSegmentFileset file,
// <startOffset>-<segmentId>.<suffix> (see apache/kafka
// storage/src/test/java/org/apache/kafka/server/log/remote/storage/
// RemoteLogSegmentFileset.java).
var (
	ltsPartitionDir = regexp.MustCompile(`^(.+)-(\d+)-([A-Za-z0-9_-]{22})$`)
	ltsSegmentFile  = regexp.MustCompile(`^(\d+)-([A-Za-z0-9_-]{22})\.log$`)
)

// splitArg splits "scheme://rest?query" into rest and its options.
func splitArg(arg, scheme string, defaults url.Values) (string, url.Values, error) {
	rest := strings.TrimPrefix(arg, scheme+"://")
	var q url.Values
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		var err error
		if q, err = url.ParseQuery(rest[i+1:]); err != nil {
			return "", nil, fmt.Errorf("%s: options: %w", arg, err)
		}
		rest = rest[:i]
	}
	for k, v := range defaults {
		if _, ok := q[k]; !ok && len(v) > 0 {
			if q == nil {
				q = url.Values{}
			}
			q[k] = v
		}
	}
	for k := range q {
		switch k {
		case "local", "metadata", "region", "endpoint", "path-style", "rsa-key", "timeout":
		default:
			return "", nil, fmt.Errorf("%s: unknown option %q (want local, metadata, region, endpoint, path-style, rsa-key, timeout)", arg, k)
		}
	}
	return rest, q, nil
}

// resolveLTS reads lts://DIR[?local=PATH]: DIR is LocalTieredStorage's
// storage directory (the one holding kafka-tiered-storage/, or that
// directory itself) or one of its <topic>-<partition>-<topicId>
// directories.
func resolveLTS(arg string, defaults url.Values) ([]segment.Partition, error) {
	dir, q, err := splitArg(arg, "lts", defaults)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(filepath.Join(dir, "kafka-tiered-storage")); err == nil && st.IsDir() {
		dir = filepath.Join(dir, "kafka-tiered-storage")
	}
	var dirs []string
	if ltsPartitionDir.MatchString(filepath.Base(filepath.Clean(dir))) {
		dirs = []string{dir}
	} else {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if e.IsDir() && ltsPartitionDir.MatchString(e.Name()) {
				dirs = append(dirs, filepath.Join(dir, e.Name()))
			}
		}
		if len(dirs) == 0 {
			return nil, fmt.Errorf("%s: no LocalTieredStorage partition directories (<topic>-<partition>-<topicId>) inside", arg)
		}
	}
	sort.Strings(dirs)
	var out []segment.Partition
	for _, d := range dirs {
		m := ltsPartitionDir.FindStringSubmatch(filepath.Base(filepath.Clean(d)))
		part, _ := strconv.ParseInt(m[2], 10, 32)
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, err
		}
		var segs []segment.Segment
		ids := map[string]string{}
		for _, e := range ents {
			sm := ltsSegmentFile.FindStringSubmatch(e.Name())
			if sm == nil || e.IsDir() {
				continue
			}
			base, err := strconv.ParseInt(sm[1], 10, 64)
			if err != nil {
				continue
			}
			path := filepath.Join(d, e.Name())
			var size int64
			if info, err := e.Info(); err == nil {
				size = info.Size()
			}
			segs = append(segs, segment.Segment{Path: path, BaseOffset: base, Size: size,
				Open: openFile(path, sourceName(d, sm[2], base)), Indexed: true})
			ids[path] = sm[2]
		}
		p, err := assemble(segment.NewRemotePartition(m[1], int32(part), "lts://"+d, segs), ids, q)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// sourceName names a remote segment for output: <dir>/<segmentId>/<20-digit
// base offset>.log, so that it reads like a partition's segment file
// (kafka-dump-log's "Log starting offset" comes from the file name).
func sourceName(dir, segmentID string, base int64) string {
	return fmt.Sprintf("%s/%s/%020d.log", strings.TrimSuffix(dir, "/"), segmentID, base)
}

func openFile(path, name string) func() (segment.Source, io.Closer, error) {
	return func() (segment.Source, io.Closer, error) {
		f, err := os.Open(path)
		if err != nil {
			return segment.Source{}, nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return segment.Source{}, nil, err
		}
		return segment.Source{Name: name, R: f, Size: st.Size()}, f, nil
	}
}

// assemble applies the metadata and local options to one remote partition.
func assemble(p segment.Partition, ids map[string]string, q url.Values) (segment.Partition, error) {
	p, err := withMetadata(p, ids, q.Get("metadata"), localFirstOffset(p, q.Get("local")))
	if err != nil {
		return p, err
	}
	return withLocal(p, q.Get("local"))
}

// withLocal adds the local segments of p's topic-partition found under
// local (a partition directory or a log directory): the remote segments
// that start below the first local offset, then every local one, as one
// partition. A remote segment that starts at or after the first local
// offset is a copy of a local one (Kafka copies closed segments and deletes
// them locally later) and is left out.
func withLocal(p segment.Partition, local string) (segment.Partition, error) {
	if local == "" {
		return p, nil
	}
	parts, err := segment.Partitions([]string{local})
	if err != nil {
		return p, err
	}
	for _, lp := range parts {
		if lp.Topic != p.Topic || lp.Partition != p.Partition || len(lp.Segments) == 0 {
			continue
		}
		first := lp.Segments[0].BaseOffset
		var segs []segment.Segment
		for _, s := range p.Segments {
			if s.BaseOffset < first {
				segs = append(segs, s)
			}
		}
		segs = append(segs, lp.Segments...)
		return segment.NewRemotePartition(p.Topic, p.Partition, p.Dir+"+"+lp.Dir, segs), nil
	}
	return p, fmt.Errorf("%s: no local partition %s-%d with segments", local, p.Topic, p.Partition)
}
