"""What the console's autocomplete offers: namespaces, layers, `ns.layer.table` names, the columns
of the tables a statement names, Spark SQL keywords and functions. Built from the catalog that
`completion_catalog` reads with PyIceberg, so completing never waits on the JVM."""
from __future__ import annotations

import re

from .console_text import tables_named

KEYWORDS = """SELECT FROM WHERE GROUP BY ORDER HAVING LIMIT OFFSET JOIN LEFT RIGHT FULL OUTER INNER CROSS SEMI ANTI
ON USING AS AND OR NOT IN IS NULL LIKE ILIKE RLIKE BETWEEN EXISTS CASE WHEN THEN ELSE END DISTINCT ALL UNION INTERSECT
EXCEPT WITH ASC DESC NULLS FIRST LAST TRUE FALSE VERSION TIMESTAMP OF SYSTEM_TIME SYSTEM_VERSION FOR OVER PARTITION
WINDOW ROWS RANGE UNBOUNDED PRECEDING FOLLOWING CURRENT ROW LATERAL VIEW EXPLODE TABLESAMPLE PIVOT UNPIVOT QUALIFY
INTERVAL DATE SHOW TABLES NAMESPACES COLUMNS DESCRIBE EXTENDED EXPLAIN FORMATTED CAST""".split()

FUNCTIONS = """abs acos add_months aggregate any any_value approx_count_distinct approx_percentile array array_agg
array_contains array_distinct array_except array_intersect array_join array_max array_min array_position array_remove
array_repeat array_size array_sort array_union arrays_overlap arrays_zip ascii asin atan atan2 avg base64 bigint
bit_length bool_and bool_or btrim cardinality cast cbrt ceil ceiling char char_length character_length coalesce
collect_list collect_set concat concat_ws contains conv corr cos cosh count count_if count_min_sketch covar_pop
covar_samp crc32 cume_dist current_catalog current_database current_date current_timestamp current_timezone
date_add date_diff date_format date_from_unix_date date_part date_sub date_trunc dateadd datediff day dayofmonth
dayofweek dayofyear decode degrees dense_rank double element_at endswith every exists exp explode explode_outer expm1
extract factorial filter find_in_set first first_value flatten float floor forall format_number format_string
from_csv from_json from_unixtime from_utc_timestamp get get_json_object greatest grouping hash hex histogram_numeric
hour hypot if ifnull ilike initcap inline input_file_name instr int isnan isnotnull isnull json_array_length
json_object_keys json_tuple kurtosis lag last last_day last_value lcase lead least left len length levenshtein like
ln localtimestamp locate log log10 log2 lower lpad ltrim make_date make_interval make_timestamp map map_concat
map_entries map_filter map_from_arrays map_keys map_values max max_by md5 mean median min min_by minute mod mode
monotonically_increasing_id month months_between named_struct nanvl negative next_day now nth_value ntile nullif nvl
nvl2 octet_length overlay percent_rank percentile percentile_approx pi pmod posexplode position positive pow power
quarter radians rand randn rank regexp regexp_count regexp_extract regexp_extract_all regexp_like regexp_replace
regexp_substr repeat replace reverse right rint rlike round row_number rpad rtrim schema_of_json second sequence
sha1 sha2 shuffle sign signum sin sinh size skewness slice smallint sort_array soundex space split split_part sqrt
stack startswith std stddev stddev_pop stddev_samp str_to_map string struct substr substring substring_index sum tan
tanh timestamp timestamp_micros timestamp_millis timestamp_seconds to_char to_csv to_date to_json to_number
to_timestamp to_unix_timestamp to_utc_timestamp transform transform_keys transform_values translate trim trunc
try_add try_avg try_cast try_divide try_element_at try_multiply try_subtract try_sum try_to_number
try_to_timestamp typeof ucase unbase64 unhex unix_date unix_micros unix_millis unix_seconds unix_timestamp upper uuid
var_pop var_samp variance weekday weekofyear when width_bucket xxhash64 year zip_with""".split()

