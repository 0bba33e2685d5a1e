-- @merge_strategy: append_only
-- @description: Raw orders as uploaded, one row per CSV line; _source_file names the file it came from
SELECT
  *,
  TIMESTAMP '{{ run_started_at }}' AS ingested_at
FROM {{ landing_zone('orders') }}
