-- @merge_strategy: full_refresh
-- @description: Revenue and order count per day, positive amounts only
SELECT
  order_date,
  COUNT(*) AS orders,
  CAST(SUM(amount) AS DECIMAL(14, 2)) AS revenue
FROM {{ ref('silver.clean_orders') }}
WHERE amount > 0
GROUP BY order_date
