"""What a pipeline sees in a unit test: the same RunContext a run uses, with ref() and landing_zone()
reading the test's rows (temp views) and `vars:` standing in for what a run would ask the table."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..lineage.schemas import SchemaReader
from ..run.context import INCREMENTAL_STRATEGIES, SOURCE_FILE_COLUMN, RunContext
from .frames import cast_frame, rows_frame, spark_type
from .spec import Given, UnitTest

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


class UnitContext(RunContext):
    """Set `test` and `views` after construction (RunContext is a dataclass with required fields)."""

    test: UnitTest
    given_views: dict[tuple[str, str], str]  # (function, what it names) -> its view's quoted name

    def prepare(self, test: UnitTest) -> None:
        """One temp view per given input, keyed by what it stands for (a ref by its table)."""
        self.test, self.given_views = test, {}
        for index, given in enumerate(test.given):
            df = self._typed_as_its_table(given, rows_frame(self.spark, given.rows))
            if given.function == "landing_zone" and SOURCE_FILE_COLUMN not in df.columns:
                from pyspark.sql import functions as F

                df = df.withColumn(SOURCE_FILE_COLUMN, F.lit(None).cast("string"))
            self.given_views[self._key(given)] = self.temp_view(df, f"unit_{index}")

    def _typed_as_its_table(self, given: Given, df: "DataFrame") -> "DataFrame":
        """A ref input's text values cast to its table's types where the table has another: a test file holds a
        decimal as text ('10.00', as `U` writes it), and `amount > 0` then cast it to BIGINT and failed. A value
        that does not cast is the test's error, with its line. The table's columns come from its metadata on
        disk (the lake's catalogs are not on a unit test's session); a table not built yet leaves the rows."""
        from pyspark.sql.types import StringType, StructField, StructType

        text = {f.name for f in df.schema.fields if isinstance(f.dataType, StringType)}
        target = self.ref.resolve(given.name) if given.function == "ref" and text else None
        if target is None or target == self.ref:
            return df
        columns = SchemaReader(self.project).table(target) or {}
        typed = {name: kind for name, kind in ((c, spark_type(t)) for c, t in columns.items() if c in text)
                 if kind is not None}
        if not typed:
            return df
        schema = StructType([StructField(f.name, typed[f.name]) if f.name in typed else f for f in df.schema.fields])
        return cast_frame(self.spark, self.test, given.rows, schema, f"given {given.function}('{given.name}')")[0]

    def _key(self, given: Given) -> tuple[str, str]:
        if given.function == "landing_zone":
            return given.function, given.name
        target = self.ref.resolve(given.name)
        if target is None or not self.project.pipeline_dir(target).is_dir():
            raise self.test.error(self.ref.unknown_ref(given.name, self.project.scan().pipelines()), given.line)
        return given.function, target.fqn

    def _given_view(self, function: str, name: str, key: str) -> str:
        view = self.given_views.get((function, key))
        if view is None:
            raise self.test.error(f"the pipeline reads {function}('{name}'), which given: has no rows for")
        return view

    # -- what a run would read from the lake, from the test instead --------------------
    def ref_ident(self, name: str) -> str:
        target = self.resolve_ref(name)
        return self._given_view("ref", name, target.fqn)

    def resolve_ref(self, name: str):  # -> PipelineRef
        target = self.ref.resolve(name)
        if target is None or not self.project.pipeline_dir(target).is_dir() or target == self.ref:
            return super().resolve_ref(name)  # the same sentence a run gives
        return target

    def landing_view(self, zone: str) -> str:
        return self._given_view("landing_zone", zone, zone)

    def landing_df(self, zone: str) -> "DataFrame":
        return self.spark.table(self._given_view("landing_zone", zone, zone)).drop(SOURCE_FILE_COLUMN)

    def is_incremental(self) -> bool:
        if "is_incremental" in self.test.vars:
            return bool(self.test.vars["is_incremental"])
        if self.config.merge_strategy not in INCREMENTAL_STRATEGIES or not self.table_exists:
            return False
        return super().is_incremental()

    def watermark_value(self) -> str | None:
        if "watermark_value" in self.test.vars:
            return _text(self.test.vars["watermark_value"])
        return super().watermark_value()


def _text(value: Any) -> str | None:
    """As a run renders it: a YAML timestamp `2024-01-01 00:00:00` stays in that form."""
    return None if value is None else str(value)
