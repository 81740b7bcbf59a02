"""compaction layer."""
