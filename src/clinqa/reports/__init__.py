"""Reports on the query log: the pilot report (:mod:`clinqa.reports.pilot`) and the content-gap
report (:mod:`clinqa.reports.gaps`)."""
