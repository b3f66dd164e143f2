// franz-go producer (the Kafka client inside the OpenTelemetry Collector's kafka exporter), used
// once to capture compressed record batches as test fixtures in kafka/testdata/ (decoded by
// test/integration/kafka-smoke.test.ts, so CI needs no Go toolchain).
//
// Regenerate (broker on 127.0.0.1:9092):
//
//	cd kafka/tools/franz && go build -o /tmp/franz . && for c in snappy lz4 zstd; do
//	  t=franz-$c-$RANDOM; /tmp/franz 127.0.0.1:9092 $t $c   # then cut the batch payload (bytes 61..12+batchLength)
//	done                                                     # of .kafka/data/$t-0/00000000000000000000.log
//
// Usage: franz <brokers> <topic> <gzip|snappy|lz4|zstd>: 25 records, key k<i>, value "franz-<i> " + padding.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	brokers, topic, codec := os.Args[1], os.Args[2], os.Args[3]
	var c kgo.CompressionCodec
	switch codec {
	case "gzip":
		c = kgo.GzipCompression()
	case "snappy":
		c = kgo.SnappyCompression()
	case "lz4":
		c = kgo.Lz4Compression()
	case "zstd":
		c = kgo.ZstdCompression()
	default:
		c = kgo.NoCompression()
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers),
		kgo.ProducerBatchCompression(c),
		kgo.DefaultProduceTopic(topic),
		kgo.ProducerLinger(50e6),
	)
	if err != nil {
		panic(err)
	}
	defer cl.Close()
	pad := strings.Repeat("franz-span ", 150)
	var recs []*kgo.Record
	for i := 0; i < 25; i++ {
		recs = append(recs, &kgo.Record{Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("franz-%d %s", i, pad))})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		panic(err)
	}
}
