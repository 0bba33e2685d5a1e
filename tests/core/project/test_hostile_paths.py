"""Names given by users (`upload --as`, `write`) or read from the bucket (object keys, published
lists) must stay inside the project folder: otherwise one sentence, exit 1, nothing written."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from devkit.s3server import SeaweedServer
from rat_tui.core.errors import RatError
from tests.helpers import run_script_here
from tests.lakehelpers import disk_state
from tests.s3helpers import bucket_project

OUTSIDE = "is outside {where}; names must stay inside it"


def project_files(root: Path) -> dict:
    """The project folder and its parent (where an escaping name would land), without app state."""
    return {p: s for p, s in disk_state(root.parent).items() if "/.rat/" not in f"/{p}"}


@pytest.mark.parametrize("name", ["../../escape.csv", "../escape.csv", "/tmp/rat-escape.csv", "a/../../b.csv"])
def test_upload_as_a_name_outside_the_zone_is_refused(sample_copy: Path, tmp_path: Path, name: str):
    source = tmp_path / "in.csv"
    source.write_text("order_id,amount\n1,2\n")
    before = project_files(sample_copy)
    status, results, stderr = run_script_here(sample_copy, f"upload ecommerce orders {source} --as {name}\n")
    assert status == 1 and "Traceback" not in stderr
    assert results[0]["error"] == f"--as '{name}' " + OUTSIDE.format(where="landing zone ecommerce/landing/orders")
    assert project_files(sample_copy) == before and not Path("/tmp/rat-escape.csv").exists()


@pytest.mark.parametrize("name", ["../outside.sql", "/tmp/rat-outside.sql", "ecommerce/../../outside.sql"])
def test_write_outside_the_project_is_refused(sample_copy: Path, name: str):
    before = project_files(sample_copy)
    status, results, _ = run_script_here(sample_copy, f"write {name} <<EOF\nSELECT 1\nEOF\n")
    assert status == 1 and results[0]["error"] == f"path '{name}' " + OUTSIDE.format(where="the project folder")
    assert project_files(sample_copy) == before and not Path("/tmp/rat-outside.sql").exists()


def test_a_bucket_object_whose_key_leads_out_of_its_zone_is_refused(pushed, s3_env: SeaweedServer, tmp_path: Path):
    """SeaweedFS refuses keys with `..` (AWS does not); a key through a link in the folder escapes as well."""
    wb, bucket = pushed
    key = "ecommerce/landing/orders/sub/escape.csv"
    s3_env.client().put_object(Bucket=bucket, Key=key, Body=b"order_id\n1\n")
    fresh = bucket_project(tmp_path / "b", s3_env, bucket)
    (tmp_path / "elsewhere").mkdir()
    (fresh / "ecommerce" / "landing" / "orders").mkdir(parents=True)
    (fresh / "ecommerce" / "landing" / "orders" / "sub").symlink_to(tmp_path / "elsewhere")
    before = project_files(fresh)
    status, results, stderr = run_script_here(fresh, "pull\n")  # opening the folder syncs the zones first
    assert status == 1 and results == []
    assert stderr == (f"rat-tui: {wb.remote.bucket.where} holds object {key}, whose name 'sub/escape.csv' "
                      + OUTSIDE.format(where="landing zone ecommerce/landing/orders") + "\n")
    # Nothing reaches the link's target and the zone is as it was; pipelines and zones synced
    # before this one (legitimate content) stay.
    assert list((tmp_path / "elsewhere").iterdir()) == []
    zone = "b/ecommerce/landing/orders/"
    assert {p: s for p, s in project_files(fresh).items() if p.startswith(zone)} == \
        {p: s for p, s in before.items() if p.startswith(zone)}


def test_a_published_list_naming_a_file_outside_its_pipeline_is_refused(pushed, s3_env: SeaweedServer, tmp_path: Path):
    wb, bucket = pushed
    fqn = "ecommerce.silver.clean_orders"
    wb.versions.publish(fqn, "first")
    key = f".rat/published/{fqn}.json"
    client = s3_env.client()
    document = json.loads(client.get_object(Bucket=bucket, Key=key)["Body"].read())
    version = document["versions"][0]
    version_id = version["files"].pop("pipeline.sql")
    version["files"]["../../../../../escape.sql"] = version_id
    version["content"][version_id]["relpath"] = "ecommerce/pipelines/silver/clean_orders/../../../../../escape.sql"
    version["version"] = 2
    document["versions"].append(version)
    client.put_object(Bucket=bucket, Key=key, Body=json.dumps(document).encode())
    before = project_files(wb.project.root)
    with pytest.raises(RatError) as refused:
        wb.versions.rollback(fqn, 2, restore=True)
    assert refused.value.sentence() == (
        f"{key} in {wb.remote.bucket.where} pins a file whose name '../../../../../escape.sql' "
        + OUTSIDE.format(where="pipeline folder ecommerce/pipelines/silver/clean_orders"))
    assert project_files(wb.project.root) == before
    assert wb.versions.list_versions(fqn).as_dict()["current"] == 1
