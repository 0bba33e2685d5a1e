-- @description: Lifetime value per customer, across namespaces
SELECT
  customer_id,
  COUNT(*) AS orders,
  CAST(SUM(amount) AS DECIMAL(14, 2)) AS lifetime_value
FROM {{ ref('ecommerce.silver.clean_orders') }}
GROUP BY customer_id
