-- @merge_strategy: full_refresh
-- @description: The product catalogue, replaced on every run
SELECT product_id, name, category, price
FROM {{ landing_zone('products') }}
