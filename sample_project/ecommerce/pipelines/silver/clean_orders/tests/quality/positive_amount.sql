-- @severity: warn
-- @description: amounts should be positive (refunds are keyed in by hand and show up here)
SELECT order_id, amount FROM {{ this }} WHERE amount <= 0
