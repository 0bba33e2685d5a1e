-- @merge_strategy: incremental
-- @unique_key: order_id
-- @watermark_column: updated_at
-- @description: Typed, de-duplicated orders; re-uploaded orders update in place
SELECT
  CAST(order_id AS BIGINT) AS order_id,
  CAST(customer_id AS BIGINT) AS customer_id,
  CAST(product_id AS BIGINT) AS product_id,
  CAST(quantity AS INT) AS quantity,
  CAST(amount AS DECIMAL(12, 2)) AS amount,
  LOWER(TRIM(status)) AS status,
  CAST(order_date AS DATE) AS order_date,
  CAST(updated_at AS TIMESTAMP) AS updated_at
FROM {{ ref('bronze.raw_orders') }}
{% if is_incremental() %}
WHERE CAST(updated_at AS TIMESTAMP) >= TIMESTAMP '{{ watermark_value }}'
{% endif %}
ORDER BY updated_at
