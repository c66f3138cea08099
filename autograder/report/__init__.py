"""Reports: pure renderers of a :class:`~autograder.grade.result.GradeResult` (terminal text, JSON, JUnit XML, HTML
pages and their pictures) and the registry of formats that names them (:mod:`autograder.report.formats`)."""
