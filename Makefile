.PHONY: oracle
# Regenerate testdata/segments (fixtures + kafka-dump-log goldens) with a real Kafka broker.
oracle:
	bash oracle/regen/segments.sh
