"""OpenLineage run events built with the official client's classes (openlineage-python), from what
one run of a pipeline read, ran and wrote. Datasets are named by the project folder's URI and the
table's `ns.layer.name` (a zone: `ns.landing.zone`); the run id is a UUID derived from ours."""
from __future__ import annotations

import uuid
from datetime import datetime, timezone

from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import (
    column_lineage_dataset,
    data_quality_assertions_dataset,
    dataset_version_dataset,
    error_message_run,
    nominal_time_run,
    output_statistics_output_dataset,
    parent_run,
    schema_dataset,
    source_code_job,
    sql_job,
)

from ..store.state import QualityOutcome
from .model import INDIRECT, UNKNOWN, PipelineLineage
from .run_facts import RunFacts

PRODUCER = "https://github.com/rat-tui/rat-tui"
# A held run is still running (review ends it: approve completes it, reject aborts it); other ends FAIL.
STATES = {"start": RunState.START, "success": RunState.COMPLETE, "awaiting_review": RunState.RUNNING,
          "skipped": RunState.COMPLETE, "cancelled": RunState.ABORT, "rejected": RunState.ABORT}


def run_uuid(project_uri: str, run_id: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{project_uri}#run/{run_id}"))


def _time(at: float) -> str:
    return datetime.fromtimestamp(at, timezone.utc).isoformat().replace("+00:00", "Z")


def _assertions(outcomes: tuple[QualityOutcome, ...]):
    return data_quality_assertions_dataset.DataQualityAssertionsDatasetFacet(assertions=[
        data_quality_assertions_dataset.Assertion(assertion=q.name, success=q.status in ("passed", "warned"),
                                                  severity=q.severity, actual=str(q.violations))
        for q in outcomes])


def _column_lineage(project_uri: str, lineage: PipelineLineage):
    fields: dict[str, column_lineage_dataset.Fields] = {}
    for column in lineage.columns:
        inputs = [column_lineage_dataset.InputField(
            namespace=project_uri, name=edge.source.table, field=edge.source.column,
            transformations=[column_lineage_dataset.Transformation(
                type=INDIRECT.upper() if edge.kind == INDIRECT else "DIRECT",
                subtype=edge.via.upper().replace(" ", "_"),
                description="not known: " + (lineage.problem or "") if edge.kind == UNKNOWN else None)])
            for edge in lineage.edges_into(column)]
        fields[column] = column_lineage_dataset.Fields(inputFields=inputs)
    return column_lineage_dataset.ColumnLineageDatasetFacet(fields=fields)


def run_event(project_uri: str, facts: RunFacts) -> RunEvent:
    run_facets: dict = {}
    if facts.nominal_time is not None:
        run_facets["nominalTime"] = nominal_time_run.NominalTimeRunFacet(nominalStartTime=_time(facts.nominal_time))
    if facts.parent is not None:
        run_facets["parent"] = parent_run.ParentRunFacet(
            run=parent_run.Run(runId=run_uuid(project_uri, facts.parent.run_key)),
            job=parent_run.Job(namespace=project_uri, name=facts.parent.job))
    state = STATES.get(facts.status, RunState.FAIL)
    if state == RunState.FAIL and facts.error:
        run_facets["errorMessage"] = error_message_run.ErrorMessageRunFacet(
            message=facts.error, programmingLanguage="SQL" if facts.kind == "sql" else "PYTHON")
    job_facets: dict = {"sourceCode": source_code_job.SourceCodeJobFacet(
        language="SQL" if facts.kind == "sql" else "PYTHON", sourceCode=facts.source)}
    if facts.compiled:
        job_facets["sql"] = sql_job.SQLJobFacet(query=facts.compiled, dialect="spark")
    output_facets: dict = {}
    if facts.columns:
        output_facets["schema"] = schema_dataset.SchemaDatasetFacet(
            fields=[schema_dataset.SchemaDatasetFacetFields(name=name, type=kind) for name, kind in facts.columns])
    if facts.lineage is not None:
        output_facets["columnLineage"] = _column_lineage(project_uri, facts.lineage)
    if facts.snapshot_id is not None:
        output_facets["version"] = dataset_version_dataset.DatasetVersionDatasetFacet(
            datasetVersion=str(facts.snapshot_id))
    if facts.quality:
        output_facets["dataQualityAssertions"] = _assertions(facts.quality)
    statistics = {}
    if facts.rows_written is not None and state != RunState.START:
        statistics["outputStatistics"] = output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
            rowCount=facts.rows_written)
    inputs = []
    for read in facts.inputs:
        facets = {} if read.snapshot_id is None else {
            "version": dataset_version_dataset.DatasetVersionDatasetFacet(datasetVersion=str(read.snapshot_id))}
        input_facets = {"dataQualityAssertions": _assertions(read.assertions)} if read.assertions else {}
        inputs.append(InputDataset(namespace=project_uri, name=read.name, facets=facets, inputFacets=input_facets))
    return RunEvent(
        eventType=state, eventTime=_time(facts.at), producer=PRODUCER,
        run=Run(runId=run_uuid(project_uri, facts.run_id), facets=run_facets),
        job=Job(namespace=project_uri, name=facts.pipeline, facets=job_facets),
        inputs=inputs,
        outputs=[OutputDataset(namespace=project_uri, name=facts.pipeline, facets=output_facets,
                               outputFacets=statistics)])
