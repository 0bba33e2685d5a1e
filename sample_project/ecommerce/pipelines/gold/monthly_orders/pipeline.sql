-- @merge_strategy: snapshot
-- @partition_column: month
-- @description: Orders per month and status; each run replaces the months it sees
SELECT
  DATE_FORMAT(order_date, 'yyyy-MM') AS month,
  status,
  COUNT(*) AS orders
FROM {{ ref('silver.clean_orders') }}
GROUP BY 1, 2
