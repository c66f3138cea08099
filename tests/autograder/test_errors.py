"""The error hierarchy: submission errors become results, grader errors stop the run."""

from autograder.config import ConfigError as ConfigErrorFromConfig
from autograder.errors import ConfigError, GraderError, SubmissionError


def test_a_config_error_is_a_grader_error():
    assert issubclass(ConfigError, GraderError)
    assert ConfigErrorFromConfig is ConfigError
    assert not issubclass(ConfigError, SubmissionError)
