"""Pipeline unit tests: given input rows, the pipeline (and its merge strategy) gives expected rows."""
