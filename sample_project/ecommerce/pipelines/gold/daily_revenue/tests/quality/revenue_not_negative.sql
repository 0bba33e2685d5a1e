-- @description: revenue per day is never negative
SELECT * FROM {{ this }} WHERE revenue < 0
