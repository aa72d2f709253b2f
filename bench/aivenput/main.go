// Command aivenput uploads one segment file to an S3-compatible store laid
// out as Aiven's tiered-storage plugin writes it (internal/aivenfmt), for
// bench/remote.sh. The transformed object is staged in a temporary file.
//
//	aivenput -endpoint URL -bucket B -prefix P -file SEG.log [-chunk N] [-compress]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kseg/kseg/internal/aivenfmt"
)

func main() {
	endpoint := flag.String("endpoint", "", "S3 endpoint URL")
	bucket := flag.String("bucket", "", "bucket (created if missing)")
	prefix := flag.String("prefix", "", "object key prefix")
	file := flag.String("file", "", "segment .log file")
	chunk := flag.Int("chunk", 4<<20, "chunk size (the plugin's chunk.size)")
	compress := flag.Bool("compress", false, "zstd-compress chunks")
	flag.Parse()
	if err := run(*endpoint, *bucket, *prefix, *file, *chunk, *compress); err != nil {
		fmt.Fprintln(os.Stderr, "aivenput:", err)
		os.Exit(1)
	}
}

func run(endpoint, bucket, prefix, file string, chunk int, compress bool) error {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	cl := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.UsePathStyle = true
	})
	cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}) // may exist
	in, err := os.Open(file)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp("", "aivenput-*.log")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	man, err := aivenfmt.Transform(in, tmp, aivenfmt.Options{ChunkSize: chunk, Compress: compress})
	if err != nil {
		return err
	}
	if _, err := tmp.Seek(0, 0); err != nil {
		return err
	}
	main := aivenfmt.MainPath(prefix, "bench", "AAAAAAAAAAAAAAAAAAAAAA", 0, 0, "BBBBBBBBBBBBBBBBBBBBBB")
	st, _ := tmp.Stat()
	if _, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(main + ".log"),
		Body: tmp, ContentLength: aws.Int64(st.Size())}); err != nil {
		return err
	}
	for suffix, b := range map[string][]byte{"indexes": nil, "rsm-manifest": man} {
		if _, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(main + "." + suffix),
			Body: bytesReader(b)}); err != nil {
			return err
		}
	}
	fmt.Printf("s3://%s/%sbench-0 (%d bytes stored)\n", bucket, prefix, st.Size())
	return nil
}

func bytesReader(b []byte) io.ReadSeeker { return bytes.NewReader(b) }
