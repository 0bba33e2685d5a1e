-- @merge_strategy: scd2
-- @unique_key: customer_id
-- @description: Customer dimension with history of name and city changes
SELECT
  CAST(customer_id AS BIGINT) AS customer_id,
  customer_name,
  customer_city
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY updated_at DESC) AS latest
  FROM {{ ref('bronze.raw_orders') }}
)
WHERE latest = 1
