-- @severity: error
-- @description: every order has an id
SELECT * FROM {{ this }} WHERE order_id IS NULL
