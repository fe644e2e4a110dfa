"""The query log (:class:`QueryLog`) and replay of logged questions (:mod:`clinqa.logs.replay`)."""

from clinqa.logs.querylog import (
    FAILURE_CATEGORIES,
    SCHEMA_VERSION,
    SCORES,
    QueryLog,
    latest_feedback,
    log_answer,
    model_id_of,
    open_existing_log,
)

__all__ = ["FAILURE_CATEGORIES", "SCHEMA_VERSION", "SCORES", "QueryLog", "latest_feedback", "log_answer",
           "model_id_of", "open_existing_log"]
