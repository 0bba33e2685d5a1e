-- @severity: error
-- @description: order_id is unique
SELECT order_id, COUNT(*) AS copies FROM {{ this }} GROUP BY order_id HAVING COUNT(*) > 1
