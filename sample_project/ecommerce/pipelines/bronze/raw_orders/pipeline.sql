-- @merge_strategy: append_only
-- @archive_landing_zones: true
-- @description: Raw orders as uploaded, one row per CSV line, with the file each came from
SELECT
  *,
  _metadata.file_name AS source_file,
  TIMESTAMP '{{ run_started_at }}' AS ingested_at
FROM {{ landing_zone('orders') }}
