from autograder.export.target import ExportTarget


class GithubTarget(ExportTarget):
    name = "github"
    description = "todo"

    def export(self, context, out):
        return []