LIMIT = 40
_CHAIN = re.compile(r"[\w`-]+(?:\.[\w`-]*)+$")
Item = tuple[tuple[str, str], str]  # ((label, kind), value inserted)


class Completions:
    def __init__(self, catalog: dict[str, list[tuple[str, str]]]):
        self.catalog = {fqn.lower(): columns for fqn, columns in catalog.items()}
        self.namespaces = sorted({fqn.split(".")[0] for fqn in self.catalog})

    def columns_of(self, statement: str) -> list[tuple[str, str, str]]:
        """(column, type, table) of every known table the statement names."""
        return [(name, kind, fqn) for fqn in tables_named(statement) for name, kind in self.catalog.get(fqn, [])]

    def words(self, prefix: str, statement: str) -> list[Item]:
        """A bare word: columns of the statement's tables first, then namespaces, keywords, functions."""
        p = prefix.lower()
        items: dict[str, Item] = {}
        for name, kind, _ in self.columns_of(statement):
            if name.lower().startswith(p):
                items.setdefault(name, ((name, kind), name))
        for ns in self.namespaces:
            if ns.startswith(p):
                items.setdefault(ns, ((ns, "namespace"), ns))
        for word in KEYWORDS:
            if word.lower().startswith(p):
                value = word if prefix[:1].isupper() or not prefix else word.lower()
                items.setdefault(value, ((value, "keyword"), value))
        for fn in FUNCTIONS:
            if fn.startswith(p):
                items.setdefault(fn, ((fn, "function"), fn))
        return [item for key, item in items.items() if key.lower() != p][:LIMIT]

    def at(self, before: str, replaced: str, statement: str) -> list[Item]:
        """What to offer at the cursor: `before` is its line up to the cursor, `replaced` the text the
        editor swaps for the chosen item (after a dot the editor's member word, `silver.or`; else the
        bare word, `or`). Where the word is qualified (`ns.`, `ns.layer.`, `alias.`) only the names
        under the qualifier, by prefix, never keywords: the editor may lose its member mode (Esc, a
        stale answer closing the list), and a bare `s` after `ecommerce.` must still mean `silver`."""
        chain = chain_before(before) or chain_before(replaced)
        return self.members(chain, statement, replaced) if chain else self.words(replaced, statement)

    def members(self, chain: str, statement: str, replaced: str = "") -> list[Item]:
        """After a dot: `chain` is the whole dotted name before the cursor (`ns.silver.or`). Layers of
        a namespace, tables of a layer, columns of a table; anything else (an alias, `o.`) gets the
        statement's columns. Each value is `replaced`'s qualifier (the part the editor swaps that
        stays) followed by the name."""
        *head, last = chain.lower().split(".")
        keep = replaced.rsplit(".", 1)[0] + "." if "." in replaced else ""
        names: list[tuple[str, str]] = []
        if len(head) == 1 and head[0] in self.namespaces:
            names = [(layer, "layer") for layer in sorted({f.split(".")[1] for f in self.catalog
                                                          if f.startswith(head[0] + ".")})]
        elif len(head) == 2 and head[0] in self.namespaces:
            names = [(f.split(".")[2], "table") for f in sorted(self.catalog) if f.startswith(".".join(head) + ".")]
        elif len(head) == 3 and ".".join(head) in self.catalog:
            names = [(name, kind) for name, kind in self.catalog[".".join(head)]]
        else:
            names = [(name, kind) for name, kind, _ in self.columns_of(statement)]
        seen: dict[str, Item] = {}
        for name, kind in names:
            if name.lower().startswith(last) and name not in seen:
                seen[name] = ((name, kind), keep + name)
        return list(seen.values())[:LIMIT]


def chain_before(text: str) -> str:
    """The dotted name `text` ends with (`ns.sil` in `FROM ns.sil`, back-quotes dropped); "" where the
    last word is not qualified."""
    match = _CHAIN.search(text)
    return match.group(0).replace("`", "") if match else ""
