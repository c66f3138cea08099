"""``attn-course review ASSIGNMENT --gradebook FILE``: grade the written answers in the browser (see autograder/written)."""

from __future__ import annotations

import getpass
from pathlib import Path

import click

from autograder.cli_common import common_options, load_ctx_course
from autograder.languages import KNOWN_LANGUAGES

DEFAULT_GRADEBOOK = Path("gradebook.sqlite3")


@click.command("review")
@click.argument("assignment_id")
@click.option("--gradebook", "gradebook_path", type=click.Path(path_type=Path, dir_okay=False), default=DEFAULT_GRADEBOOK,
              show_default=True, help="The SQLite gradebook holding the answers (what `attn-course grade` wrote).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="The port on 127.0.0.1 (0: a free one).")
@click.option("--by", "who", help="Who grades (default: the user running the command); kept with each grade.")
@click.option("--lang", type=click.Choice(list(KNOWN_LANGUAGES)), default=None,
              help="Language of the page (default: course.yml's feedback_language).")
@common_options
@click.pass_context
def review(ctx, assignment_id: str, gradebook_path: Path, port: int, who: str | None, lang: str | None) -> None:
    """Grade ASSIGNMENT_ID's written answers in a local web page: one answer at a time, student hidden, rubric keys."""
    import tornado.ioloop

    from autograder.written.server import start

    course = load_ctx_course(ctx)
    url, session = start(course, assignment_id, gradebook_path, (who or getpass.getuser()).strip(),
                         course.feedback_language_for(lang))
    click.echo(f"review the written answers of {assignment_id}: {url}", err=False)
    click.echo("(only this machine can open it; the address holds this run's token. Ctrl-C stops.)")
    try:
        tornado.ioloop.IOLoop.current().start()
    except KeyboardInterrupt:
        pass
    finally:
        session.close()
